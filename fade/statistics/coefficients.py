"""F_JPEG: the contexts of a JPEG's coefficients (issue 77).

The models for JPEG photos (part F_JPEG: models 45 to 49, fade 0.12 and
0.13) read where fade.statistics.jpeg's parser stands. Before each code or value,
`jpeg_contexts` hashes sixteen contexts (24 with F_JPEG2) of the
coefficient it belongs to (its component and place, its block so
far, the same coefficient in the blocks above, to the left and decoded
last, predicted from those neighbours as the pixels along the shared edge
being alike, its neighbours in its own block); before each bit,
`jpeg_inputs` finds each context's adaptive probability by the code's or
value's bits so far, and the bit's weight sets; after it, `jpeg_learn`
updates them and the parser.

In a progressive scan (fade.statistics.progressive) the same contexts
serve its codes, values and runs' lengths, read in the scan's units (the
values shifted right by its J_AL) from the block as the scans so far left
it and its neighbours above and to the left, kept from the store as the
block began, in contexts of their own by the kind of scan; its one-bit
steps (a DC's next bit, a coefficient's correction, a new coefficient's
sign) have contexts and weight sets of their own (`_refining_contexts`).

Once a scan's blocks, or a restart interval's, are done, the bits up to
the marker are padding (ones): they have contexts and a weight set of their
own.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.layouts.jpeg import (
    BLOCK_FIELDS, COMPONENT_FIELDS, J_ABOVE, J_ABOVE_END, J_ACTIVE, J_AH, J_AL, J_BLOCK,
    J_BLOCK_AT, J_CODE, J_COMPONENT_AT, J_CURRENT_AT, J_DC_AT, J_DECODED, J_DONE, J_EOBRUN, J_EXTRA,
    J_FRESH, J_HASH_AT, J_INDEX_AT, J_K, J_LAST, J_LAST_RS, J_LEFT, J_LEFT_END, J_LENGTH,
    J_LINE_AT, J_MCU, J_MCU_BLOCKS, J_PHASE, J_PROGRESSIVE, J_QUANT_AT, J_RING_AT, J_RUN,
    J_SCAN, J_SCAN_AT, J_SCAN_COMPONENTS, J_SCAN_FIRST, J_SCAN_X, J_SE, J_SET, J_SET3, J_SET4,
    J_SIZE, J_SKIP, J_STATE, J_VALUE, P_CORRECT, P_DC, P_RUN, P_SIGN, SCAN_FIELDS)
from fade.statistics.jpeg import jpeg_bit
from fade.statistics.progressive import block_end, ring_mask
from fade.statistics.kernels import JIT, STRETCH, adapt, bit_size, context_hash, prefetch
from fade.statistics.layouts.jpeg import INPUTS as JPEG_INPUTS, SETS as JPEG_SETS
from fade.statistics.state import APM3_BITS

# Natural order (row * 8 + column) of each zig-zag place, and back.
ZIGZAG = np.array([0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40,
                   48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29,
                   22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54,
                   47, 55, 62, 63], dtype=np.int64)
PLACE = np.argsort(ZIGZAG)
CODE_SETS = 2 * 64 * 16  # J_SET's: by the phase, the place and the code's or value's bits
PHASE_SETS = CODE_SETS + 4 * 64 * 16 + 64 * 16 * 2  # a progressive scan's one-bit steps'
assert PHASE_SETS + 4 * 64 * 8 == JPEG_SETS
# The padding before a marker, once a scan's or a restart interval's blocks
# are done: contexts and a weight set of its own (a DC's refining set at place
# 63, which no scan has).
PAD_SET = JPEG_SETS - 1
PAD_BASE = 15 << 18  # (above every other context's: sequential, progressive, one-bit)
MAP_LIMIT = 255  # the contexts' probabilities: step 1 / (n + 1.5), n at most this


@nb.njit(**JIT)
def _block_offset(j, m, b):
    """Where block b of this scan's MCU m lies in the ring; -1 where it is not."""
    if m < 0:
        return -1
    index = j[J_SCAN_FIRST] + m * j[J_MCU_BLOCKS] + b
    if index >= j[J_DECODED] or j[J_DECODED] - index > ring_mask(j):
        return -1
    return J_RING_AT + 64 * (index & ring_mask(j))


