"""Images: pixels predicted from their neighbours (F_IMAGE).

A pixel's best context is not the bytes just before it but its neighbours
in the picture: the one to the west, a pixel back, and those in the row
above (north, north-west, north-east), a row's bytes back. So models with
F_IMAGE, once they know an image's layout from its header (`image_layout`:
binary PNM, uncompressed BMP), give each pixel byte, in its plane (a
colour, or a 16-bit sample's high or low byte), what paq8px's and
JPEG-LS's image models read (`image_contexts`):

- 18 hashed contexts: the neighbours in pairs and all four quantized; the
  gradients W + N - NW (the plane's surface continued), W + NE - N and
  N + NE - NNE; the median predictor of JPEG-LS (LOCO-I) with how busy
  the neighbourhood is; from the second plane of a pixel on, W and N moved
  as the plane before moved there (colours move together); the
  neighbours' own gradient errors; and each neighbour with how the last two
  bytes differ from its own last two;
- 26 predictions of the byte (those gradients, the neighbours, trends;
  in colour, the neighbours moved as the last byte and the byte two back
  moved from theirs; in gray, longer gradients and Paeth's predictor; two
  least-squares linear predictors per plane; for a 16-bit sample's high
  byte, the others made of the neighbours' whole samples, then their high
  bytes), each a mixer input from a histogram of its residuals, chosen by the
  prediction, the plane, the column's parity and how far it missed at the
  pixel's neighbours (`image_inputs`, `note_image`);
- weight sets by the plane and how busy the neighbourhood is, by the plane
  and the neighbourhood's shape, by the prediction; with F_SETS two more,
  by the plane and the pixel's place: its column and row in an 8x8 block
  (where a JPEG's blocks were) and its strip of 16 columns (what the
  picture holds there); the second and third APMs by the
  prediction and by the median predictor, not the last bytes;
- with F_BLOCK, the long-memory linear predictor one per
  plane and place in an 8x8 block over a wider neighbourhood (a JPEG's
  block is a few smooth cosines), a context of its prediction, and a colour
  pixel's first plane predicted as gray's (`_block_prediction`); with
  F_CHROMA, a colour's differences by the differences (fade.statistics.chroma).

Outside the pixels (a header, a palette, bytes after) the contexts are
orders 1 to 4 and two sparse ones. The layout (fade.statistics.pixels)
comes from the bytes before the pixels, so the decoder learns it where the
encoder did: after decoding the header (fade.statistics.coding).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.chroma import chroma_contexts
from fade.statistics.kernels import JIT, STRETCH, context_hash
from fade.statistics.parts import F_BLOCK, F_CHROMA, IMAGE, IMAGE_CONTEXTS
from fade.statistics.layouts.image import (
    BLOCK_INPUTS, BLOCK_OFFSETS, BLOCK_SHIFT, BLOCK_SIZE, IMAGE_COUNT_LIMIT, IMAGE_PREDICTIONS,
    IMAGE_RING_MASK, IMAGE_STEPS, IMAGE_STRIP, IMAGE_STRIPS, OLS_INPUTS, OLS_SHIFTS, OLS_SIZE,
    S_BLOCK_INPUTS, S_IMAGE_APM, S_IMAGE_END, S_IMAGE_PHASE, S_IMAGE_PIXEL, S_IMAGE_PLANE,
    S_IMAGE_PREDICTED, S_IMAGE_PREDICTIONS, S_IMAGE_ROW, S_IMAGE_SET, S_IMAGE_SHAPE,
    S_IMAGE_START, S_IMAGE_STRIDE, S_IMAGE_STRIP, S_OLS_INPUTS)
from fade.statistics.state import SCRATCH_HASHES, S_BASE, S_HISTORY, S_POSITION

VIEW = 4096  # how far a 16-bit low byte's view of a neighbour may pass a byte's range
WHOLE = -2  # _px's view of a neighbour for a 16-bit high byte: its whole sample
OLS_RIDGE = 256  # added to each diagonal sum: weights stay small where the sums say little
BLOCK_UP = np.array([up for up, _ in BLOCK_OFFSETS], dtype=np.int64)
BLOCK_LEFT = np.array([left for _, left in BLOCK_OFFSETS], dtype=np.int64)
BLOCK_BASE = len(OLS_SHIFTS) * 4 * OLS_SIZE  # (F_BLOCK's sums after the two predictors')


@nb.njit(**JIT)
def _at(buffer, here, back):
    return np.int64(buffer[here - back])


@nb.njit(**JIT)
def _px(buffer, here, high, back):
    """The byte `back` bytes before; where `high` is not negative (a 16-bit
    gray sample's low byte, its high byte `high`), the big-endian sample
    ending there less high * 256, held within VIEW past a byte's range;
    where it is WHOLE (a high byte), the sample whose high byte that is."""
    if high == WHOLE:
        return _sample(buffer, here, back)
    if high < 0:
        return np.int64(buffer[here - back])
    return min(max(_sample(buffer, here, back + 1) - (high << 8), -VIEW), 255 + VIEW)


@nb.njit(**JIT)
def _sample(buffer, here, back):
    """The big-endian 16-bit sample whose high byte lies `back` bytes before."""
    return (np.int64(buffer[here - back]) << 8) | np.int64(buffer[here - back + 1])


@nb.njit(**JIT)
def _clip(value):
    return min(max(value, 0), 255)


@nb.njit(**JIT)
def _scaled(value, shift):
    """A prediction of a byte held within a byte: `value` itself (shift 0),
    or the high byte of a 16-bit sample's prediction (shift 8)."""
    return min(max(value >> shift, 0), 255)


# The helpers that image_contexts calls from more than one place (_neighbours,
# _plane_predictions, _against, _gray_predictions) take int64 arguments at
# every call (np.int64 on constants), so each compiles once.
@nb.njit(**JIT)
def _neighbours(buffer, here, view, x, y, stride, pixel, row):
    """W, N, NW, NE, NEE, WW, NN, NNE, NWW and NNW of the byte at `here`
    (x, y: its place) as `_px` reads them with `view`; where the picture has
    none, the nearest it has."""
    left, up, right = x >= pixel, y >= 1, x + pixel < row
    w = _px(buffer, here, view, pixel) if left else (
        _px(buffer, here, view, stride) if up else 0)
    n = _px(buffer, here, view, stride) if up else w
    nw = _px(buffer, here, view, stride + pixel) if up and left else n
    ne = _px(buffer, here, view, stride - pixel) if up and right else n
    nee = _px(buffer, here, view, stride - 2 * pixel) if up and x + 2 * pixel < row else ne
    ww = _px(buffer, here, view, 2 * pixel) if x >= 2 * pixel else w
    nn = _px(buffer, here, view, 2 * stride) if y >= 2 else n
    nne = _px(buffer, here, view, 2 * stride - pixel) if y >= 2 and right else nn
    nww = _px(buffer, here, view, stride + 2 * pixel) if up and x >= 2 * pixel else nw
    nnw = _px(buffer, here, view, 2 * stride + pixel) if y >= 2 and left else nn
    return w, n, nw, ne, nee, ww, nn, nne, nww, nnw


@nb.njit(**JIT)
def _plane_predictions(streams, s, w, n, nw, ne, nn, nne, ww, nww, nnw, nee, moved_w, moved_n,
                       moved, shift):
    """Predictions 0 to 15 of a pixel's byte from its neighbours in the
    plane (and, as image_contexts makes them, its moves from the plane
    before), each as `_scaled` holds it; but 1, 10 and 12, which colour and
    gray make their own."""
    p = S_IMAGE_PREDICTIONS
    streams[s, p] = _scaled(w + n - nw, shift)
    streams[s, p + 2] = _scaled(w, shift)
    streams[s, p + 3] = _scaled(n, shift)
    streams[s, p + 4] = _scaled(w + ne - n, shift)
    streams[s, p + 5] = _scaled(n + ne - nne, shift)
    streams[s, p + 6] = _scaled(moved_w, shift)
    streams[s, p + 7] = _scaled(moved_n, shift)
    streams[s, p + 8] = _scaled(w + nw - nww, shift)
    streams[s, p + 9] = _scaled(n + nw - nnw, shift)
    streams[s, p + 11] = _scaled(2 * w - ww, shift)
    streams[s, p + 13] = _scaled((w + nee + 1) >> 1, shift)
    streams[s, p + 14] = _scaled(nw + ne - nn, shift)
    streams[s, p + 15] = _scaled(moved, shift)


@nb.njit(**JIT)
def _against(buffer, here, back, last1, last2, view, pixel):
    """last1 and last2 (the two bytes before here) less the two before the
    byte `back` bytes back (0 and 0 without one), 12 bits each; for a 16-bit
    low byte (`view` its high byte), less that neighbour's W and WW as `_px`
    sees them."""
    if back == 0:
        return np.int64(0)
    if view >= 0:
        one = min(max(last1 - _px(buffer, here, view, back + pixel) + 2048, 0), 4095)
        two = min(max(last2 - _px(buffer, here, view, back + 2 * pixel) + 2048, 0), 4095)
        return (one << 12) | two
    one = last1 - _at(buffer, here, back + 1) + 2048
    two = last2 - _at(buffer, here, back + 2) + 2048
    return (one << 12) | two


@nb.njit(**JIT)
def _confidence(errors, position, back_w, back_n, back_nw, back_ne, k):
    """How well prediction k did at the pixel's neighbours (W and N
    counting twice, NW and NE once), in IMAGE_STEPS steps: half the sum of
    its errors below 24, then one step each time the sum doubles."""
    total = 2 * np.int64(errors[((position - back_w) & IMAGE_RING_MASK) * IMAGE_PREDICTIONS + k])
    total += 2 * np.int64(errors[((position - back_n) & IMAGE_RING_MASK) * IMAGE_PREDICTIONS + k])
    total += np.int64(errors[((position - back_nw) & IMAGE_RING_MASK) * IMAGE_PREDICTIONS + k])
    total += np.int64(errors[((position - back_ne) & IMAGE_RING_MASK) * IMAGE_PREDICTIONS + k])
    if total < 24:
        return total >> 1
    step = 12
    while step < IMAGE_STEPS - 1 and total >= (48 << (step - 12)):
        step += 1
    return step


# Called, not inlined: inlined, it cost a third of the first compile (98 s -> 67 s).
@nb.njit(**JIT)
def image_contexts(scratch, streams, buffer, errors, solver, s, parts):
    """Hash stream s's image contexts for its next byte into the scratch,
    and note its predictions, weight set and APM rows (module docstring)."""
    position = streams[s, S_POSITION]
    start = streams[s, S_IMAGE_START]
    stride = streams[s, S_IMAGE_STRIDE]
    if stride == 0 or position < start or position >= streams[s, S_IMAGE_END]:
        # Outside the pixels (a header, a palette, bytes after): orders 1 to 4
        # and two sparse ones (palettes run in 4 bytes a colour).
        history = streams[s, S_HISTORY]
        for k in range(IMAGE_CONTEXTS):
            context = history & 255
            if k < 4:
                context = history & ((np.int64(1) << (8 * (k + 1))) - 1)
            elif k == 4:
                context = history & 0xFF0000FF
            elif k == 5:
                context = history & 0xFF000000
            scratch[SCRATCH_HASHES + IMAGE + k] = context_hash(context, 120 + k)
        streams[s, S_IMAGE_PREDICTED] = history & 255
        streams[s, S_IMAGE_SET] = 0
        streams[s, S_IMAGE_SHAPE] = 0
        streams[s, S_IMAGE_PHASE] = 0
        streams[s, S_IMAGE_STRIP] = 0
        streams[s, S_IMAGE_APM] = streams[s, S_HISTORY] & 0xFFFF
        for k in range(IMAGE_PREDICTIONS):
            streams[s, S_IMAGE_PREDICTIONS + k] = -1
        return
    here = streams[s, S_BASE] + position
    pixel = streams[s, S_IMAGE_PIXEL]
    offset = position - start
    y = offset // stride
    x = offset - y * stride  # the byte's place in its row
    plane = x % pixel
    # The neighbours in the plane; where the picture has none, the nearest it has.
    # A 16-bit gray sample's low byte sees its neighbours' whole samples less
    # its own high byte `upper` (coded just before): `_px`.
    last = _at(buffer, here, 1)
    upper = last if pixel == 2 and plane == 1 else -1
    left = x >= pixel
    up = y >= 1
    row = streams[s, S_IMAGE_ROW]
    right = x + pixel < row
    w, n, nw, ne, nee, ww, nn, nne, nww, nnw = _neighbours(buffer, here, upper, x, y, stride,
                                                           pixel, row)
    if upper >= 0:
        # A 16-bit gray sample's low byte: its own high byte is in the view,
        # so the bytes before are W's and WW's samples as it sees them, as
        # in 8-bit gray, and theirs W's neighbours.
        last, last2 = _clip(w), _clip(ww)
        w1, n1, nw1, ne1 = ww, nw, nww, n
        w2 = _px(buffer, here, upper, 3 * pixel) if x >= 3 * pixel else ww
        n2 = nww
    else:
        # The last byte's own neighbours (the plane before, or W's last plane).
        w1 = _at(buffer, here, pixel + 1) if left else last
        n1 = _at(buffer, here, stride + 1) if up else last
        nw1 = _at(buffer, here, stride + pixel + 1) if up and left else n1
        ne1 = _at(buffer, here, stride - pixel + 1) if up and right else n1
        # ... and the byte two back's.
        last2 = _at(buffer, here, 2)
        w2 = _at(buffer, here, pixel + 2) if left else last2
        n2 = _at(buffer, here, stride + 2) if up else last2
    gradient = _clip(w + n - nw)
    low, high = min(w, n), max(w, n)
    median = low if nw >= high else (high if nw <= low else w + n - nw)
    # The neighbours' own errors: how far the gradient missed at W and at N.
    error_w = w - _clip(ww + nw - nww)
    error_n = n - _clip(nw + nn - nnw)
    # The planes coded before in this pixel: where the plane before went.
    before = 0
    moved_w = (w + ne + 1) >> 1
    moved_n = _clip(2 * n - nn)
    moved = (w + n + 1) >> 1
    if plane > 0 and upper < 0:
        before = last
        moved_w = _clip(w + before - w1)
        moved_n = _clip(n + before - n1)
        moved = _clip(gradient + before - _clip(w1 + n1 - nw1))
    busy = abs(w - nw) + abs(n - nw) + abs(ne - n)
    level = 0
    while level < 7 and busy > (2 << level):
        level += 1
    key = (plane + 1) << 40
    h = SCRATCH_HASHES + IMAGE
    blocked = parts & F_BLOCK
    streams[s, S_IMAGE_PLANE] = min(plane, 3)
    column = x // pixel
    streams[s, S_IMAGE_PHASE] = (min(plane, 3) << 6) | ((column & 7) << 3) | (y & 7)
    block = 0  # (F_BLOCK's prediction, made before the contexts: context 11 reads it)
    if blocked:
        block = _block_prediction(streams, solver, buffer, here, s, upper, column, y, stride,
                                  pixel, row // pixel, w)
    scratch[h] = context_hash(key | gradient, 130)
    scratch[h + 1] = context_hash(key | (median << 8) | min(busy >> 2, 255), 131)
    scratch[h + 2] = context_hash(key | (w << 8) | n, 132)
    scratch[h + 3] = context_hash(key | (n << 8) | ne, 133)
    scratch[h + 4] = context_hash(key | (w << 8) | nw, 134)
    scratch[h + 5] = context_hash(key | (_clip(w + ne - n) << 8) | _clip(n + ne - nne), 135)
    scratch[h + 6] = context_hash(
        key | ((w >> 2) << 18) | ((n >> 2) << 12) | ((nw >> 2) << 6) | (ne >> 2), 136)
    scratch[h + 7] = context_hash(key | (moved_w << 8) | moved_n, 137)
    scratch[h + 8] = context_hash(key | (before << 8) | moved, 138)
    scratch[h + 9] = context_hash(
        key | (gradient << 16) | ((min(max(error_w + error_n, -255), 255) + 255) >> 1), 139)
    scratch[h + 10] = context_hash(key | (_clip(2 * w - ww) << 8) | _clip(2 * n - nn), 140)
    scratch[h + 11] = context_hash(key | (((w + ne + 1) >> 1) << 8) | ((n + nw + 1) >> 1), 141)
    if blocked:
        scratch[h + 11] = context_hash(key | ((block | 1024) << 8) | min(busy >> 2, 255), 141)
    # A neighbour with how the last two bytes (the planes before, in colour)
    # differ from its own last two: where this pixel stands against it.
    back_w = pixel if left else (stride if up else 0)
    back_n = stride if up else back_w
    back_nw = stride + pixel if up and left else back_n
    back_ne = stride - pixel if up and right else back_n
    scratch[h + 12] = context_hash(
        key | (w << 24) | _against(buffer, here, back_w, last, last2, upper, pixel), 142)
    scratch[h + 13] = context_hash(
        key | (n << 24) | _against(buffer, here, back_n, last, last2, upper, pixel), 143)
    scratch[h + 14] = context_hash(
        key | (nw << 24) | _against(buffer, here, back_nw, last, last2, upper, pixel), 144)
    scratch[h + 15] = context_hash(
        key | (ne << 24) | _against(buffer, here, back_ne, last, last2, upper, pixel), 145)
    median16 = 0
    whole = pixel == 2 and plane == 0 and left and up  # a 16-bit sample's high byte
    # (for a high byte, below: its neighbours as whole samples)
    samples = (w, n, nw, ne, nee, ww, nn, nne, nww, nnw)
    if whole:
        # A 16-bit gray sample's high byte: the whole samples' median and
        # gradient, to a 16th of a byte (how near a carry the low byte is).
        samples = _neighbours(buffer, here, np.int64(WHOLE), x, y, stride, pixel, row)
        w16, n16, nw16 = samples[0], samples[1], samples[2]
        low16, high16 = min(w16, n16), max(w16, n16)
        median16 = low16 if nw16 >= high16 else (high16 if nw16 <= low16 else w16 + n16 - nw16)
        gradient16 = min(max(w16 + n16 - nw16, 0), 65535)
        scratch[h + 16] = context_hash(key | (median16 >> 4) | (1 << 20), 146)
        scratch[h + 17] = context_hash(key | (gradient16 >> 4) | (1 << 20), 147)
    else:
        scratch[h + 16] = context_hash(key | (last << 8) | last2, 146)
        scratch[h + 17] = context_hash(key | (((w + n + 4) >> 3) << 8) | ((last >> 4) << 4) |
                                       (last2 >> 4), 147)
    if parts & F_CHROMA and pixel == 3 and plane > 0:
        chroma_contexts(scratch, buffer, here, plane, stride, up, left, key, w, n, nw, last,
                        last2, w1, n1)
    streams[s, S_IMAGE_PREDICTED] = moved_w if plane > 0 and upper < 0 else gradient
    streams[s, S_IMAGE_SET] = min(plane, 3) * 8 + level
    shape = ((abs(w - nw) > 3) << 8) | ((abs(nw - n) > 3) << 7) | ((abs(n - ne) > 3) << 6)
    shape |= ((n > nw) << 5) | ((n > ne) << 4) | ((n > nn) << 3) | ((w > n) << 2)
    shape |= ((w > nw) << 1) | (w > ww)
    streams[s, S_IMAGE_SHAPE] = (min(plane, 3) << 9) | shape
    streams[s, S_IMAGE_APM] = (plane << 16) | (_clip(median) << 8) | min(busy >> 1, 255)
    if whole:  # by the whole samples' median, finer
        streams[s, S_IMAGE_APM] = (1 << 20) | (median16 >> 4)
    streams[s, S_IMAGE_STRIP] = min(plane, 3) * IMAGE_STRIPS + \
        (column // IMAGE_STRIP) % IMAGE_STRIPS
    _ols_predictions(streams, solver, s, w, n, nw, ne, nn, nne, ww, nww,
                     last, last2, w1, n1, nw1, ne1, w2, n2, blocked)
    if blocked:
        streams[s, S_IMAGE_PREDICTIONS + 25] = block
    if whole:
        # A 16-bit gray sample's high byte: the predictions made of the whole
        # samples, then their high bytes (which know where a carry is near).
        w, n, nw, ne, nee, ww, nn, nne, nww, nnw = samples
        _plane_predictions(streams, s, w, n, nw, ne, nn, nne, ww, nww, nnw, nee,
                           (w + ne + 1) >> 1, 2 * n - nn, (w + n + 1) >> 1, np.int64(8))
        _gray_predictions(streams, s, buffer, here, stride, pixel, x, y, up, left, right,
                          np.int64(WHOLE), w, n, nw, ne, nn, nne, ww, nww, nnw, nee, np.int64(8))
    else:
        _plane_predictions(streams, s, w, n, nw, ne, nn, nne, ww, nww, nnw, nee, moved_w,
                           moved_n, moved, np.int64(0))
        if pixel >= 3 and (plane > 0 or not blocked):
            # colour: the last byte (the plane before, or W's last plane) moved
            _colour_predictions(streams, s, buffer, here, stride, pixel, up, left, right,
                                w, n, nw, ne, nn, nne, ww, last, w1, n1, nw1, ne1, last2, n2, w2)
        else:
            _gray_predictions(streams, s, buffer, here, stride, pixel, x, y, up, left, right,
                              upper, w, n, nw, ne, nn, nne, ww, nww, nnw, nee, np.int64(0))
    # Each prediction's histogram: the prediction, the plane, the column's
    # parity and how well it did at the neighbours (the nearest there are).
    ring_w = pixel if left else stride
    ring_n = stride if up else pixel
    ring_nw = stride + pixel if up and left else ring_n
    ring_ne = stride - pixel if up and right else ring_n
    p = S_IMAGE_PREDICTIONS
    for k in range(IMAGE_PREDICTIONS):
        step = _confidence(errors, position, ring_w, ring_n, ring_nw, ring_ne, k)
        group = ((k * 4 + min(plane, 3)) * 2 + ((x // pixel) & 1)) * IMAGE_STEPS
        streams[s, p + k] |= (group + step) << 12


@nb.njit(**JIT)
def _ols_predictions(streams, solver, s, w, n, nw, ne, nn, nne, ww, nww,
                     last, last2, w1, n1, nw1, ne1, w2, n2, blocked):
    """Predictions 24 and 25: two linear predictors of the byte less W (per
    plane, least squares with a short and a long memory) from the
    neighbours less W, the last two bytes less their own west and north
    neighbours, and a constant."""
    x = S_OLS_INPUTS
    streams[s, x] = n - w
    streams[s, x + 1] = nw - w
    streams[s, x + 2] = ne - w
    streams[s, x + 3] = ww - w
    streams[s, x + 4] = nn - w
    streams[s, x + 5] = nne - w
    streams[s, x + 6] = nww - w
    streams[s, x + 7] = last - w1
    streams[s, x + 8] = last - n1
    streams[s, x + 9] = last - nw1
    streams[s, x + 10] = last - ne1
    streams[s, x + 11] = last2 - w2
    streams[s, x + 12] = last2 - n2
    streams[s, x + 13] = n1 - nw1
    streams[s, x + 14] = ne1 - n1
    streams[s, x + 15] = 16
    plane = streams[s, S_IMAGE_PLANE]
    for r in range(_ols_count(blocked)):
        weights = (r * 4 + plane) * OLS_SIZE + OLS_INPUTS * OLS_INPUTS + OLS_INPUTS
        total = np.int64(0)
        for i in range(OLS_INPUTS):
            total += solver[weights + i] * streams[s, x + i]
        streams[s, S_IMAGE_PREDICTIONS + 24 + r] = _clip(_clip(w) + (total >> 16))


@nb.njit(**JIT)
def _block_prediction(streams, solver, buffer, here, s, view, column, y, stride, pixel, width, w):
    """F_BLOCK's prediction of the byte: least squares per plane and place in
    an 8x8 block over BLOCK_OFFSETS' neighbours (the nearest in the picture
    where it has none) less W, as `_px` reads them with `view`."""
    x = S_BLOCK_INPUTS
    for i in range(BLOCK_INPUTS - 1):
        up = max(y - BLOCK_UP[i], 0)
        left = min(max(column - BLOCK_LEFT[i], 0), width - 1)
        back = (y - up) * stride + (column - left) * pixel
        streams[s, x + i] = (_px(buffer, here, view, back) if back > 0 else w) - w
    streams[s, x + BLOCK_INPUTS - 1] = 16
    weights = block_cell(streams[s, S_IMAGE_PHASE]) + BLOCK_INPUTS * BLOCK_INPUTS + BLOCK_INPUTS
    total = np.int64(0)
    for i in range(BLOCK_INPUTS):
        total += solver[weights + i] * streams[s, x + i]
    return _clip(_clip(w) + (total >> 16))


@nb.njit(**JIT)
def block_cell(phase):
    """Where F_BLOCK's sums and weights for a byte of S_IMAGE_PHASE `phase`
    (its plane and place in the 8x8 block) start in the solver."""
    return BLOCK_BASE + phase * BLOCK_SIZE


@nb.njit(**JIT)
def _ols_count(blocked):
    """How many of the OLS_SHIFTS predictors run: with F_BLOCK, the
    block's takes the long-memory one's place."""
    return 1 if blocked else len(OLS_SHIFTS)


@nb.njit(**JIT)
def _ols_learn(streams, solver, s, byte, blocked):
    """The linear predictors (with F_BLOCK, the block's in the long-memory
    one's place) learn stream s's byte."""
    plane = streams[s, S_IMAGE_PLANE]
    # (their inputs are relative to W; the target is the byte less W)
    target = byte - (streams[s, S_IMAGE_PREDICTIONS + 2] & 255)
    for r in range(_ols_count(blocked)):
        _solve(streams, solver, s, S_OLS_INPUTS, OLS_INPUTS, (r * 4 + plane) * OLS_SIZE,
               OLS_SHIFTS[r], target)
    if blocked:
        _solve(streams, solver, s, S_BLOCK_INPUTS, BLOCK_INPUTS,
               block_cell(streams[s, S_IMAGE_PHASE]), BLOCK_SHIFT, target)


@nb.njit(**JIT)
def _solve(streams, solver, s, x, n, matrix, shift, target):
    """One least squares predictor (its n inputs at streams[s, x:], its sums
    and weights at solver[matrix:]) learns `target`: its sums decay by
    2^-shift and take this byte's inputs, and one sweep of Gauss-Seidel
    moves its weights toward the sums' least squares solution."""
    vector = matrix + n * n
    weights = vector + n
    # The sums' matrix is symmetric: its upper triangle alone is kept (row i
    # from column i), and read for both halves.
    for i in range(n):
        xi = streams[s, x + i]
        row = matrix + i * n
        for j in range(i, n):
            solver[row + j] += xi * streams[s, x + j] - (solver[row + j] >> shift)
        solver[vector + i] += xi * target - (solver[vector + i] >> shift)
    for i in range(n):
        row = matrix + i * n
        total = solver[vector + i] << 16
        for j in range(i):
            total -= solver[matrix + j * n + i] * solver[weights + j]
        for j in range(i + 1, n):
            total -= solver[row + j] * solver[weights + j]
        solver[weights + i] = total // (solver[row + i] + OLS_RIDGE)


@nb.njit(**JIT)
def _colour_predictions(streams, s, buffer, here, stride, pixel, up, left, right,
                        w, n, nw, ne, nn, nne, ww, last, w1, n1, nw1, ne1, last2, n2, w2):
    """Predictions 16 to 23 of a colour pixel's byte: its neighbours
    moved as the last byte (the plane before in this pixel; for the first
    plane, the west pixel's last) moved from theirs, as paq8px's (`last`
    and its neighbours w1, n1, nw1 and ne1, and the byte two back's, from
    image_contexts)."""
    nn1 = _at(buffer, here, 2 * stride + 1) if up and nn != n else n1
    nne1 = _at(buffer, here, 2 * stride - pixel + 1) if up and right and nn != n else nn1
    ww1 = _at(buffer, here, 2 * pixel + 1) if left and ww != w else w1
    p = S_IMAGE_PREDICTIONS
    streams[s, p + 16] = last
    streams[s, p + 17] = _clip(ne + last - ne1)
    streams[s, p + 18] = _clip(nn + last - nn1)
    streams[s, p + 19] = _clip(nw + last - nw1)
    streams[s, p + 20] = _clip((n + ne - nne) + last - (n1 + ne1 - nne1))
    streams[s, p + 21] = _clip((2 * n + last - n1 + 1) >> 1)
    streams[s, p + 22] = _clip((2 * w - ww) + last - (2 * w1 - ww1))
    streams[s, p + 23] = _clip((2 * w + last - w1 + 1) >> 1)
    # In place of three that colour needs least (the median, two averages):
    # the neighbours moved as the byte two back moved from theirs.
    ne2 = _at(buffer, here, stride - pixel + 2) if up and right else n2
    streams[s, p + 1] = _clip(n + last2 - n2)
    streams[s, p + 10] = _clip(w + last2 - w2)
    streams[s, p + 12] = _clip(ne + last2 - ne2)


@nb.njit(**JIT)
def _gray_predictions(streams, s, buffer, here, stride, pixel, x, y, up, left, right,
                      view, w, n, nw, ne, nn, nne, ww, nww, nnw, nee, shift):
    """Predictions 16 to 23 of a gray pixel's byte: longer gradients (the
    neighbours and `view` as `_px` reads them; `shift` as `_scaled`'s)."""
    nnn = _px(buffer, here, view, 3 * stride) if y >= 3 else nn
    www = _px(buffer, here, view, 3 * pixel) if x >= 3 * pixel else ww
    nwww = _px(buffer, here, view, stride + 3 * pixel) if up and x >= 3 * pixel else nww
    nnww = _px(buffer, here, view, 2 * stride + 2 * pixel) if y >= 2 and x >= 2 * pixel \
        else nnw
    nnee = _px(buffer, here, view, 2 * stride - 2 * pixel) if y >= 2 and x + 2 * pixel < \
        streams[s, S_IMAGE_ROW] else nne
    low = min(min(w, n), min(ne, nw))
    high = max(max(w, n), max(ne, nw))
    p = S_IMAGE_PREDICTIONS
    streams[s, p + 16] = _scaled(min(max(3 * n - 3 * nn + nnn, low), high), shift)
    streams[s, p + 17] = _scaled(min(max(3 * w - 3 * ww + www, low), high), shift)
    streams[s, p + 18] = _scaled(2 * w + nw - ww - 2 * nww + nwww, shift)
    streams[s, p + 19] = _scaled(w + nne - nn, shift)
    streams[s, p + 20] = _scaled(w + nnw - nnww, shift)
    streams[s, p + 21] = _scaled((8 * w - 3 * ww + 2 * nee - nnee) // 6, shift)
    streams[s, p + 22] = _scaled(((2 * n - nn) + (2 * w - ww) + 1) >> 1, shift)
    streams[s, p + 23] = _scaled(n + nw - nnw, shift)
    # In place of three that gray needs least (the median, two averages):
    # N moved as NWW moved, the north-east gradient, Paeth's predictor.
    streams[s, p + 1] = _scaled(n + nww - nnww, shift)
    streams[s, p + 10] = _scaled(2 * ne - nnee, shift)
    base = w + n - nw
    to_w, to_n, to_nw = abs(base - w), abs(base - n), abs(base - nw)
    paeth = w if to_w <= to_n and to_w <= to_nw else (n if to_n <= to_nw else nw)
    streams[s, p + 12] = _scaled(paeth, shift)


@nb.njit(**JIT)
def note_image(streams, errors, maps, solver, s, byte, parts):
    """After stream s coded `byte` (S_POSITION already past it): each
    prediction's residual counted in its histogram, its error kept for the
    pixels to come; the linear predictors learn."""
    position = streams[s, S_POSITION] - 1
    if streams[s, S_IMAGE_PREDICTIONS] >= 0:
        _ols_learn(streams, solver, s, byte, parts & F_BLOCK)
    base = (position & IMAGE_RING_MASK) * IMAGE_PREDICTIONS
    for k in range(IMAGE_PREDICTIONS):
        prediction = streams[s, S_IMAGE_PREDICTIONS + k]
        if prediction < 0:
            errors[base + k] = 255
            continue
        errors[base + k] = min(abs(byte - (prediction & 255)), 255)
        first = (byte - (prediction & 255) + 128) & 255
        sums = (prediction >> 12) * 256
        for b in range(first, 256):
            maps[sums + b] += 1
        if maps[sums + 255] >= IMAGE_COUNT_LIMIT:
            for b in range(256):
                maps[sums + b] >>= 1


@nb.njit(**JIT)
def _count(maps, sums, first, length):
    """How many residuals fell in bins first .. first + length - 1 (mod 256)
    of the histogram at maps[sums:], kept as sums of bins 0 .. b."""
    end = first + length - 1
    below = np.int64(maps[sums + first - 1]) if first > 0 else np.int64(0)
    if end < 256:
        return np.int64(maps[sums + end]) - below
    return np.int64(maps[sums + 255]) - below + np.int64(maps[sums + end - 256])


@nb.njit(**JIT)
def image_inputs(inputs, n, streams, maps, s, c0, bitpos):
    """The inputs for stream s's next bit, at inputs[n:n + IMAGE_INPUTS]:
    per prediction of its byte, the stretched probability of a 1 from the
    histogram of its residuals (by the prediction, its plane and how well
    it did nearby): the share of the values the bits so far leave that have
    a 1 next (0 outside the pixels)."""
    low = (c0 << (8 - bitpos)) & 255
    length = 1 << (7 - bitpos)
    for k in range(IMAGE_PREDICTIONS):
        prediction = streams[s, S_IMAGE_PREDICTIONS + k]
        if prediction < 0:
            inputs[n + k] = 0
            continue
        sums = (prediction >> 12) * 256
        first = (low - prediction + 128) & 255
        zeros = _count(maps, sums, first, length)
        ones = _count(maps, sums, (first + length) & 255, length)
        # (the quotient in doubles, exact: both terms are below 2^53; 26 divisions a bit
        # pipeline there, where integer ones wait on each other)
        p = np.int64(np.float64((2 * ones + 1) * 65536) / np.float64(2 * (zeros + ones) + 2))
        inputs[n + k] = STRETCH[max(min(p, 65535), 1)]
