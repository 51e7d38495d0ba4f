"""F_JPEG's state (fade.statistics.jpeg, the parser, with
fade.statistics.progressive, its progressive scans, and
fade.statistics.coefficients, its contexts): Tables.kind_state's fields,
laid out here; it has no field in a stream's row: its model follows one
JPEG in file order."""

from __future__ import annotations

# An input per context, after the contexts' (where F_DNA's are: no model
# has both); weight sets (in F_IMAGE's place: no model has both) by the
# phase (a Huffman code, or its value's extra bits), the coefficient's place
# in zig-zag order and the bits of the code or value so far (2048), then
# F_LAYERS' two (coefficients.jpeg_contexts).
INPUTS = 16
MORE = 8  # F_JPEG2's contexts, after those
SETS = 8192 + 2048  # and a progressive scan's one-bit phases' (coefficients.PHASE_SETS)
# Tables.kind_map: the contexts' adaptive probabilities, in lines of 16 (a
# context's for four bits of a code or value: coefficients.jpeg_inputs), 32
# a hash table slot, between 2^MAP_BITS[0] and 2^MAP_BITS[1].
MAP_BITS = (22, 25)
# Tables.kind_state: the parser's fields (below), then a ring of 2^RING_BITS
# decoded blocks, 64 coefficients each, then a store of a progressive
# frame's blocks (fade.statistics.progressive): one block for each
# STORE_SHARE bytes of input, and STORE_FIRST more, STORE_MOST at most
# (photos take 3 to 11 bytes a block; 2^20 blocks, 128 MB, hold a frame of
# 40 million pixels at 4:2:0; a frame of more blocks than the store holds is
# not followed).
RING_BITS = 13
STORE_SHARE, STORE_FIRST, STORE_MOST = 2, 4096, 1 << 20

# What the parser is in (J_STATE): no JPEG; a JPEG's headers (between the
# markers, or in a segment); a scan's entropy-coded data; a scan lost (its
# codes made no sense: until a restart marker or the scan's end); a scan
# whose every block is decoded (what is left is padding before a marker).
J_NONE, J_HEADERS, J_SCAN, J_LOST, J_DONE = range(5)

# The fields, first the parser's place in the bytes: the segment being read
# (its marker, where its length starts, where it ends, -1: length not yet
# read), whether the last byte was 0xFF, whether the next byte's bits are
# not the scan's data (the byte after a 0xFF in a scan: a stuffed zero or
# a marker).
(J_STATE, J_MARKER, J_SEGMENT, J_END, J_FF, J_SKIP,
 # the frame: its kind (0xC0, 0xC1 or 0xC2), size, components, largest sampling
 # factors, MCUs across and down, the restart interval (0: none)
 J_FRAME, J_WIDTH, J_HEIGHT, J_COMPONENTS, J_HMAX, J_VMAX, J_MCUS_X, J_MCUS_Y, J_RESTART,
 # the scan: its components, blocks an MCU, MCUs across and in all
 J_SCAN_COMPONENTS, J_MCU_BLOCKS, J_SCAN_X, J_SCAN_MCUS,
 # where the decoder stands: the MCU, the block in it, the coefficient
 # (zig-zag), the Huffman code's bits so far and their count, the extra
 # bits still to read (0: a code is being read), their value so far and
 # count, the run of zeros before the coefficient, MCUs since the restart,
 # the scan's restart markers so far, blocks decoded in all, the first of them
 # in this scan.
 J_MCU, J_BLOCK, J_K, J_CODE, J_LENGTH, J_EXTRA, J_VALUE, J_SIZE, J_RUN, J_SINCE, J_RESTARTS,
 J_DECODED, J_SCAN_FIRST,
 # the model's (F_JPEG): whether the contexts are to be found again (a code
 # or value has ended, a scan or restart begun), whether the next bit is
 # predicted from them, its weight set.
 J_FRESH, J_ACTIVE, J_SET, J_SET3, J_SET4,
 # the block's last run and size read (an AC code's symbol; 0 at its start);
 # found at its start, for all its codes: where its neighbours above and to
 # the left and the block decoded last lie in the ring, the neighbours' ends
 J_LAST_RS, J_ABOVE, J_LEFT, J_LAST, J_ABOVE_END, J_LEFT_END) = range(43)