@nb.njit(**JIT)
def _neighbours(j):
    """Where the current block's neighbours above and to the left lie in the
    ring, and the block decoded last (-1: none)."""
    m, b = j[J_MCU], j[J_BLOCK]
    entry = J_BLOCK_AT + BLOCK_FIELDS * b
    x, y = j[entry + 1], j[entry + 2]
    h, v = 1, 1
    if j[J_SCAN_COMPONENTS] > 1:
        component = J_COMPONENT_AT + COMPONENT_FIELDS * j[J_SCAN_AT + SCAN_FIELDS * j[entry]]
        h, v = j[component + 1], j[component + 2]
    across = j[J_SCAN_X]
    above = left = last = -1
    if y > 0:
        above = _block_offset(j, m, b - h)
    elif m >= across:
        above = _block_offset(j, m - across, b + h * (v - 1))
    if x > 0:
        left = _block_offset(j, m, b - 1)
    elif m % across > 0:
        left = _block_offset(j, m - 1, b + h - 1)
    if j[J_DECODED] > j[J_SCAN_FIRST]:
        last = J_RING_AT + 64 * ((j[J_DECODED] - 1) & ring_mask(j))
    return above, left, last


@nb.njit(**JIT)
def _clip(value, limit):
    return max(min(value, limit), -limit)


# Each frequency's cosine at the block's edge, C_u(0) = a(u) cos(u pi / 16),
# x 1024 (at the far edge, C_u(7) = (-1)^u C_u(0)).
EDGE = np.array([362, 502, 473, 426, 362, 284, 196, 100], dtype=np.int64)


@nb.njit(**JIT)
def _across(j, neighbour, k, quant, vertical, shift):
    """The coefficient at zig-zag place k predicted from a neighbouring block
    (above: `vertical`; else to the left) as the pixels along their shared
    edge being the same (each column's, or row's, sum of cosines at the
    edge): in the neighbour's units (shifted right by `shift`: a progressive
    scan's), from its coefficients and the current block's decoded so far
    (zero where not yet); 0 without the neighbour."""
    if neighbour < 0 or j[quant + k] == 0:
        return 0
    row, column = ZIGZAG[k] >> 3, ZIGZAG[k] & 7
    total = 0
    for i in range(8):
        place = PLACE[i * 8 + column] if vertical else PLACE[row * 8 + i]
        edge = EDGE[i] * j[quant + place]
        total += (edge if i % 2 == 0 else -edge) * (j[neighbour + place] >> shift)
        if i != (row if vertical else column):
            total -= edge * (j[J_CURRENT_AT + place] >> shift)
    return total // (EDGE[row if vertical else column] * j[quant + k])


