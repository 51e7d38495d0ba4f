"""JPEG files followed bit by bit (issue 77: what F_JPEG's model reads).

A JPEG model predicts the bits of a photo's entropy-coded data from the
coefficient each bit belongs to, so it must know, before every bit, where
the decoder of that data stands: in which Huffman code or in which extra
bits, of which coefficient (its place in zig-zag order), of which block
of which component, and what the blocks decoded so far hold. This module
is that decoder, run as the bytes are coded: `jpeg_bit` takes each bit of
the scan's data, `jpeg_byte` each byte once its bits are in (the markers,
their segments, the stuffed zeros and the restarts). Both read and write
one int64 array (`new_state`), laid out below, so that encoder and
decoder of an archive, which see the same bytes, follow the same way.

It follows sequential Huffman-coded JPEG (SOF0 and SOF1: baseline and
extended, 8 bits a sample), gray or colour, any sampling, with restart
markers. What it cannot follow (a progressive or arithmetic-coded frame,
12 bits, a damaged header) it leaves: the state says "no JPEG" (J_NONE)
until the next start of image, and a scan whose codes stop making sense
waits for its next restart marker (J_LOST). The bytes are coded as they are
whatever it finds, so a wrong guess here costs bits, never the data.

The model that reads it is fade.statistics.coefficients (F_JPEG).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import JIT
from fade.statistics.layouts.jpeg import INPUTS as JPEG_INPUTS, PARSER_FIELDS

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
 # the frame: its kind (0xC0 or 0xC1), size, components, largest sampling
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
J_COMPONENT_AT = 48  # per frame component (4 at most): id, h, v, quantiser, blocks across
COMPONENT_FIELDS = 5
MAX_COMPONENTS = 4
J_SCAN_AT = J_COMPONENT_AT + COMPONENT_FIELDS * MAX_COMPONENTS  # per scan component:
SCAN_FIELDS = 3  # the frame component, its DC table, its AC table
J_BLOCK_AT = J_SCAN_AT + SCAN_FIELDS * MAX_COMPONENTS  # per block of an MCU (10 at most):
BLOCK_FIELDS = 3  # the scan component, its column and row in the MCU (in blocks)
MAX_MCU_BLOCKS = 10
J_DC_AT = J_BLOCK_AT + BLOCK_FIELDS * MAX_MCU_BLOCKS  # each frame component's last DC
# Huffman tables: DC 0-3, AC 0-3 (4 + the table's number); each the largest
# code of each length 1-16 (-1: none), what to add to a code of that length
# to find its value's index, and the values.
J_HUFFMAN_AT = 128
assert J_DC_AT + MAX_COMPONENTS <= J_HUFFMAN_AT
HUFFMAN_MAXCODE, HUFFMAN_DELTA, HUFFMAN_VALUES = 0, 17, 34
HUFFMAN_SIZE = 34 + 256
J_QUANT_AT = J_HUFFMAN_AT + 8 * HUFFMAN_SIZE  # 4 quantisation tables, zig-zag order
J_CURRENT_AT = J_QUANT_AT + 4 * 64  # the block being decoded (zig-zag order)
J_HASH_AT = J_CURRENT_AT + 64  # the model's contexts for the code or value being read,
J_INDEX_AT = J_HASH_AT + JPEG_INPUTS  # and their entries for the next bit
J_RING_AT = J_INDEX_AT + JPEG_INPUTS  # the blocks decoded, a ring of 2^k: 64 each, zig-zag
assert J_RING_AT == PARSER_FIELDS  # (fade.statistics.layouts.jpeg sizes the array by it)


def new_state(ring_bits: int) -> np.ndarray:
    """A parser's state with a ring of 2^ring_bits decoded blocks (the
    ring's size is the array's: Tables.kind_state is layouts.jpeg.STATE_WORDS long)."""
    return np.zeros(J_RING_AT + (64 << ring_bits), dtype=np.int64)


@nb.njit(**JIT)
def ring_mask(j):
    return ((j.shape[0] - J_RING_AT) >> 6) - 1


@nb.njit(**JIT)
def _huffman_table(j, buffer, at, end):
    """Read one table of a DHT segment at buffer[at:]; its end, or -1."""
    if at + 17 > end:
        return -1
    kind, number = buffer[at] >> 4, buffer[at] & 15
    if kind > 1 or number > 3:
        return -1
    table = J_HUFFMAN_AT + (kind * 4 + number) * HUFFMAN_SIZE
    code = 0
    index = 0
    for length in range(1, 17):
        count = np.int64(buffer[at + length])
        if count:
            j[table + HUFFMAN_DELTA + length] = index - code
            code += count
            j[table + HUFFMAN_MAXCODE + length] = code - 1
            index += count
        else:
            j[table + HUFFMAN_MAXCODE + length] = -1
        if code > (1 << length):
            return -1
        code <<= 1
    if index > 256 or at + 17 + index > end:
        return -1
    for v in range(index):
        j[table + HUFFMAN_VALUES + v] = buffer[at + 17 + v]
    return at + 17 + index


@nb.njit(**JIT)
def _frame(j, buffer, at, end, marker):
    """A SOF0/SOF1 segment's payload at buffer[at:end]; False if not followable."""
    if end - at < 6 or buffer[at] != 8:
        return False
    height = (np.int64(buffer[at + 1]) << 8) | buffer[at + 2]
    width = (np.int64(buffer[at + 3]) << 8) | buffer[at + 4]
    count = np.int64(buffer[at + 5])
    if width == 0 or height == 0 or count == 0 or count > MAX_COMPONENTS or \
            end - at < 6 + 3 * count:
        return False
    hmax = 1
    vmax = 1
    for c in range(count):
        sampling = buffer[at + 7 + 3 * c]
        h, v = sampling >> 4, sampling & 15
        if h < 1 or h > 4 or v < 1 or v > 4 or buffer[at + 8 + 3 * c] > 3:
            return False
        hmax = max(hmax, h)
        vmax = max(vmax, v)
    j[J_FRAME], j[J_WIDTH], j[J_HEIGHT], j[J_COMPONENTS] = marker, width, height, count
    j[J_HMAX], j[J_VMAX] = hmax, vmax
    j[J_MCUS_X] = (width + 8 * hmax - 1) // (8 * hmax)
    j[J_MCUS_Y] = (height + 8 * vmax - 1) // (8 * vmax)
    for c in range(count):
        field = J_COMPONENT_AT + COMPONENT_FIELDS * c
        h, v = buffer[at + 7 + 3 * c] >> 4, buffer[at + 7 + 3 * c] & 15
        j[field] = buffer[at + 6 + 3 * c]
        j[field + 1], j[field + 2], j[field + 3] = h, v, buffer[at + 8 + 3 * c]
        j[field + 4] = (width * h + 8 * hmax - 1) // (8 * hmax)  # blocks across, unpadded
    return True


