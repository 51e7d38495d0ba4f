"""x86 machine code: call and jump targets as addresses, not distances.

A call (E8) or jump (E9) in x86 code is followed by a 32-bit distance to
its target, counted from the next instruction: the same function called
from two places has two distances, so the bytes after E8 never repeat.
Written as the target's address instead (the distance plus the place), the
calls to one function become the same bytes, which the contexts then learn
(xz's BCJ filter and paq8's exe model do the same). `e8e9` turns the
distances into addresses before coding, and back after decoding. An E8 or
E9 byte takes the four bytes after it as its operand where the operand's
top byte is 00 or FF (a distance within 2^24 either way, as code has it)
and no E8 or E9 left alone lies in the 3 bytes before it; its low three
bytes get its place added (or taken away) modulo 2^24, and the scan goes
on after the operand. Nothing the decision reads ever changes: not the E8
and E9 bytes, not an operand's top byte, and not the top byte of an E8 or
E9 left alone (without the second rule, an operand that starts up to 3
bytes after one could change it, and the change would not reverse: the
first version did so).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import JIT


@nb.njit(**JIT)
def _e8e9(data, forward):
    out = data.copy()
    rejected = np.int64(-8)  # the last E8 or E9 looked at and left
    i = 0
    while i + 5 <= out.shape[0]:
        if out[i] == 0xE8 or out[i] == 0xE9:
            if (out[i + 4] == 0 or out[i + 4] == 0xFF) and i - rejected > 3:
                value = (np.int64(out[i + 1]) | (np.int64(out[i + 2]) << 8)
                         | (np.int64(out[i + 3]) << 16))
                value = (value + i if forward else value - i) & 0xFFFFFF
                for k in range(3):
                    out[i + 1 + k] = (value >> (8 * k)) & 255
                i += 5
                continue
            rejected = i
        i += 1
    return out


def e8e9(data: np.ndarray, forward: bool) -> np.ndarray:
    """`data` (uint8) with each call's and jump's distance made its target's
    address (`forward`), or back; a new array."""
    return _e8e9(np.ascontiguousarray(data, dtype=np.uint8), forward)
