"""F_DNA's state (fade.statistics.dna)."""

from __future__ import annotations

from fade.statistics.layouts import first
from fade.statistics.parts import DNA_DIRECT, DNA_ORDERS

DNA_MATCHES = 2  # the match on this strand and on the other
# The last 31 bases, 2 bits each, newest lowest (A, C, G, T: 0-3); the
# complements of the last 31, newest highest (the other strand's contexts);
# bases seen; the last base's letter case (0 or 32); whether the line is a
# header (> or ;); the line before's length; the high orders' contexts seen
# before; each order's count entry; per match (on this strand, on the
# other), the base it points at in Tables.kind_bytes, its length (0: none)
# and the entry of Tables.match_map for the current bit (-1: none).
S_DNA = first(__name__)
S_DNA_HISTORY, S_DNA_REVERSE, S_DNA_BASES, S_DNA_CASE = S_DNA, S_DNA + 1, S_DNA + 2, S_DNA + 3
S_DNA_HEADER, S_DNA_WIDTH, S_DNA_HITS = S_DNA + 4, S_DNA + 5, S_DNA + 6
S_DNA_ENTRY = S_DNA + 7
S_DNA_POINTER = S_DNA_ENTRY + len(DNA_ORDERS)
S_DNA_LENGTH = S_DNA_POINTER + DNA_MATCHES
S_DNA_MAP = S_DNA_LENGTH + DNA_MATCHES
FIELDS = S_DNA_MAP + DNA_MATCHES - S_DNA
# Weight sets by the high orders' contexts seen (0-7), whether the line may
# end here, whether in a header line, the last two bases, and the bit
# position (and the first set by c0 and the matches: none, short, long).
SETS = 8 * 2 * 2 * 16 * 8
INPUTS = len(DNA_ORDERS) + DNA_MATCHES  # an input per order of counts, and per match


def dna_bits(table_bits: int) -> int:
    """log2 of each hashed count table's entries: half as many as the hash
    table has slots (4 bytes each against 64), at least 2^16."""
    return max(16, table_bits - 1)


def map_entries(table_bits: int) -> int:
    """Tables.kind_map: the four bases' counts (8 bits each) after each
    context, per order: 4^order entries for each direct order, 2^dna_bits
    for each hashed one."""
    return sum(4 ** k if k <= DNA_DIRECT else 1 << dna_bits(table_bits) for k in DNA_ORDERS)

