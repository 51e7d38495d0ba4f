"""Entropy coding: the only module that imports constriction.

A range coder (a queue: symbols decode in the order they were encoded) with
`Categorical(perfect=False)` over the 256 byte values. Both sides must pass
bit-identical float32 probability tables; even the same numbers as float64
give a different bitstream, so the dtype is pinned here.
"""

from __future__ import annotations

import functools

from fade.errors import CorruptArchiveError
from fade.lazy import LazyModule, numpy as np

PROB_DTYPE = "float32"
# (loaded when the network first codes: the statistics have a coder of their own)
constriction = LazyModule("constriction")


@functools.cache
def _model():
    """perfect=False: the fast, lazily built quantisation. It changes the
    bitstream, so it is part of the format and must be the same on both sides."""
    return constriction.stream.model.Categorical(perfect=False)


class Encoder:
    """Appends one step's symbols at a time; costs well under a microsecond
    per symbol (docs/results.md)."""

    def __init__(self):
        self._coder = constriction.stream.queue.RangeEncoder()

    def encode(self, symbols: np.ndarray, probabilities: np.ndarray) -> None:
        """Encode symbols[i] with the distribution probabilities[i] (rows of 256)."""
        assert probabilities.dtype == PROB_DTYPE
        self._coder.encode(symbols.astype(np.int32, copy=False), _model(), probabilities)

    def finish(self) -> bytes:
        """The compressed payload, as little-endian 32-bit words."""
        return self._coder.get_compressed().astype("<u4").tobytes()


class Decoder:
    """Reads back what an Encoder wrote, step by step, with the same tables.

    It also counts the information it has decoded, at most what the payload
    can hold. constriction's fast quantisation (perfect=False) gives a symbol
    of float probability p the weight floor(c' s) - floor(c s) + 1 of 2^24,
    where c, c' are float32 running sums (c' - c = p within 2^-25), and
    s = (2^24 - 256) / sum(p), with the float32 sum of a softmax row within
    2^-14 of 1: so q <= p (1 + 2^-14) + 2^-22. A range coder shrinks its
    range by at least q per symbol and holds at most 64 bits of it in its
    state, so an honest payload of P bits decodes to symbols of information
    sum(-log2 q) <= P + 64, and sum(-log2(p (1 + 2^-14) + 2^-22)) is smaller
    still. A header that declares more bytes, or other settings, than its
    payload was made with decodes garbage whose information soon exceeds
    the payload: the decode stops there instead of running on.
    """

    SLACK_BITS = 128  # the coder's state (64 bits), and rounding in the count

    def __init__(self, payload: bytes):
        if len(payload) % 4:
            raise CorruptArchiveError(
                "range-coded stream is damaged (its length is not a multiple of 4)")
        words = np.frombuffer(payload, dtype="<u4").astype(np.uint32)
        self._coder = constriction.stream.queue.RangeDecoder(words)
        self._capacity = 8 * len(payload) + self.SLACK_BITS
        self._information = 0.0

    def decode(self, probabilities: np.ndarray) -> np.ndarray:
        """One symbol per row of `probabilities`, as uint8."""
        assert probabilities.dtype == PROB_DTYPE
        if not np.isfinite(probabilities).all():
            raise CorruptArchiveError("the model's probabilities are not finite: the header's "
                                      "model settings are not those the archive was made with")
        try:
            symbols = self._coder.decode(_model(), probabilities)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # pyo3 panics derive from BaseException
            reason = (str(error).splitlines() or [type(error).__name__])[0]
            raise CorruptArchiveError(f"range-coded stream is damaged ({reason})") from None
        chosen = probabilities[np.arange(len(symbols)), symbols].astype(np.float64)
        self._information -= float(np.log2(chosen * (1 + 2 ** -14) + 2 ** -22).sum())
        if self._information > self._capacity:
            raise CorruptArchiveError(
                f"the payload holds {self._capacity - self.SLACK_BITS} bits and the decode has "
                f"used {self._information:.0f}: the header declares more data, or other "
                "settings, than the payload was made with")
        return np.asarray(symbols).astype(np.uint8)
