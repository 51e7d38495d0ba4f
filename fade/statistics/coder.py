"""The statistics' binary arithmetic coder, and the check it codes.

A carry-less 32-bit range coder (as lpaq1's) on 16-bit probabilities of a
1, its state in Tables.coder's C_ fields; the encoder and the decoder run
the same function. Beside the bits of the data it codes a check of the
bytes it coded, so a decoder that runs past the honest data stops.
"""

from __future__ import annotations

import numba as nb

from fade.statistics.kernels import INLINED, JIT
from fade.statistics.state import (C_CODE, C_COUNT, C_DAMAGED, C_HASH, C_HIGH, C_LOW, C_NEXT,
                                   C_POS, CHECK_BITS, CHECK_LAST)


@nb.njit(**INLINED)
def code_bit(coder, stream, bit, p, decoding):
    """Binary arithmetic coder (carry-less, 32-bit), p = P(1) in 16 bits:
    encode `bit` into `stream`, or decode a bit from it; returns the bit.
    The range splits at middle: a 1 takes [low, middle], a 0 (middle, high];
    while low and high share their top byte, it is shifted out (encoding:
    written; decoding: the next stream byte shifted into the code)."""
    low = coder[C_LOW]
    high = coder[C_HIGH]
    middle = low + (((high - low) * p) >> 16)
    if decoding:
        bit = 1 if coder[C_CODE] <= middle else 0
    if bit:
        high = middle
    else:
        low = middle + 1
    position = coder[C_POS]
    code = coder[C_CODE]
    while ((low ^ high) & 0xFF000000) == 0:
        if decoding:
            byte = 0
            if position < stream.shape[0]:
                byte = stream[position]
            elif position > stream.shape[0] + 8:
                coder[C_DAMAGED] = 1
            code = ((code << 8) & 0xFFFFFFFF) | byte
        elif position < stream.shape[0]:
            stream[position] = (high >> 24) & 255
        position += 1
        low = (low << 8) & 0xFFFFFFFF
        high = ((high << 8) & 0xFFFFFFFF) | 255
    coder[C_POS] = position
    coder[C_LOW] = low
    coder[C_HIGH] = high
    coder[C_CODE] = code
    return bit


@nb.njit(**JIT)
def start_decoder(coder, payload):
    code = 0
    for i in range(4):
        code = code << 8
        if i < payload.shape[0]:
            code |= payload[i]
    coder[C_CODE] = code
    coder[C_POS] = 4


@nb.njit(**JIT)
def flush(coder, out):
    position = coder[C_POS]
    for i in range(4):
        if position < out.shape[0]:
            out[position] = (coder[C_LOW] >> (24 - 8 * i)) & 255
        position += 1
    coder[C_POS] = position


@nb.njit(**JIT)
def code_check(coder, stream, byte, decoding):
    """Hash `byte` into the check; at a check point, code its CHECK_BITS bits
    (a decoder compares them with its own and flags damage)."""
    coder[C_HASH] = ((coder[C_HASH] ^ byte) * 0x01000193) & 0xFFFFFFFF
    coder[C_COUNT] += 1
    if coder[C_COUNT] < coder[C_NEXT]:
        return
    expected = coder[C_HASH] & ((1 << CHECK_BITS) - 1)
    got = 0
    for k in range(CHECK_BITS):
        bit = code_bit(coder, stream, (expected >> (CHECK_BITS - 1 - k)) & 1, 32768, decoding)
        got = (got << 1) | bit
    if got != expected:
        coder[C_DAMAGED] = 1
    coder[C_HASH] = 0
    coder[C_COUNT] = 0
    coder[C_NEXT] = min(2 * coder[C_NEXT], CHECK_LAST)
