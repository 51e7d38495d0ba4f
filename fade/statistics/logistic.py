"""The logistic function and its inverse as integer tables (`SQUASH`,
`STRETCH`), and the adaptive probabilities' steps (`RECIPROCAL`): numpy
alone, so that coding with models compiled at install loads no numba
(fade.statistics.kernels, which compiles with them, takes them from here).
"""

from __future__ import annotations

import numpy as np

# Knots of the logistic function: 65536 / (1 + exp(-k / 2)) for k = -32..32,
# rounded (computed once with math.exp and written out, so no libm is
# involved at run time). Squash interpolates them linearly, 64 stretch units
# apart: the stretch domain is -2047..2047 in units of 1/128 of a logit.
_KNOTS = np.array([
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 5, 8, 13, 22, 36, 60, 98, 162, 267, 439,
    720, 1179, 1921, 3108, 4971, 7812, 11955, 17625, 24743, 32768, 40793, 47911,
    53581, 57724, 60565, 62428, 63615, 64357, 64816, 65097, 65269, 65374, 65438,
    65476, 65500, 65514, 65523, 65528, 65531, 65533, 65534, 65535, 65535, 65536,
    65536, 65536, 65536, 65536, 65536, 65536, 65536, 65536], dtype=np.int64)


def _squash_table() -> np.ndarray:
    d = np.arange(-2047, 2048, dtype=np.int64) + 2048
    k, w = d >> 6, d & 63
    values = (_KNOTS[k] * (64 - w) + _KNOTS[k + 1] * w) >> 6
    return np.clip(values, 1, 65535).astype(np.int32)  # index d + 2047


SQUASH = _squash_table()
# stretch(p) = the smallest d with squash(d) >= p: the inverse on 16-bit probabilities.
STRETCH = (np.searchsorted(SQUASH, np.arange(65536), side="left") - 2047).clip(
    -2047, 2047).astype(np.int16)
# 65536 * 2 / (2n + 3): an adaptive probability's step after n updates, 1 / (n + 1.5).
RECIPROCAL = (131072 // (2 * np.arange(1024, dtype=np.int64) + 3)).astype(np.int32)