# Where the segment ends that holds the JPEG being followed (an Exif
# thumbnail in an APP1 segment: followed as any JPEG, then its segment's end
# is the headers' again; 0: none), and the restart interval before it.
J_OUTER_END, J_OUTER_RESTART = 43, 44
# Bytes between two segments that are no marker, so far (libjpeg skips them
# with a warning; at most JUNK are followed over).
J_JUNK = 45
JUNK = 64
J_COMPONENT_AT = 48  # per frame component (4 at most): id, h, v, quantiser, blocks across
COMPONENT_FIELDS = 5
MAX_COMPONENTS = 4
J_SCAN_AT = J_COMPONENT_AT + COMPONENT_FIELDS * MAX_COMPONENTS  # per scan component:
SCAN_FIELDS = 3  # the frame component, its DC table, its AC table
J_BLOCK_AT = J_SCAN_AT + SCAN_FIELDS * MAX_COMPONENTS  # per block of an MCU (10 at most):
BLOCK_FIELDS = 3  # the scan component, its column and row in the MCU (in blocks)
MAX_MCU_BLOCKS = 10
J_DC_AT = J_BLOCK_AT + BLOCK_FIELDS * MAX_MCU_BLOCKS  # each frame component's last DC
# A progressive scan's band (first and last zig-zag place) and its bits'
# shifts (the scan before's and its own), the blocks left in its run of
# empty blocks (EOBn, beside the one being read), what its next bits are
# (P_); whether the frame is progressive; the blocks the store holds of it
# (0: none); the ring's size less one (0: RING_BITS's); where each frame
# component's blocks start in the store.
(J_SS, J_SE, J_AH, J_AL, J_EOBRUN, J_PHASE, J_PROGRESSIVE, J_STORE_BLOCKS, J_RING_MASK,
 J_OFFSET_AT) = range(J_DC_AT + MAX_COMPONENTS, J_DC_AT + MAX_COMPONENTS + 10)
# What a progressive scan's next bit is: a Huffman code's, a value's extra
# bits, a run of empty blocks' extra bits, a new coefficient's sign, a
# correction of a coefficient passed on the way to the next (or, in a run
# of empty blocks, to the band's end), a DC's next bit.
P_CODE, P_VALUE, P_RUN, P_SIGN, P_CORRECT, P_TAIL, P_DC = range(7)
# Huffman tables: DC 0-3, AC 0-3 (4 + the table's number); each the largest
# code of each length 1-16 (-1: none), what to add to a code of that length
# to find its value's index, and the values.
J_HUFFMAN_AT = 128
assert J_OFFSET_AT + MAX_COMPONENTS <= J_HUFFMAN_AT
HUFFMAN_MAXCODE, HUFFMAN_DELTA, HUFFMAN_VALUES = 0, 17, 34
HUFFMAN_SIZE = 34 + 256
J_QUANT_AT = J_HUFFMAN_AT + 8 * HUFFMAN_SIZE  # 4 quantisation tables, zig-zag order
J_CURRENT_AT = J_QUANT_AT + 4 * 64  # the block being decoded (zig-zag order)
J_HASH_AT = J_CURRENT_AT + 64  # the model's contexts for the code or value being read,
J_INDEX_AT = J_HASH_AT + INPUTS + MORE  # and their entries for the next bit
J_LINE_AT = J_INDEX_AT + INPUTS + MORE  # and the lines of 16 entries of the code's bits in hand
J_ABOVE_AT = J_LINE_AT + INPUTS + MORE  # a progressive scan's neighbours of the block, above
J_LEFT_AT = J_ABOVE_AT + 64  # and to the left (from the store: zig-zag, as they are now)
J_RING_AT = J_LEFT_AT + 64  # the blocks decoded, a ring of 2^k: 64 each, zig-zag
PARSER_FIELDS = J_RING_AT
STATE_WORDS = PARSER_FIELDS + (64 << RING_BITS)
STORE_WORDS = 16  # a block's words in the store (progressive.py): four 16-bit coefficients


def store_blocks(length: int) -> int:
    """The blocks of a progressive frame the model's store holds for `length` bytes."""
    return min(length // STORE_SHARE + STORE_FIRST, STORE_MOST)


def map_entries(slots: int) -> int:
    """Tables.kind_map's entries with a hash table of `slots`."""
    return min(max(slots << 5, 1 << MAP_BITS[0]), 1 << MAP_BITS[1])
