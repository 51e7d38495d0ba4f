"""Audio: PCM samples coded as what a predictor did not foresee (F_AUDIO).

The context mixer sees bytes; a 16-bit sample is two of them, the low one
all but noise, and a sample's best context is a prediction from the
samples before it, not their bytes. So models with F_AUDIO code a WAV
file's samples as residuals (`to_residuals`), and the decoder rebuilds the
samples from them after decoding (`from_residuals`), as the x86 models code
addresses (fade.statistics.x86). Channel by channel, each in the file's
order of its samples:

- the sample, less the first channel's sample at the same time for every
  channel after the first (stereo's side: two channels that move together
  leave little), wrapped to the sample's bits;
- d, that less the channel's previous one (first-order difference);
- a prediction of d from the channel's ORDER previous differences, and of
  what that missed from its SHORT previous misses (a cascade of two
  filters): weights in 1/2^SHIFT, each moved by STEP (SHORT_STEP) after
  every sample toward the sign of its filter's error times the sign of its
  input (sign-sign LMS, integer only, weights held within +-LIMIT), as
  Monkey's Audio and TTA predict;
- both predictions' sum rounded down to the low bits that every value of
  the channel so far left 0 (its wasted bits: 16-bit audio in a 24-bit
  file), which the residual then keeps 0, the zigzag below taken of the
  bits above them;
- the residual, d less that sum, wrapped to the sample's bits,
  zigzagged (0, -1, 1, -2, ... as 0, 1, 2, 3, ...) and written most
  significant byte first, so that the high byte, mostly 0, is coded first
  and the low bytes knowing it.

The samples are those of the data chunk of a RIFF WAVE file whose format is
PCM (tag 1, or WAVE_FORMAT_EXTENSIBLE with the PCM sub-format) of 16 or
24 bits and 1 to 8 channels (`wav_layout`); its header and any bytes after the
whole samples are kept as they are, so the decoder finds the layout in the
bytes it decoded. Data that is no such file is coded as it is.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

import numpy as np
from numba import njit

from fade.statistics.parts import F_AUDIO

ORDER, SHORT, SHIFT, STEP, SHORT_STEP, LIMIT = 16, 4, 12, 16, 64, 1 << 20
MAX_CHANNELS = 8
_PCM, _EXTENSIBLE = 1, 0xFFFE
# WAVE_FORMAT_EXTENSIBLE's sub-format for PCM: its GUID's last 14 bytes
_PCM_GUID_TAIL = bytes.fromhex("000000001000800000aa00389b71")


class Layout(NamedTuple):
    """Where a WAV file's whole samples lie: `start` and `size` in bytes,
    `width` bytes a sample (2 or 3)."""

    channels: int
    start: int
    size: int
    width: int = 2


def wav_layout(data: bytes | np.ndarray) -> Layout | None:
    """The samples of `data` if it begins as a RIFF WAVE file of 16- or
    24-bit PCM (see above), the data chunk cut to the bytes present and to
    whole samples of every channel; else None."""
    head = bytes(data[:4096])
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    position, channels, width = 12, 0, 0
    while position + 8 <= len(head):
        chunk, size = head[position:position + 4], struct.unpack_from("<I", head, position + 4)[0]
        body = position + 8
        if chunk == b"fmt " and size >= 16 and body + 16 <= len(head):
            tag, count, _, _, align, bits = struct.unpack_from("<HHIIHH", head, body)
            if tag == _EXTENSIBLE and (size < 40 or body + 40 > len(head) or
                                       head[body + 26:body + 40] != _PCM_GUID_TAIL):
                return None
            if tag not in (_PCM, _EXTENSIBLE) or bits not in (16, 24) or \
                    not 1 <= count <= MAX_CHANNELS or align != bits // 8 * count:
                return None
            channels, width = count, bits // 8
        elif chunk == b"data":
            if not channels:
                return None
            size = min(size, len(data) - body)
            size -= size % (width * channels)
            return Layout(channels, body, size, width) if size > 0 else None
        position = body + size + (size & 1)
    return None


def to_residuals(data: np.ndarray, parts: int) -> np.ndarray:
    """`data` (uint8) as a model with `parts` codes it: with F_AUDIO, the
    samples of a WAV file as residuals (see above); else `data` itself."""
    return _recoded(data, parts, True)


def from_residuals(data: np.ndarray, parts: int) -> np.ndarray:
    """The bytes `to_residuals` took: the samples rebuilt from the residuals."""
    return _recoded(data, parts, False)


def _recoded(data: np.ndarray, parts: int, forward: bool) -> np.ndarray:
    """`data` with its samples made residuals (`forward`) or back; itself
    where there are none (or no F_AUDIO). Byte for byte in compiled code:
    beside the input and the result, only the first channel's samples are
    held (where there are more channels)."""
    layout = wav_layout(data) if parts & F_AUDIO else None
    if layout is None:
        return data
    samples = slice(layout.start, layout.start + layout.size)
    out = np.array(data, dtype=np.uint8)
    _residuals(out[samples].copy(), out[samples], layout.channels, layout.width, forward)
    return out


@njit(cache=True, nogil=True)
def _sign(x: int) -> int:
    return 1 if x > 0 else (-1 if x < 0 else 0)


@njit(cache=True, nogil=True)
def _predicted(weights: np.ndarray, inputs: np.ndarray) -> int:
    total = 0
    for j in range(len(weights)):
        total += weights[j] * inputs[j]
    return total >> SHIFT


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _residuals(source: np.ndarray, out: np.ndarray, channels: int, width: int,
               forward: bool) -> None:
    """Samples (little-endian, signed, `width` bytes each, in `source`) to
    zigzagged residuals (big-endian) in `out` (`forward`), or back (see
    above): the first channel's samples are kept for the channels after it."""
    bits = 8 * width
    half, mask = 1 << (bits - 1), (1 << bits) - 1
    count = len(source) // (width * channels)
    leading = np.zeros(count if channels > 1 else 0, dtype=np.int64)  # the first channel's
    long_inputs, long_weights = np.zeros(ORDER, np.int64), np.zeros(ORDER, np.int64)
    short_inputs, short_weights = np.zeros(SHORT, np.int64), np.zeros(SHORT, np.int64)
    for channel in range(channels):
        for array in (long_inputs, long_weights, short_inputs, short_weights):
            array[:] = 0
        previous, seen = 0, 0
        for k in range(count):
            at = (k * channels + channel) * width
            word = 0
            for i in range(width):
                if forward:
                    word |= np.int64(source[at + i]) << (8 * i)
                else:
                    word = (word << 8) | np.int64(source[at + i])
            first = _predicted(long_weights, long_inputs)
            second = _predicted(short_weights, short_inputs)
            # the low bits every value so far left 0, and the prediction made
            # a multiple of them: a residual keeps them 0 (after the zigzag too)
            wasted = 0
            while seen != 0 and wasted < bits - 1 and (seen >> wasted) & 1 == 0:
                wasted += 1
            low = (1 << wasted) - 1
            both = ((first + second) >> wasted) << wasted
            base = 0 if channel == 0 else leading[k]
            if forward:
                value = ((word - base + half) & mask) - half
                error = ((value - previous - both + half) & mask) - half
                high = error >> wasted
                zigzag = (high << 1) ^ (high >> (bits - 1 - wasted))
                result = ((zigzag << wasted) | (error & low)) & mask
                for i in range(width):
                    out[at + i] = (result >> (8 * (width - 1 - i))) & 255
            else:
                zigzag = word >> wasted
                error = (((zigzag >> 1) ^ -(zigzag & 1)) << wasted) | (word & low)
                value = ((previous + both + error + half) & mask) - half
                result = (value + base) & mask
                for i in range(width):
                    out[at + i] = (result >> (8 * i)) & 255
            seen |= value & mask
            if channel == 0 and channels > 1:
                leading[k] = value
            difference = value - previous
            previous = value
            _learn(long_weights, long_inputs, difference - first, STEP, difference)
            _learn(short_weights, short_inputs, difference - first - second, SHORT_STEP,
                   difference - first)
