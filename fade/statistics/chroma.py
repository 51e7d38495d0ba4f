"""A colour image's two differences by the differences around them (F_CHROMA).

Coded as green and differences (fade.statistics.colour), a pixel is its
green, then two differences: red less green and blue less green, or the
other way round (F_SWAP). A photo that went through JPEG was brightness and
two colour planes at a lower resolution, smooth and integer; the decoder
added a colour's offset to the brightness for each of red, green and blue.
So a pixel's two differences are, but for clipping, a function of its two
colour values alone: where the colour is the same as a neighbour's, both
differences are the neighbour's, whatever the brightness did.

The image contexts (fade.statistics.image) read the byte before and the
byte two before, which for a difference are the green, or the green and
the first difference: they see the brightness move where the colour did
not. With F_CHROMA, four of them (two in the second difference) read the
differences alone instead:

- in the first difference, the pairs of differences at W and at N together,
  and at W, at N and at NW alone (contexts 16, 17, 10 and 8);
- in the second, the first difference at this pixel with W's two, and with
  N's two (contexts 16 and 17).

The ideas are paq8px's, whose colour contexts pair a neighbour with the
plane before in the pixel; these contexts and where they go were chosen
here on tuning photos (docs/history/statistics-0.11.md, "Models 92 to 103").
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import JIT, context_hash
from fade.statistics.parts import IMAGE
from fade.statistics.state import SCRATCH_HASHES


@nb.njit(**JIT)
def chroma_contexts(scratch, buffer, here, plane, stride, up, left, key, w, n, nw, last,
                    last2, w1, n1):
    """Image contexts 8, 10, 16 and 17 (16 and 17 in the second difference)
    of the difference at buffer[here], plane 1 or 2 of a 3-byte pixel: its
    neighbours W, N and NW in the plane (w, n, nw), the two bytes before
    (last, last2) and the byte before's own W and N (w1, n1), as
    image_contexts reads them (the nearest there are)."""
    h = SCRATCH_HASHES + IMAGE
    if plane == 1:
        # W's second difference is two bytes back; N's a row less one back,
        # NW's a row and two.
        second_n = np.int64(buffer[here - stride + 1]) if up else (last2 if left else 0)
        second_w = last2 if left else second_n
        scratch[h + 16] = context_hash(key | (w << 24) | (second_w << 16) | (n << 8) | second_n,
                                       160)
        scratch[h + 17] = context_hash(key | (w << 8) | second_w, 161)
        scratch[h + 10] = context_hash(key | (n << 8) | second_n, 162)
        second_nw = np.int64(buffer[here - stride - 2]) if up and left else second_n
        scratch[h + 8] = context_hash(key | (nw << 8) | second_nw, 163)
    else:
        scratch[h + 16] = context_hash(key | (last << 16) | (w1 << 8) | w, 164)
        scratch[h + 17] = context_hash(key | (last << 16) | (n1 << 8) | n, 165)