@nb.njit(**JIT)
def _scan(j, buffer, at, end):
    """A SOS segment's payload at buffer[at:end]: the scan's components and
    its MCU's blocks; False if not followable (no frame, a progressive scan)."""
    if j[J_FRAME] == 0 or end - at < 1:
        return False
    count = np.int64(buffer[at])
    if count < 1 or count > j[J_COMPONENTS] or end - at != 4 + 2 * count:
        return False
    spectral = at + 1 + 2 * count
    if buffer[spectral] != 0 or buffer[spectral + 1] != 63 or buffer[spectral + 2] != 0:
        return False
    blocks = 0
    for s in range(count):
        identifier = buffer[at + 1 + 2 * s]
        tables = buffer[at + 2 + 2 * s]
        found = -1
        for c in range(j[J_COMPONENTS]):
            if j[J_COMPONENT_AT + COMPONENT_FIELDS * c] == identifier:
                found = c
        if found < 0 or (tables >> 4) > 3 or (tables & 15) > 3:
            return False
        field = J_SCAN_AT + SCAN_FIELDS * s
        j[field], j[field + 1], j[field + 2] = found, tables >> 4, 4 + (tables & 15)
        component = J_COMPONENT_AT + COMPONENT_FIELDS * found
        h, v = (j[component + 1], j[component + 2]) if count > 1 else (1, 1)
        for y in range(v):
            for x in range(h):
                if blocks == MAX_MCU_BLOCKS:
                    return False
                block = J_BLOCK_AT + BLOCK_FIELDS * blocks
                j[block], j[block + 1], j[block + 2] = s, x, y
                blocks += 1
    j[J_SCAN_COMPONENTS], j[J_MCU_BLOCKS] = count, blocks
    if count > 1:
        j[J_SCAN_X] = j[J_MCUS_X]
        j[J_SCAN_MCUS] = j[J_MCUS_X] * j[J_MCUS_Y]
    else:  # one component: its own blocks, one an MCU, over its own size
        component = J_COMPONENT_AT + COMPONENT_FIELDS * j[J_SCAN_AT]
        rows = (j[J_HEIGHT] * j[component + 2] + 8 * j[J_VMAX] - 1) // (8 * j[J_VMAX])
        j[J_SCAN_X] = j[component + 4]
        j[J_SCAN_MCUS] = j[component + 4] * rows
    _restart(j)
    j[J_MCU] = j[J_RESTARTS] = 0
    j[J_SCAN_FIRST] = j[J_DECODED]
    return True


