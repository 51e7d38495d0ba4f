"""A progressive JPEG's scans, followed bit by bit (fade.statistics.jpeg
runs them), and the store of a frame's blocks that they refine.

A progressive frame codes each block in several scans: its DC first (the
components together), then bands of its zig-zag places (one component a
scan), each value at first without its lowest bits (its shift, J_AL), then
those bits one scan at a time. A first scan's band is coded as a
sequential scan's block is, its values shifted, and a code (EOBn) may say
that the band is empty in this block and in the next n (a run, J_EOBRUN),
which then cost no bits. A refining scan gives each coefficient of the
band that is not zero one more bit (a correction), and codes the places
where one becomes +-1 of its step: a code (the zeros to pass, one step
more) and its sign, then the corrections of the coefficients passed on the
way; in a run of empty blocks only the corrections are left. Every block
is kept whole in the store (`store_word`: its 64 coefficients in 16 bits
each, after the sequential frames' ring) between the scans.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import JIT
from fade.statistics.layouts.jpeg import (
    BLOCK_FIELDS, COMPONENT_FIELDS, HUFFMAN_DELTA, HUFFMAN_MAXCODE, HUFFMAN_SIZE,
    HUFFMAN_VALUES, J_ABOVE, J_ABOVE_AT, J_ABOVE_END, J_AH, J_AL, J_BLOCK, J_BLOCK_AT, J_CODE,
    J_COMPONENT_AT, J_CURRENT_AT, J_DC_AT, J_EOBRUN, J_EXTRA, J_FRESH, J_HUFFMAN_AT, J_K,
    J_LAST, J_LAST_RS, J_LEFT, J_LEFT_AT, J_LEFT_END, J_LENGTH, J_LOST, J_MCU, J_MCUS_X,
    J_OFFSET_AT, J_PHASE, J_RING_AT, J_RING_MASK, J_RUN, J_SCAN, J_SCAN_AT, J_SCAN_COMPONENTS,
    J_SCAN_X, J_SE, J_SIZE, J_SS, J_STATE, J_STORE_BLOCKS, J_VALUE, P_CODE, P_CORRECT, P_DC,
    P_RUN, P_SIGN, P_TAIL, P_VALUE, RING_BITS, SCAN_FIELDS, STORE_WORDS)


@nb.njit(**JIT)
def ring_mask(j):
    return j[J_RING_MASK] if j[J_RING_MASK] else (1 << RING_BITS) - 1


@nb.njit(**JIT)
def store_start(j):
    return J_RING_AT + 64 * (ring_mask(j) + 1)


@nb.njit(**JIT)
def _place(j):
    """The current block's frame component and its column and row among the
    component's blocks."""
    entry = J_BLOCK_AT + BLOCK_FIELDS * j[J_BLOCK]
    c = j[J_SCAN_AT + SCAN_FIELDS * j[entry]]
    component = J_COMPONENT_AT + COMPONENT_FIELDS * c
    m = j[J_MCU]
    if j[J_SCAN_COMPONENTS] > 1:
        return c, (m % j[J_MCUS_X]) * j[component + 1] + j[entry + 1], \
            (m // j[J_MCUS_X]) * j[component + 2] + j[entry + 2]
    return c, m % j[J_SCAN_X], m // j[J_SCAN_X]


@nb.njit(**JIT)
def _word(j, c, x, y):
    """Where component c's block at column x, row y starts in the store (-1: none)."""
    index = j[J_OFFSET_AT + c] + y * j[J_MCUS_X] * j[J_COMPONENT_AT + COMPONENT_FIELDS * c + 1] + x
    if j[J_STORE_BLOCKS] == 0 or x < 0 or y < 0 or index >= j[J_STORE_BLOCKS]:
        return -1
    return store_start(j) + STORE_WORDS * index


@nb.njit(**JIT)
def store_word(j):
    """The current block's first word in the store (-1: the store has none)."""
    if j[J_STORE_BLOCKS] == 0:
        return -1
    c, x, y = _place(j)
    return _word(j, c, x, y)


@nb.njit(**JIT)
def _unpack(j, word, at):
    """A block of the store at `word` into j[at:at + 64] (zeros: -1, none)."""
    for k in range(64):
        value = (j[word + (k >> 2)] >> (16 * (k & 3))) & 0xFFFF if word >= 0 else 0
        j[at + k] = value - 65536 if value >= 32768 else value


@nb.njit(**JIT)
def block_end(j, block):
    """The zig-zag place of a block's last nonzero AC (0: none; 64: no block)."""
    if block < 0:
        return 64
    for k in range(63, 0, -1):
        if j[block + k] != 0:
            return k
    return 0


@nb.njit(**JIT)
def save_block(j):
    """The current block into the store, where it has its place."""
    word = store_word(j)
    if word >= 0:
        for q in range(STORE_WORDS):
            packed = np.int64(0)
            for r in range(4):
                packed |= (j[J_CURRENT_AT + 4 * q + r] & 0xFFFF) << (16 * r)
            j[word + q] = packed


@nb.njit(**JIT)
def begin_block(j):
    """A progressive scan's next block: its coefficients so far from the
    store, and what its first bit is; False where its band's bits are none
    (a block of a run of empty ones, or one whose band holds no coefficient
    to correct)."""
    c, x, y = _place(j)
    _unpack(j, _word(j, c, x, y), J_CURRENT_AT)
    # its neighbours above and to the left, as the scans so far left them
    j[J_ABOVE] = j[J_LEFT] = j[J_LAST] = -1
    if y > 0:
        _unpack(j, _word(j, c, x, y - 1), J_ABOVE_AT)
        j[J_ABOVE] = J_ABOVE_AT
    if x > 0:
        _unpack(j, _word(j, c, x - 1, y), J_LEFT_AT)
        j[J_LEFT] = J_LEFT_AT
    j[J_ABOVE_END], j[J_LEFT_END] = block_end(j, j[J_ABOVE]), block_end(j, j[J_LEFT])
    j[J_K], j[J_RUN], j[J_LAST_RS], j[J_FRESH] = j[J_SS], 0, 0, 1
    j[J_PHASE] = P_DC if j[J_SS] == 0 and j[J_AH] > 0 else P_CODE
    if j[J_SS] == 0 or j[J_EOBRUN] == 0:
        return True
    if j[J_AH] == 0:  # a first scan's empty block: nothing in its band
        j[J_EOBRUN] -= 1
        return False
    return _tail(j)


@nb.njit(**JIT)
def _tail(j):
    """A refining scan's block in a run of empty ones, from j[J_K] on: on to
    its band's next coefficient to correct (True); none: the block is done."""
    while j[J_K] <= j[J_SE]:
        if j[J_CURRENT_AT + j[J_K]] != 0:
            j[J_PHASE] = P_TAIL
            return True
        j[J_K] += 1
    j[J_EOBRUN] -= 1
    return False


@nb.njit(**JIT)
def _advance(j):
    """A refining scan, after a code (and its sign): on past j[J_RUN] zeros
    to the place of the new coefficient (j[J_VALUE]; 0 after sixteen zeros),
    stopping at each coefficient to correct on the way (True: a bit is
    wanted; False: the block is done)."""
    while j[J_K] <= j[J_SE]:
        k = j[J_K]
        if j[J_CURRENT_AT + k] != 0:
            j[J_PHASE] = P_CORRECT
            return True
        if j[J_RUN] == 0:
            j[J_CURRENT_AT + k] = j[J_VALUE]
            j[J_K] = k + 1
            j[J_PHASE] = P_CODE
            return k < j[J_SE]
        j[J_RUN] -= 1
        j[J_K] = k + 1
    return False


@nb.njit(**JIT)
def huffman_symbol(j, bit, dc):
    """The next bit of a scan's Huffman code (the table of the block's
    component for its DC, else for its ACs): the symbol where the code
    ends, else -1 (the scan lost where 16 bits make no code)."""
    j[J_CODE] = (j[J_CODE] << 1) | bit
    j[J_LENGTH] += 1
    length = j[J_LENGTH]
    scan = J_SCAN_AT + SCAN_FIELDS * j[J_BLOCK_AT + BLOCK_FIELDS * j[J_BLOCK]]
    table = J_HUFFMAN_AT + j[scan + (1 if dc else 2)] * HUFFMAN_SIZE
    if j[J_CODE] > j[table + HUFFMAN_MAXCODE + length]:
        if length == 16:
            j[J_STATE] = J_LOST
        return -1
    symbol = j[table + HUFFMAN_VALUES + j[J_CODE] + j[table + HUFFMAN_DELTA + length]]
    j[J_CODE] = j[J_LENGTH] = 0
    return symbol


@nb.njit(**JIT)
def extended(value, size):
    """A value's `size` extra bits as the number they code."""
    if value < (np.int64(1) << (size - 1)):
        value -= (np.int64(1) << size) - 1
    return value


@nb.njit(**JIT)
def progressive_bit(j, bit):
    """`jpeg_bit` in a progressive scan: its DC's bits, its band's codes,
    values, runs of empty blocks, signs and corrections; whether the bit
    ends the block (fade.statistics.jpeg then ends it)."""
    phase = j[J_PHASE]
    done = False  # whether the block is
    j[J_FRESH] = 1
    if phase == P_DC:  # a refining DC scan: the next bit of each block's DC
        j[J_CURRENT_AT] |= bit << j[J_AL]
        done = True
    elif phase == P_CORRECT or phase == P_TAIL:  # a coefficient's next bit
        k = j[J_K]
        value = j[J_CURRENT_AT + k]
        if bit and (value & (np.int64(1) << j[J_AL])) == 0:
            value += (np.int64(1) << j[J_AL]) if value >= 0 else -(np.int64(1) << j[J_AL])
        j[J_CURRENT_AT + k] = value
        j[J_K] = k + 1
        done = not (_advance(j) if phase == P_CORRECT else _tail(j))
    elif phase == P_SIGN:  # a refining scan's new coefficient: one step, its sign
        j[J_VALUE] = (np.int64(1) << j[J_AL]) if bit else -(np.int64(1) << j[J_AL])
        done = not _advance(j)
    elif phase == P_VALUE or phase == P_RUN:  # extra bits
        j[J_VALUE] = (j[J_VALUE] << 1) | bit
        j[J_EXTRA] -= 1
        if j[J_EXTRA] > 0:
            j[J_FRESH] = 0
            return False
        if phase == P_RUN:  # the run's length: its first block ends
            j[J_EOBRUN] += j[J_VALUE]
            done = _run_begun(j)
        elif j[J_SS] == 0:  # a first DC scan's difference
            c = j[J_SCAN_AT + SCAN_FIELDS * j[J_BLOCK_AT + BLOCK_FIELDS * j[J_BLOCK]]]
            j[J_DC_AT + c] += extended(j[J_VALUE], j[J_SIZE])
            j[J_CURRENT_AT] = j[J_DC_AT + c] << j[J_AL]
            done = True
        else:  # a first AC scan's coefficient
            k = j[J_K] + j[J_RUN]
            j[J_CURRENT_AT + k] = extended(j[J_VALUE], j[J_SIZE]) << j[J_AL]
            j[J_K], j[J_RUN], j[J_PHASE] = k + 1, 0, P_CODE
            done = k == j[J_SE]
    else:
        done = _progressive_code(j, bit)
    return done and j[J_STATE] == J_SCAN


@nb.njit(**JIT)
def _run_begun(j):
    """A run of empty blocks (j[J_EOBRUN] of them) begins with this one:
    whether it is done (a first scan's: at once; a refining scan's once its
    band's coefficients are corrected)."""
    if j[J_AH] == 0:
        j[J_EOBRUN] -= 1
        return True
    return not _tail(j)


@nb.njit(**JIT)
def _progressive_code(j, bit):
    """The next bit of a progressive scan's Huffman code, and what the code
    says where it ends; whether the block is done."""
    symbol = huffman_symbol(j, bit, j[J_SS] == 0)
    if symbol < 0:
        j[J_FRESH] = 0
        return False
    run, size = symbol >> 4, symbol & 15
    if j[J_SS] == 0:  # a DC's size
        if symbol > 11:
            j[J_STATE] = J_LOST
            return False
        if symbol == 0:
            c = j[J_SCAN_AT + SCAN_FIELDS * j[J_BLOCK_AT + BLOCK_FIELDS * j[J_BLOCK]]]
            j[J_CURRENT_AT] = j[J_DC_AT + c] << j[J_AL]
            return True
        j[J_PHASE], j[J_EXTRA], j[J_SIZE], j[J_VALUE] = P_VALUE, symbol, symbol, 0
        return False
    j[J_LAST_RS] = symbol
    if size == 0 and run < 15:  # a run of empty blocks, this one the first
        j[J_EOBRUN] = np.int64(1) << run
        if run:
            j[J_PHASE], j[J_EXTRA], j[J_SIZE], j[J_VALUE] = P_RUN, run, run, 0
            return False
        return _run_begun(j)
    if j[J_AH] == 0:  # a first scan: sixteen zeros, or zeros and a value
        if j[J_K] + j[J_RUN] + (16 if size == 0 else run) > j[J_SE] or size > 14:
            j[J_STATE] = J_LOST
            return False
        if size == 0:
            j[J_RUN] += 16
            return False
        j[J_RUN] += run
        j[J_PHASE], j[J_EXTRA], j[J_SIZE], j[J_VALUE] = P_VALUE, size, size, 0
        return False
    if size > 1:  # a refining scan's new coefficients are one step
        j[J_STATE] = J_LOST
        return False
    j[J_RUN] = run
    if size == 0:  # sixteen zeros: on past them
        j[J_VALUE] = 0
        return not _advance(j)
    j[J_PHASE] = P_SIGN
    return False
