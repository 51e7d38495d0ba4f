"""Three further APMs (part F_SSE), after the first three.

Secondary estimation in the manner of paq8's SSE stage: the mixed
probability, refined by three more adaptive probability maps, each
interpolating between the two knots around the mixer's stretched output
(the first three's way, fade.statistics.predictor), each its own context
with c0: the byte the match model expects and its length bucket; order 3,
hashed; the last byte with where the last bits were mispredicted (the last
bit, the seven before it, the eight before those). They live after APM3's
rows in its array, as large as it each, and weigh 1, 1 and 2 against 4 for
the first three's average. The ideas are paq8px's (its text SSE keys maps
by the match and by recent mispredictions); these contexts and weights
are chosen and measured here (docs/history/statistics-0.11.md, "Models 37 and 38").
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import JIT, apm_learn, apm_read, context_hash
from fade.statistics.state import APM3_BITS, S_HISTORY, S_MATCH_PTR, S_MISSES

_ROWS = np.int64(1) << APM3_BITS  # each map's contexts (APM3's own come first)


@nb.njit(**JIT)
def sse_rows(streams, buffer, s, c0, last, bucket):
    """The rows of stream s's three maps for its next bit (after APM3's in
    its array); `bucket`: the match's length bucket (0: no match predicting
    this bit)."""
    expected = 0
    if bucket:
        expected = (np.int64(buffer[streams[s, S_MATCH_PTR]]) + 1) * 4 + bucket
    misses = streams[s, S_MISSES]
    recent = (misses & 1) | (2 if misses & 0xFE else 0) | (4 if misses & 0xFF00 else 0)
    mask = _ROWS - 1
    return (_ROWS + (context_hash(expected, c0 + 256) & mask),
            2 * _ROWS + (context_hash(streams[s, S_HISTORY] & 0xFFFFFF, c0 + 512) & mask),
            3 * _ROWS + (context_hash(last * 8 + recent, c0 + 768) & mask))


@nb.njit(**JIT)
def sse_refined(apm3, scratch, rows, knot, weight, p):
    """The probability `p` (the first three APMs' average) refined by the
    three further maps at `rows` (sse_rows'). Keeps the result in scratch[30]."""
    p4 = apm_read(apm3, scratch, 19, rows[0], knot, weight)
    p5 = apm_read(apm3, scratch, 24, rows[1], knot, weight)
    p6 = apm_read(apm3, scratch, 25, rows[2], knot, weight)
    p = (4 * p + p4 + p5 + 2 * p6 + 4) >> 3
    scratch[30] = p
    return p


@nb.njit(**JIT)
def sse_learn(apm3, scratch, streams, s, bit):
    """The three maps learn stream s's `bit`, and its misprediction is kept."""
    for at in (19, 24, 25):
        apm_learn(apm3, scratch[at], bit)
    missed = 1 if (scratch[30] >= 32768) != (bit == 1) else 0
    streams[s, S_MISSES] = ((streams[s, S_MISSES] << 1) | missed) & 0xFFFFFFFF