@nb.njit(**JIT)
def _restart(j):
    """The decoder's state at a scan's start or after a restart marker."""
    for c in range(MAX_COMPONENTS):
        j[J_DC_AT + c] = 0
    j[J_BLOCK] = j[J_K] = j[J_CODE] = j[J_LENGTH] = j[J_EXTRA] = j[J_RUN] = 0
    j[J_SINCE] = 0
    j[J_FRESH] = 1
    for k in range(64):
        j[J_CURRENT_AT + k] = 0


@nb.njit(**JIT)
def _segment(j, buffer, at, end):
    """The segment of marker j[J_MARKER] whose payload is buffer[at:end]
    has been read: take what it says; False where the JPEG cannot be followed."""
    marker = j[J_MARKER]
    if marker == 0xC4:
        while at < end:
            at = _huffman_table(j, buffer, at, end)
            if at < 0:
                return False
    elif marker == 0xDB:
        while at < end:
            precision, number = buffer[at] >> 4, buffer[at] & 15
            if number > 3 or precision > 1 or at + 1 + 64 * (precision + 1) > end:
                return False
            for k in range(64):
                if precision:
                    j[J_QUANT_AT + 64 * number + k] = (np.int64(buffer[at + 1 + 2 * k]) << 8) \
                        | buffer[at + 2 + 2 * k]
                else:
                    j[J_QUANT_AT + 64 * number + k] = buffer[at + 1 + k]
            at += 1 + 64 * (precision + 1)
    elif marker == 0xDD:
        if end - at != 2:
            return False
        j[J_RESTART] = (np.int64(buffer[at]) << 8) | buffer[at + 1]
    elif marker == 0xC0 or marker == 0xC1:
        return _frame(j, buffer, at, end, marker)
    elif 0xC2 <= marker <= 0xCF and marker != 0xC4 and marker != 0xC8 and marker != 0xCC:
        return False  # progressive, lossless, hierarchical or arithmetic-coded: not followed
    elif marker == 0xDA:
        if not _scan(j, buffer, at, end):
            return False
        j[J_STATE] = J_SCAN
    return True


@nb.njit(**JIT)
def _marker(j, marker, pos):
    """The marker `marker` whose byte is at pos, outside a segment."""
    if marker == 0xD8:  # a start of image: a new JPEG
        j[J_STATE], j[J_FRAME], j[J_RESTART] = J_HEADERS, 0, 0
    elif marker == 0xD9:  # its end
        j[J_STATE] = J_NONE
    elif marker == 0x01 or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
        pass  # no segment (a restart outside a scan is harmless here)
    else:
        j[J_MARKER], j[J_SEGMENT], j[J_END] = marker, pos + 1, -1


@nb.njit(**JIT)
def jpeg_byte(j, buffer, pos):
    """Byte buffer[pos] has been coded (its bits given to `jpeg_bit` first
    where j[J_SKIP] was 0): follow the markers and segments it ends, and
    say whether the next byte's bits are the scan's data (j[J_SKIP])."""
    byte = buffer[pos]
    state = j[J_STATE]
    after_ff = j[J_FF]
    j[J_FF] = 1 if byte == 0xFF else 0
    if state == J_NONE:
        if after_ff and byte == 0xD8:
            _marker(j, byte, pos)
    elif state == J_HEADERS and j[J_SEGMENT] > 0:  # in a segment
        j[J_FF] = 0
        if j[J_END] < 0 and pos == j[J_SEGMENT] + 1:
            length = (np.int64(buffer[pos - 1]) << 8) | byte
            if length < 2:
                j[J_STATE], j[J_SEGMENT] = J_NONE, 0
                return
            j[J_END] = j[J_SEGMENT] + length
        if j[J_END] >= 0 and pos + 1 >= j[J_END]:
            start, end = j[J_SEGMENT] + 2, j[J_END]
            j[J_SEGMENT] = 0
            if not _segment(j, buffer, start, end):
                j[J_STATE] = J_NONE
    elif state == J_HEADERS:
        if after_ff:
            _marker(j, byte, pos)
        elif byte != 0xFF:
            j[J_STATE] = J_NONE  # bytes between segments that are no marker
    elif after_ff:  # in a scan, the byte after a 0xFF: a stuffed zero, or a marker
        if 0xD0 <= byte <= 0xD7 and j[J_RESTART] > 0:
            # a restart: the MCUs before it are known even where the scan was lost
            j[J_RESTARTS] += 1
            _restart(j)
            j[J_MCU] = j[J_RESTARTS] * j[J_RESTART]
            j[J_STATE] = J_SCAN if j[J_MCU] < j[J_SCAN_MCUS] else J_DONE
        elif byte != 0 and byte != 0xFF:
            j[J_STATE] = J_HEADERS  # the scan has ended at a marker
            _marker(j, byte, pos)
    j[J_SKIP] = 1 if j[J_STATE] >= J_SCAN and j[J_FF] else 0