@nb.njit(**JIT)
def jpeg_contexts(j, count):
    """The contexts of the code or value about to be read: the coefficient
    (its component, zig-zag place and, for a value, its size) with what is
    around it: its block so far, the same coefficient in the blocks above,
    to the left and decoded last, its neighbours in its own block."""
    j[J_FRESH] = 0
    c = j[J_SCAN_AT + SCAN_FIELDS * j[J_BLOCK_AT + BLOCK_FIELDS * j[J_BLOCK]]]
    phase = j[J_PHASE]
    if j[J_PROGRESSIVE] and (phase == P_SIGN or phase >= P_CORRECT):
        _refining_contexts(j, c, phase, count)
        return
    k = min(j[J_K] + j[J_RUN], 63)
    size = j[J_SIZE] if j[J_EXTRA] > 0 else 0
    shift = 0
    if j[J_PROGRESSIVE]:  # (its neighbours found as its block began) in the scan's units
        shift = j[J_AL]
    elif k == 0 and j[J_EXTRA] == 0:  # a block's first code: what stays the same in it
        j[J_ABOVE], j[J_LEFT], j[J_LAST] = _neighbours(j)
        j[J_ABOVE_END], j[J_LEFT_END] = block_end(j, j[J_ABOVE]), block_end(j, j[J_LEFT])
    above, left, last = j[J_ABOVE], j[J_LEFT], j[J_LAST]
    a = j[above + k] >> shift if above >= 0 else 0
    l = j[left + k] >> shift if left >= 0 else 0
    if k == 0:  # a DC is coded against the last one: its neighbours so too
        a = a - j[J_DC_AT + c] if above >= 0 else 0
        l = l - j[J_DC_AT + c] if left >= 0 else 0
    nonzero = 0
    total = 0
    latest = 0
    for i in range(1, k):
        if j[J_CURRENT_AT + i] >> shift != 0:
            nonzero += 1
            total += abs(j[J_CURRENT_AT + i] >> shift)
            latest = i
    previous = j[J_CURRENT_AT + k - 1] >> shift if k > 1 else 0
    before = j[last + k] if last >= 0 else 0
    row, column = ZIGZAG[k] >> 3, ZIGZAG[k] & 7
    up = side = 0
    if row > 0 and (PLACE[ZIGZAG[k] - 8] < k or j[J_PROGRESSIVE]):
        up = j[J_CURRENT_AT + PLACE[ZIGZAG[k] - 8]] >> shift
    if column > 0 and (PLACE[ZIGZAG[k] - 1] < k or j[J_PROGRESSIVE]):
        side = j[J_CURRENT_AT + PLACE[ZIGZAG[k] - 1]] >> shift
    if j[J_PROGRESSIVE]:  # (no block decoded last:) the band's places ahead, zero or not
        zeros = ahead = 0
        for i in range(k + 1, j[J_SE] + 1):
            if j[J_CURRENT_AT + i] >> shift != 0:
                ahead += 1
            else:
                zeros += 1
        before = min(zeros, 63) * 64 + min(ahead, 63)
    quant = J_QUANT_AT + 64 * j[J_COMPONENT_AT + COMPONENT_FIELDS * c + 3]
    pa = _across(j, above, k, quant, True, shift)
    pl = _across(j, left, k, quant, False, shift)
    if k == 0:
        pa = pa - j[J_DC_AT + c] if above >= 0 else 0
        pl = pl - j[J_DC_AT + c] if left >= 0 else 0
    base = ((c * 64 + k) * 16 + size) * 32
    if j[J_PROGRESSIVE]:  # a first scan's, a refining scan's, a run's length
        base += (1 + (1 if j[J_AH] else 0) + (2 if phase == P_RUN else 0)) << 18
    following = j[above + k + 1] >> shift if above >= 0 and k < 63 else 0
    values = (0, min(nonzero, 15), (_clip(pa, 15) + 16) * 32 + _clip(pl, 15) + 16,
              _clip(pa, 255), _clip(pl, 255), (_clip(previous, 31) + 32) * 16 + min(j[J_RUN], 15),
              _clip((pa + pl) >> 1, 63), bit_size(total) * 64 + min(k - latest, 63),
              j[J_ABOVE_END] * 65 + j[J_LEFT_END],
              before if j[J_PROGRESSIVE] else _clip(before, 63),
              ((bit_size(pa) * 16 + bit_size(pl)) * 16 + bit_size(up)) * 16 + bit_size(side),
              (_clip(up, 31) + 32) * 64 + _clip(side, 31) + 32,
              j[J_LAST_RS] * 16 + min(nonzero, 15),
              bit_size(abs(a) + abs(l) + abs(up) + abs(side)) * 64 + min(k - latest, 63),
              (_clip(a, 31) + 32) * 64 + _clip(following, 31) + 32,
              ((bit_size(a) * 16 + bit_size(l)) * 16 + min(nonzero, 15)) * 16 + bit_size(previous))
    for i in range(JPEG_INPUTS):
        j[J_HASH_AT + i] = context_hash(base + i, values[i] + 1)
    if count > JPEG_INPUTS:  # F_JPEG2's
        more = ((_clip(pa, 15) + 16) * 32 + _clip(before, 15) + 16,
                (_clip(a, 15) + 16) * 32 + _clip(l, 15) + 16,
                min(abs(a) + abs(l) + abs(before), 63) * 64 + min(nonzero, 63),
                (_clip(j[J_CURRENT_AT], 31) + 32) * 64 + min(k - latest, 63),
                (_clip(pa, 31) + 32) * 64 + _clip(previous, 31) + 32,
                (_clip(pl, 31) + 32) * 64 + _clip(side, 31) + 32,
                (_clip(pa, 31) + 32) * 64 + _clip(up, 31) + 32,
                min(max(j[J_ABOVE_END] - k, 0), 63) * 64 + min(max(j[J_LEFT_END] - k, 0), 63))
        for i in range(count - JPEG_INPUTS):
            j[J_HASH_AT + JPEG_INPUTS + i] = context_hash(base + JPEG_INPUTS + i, more[i] + 1)
    # the weight sets of F_LAYERS' second and third: by the coefficient and
    # its neighbours' sizes; by its place, the block's nonzeros so far, the phase
    j[J_SET3] = CODE_SETS + (c * 64 + k) * 16 + min(bit_size(a) + bit_size(l), 15)
    j[J_SET4] = CODE_SETS + 4 * 64 * 16 + (k * 16 + min(nonzero, 15)) * 2 + \
        (1 if size else 0)


