"""F_TABLE's state (fade.statistics.tables; F_MARKUP reads its fields too)."""

from __future__ import annotations

from fade.statistics.layouts import first
from fade.statistics.parts import DELIMITERS

# The delimiter found (0: none); the field's index in its row, where it
# starts, its bytes so far (hashed); the same field in the row above: where
# it starts and ends in the buffer (-1: none) and its bytes (hashed); per
# candidate delimiter, its count in this row, in the row before, and for
# how many rows in a row the two agreed.
CANDIDATES = len(DELIMITERS)  # tab, comma, semicolon, vertical bar
S_DELIMITER = first(__name__)
S_FIELD, S_FIELD_START, S_FIELD_HASH = S_DELIMITER + 1, S_DELIMITER + 2, S_DELIMITER + 3
S_ABOVE_START, S_ABOVE_END, S_ABOVE_HASH = S_DELIMITER + 4, S_DELIMITER + 5, S_DELIMITER + 6
S_COUNT = S_DELIMITER + 7
S_COUNT_BEFORE = S_COUNT + CANDIDATES
S_AGREED = S_COUNT_BEFORE + CANDIDATES
FIELDS = S_AGREED + CANDIDATES - S_DELIMITER
# Weight sets by the field's index (the last for all after it) and the bit
# position.
TABLE_FIELDS = 64
SETS = TABLE_FIELDS * 8