@nb.njit(**JIT)
def _coefficient(j, value):
    """The coefficient at zig-zag place j[J_K] is `value` (after j[J_RUN] zeros)."""
    k = j[J_K] + j[J_RUN]
    if k == 0:
        scan = J_SCAN_AT + SCAN_FIELDS * j[J_BLOCK_AT + BLOCK_FIELDS * j[J_BLOCK]]
        dc = J_DC_AT + j[scan]
        j[dc] += value
        value = j[dc]
    if k > 63:
        j[J_STATE] = J_LOST
        return
    j[J_CURRENT_AT + k] = value
    j[J_RUN] = 0
    j[J_K] = k + 1
    if k == 63:
        _end_block(j)


@nb.njit(**JIT)
def _end_block(j):
    """The block is decoded: into the ring, and on to the next block or MCU."""
    ring = J_RING_AT + 64 * (j[J_DECODED] & ring_mask(j))
    for k in range(64):
        j[ring + k] = j[J_CURRENT_AT + k]
        j[J_CURRENT_AT + k] = 0
    j[J_DECODED] += 1
    j[J_K] = j[J_LAST_RS] = 0
    j[J_BLOCK] += 1
    if j[J_BLOCK] == j[J_MCU_BLOCKS]:
        j[J_BLOCK] = 0
        j[J_MCU] += 1
        j[J_SINCE] += 1
        if j[J_MCU] == j[J_SCAN_MCUS]:
            j[J_STATE] = J_DONE


@nb.njit(**JIT)
def jpeg_bit(j, bit):
    """The next bit of a scan's data (a byte's bits, the first highest,
    where j[J_STATE] is J_SCAN and j[J_SKIP] is 0): on through its
    Huffman code or extra bits, and the coefficient or block they end."""
    if j[J_STATE] != J_SCAN:
        return
    if j[J_EXTRA] > 0:
        j[J_VALUE] = (j[J_VALUE] << 1) | bit
        j[J_EXTRA] -= 1
        if j[J_EXTRA] == 0:
            j[J_FRESH] = 1
            value = j[J_VALUE]
            if value < (np.int64(1) << (j[J_SIZE] - 1)):
                value -= (np.int64(1) << j[J_SIZE]) - 1
            _coefficient(j, value)
        return
    j[J_CODE] = (j[J_CODE] << 1) | bit
    j[J_LENGTH] += 1
    length = j[J_LENGTH]
    scan = J_SCAN_AT + SCAN_FIELDS * j[J_BLOCK_AT + BLOCK_FIELDS * j[J_BLOCK]]
    table = J_HUFFMAN_AT + j[scan + (1 if j[J_K] == 0 else 2)] * HUFFMAN_SIZE
    if j[J_CODE] > j[table + HUFFMAN_MAXCODE + length]:
        if length == 16:
            j[J_STATE] = J_LOST
        return
    symbol = j[table + HUFFMAN_VALUES + j[J_CODE] + j[table + HUFFMAN_DELTA + length]]
    j[J_CODE] = j[J_LENGTH] = 0
    j[J_FRESH] = 1
    if j[J_K] == 0:  # the DC's size
        if symbol > 11:
            j[J_STATE] = J_LOST
        elif symbol == 0:
            _coefficient(j, 0)
        else:
            j[J_EXTRA] = j[J_SIZE] = symbol
            j[J_VALUE] = 0
    elif symbol == 0:  # end of block
        _end_block(j)
    elif symbol == 0xF0:  # sixteen zeros
        j[J_LAST_RS] = symbol
        j[J_RUN] += 16
        if j[J_K] + j[J_RUN] > 63:
            j[J_STATE] = J_LOST
    elif (symbol & 15) == 0 or (symbol & 15) > 10:
        j[J_STATE] = J_LOST
    else:
        j[J_LAST_RS] = symbol
        j[J_RUN] += symbol >> 4
        j[J_EXTRA] = j[J_SIZE] = symbol & 15
        j[J_VALUE] = 0


@nb.njit(**JIT)
def follow(j, data):
    """Run the parser over all of `data` (uint8) as a coder would, byte by byte."""
    for pos in range(len(data)):
        if j[J_STATE] == J_SCAN and not j[J_SKIP]:
            byte = data[pos]
            for shift in range(7, -1, -1):
                jpeg_bit(j, (byte >> shift) & 1)
        jpeg_byte(j, data, pos)
