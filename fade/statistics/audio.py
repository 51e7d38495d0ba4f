"""Audio: PCM samples coded as what a predictor did not foresee (F_AUDIO).

The context mixer sees bytes; a 16-bit sample is two of them, the low one
all but noise, and a sample's best context is a prediction from the
samples before it, not their bytes. So models with F_AUDIO code a WAV
file's samples as residuals (`_residuals`, which fade.statistics.steps
calls), and the decoder rebuilds the samples from them after decoding, as
the x86 models code addresses (fade.statistics.x86). In the file's order
of its samples, each channel with predictors of its own:

- the sample, less the first channel's sample at the same time for a
  channel after the first while that side has moved less than the channel
  itself (stereo's side: two channels that move together leave little; two
  that do not would each carry the other's moves), wrapped to the sample's
  bits: decayed sums of the channel's moves each way (1/2^SIDE_DECAY a
  sample) choose, from the samples already coded, and the choice changes
  where the other way has moved a quarter less (from SIDE_START samples
  on; the least squares' inputs below are then moved to the new way and
  its sums start again);
- d, that less the channel's previous one (first-order difference);
- a prediction of d by least squares from the channel's OLS_ORDER previous
  differences (and, with more than one channel, OLS_CROSS moves of the
  other: the first channel's, this time's and before, for the channels
  after it; the second's before, for the first; all in units of the wasted
  bits below, held within +-OLS_LIMIT), as paq8px's audio model
  predicts (its OLS, written anew in integers): the sums of the inputs'
  products with each other and with d decay by 1/2^OLS_DECAY a sample and
  are solved every OLS_EVERY samples by Cholesky's factors in integers
  (`_solve`), so that it learns a recording within a few hundred samples;
- a prediction of what that missed from its ORDER previous misses, and of
  what both missed from their SHORT previous misses (a cascade of two
  filters): weights in 1/2^SHIFT, each moved by STEP (SHORT_STEP) after
  every sample toward the sign of its filter's error times the sign of its
  input (sign-sign LMS, integer only, weights held within +-LIMIT), as
  Monkey's Audio and TTA predict;
- the three predictions' sum rounded down to the low bits that every value of
  the channel so far left 0 (its wasted bits: 16-bit audio in a 24-bit
  file), which the residual then keeps 0, the zigzag below taken of the
  bits above them;
- the residual, d less that sum, wrapped to the sample's bits,
  zigzagged (0, -1, 1, -2, ... as 0, 1, 2, 3, ...) and written most
  significant byte first, so that the high byte, mostly 0, is coded first
  and the low bytes knowing it.

The samples are those of the data chunk of a RIFF WAVE file whose format is
PCM (tag 1, or WAVE_FORMAT_EXTENSIBLE with the PCM sub-format) of 16 or
24 bits and 1 to 8 channels (fade.statistics.wav); its header and any bytes after the
whole samples are kept as they are, so the decoder finds the layout in the
bytes it decoded. Data that is no such file is coded as it is.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import ALLOCATING  # (first: where numba caches, kernels.py)

ORDER, SHORT, SHIFT, STEP, SHORT_STEP, LIMIT = 16, 4, 12, 16, 64, 1 << 20
# The least squares predictor (see above): its orders, the decay of its sums
# (1/2^OLS_DECAY a sample), how often they are solved, the ridge (each
# diagonal sum raised by 1/2^OLS_RIDGE of itself and OLS_FLOOR units), the
# scale of the sums in the solution, its weights' fraction bits and bound,
# and the bound on an input (in units of the wasted bits).
OLS_ORDER, OLS_CROSS, OLS_DECAY, OLS_EVERY = 48, 4, 9, 8
OLS_ORDER64 = 64  # the order with F_OLS64
OLS_RIDGE, OLS_SCALE, OLS_FRACTION, OLS_WEIGHTS, OLS_LIMIT = 20, 50, 16, 1 << 24, 1 << 19
# The sums' products in 1/2^OLS_PRODUCT, so that their decay (rounded) is
# fine beside them where the samples are quiet.
OLS_PRODUCT, OLS_FLOOR = 8, 16
OLS_ROUND = 1 << (OLS_DECAY - 1)
# The decay of a channel's moves, as its side and as it is (1/2^10 a sample),
# and the time before which it keeps its side whatever they say.
SIDE_DECAY, SIDE_START = 10, 256
@nb.njit(**ALLOCATING)
def _sign(x: int) -> int:
    return 1 if x > 0 else (-1 if x < 0 else 0)


@nb.njit(**ALLOCATING)
def _predicted(weights: np.ndarray, inputs: np.ndarray) -> int:
    total = 0
    for j in range(len(weights)):
        total += weights[j] * inputs[j]
    return total >> SHIFT


@nb.njit(**ALLOCATING)
def _learn(weights: np.ndarray, inputs: np.ndarray, error: int, step: int, value: int) -> None:
    """One sign-sign LMS step for a filter that erred by `error`, then
    `value` the newest of its inputs."""
    sign = _sign(error)
    if sign != 0:
        for j in range(len(weights)):
            weights[j] = min(max(weights[j] + step * sign * _sign(inputs[j]), -LIMIT), LIMIT)
    for j in range(len(inputs) - 1, 0, -1):
        inputs[j] = inputs[j - 1]
    inputs[0] = value


@nb.njit(**ALLOCATING)
def _isqrt(value: int) -> int:
    """floor(sqrt(value)) for value >= 0, exactly (the float square root
    corrected in integers)."""
    root = np.int64(np.sqrt(np.float64(value)))
    while root > 0 and root * root > value:
        root -= 1
    while (root + 1) * (root + 1) <= value:
        root += 1
    return root


@nb.njit(**ALLOCATING)
def _accumulate(matrix: np.ndarray, vector: np.ndarray, inputs: np.ndarray, target: int,
                n: int) -> None:
    """The least squares' sums (`matrix`'s lower triangle and `vector`, of the
    first n inputs) decay by 1/2^OLS_DECAY (rounded) and take `inputs`'
    products with each other and with `target`, in 1/2^OLS_PRODUCT."""
    for i in range(n):
        for j in range(i + 1):
            matrix[i, j] += ((inputs[i] * inputs[j]) << OLS_PRODUCT) - \
                ((matrix[i, j] + OLS_ROUND) >> OLS_DECAY)
        vector[i] += ((inputs[i] * target) << OLS_PRODUCT) - \
            ((vector[i] + OLS_ROUND) >> OLS_DECAY)


@nb.njit(**ALLOCATING)
def _solve(matrix: np.ndarray, vector: np.ndarray, weights: np.ndarray, n: int,
           lower: np.ndarray, work: np.ndarray) -> None:
    """`weights` (in 1/2^OLS_FRACTION) set to the solution of the first n
    rows of the decayed sums (`matrix`, its lower triangle, and `vector`),
    each diagonal sum raised by 1/2^OLS_RIDGE of itself and OLS_FLOOR
    units: by Cholesky's factors in integers, the sums first scaled so that
    the largest is near 2^OLS_SCALE. Left as they were where a pivot is not
    positive or a weight (or a step on the way) would grow too large."""
    top = np.int64(1)
    for i in range(n):
        top = max(top, matrix[i, i], abs(vector[i]))
    bits = 0
    while top >> bits:
        bits += 1
    shift = OLS_SCALE - bits
    for i in range(n):
        for j in range(i + 1):
            value = matrix[i, j]
            if i == j:
                value += (value >> OLS_RIDGE) + (OLS_FLOOR << OLS_PRODUCT)
            lower[i, j] = value << shift if shift >= 0 else value >> -shift
    for j in range(n):
        total = lower[j, j]
        for k in range(j):
            total -= lower[j, k] * lower[j, k]
        if total <= 0:
            return
        pivot = _isqrt(total)
        if pivot == 0:
            return
        lower[j, j] = pivot
        for i in range(j + 1, n):
            total = lower[i, j]
            for k in range(j):
                total -= lower[i, k] * lower[j, k]
            lower[i, j] = total // pivot
    for i in range(n):  # work = lower^-1 vector
        total = vector[i] << shift if shift >= 0 else vector[i] >> -shift
        for k in range(i):
            total -= lower[i, k] * work[k]
        work[i] = total // lower[i, i]
        if abs(work[i]) > OLS_WEIGHTS << OLS_FRACTION:
            return
    for i in range(n - 1, -1, -1):  # work = lower^-T work, in 1/2^OLS_FRACTION
        total = work[i] << OLS_FRACTION
        for k in range(i + 1, n):
            total -= lower[k, i] * work[n + k]
        work[n + i] = total // lower[i, i]
        if abs(work[n + i]) > OLS_WEIGHTS:
            return
    for i in range(n):
        weights[i] = work[n + i]


@nb.njit(**ALLOCATING)
def _wasted(seen: int, bits: int) -> int:
    """How many low bits are 0 in `seen` (0 where it is 0; at most bits - 1)."""
    wasted = 0
    while seen != 0 and wasted < bits - 1 and (seen >> wasted) & 1 == 0:
        wasted += 1
    return wasted


@nb.njit(**ALLOCATING)
def _residuals(source: np.ndarray, out: np.ndarray, channels: int, width: int,
               forward: bool, wide: bool) -> None:
    """Samples (little-endian, signed, `width` bytes each, in `source`) to
    zigzagged residuals (big-endian) in `out` (`forward`), or back (see
    above), a sample of each channel in turn, with least squares of order
    OLS_ORDER (OLS_ORDER64 where `wide`: F_OLS64): each channel's state is
    its own, and the last OLS_CROSS + 1 samples of each are kept for the
    others."""
    order = OLS_ORDER64 if wide else OLS_ORDER
    bits = 8 * width
    half, mask = 1 << (bits - 1), (1 << bits) - 1
    count = len(source) // (width * channels)
    cross = OLS_CROSS if channels > 1 else 0
    size = order + cross
    recent = np.zeros((channels, OLS_CROSS + 1), np.int64)  # samples, newest first
    long_inputs = np.zeros((channels, ORDER), np.int64)
    long_weights = np.zeros((channels, ORDER), np.int64)
    short_inputs = np.zeros((channels, SHORT), np.int64)
    short_weights = np.zeros((channels, SHORT), np.int64)
    matrix = np.zeros((channels, size, size), np.int64)
    vector = np.zeros((channels, size), np.int64)
    weights, inputs = np.zeros((channels, size), np.int64), np.zeros((channels, size), np.int64)
    lower, work = np.zeros((size, size), np.int64), np.zeros(2 * size, np.int64)
    previous, seen = np.zeros(channels, np.int64), np.zeros(channels, np.int64)
    # a channel after the first: coded as its side (less the first) or as it
    # is, whichever moved less lately (decayed sums of its moves each way)
    side = np.ones(channels, np.bool_)
    moves = np.zeros((channels, 2), np.int64)
    firsts = np.zeros(order, np.int64)  # the first channel's moves, newest first
    for k in range(count):
        for channel in range(channels):
            at = (k * channels + channel) * width
            word = 0
            for i in range(width):
                if forward:
                    word |= np.int64(source[at + i]) << (8 * i)
                else:
                    word = (word << 8) | np.int64(source[at + i])
            # the low bits every value so far left 0, and the prediction made
            # a multiple of them: a residual keeps them 0 (after the zigzag too)
            wasted = _wasted(seen[channel], bits)
            # the least squares' unit: 2^wasted (before any value but 0, the
            # largest, so that the first one's moves count for little)
            unit = wasted if seen[channel] != 0 else bits - 1
            x = inputs[channel]
            if cross:  # the moves of the first channel (of the second, for the first)
                other = 1 if channel == 0 else 0  # (its newest sample: this time's, or the last)
                for i in range(OLS_CROSS):
                    moved = recent[other, i] - recent[other, i + 1]
                    x[order + i] = min(max(moved >> unit, -OLS_LIMIT), OLS_LIMIT)
            total = np.int64(0)
            for i in range(size):
                total += weights[channel, i] * x[i]
            least = ((total + (1 << (OLS_FRACTION - 1))) >> OLS_FRACTION) << unit
            first = _predicted(long_weights[channel], long_inputs[channel])
            second = _predicted(short_weights[channel], short_inputs[channel])
            low = (1 << wasted) - 1
            both = ((least + first + second) >> wasted) << wasted
            base = recent[0, 0] if channel > 0 and side[channel] else 0
            if forward:
                value = ((word - base + half) & mask) - half
                error = ((value - previous[channel] - both + half) & mask) - half
                high = error >> wasted
                zigzag = (high << 1) ^ (high >> (bits - 1 - wasted))
                result = ((zigzag << wasted) | (error & low)) & mask
                for i in range(width):
                    out[at + i] = (result >> (8 * (width - 1 - i))) & 255
            else:
                zigzag = word >> wasted
                error = (((zigzag >> 1) ^ -(zigzag & 1)) << wasted) | (word & low)
                value = ((previous[channel] + both + error + half) & mask) - half
                result = (value + base) & mask
                for i in range(width):
                    out[at + i] = (result >> (8 * i)) & 255
            seen[channel] |= value & mask
            for i in range(OLS_CROSS, 0, -1):
                recent[channel, i] = recent[channel, i - 1]
            recent[channel, 0] = ((value + base + half) & mask) - half
            difference = value - previous[channel]
            previous[channel] = value
            # the least squares predictor learns the difference: its sums decay
            # by 1/2^OLS_DECAY a sample and are solved every OLS_EVERY samples
            # (in the unit to come: the first value but 0 sets it)
            target = min(max(difference >> _wasted(seen[channel], bits), -OLS_LIMIT), OLS_LIMIT)
            _accumulate(matrix[channel], vector[channel], x, target, size)
            if k % OLS_EVERY == OLS_EVERY - 1:
                _solve(matrix[channel], vector[channel], weights[channel], size, lower, work)
            for i in range(order - 1, 0, -1):
                x[i] = x[i - 1]
            x[0] = target
            missed = difference - least
            _learn(long_weights[channel], long_inputs[channel], missed - first, STEP, missed)
            _learn(short_weights[channel], short_inputs[channel], missed - first - second,
                   SHORT_STEP, missed - first)
            if channel == 0:
                if channels > 1:
                    for i in range(order - 1, 0, -1):
                        firsts[i] = firsts[i - 1]
                    firsts[0] = recent[0, 0] - recent[0, 1]
                continue
            own = recent[channel, 0] - recent[channel, 1]
            moves[channel, 0] += abs(own - firsts[0]) - (moves[channel, 0] >> SIDE_DECAY)
            moves[channel, 1] += abs(own) - (moves[channel, 1] >> SIDE_DECAY)
            was = side[channel]
            if k < SIDE_START:  # (too few moves yet to tell)
                continue
            if was and 4 * moves[channel, 1] < 3 * moves[channel, 0]:
                side[channel] = False
            elif not was and 4 * moves[channel, 0] < 3 * moves[channel, 1]:
                side[channel] = True
            if side[channel] != was:
                # the value before and the least squares' inputs in the new
                # way (adding or taking off the first channel's moves), and
                # its sums started again
                sign = -1 if side[channel] else 1
                before = recent[channel, 0] - (recent[0, 0] if side[channel] else 0)
                previous[channel] = ((before + half) & mask) - half
                shift = _wasted(seen[channel], bits)
                for i in range(order):
                    moved = x[i] + sign * (firsts[i] >> shift)
                    x[i] = min(max(moved, -OLS_LIMIT), OLS_LIMIT)
                matrix[channel, :, :] = 0
                vector[channel, :] = 0
