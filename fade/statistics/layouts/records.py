"""F_RECORD's and F_RECORDS' state (fade.statistics.records)."""

from __future__ import annotations

from fade.statistics.layouts import first

# F_RECORD: the record length found (0: none); a distance << 16 | how many
# repeats in a row agreed on it. F_RECORDS: two candidate record lengths,
# and how many repeats at each distance they have seen.
S_RECORD = first(__name__)
S_RECORD_SEEN = S_RECORD + 1
S_LENGTHS = S_RECORD + 2
S_LENGTH_COUNTS = S_LENGTHS + 2
# F_NUMBERS: the record length that the rows below were measured at, and for
# each row of ROWS_FIRST to ROWS_LAST records, how far the plane through the
# bytes one record, one row and both back missed the bytes lately.
ROWS_FIRST, ROWS_LAST = 2, 64
S_ROWS_AT = S_LENGTH_COUNTS + 2
S_ROWS = S_ROWS_AT + 1
FIELDS = S_ROWS + ROWS_LAST + 1 - ROWS_FIRST - S_RECORD
# F_RECORDS: weight sets by the column (0 to 62, 63 and on) and the bit
# position.
SETS = 64 * 8
