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

It follows Huffman-coded JPEG, sequential (SOF0 and SOF1: baseline and
extended) and progressive (SOF2: its DC and AC scans, first and refining,
with their runs of empty blocks), 8 bits a sample, gray or colour, any
sampling, with restart markers. A progressive frame's scans each code part
of every block, so its blocks are kept whole, in a store after the ring
(each coefficient in 16 bits, 64 a block, as the frame lays them out:
component by component, rows of MCUs' blocks), for the scans that refine
them; where the store has no room for the frame (`new_state`'s
`store_blocks`), a progressive one is not followed, and a sequential one
is followed without it. What it cannot follow (an arithmetic-coded frame,
12 bits, a damaged header) it leaves: the state says "no JPEG" (J_NONE)
until the next start of image, and a scan whose codes stop making sense
waits for its next restart marker (J_LOST). A JPEG inside an application
segment (an Exif thumbnail) is followed as any other, and the segment's end
brings back the headers of the JPEG that holds it; a few bytes between
segments that are no marker are let by, as libjpeg does. The bytes are
coded as they are whatever it finds, so a wrong guess here costs bits,
never the data.

The model that reads it is fade.statistics.coefficients (F_JPEG).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import JIT
from fade.statistics.layouts.jpeg import (
    BLOCK_FIELDS, COMPONENT_FIELDS, HUFFMAN_DELTA, HUFFMAN_MAXCODE, HUFFMAN_SIZE,
    HUFFMAN_VALUES, J_AH, J_AL, J_BLOCK, J_BLOCK_AT, J_CODE, J_COMPONENTS, J_COMPONENT_AT,
    J_CURRENT_AT, J_DC_AT, J_DECODED, J_DONE, J_END, J_EOBRUN, J_EXTRA, J_FF, J_FRAME, J_FRESH,
    J_HEADERS, J_HEIGHT, J_HMAX, J_HUFFMAN_AT, J_JUNK, J_K, J_LAST_RS, J_LENGTH, J_LOST,
    J_MARKER, J_MCU, J_MCUS_X, J_MCUS_Y, J_MCU_BLOCKS, J_NONE, J_OFFSET_AT, J_OUTER_END,
    J_OUTER_RESTART, J_PHASE, J_PROGRESSIVE, J_QUANT_AT, J_RESTART, J_RESTARTS, J_RING_AT,
    J_RING_MASK, J_RUN, J_SCAN, J_SCAN_AT, J_SCAN_COMPONENTS, J_SCAN_FIRST, J_SCAN_MCUS,
    J_SCAN_X, J_SE, J_SEGMENT, J_SINCE, J_SIZE, J_SKIP, J_SS, J_STATE, J_STORE_BLOCKS, J_VALUE,
    J_VMAX, J_WIDTH, JUNK, MAX_COMPONENTS, MAX_MCU_BLOCKS, SCAN_FIELDS, STORE_WORDS)
from fade.statistics.progressive import (begin_block, extended, huffman_symbol, progressive_bit,
                                         ring_mask, save_block, store_start)


def new_state(ring_bits: int, store_blocks: int = 0) -> np.ndarray:
    """A parser's state with a ring of 2^ring_bits decoded blocks and a store
    of `store_blocks` (Tables.kind_state is layouts.jpeg.STATE_WORDS long: a
    ring of 2^RING_BITS, no store)."""
    state = np.zeros(J_RING_AT + (64 << ring_bits) + STORE_WORDS * store_blocks,
                     dtype=np.int64)
    state[J_RING_MASK] = (1 << ring_bits) - 1
    return state


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
    """A SOF0, SOF1 or SOF2 segment's payload at buffer[at:end]; False if not
    followable (a progressive frame: also where the store has no room for it)."""
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
    j[J_PROGRESSIVE] = 1 if marker == 0xC2 else 0
    blocks = 0
    for c in range(count):  # the store: each component's MCUs' blocks, row by row
        j[J_OFFSET_AT + c] = blocks
        blocks += j[J_MCUS_X] * j[J_MCUS_Y] * j[J_COMPONENT_AT + COMPONENT_FIELDS * c + 1] * \
            j[J_COMPONENT_AT + COMPONENT_FIELDS * c + 2]
    start = store_start(j)
    j[J_STORE_BLOCKS] = blocks if start + STORE_WORDS * blocks <= j.shape[0] else 0
    if j[J_STORE_BLOCKS] == 0:
        return j[J_PROGRESSIVE] == 0
    for w in range(start, start + STORE_WORDS * blocks):  # (a frame before may have left some)
        j[w] = 0
    return True


@nb.njit(**JIT)
def _scan(j, buffer, at, end):
    """A SOS segment's payload at buffer[at:end]: the scan's components, its
    MCU's blocks and, in a progressive frame, its band and shifts; False if
    not followable (no frame, a band or shift no frame of its kind has)."""
    if j[J_FRAME] == 0 or end - at < 1:
        return False
    count = np.int64(buffer[at])
    if count < 1 or count > j[J_COMPONENTS] or end - at != 4 + 2 * count:
        return False
    spectral = at + 1 + 2 * count
    first, last = np.int64(buffer[spectral]), np.int64(buffer[spectral + 1])
    high, low = np.int64(buffer[spectral + 2] >> 4), np.int64(buffer[spectral + 2] & 15)
    if j[J_PROGRESSIVE] == 0:
        if first != 0 or last != 63 or high != 0 or low != 0:
            return False
    elif (first == 0 and last != 0) or (first > 0 and (count != 1 or last < first or last > 63)) \
            or high > 13 or low > 13:
        return False
    j[J_SS], j[J_SE], j[J_AH], j[J_AL] = first, last, high, low
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
    j[J_MCU] = j[J_RESTARTS] = j[J_PHASE] = 0
    j[J_SCAN_FIRST] = j[J_DECODED]
    if j[J_PROGRESSIVE]:
        begin_block(j)
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
    j[J_EOBRUN] = 0


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
    elif 0xC0 <= marker <= 0xC2:
        return _frame(j, buffer, at, end, marker)
    elif 0xC3 <= marker <= 0xCF and marker != 0xC4 and marker != 0xC8 and marker != 0xCC:
        return False  # lossless, hierarchical or arithmetic-coded: not followed
    elif marker == 0xDA:
        if not _scan(j, buffer, at, end):
            return False
        j[J_STATE] = J_SCAN
    return True


@nb.njit(**JIT)
def _marker(j, marker, pos):
    """The marker `marker` whose byte is at pos, outside a segment."""
    if marker == 0xD8:  # a start of image: a new JPEG
        j[J_STATE], j[J_FRAME], j[J_RESTART], j[J_JUNK] = J_HEADERS, 0, 0, 0
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
        if byte == 0xD8 and buffer[pos - 1] == 0xFF and 0xE0 <= j[J_MARKER] <= 0xEF and \
                j[J_END] > pos + 2 and j[J_OUTER_END] == 0:  # a JPEG in an application's segment
            j[J_OUTER_END], j[J_OUTER_RESTART] = j[J_END], j[J_RESTART]
            j[J_SEGMENT] = 0
            _marker(j, byte, pos)
        elif j[J_END] < 0 and pos == j[J_SEGMENT] + 1:
            length = (np.int64(buffer[pos - 1]) << 8) | byte
            if length < 2:
                j[J_STATE], j[J_SEGMENT] = J_NONE, 0
                return
            j[J_END] = j[J_SEGMENT] + length
        if j[J_SEGMENT] > 0 and j[J_END] >= 0 and pos + 1 >= j[J_END]:
            start, end = j[J_SEGMENT] + 2, j[J_END]
            j[J_SEGMENT] = 0
            if not _segment(j, buffer, start, end):
                j[J_STATE] = J_NONE
    elif state == J_HEADERS:
        if after_ff:
            _marker(j, byte, pos)
            j[J_JUNK] = 0
        elif byte != 0xFF:  # bytes between segments that are no marker: a few are let by
            j[J_JUNK] += 1
            if j[J_JUNK] > JUNK:
                j[J_STATE] = J_NONE
    elif after_ff:  # in a scan, the byte after a 0xFF: a stuffed zero, or a marker
        if 0xD0 <= byte <= 0xD7 and j[J_RESTART] > 0:
            # a restart: the MCUs before it are known even where the scan was lost
            j[J_RESTARTS] += 1
            _restart(j)
            j[J_MCU] = j[J_RESTARTS] * j[J_RESTART]
            j[J_STATE] = J_SCAN if j[J_MCU] < j[J_SCAN_MCUS] else J_DONE
            if j[J_PROGRESSIVE] and j[J_STATE] == J_SCAN:
                begin_block(j)  # (no run of empty blocks goes on past a restart)
        elif byte != 0 and byte != 0xFF:
            j[J_STATE] = J_HEADERS  # the scan has ended at a marker
            _marker(j, byte, pos)
    if j[J_OUTER_END] and pos + 1 >= j[J_OUTER_END]:  # the segment that held a JPEG ends
        j[J_OUTER_END], j[J_STATE], j[J_SEGMENT], j[J_FF] = 0, J_HEADERS, 0, 0
        j[J_RESTART], j[J_FRAME] = j[J_OUTER_RESTART], 0
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
    """The block is decoded: into the store (where it has room) and the ring
    (a sequential frame's), and on to the next block or MCU; in a
    progressive scan, on past the blocks whose band has no bits."""
    while True:
        save_block(j)
        if j[J_PROGRESSIVE] == 0:
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
            if j[J_MCU] == j[J_SCAN_MCUS] or j[J_SINCE] == j[J_RESTART]:
                # (a scan waits for the restart marker, its bits padding,
                # which would else begin the next blocks)
                j[J_STATE] = J_DONE
                return
        if j[J_PROGRESSIVE] == 0 or begin_block(j):
            return


@nb.njit(**JIT)
def jpeg_bit(j, bit):
    """The next bit of a scan's data (a byte's bits, the first highest,
    where j[J_STATE] is J_SCAN and j[J_SKIP] is 0): on through its
    Huffman code or extra bits, and the coefficient or block they end."""
    if j[J_STATE] != J_SCAN:
        return
    if j[J_PROGRESSIVE]:
        if progressive_bit(j, bit):
            _end_block(j)
        return
    if j[J_EXTRA] > 0:
        j[J_VALUE] = (j[J_VALUE] << 1) | bit
        j[J_EXTRA] -= 1
        if j[J_EXTRA] == 0:
            j[J_FRESH] = 1
            _coefficient(j, extended(j[J_VALUE], j[J_SIZE]))
        return
    symbol = huffman_symbol(j, bit, j[J_K] == 0)
    if symbol < 0:
        return
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
