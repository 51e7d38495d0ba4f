"""F_JPEG's state (fade.statistics.jpeg, the parser, and
fade.statistics.coefficients, its contexts); it has no field in a stream's
row: its model follows one JPEG in file order."""

from __future__ import annotations

# An input per context, after the contexts' (where F_DNA's are: no model
# has both); weight sets (in F_IMAGE's place: no model has both) by the
# phase (a Huffman code, or its value's extra bits), the coefficient's place
# in zig-zag order and the bits of the code or value so far (2048), then
# F_LAYERS' two (coefficients.jpeg_contexts).
INPUTS = 16
SETS = 8192
# Tables.kind_map: the contexts' adaptive probabilities, 16 a hash table
# slot, between 2^MAP_BITS[0] and 2^MAP_BITS[1].
MAP_BITS = (22, 24)
# Tables.kind_state: the parser's PARSER_FIELDS fields (fade.statistics.jpeg
# lays them out, and checks the count), then a ring of 2^RING_BITS decoded
# blocks, 64 coefficients each.
RING_BITS = 13
PARSER_FIELDS = 2800
STATE_WORDS = PARSER_FIELDS + (64 << RING_BITS)


def map_entries(slots: int) -> int:
    """Tables.kind_map's entries with a hash table of `slots`."""
    return min(max(slots << 4, 1 << MAP_BITS[0]), 1 << MAP_BITS[1])