@nb.njit(**JIT)
def _refining_contexts(j, c, phase, count):
    """The contexts of a progressive scan's one-bit steps: a DC's next bit
    (P_DC), a coefficient's correction (P_CORRECT, P_TAIL: by its magnitude
    so far and the same coefficient's in the blocks above and to the left,
    which this scan has refined already), a new coefficient's sign (P_SIGN:
    by the signs there and as predicted from them, at the place it will
    take)."""
    shift = j[J_AL]
    k = 0 if phase == P_DC else min(j[J_K], 63)
    if phase == P_SIGN:  # the place it takes: past j[J_RUN] coefficients still zero
        run = j[J_RUN]
        while k < j[J_SE] and (j[J_CURRENT_AT + k] != 0 or run > 0):
            if j[J_CURRENT_AT + k] == 0:
                run -= 1
            k += 1
    above, left = j[J_ABOVE], j[J_LEFT]
    value = j[J_CURRENT_AT + k]
    a = j[above + k] if above >= 0 else 0
    l = j[left + k] if left >= 0 else 0
    quant = J_QUANT_AT + 64 * j[J_COMPONENT_AT + COMPONENT_FIELDS * c + 3]
    pa = _across(j, above, k, quant, True, shift)
    pl = _across(j, left, k, quant, False, shift)
    size = min(bit_size(value >> (shift + 1)), 15)  # what is known of it before this bit
    here = ((abs(a) >> shift) & 1) * 2 + ((abs(l) >> shift) & 1) if phase != P_SIGN else \
        (1 if a > 0 else 2 if a < 0 else 0) * 3 + (1 if l > 0 else 2 if l < 0 else 0)
    guess = _clip(pa + pl, 15)
    nonzero = 0
    for i in range(1, 64):
        if j[J_CURRENT_AT + i] != 0:
            nonzero += 1
    base = (6 << 18) + (((phase * 4 + c) * 64 + k) * 16 + size) * 32
    values = (0, here, guess + 16, (bit_size(a >> shift) * 16 + bit_size(l >> shift)) * 16 + size,
              _clip(pa, 31) + 32, _clip(pl, 31) + 32, min(nonzero, 63) * 16 + here,
              (value >> shift) & 3, _clip(a >> shift, 31) + 32, _clip(l >> shift, 31) + 32,
              j[J_ABOVE_END] * 65 + j[J_LEFT_END], min(j[J_EOBRUN], 15) * 16 + here,
              bit_size(abs(pa) + abs(pl)) * 16 + here, (guess + 16) * 16 + size,
              min(k, 63) * 4 + min(shift, 3), here * 64 + min(nonzero, 63))
    for i in range(count):  # (F_JPEG2's: the first eight again, by the scan's place)
        hashed = values[i] if i < JPEG_INPUTS else \
            values[i - JPEG_INPUTS] * 64 + min(shift, 3) * 16 + min(j[J_AH], 15)
        j[J_HASH_AT + i] = context_hash(base + i, hashed + 1)
    bucket = min(size, 7)
    j[J_SET] = PHASE_SETS + ((phase - P_SIGN) * 64 + k) * 8 + bucket
    j[J_SET3] = CODE_SETS + (c * 64 + k) * 16 + min(bit_size(abs(pa) + abs(pl)), 15)
    j[J_SET4] = CODE_SETS + 4 * 64 * 16 + (k * 16 + min(nonzero, 15)) * 2 + 1


@nb.njit(**JIT)
def jpeg_inputs(j, maps, inputs, at, count):
    """The JPEG contexts' inputs for the next bit at inputs[at:at + count]
    (0 where it is not a scan's data; the padding's own before a marker),
    and the bit's weight set (j[J_SET])."""
    if j[J_STATE] == J_DONE and not j[J_SKIP]:  # padding
        j[J_ACTIVE] = 1
        j[J_SET] = j[J_SET3] = j[J_SET4] = PAD_SET
        lines = (maps.shape[0] - 1) & ~np.int64(15)
        for i in range(count):
            index = (context_hash(PAD_BASE + i, 1) & lines) | 1
            j[J_INDEX_AT + i] = index
            inputs[at + i] = STRETCH[maps[index] >> 16]
        j[J_FRESH] = 1
        return
    if j[J_STATE] != J_SCAN or j[J_SKIP]:
        j[J_ACTIVE] = 0
        for i in range(count):
            inputs[at + i] = 0
        return
    if j[J_FRESH]:
        jpeg_contexts(j, count)
    j[J_ACTIVE] = 1
    # Each context's probabilities for a code's or value's bits lie in lines
    # of 16 (a cache line), one for each four bits: the line by the bits
    # before those four, the entry by the bits of them so far (`node`).
    if j[J_EXTRA] > 0:  # a value's bits so far (or a run's length's)
        done = j[J_SIZE] - j[J_EXTRA]
        low = done & 3
        key = (np.int64(1) << 20) | ((done - low) << 12) | (j[J_VALUE] >> low)
        node = (np.int64(1) << low) | (j[J_VALUE] & ((1 << low) - 1))
        j[J_SET] = (64 + min(j[J_K] + j[J_RUN], 63)) * 16 + done
    elif j[J_PROGRESSIVE] and (j[J_PHASE] == P_SIGN or j[J_PHASE] >= P_CORRECT):
        key = node = np.int64(1)  # a one-bit step (its set: _refining_contexts')
    else:  # a code's
        length = j[J_LENGTH]
        low = length & 3
        key = (np.int64(1) << (length - low)) | (j[J_CODE] >> low)
        node = (np.int64(1) << low) | (j[J_CODE] & ((1 << low) - 1))
        j[J_SET] = min(j[J_K] + j[J_RUN], 63) * 16 + min(length, 15)
    key |= j[J_PHASE] << 24  # (a progressive scan's: 0 in a sequential one)
    if node == 1:  # four bits begin: their lines, all asked for before the first is read
        lines = (maps.shape[0] - 1) & ~np.int64(15)
        for i in range(count):
            line = context_hash(j[J_HASH_AT + i], key) & lines
            j[J_LINE_AT + i] = line
            prefetch(maps, line)
    for i in range(count):
        index = j[J_LINE_AT + i] | node
        j[J_INDEX_AT + i] = index
        inputs[at + i] = STRETCH[maps[index] >> 16]


@nb.njit(**JIT)
def jpeg_layers(j, first, set3, set4):
    """F_LAYERS' second and third weight sets: in a scan, the JPEG
    contexts' (their sets start at `first`); else set3 and set4."""
    if j[J_ACTIVE]:
        return first + j[J_SET3], first + j[J_SET4]
    return set3, set4


@nb.njit(**JIT)
def jpeg_apm_row(j, key, c0):
    """The third APM's row: in a scan, by the coefficient's first context
    and the code's bits so far (its entry's index); else by key and c0."""
    if j[J_ACTIVE]:
        return context_hash(j[J_INDEX_AT], 53) & ((1 << APM3_BITS) - 1)
    return context_hash(key, c0) & ((1 << APM3_BITS) - 1)


@nb.njit(**JIT)
def jpeg_final_row(j, c0):
    """The final mixer's weights: in a scan, by the bit's weight set (the
    coefficient's place and the code's bits so far); else by c0."""
    return j[J_SET] & 255 if j[J_ACTIVE] else c0


@nb.njit(**JIT)
def jpeg_learn(j, maps, bit, count):
    """The contexts learn the bit, and the parser takes it."""
    if j[J_ACTIVE]:
        for i in range(count):
            adapt(maps, j[J_INDEX_AT + i], bit, MAP_LIMIT)
        jpeg_bit(j, bit)
