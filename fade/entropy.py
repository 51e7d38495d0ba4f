"""Entropy coding: the only module that imports constriction.

A range coder (a queue: symbols decode in the order they were encoded) with
`Categorical(perfect=False)` over the 256 byte values. Both sides must pass
bit-identical float32 probability tables; even the same numbers as float64
give a different bitstream (FACTS.md), so the dtype is pinned here.
"""

from __future__ import annotations

import numpy as np
import constriction

from fade.errors import CorruptArchiveError

PROB_DTYPE = np.float32
# perfect=False: the fast, lazily built quantisation. It changes the
# bitstream, so it is part of the format and must be the same on both sides.
_MODEL = constriction.stream.model.Categorical(perfect=False)


class Encoder:
    """Appends one step's symbols at a time; costs ~0.3 us per symbol (FACTS.md)."""

    def __init__(self):
        self._coder = constriction.stream.queue.RangeEncoder()

    def encode(self, symbols: np.ndarray, probabilities: np.ndarray) -> None:
        """Encode symbols[i] with the distribution probabilities[i] (rows of 256)."""
        assert probabilities.dtype == PROB_DTYPE
        self._coder.encode(symbols.astype(np.int32, copy=False), _MODEL, probabilities)

    def finish(self) -> bytes:
        """The compressed payload, as little-endian 32-bit words."""
        return self._coder.get_compressed().astype("<u4").tobytes()


class Decoder:
    """Reads back what an Encoder wrote, step by step, with the same tables.

    It also counts the information it has decoded, at most what the payload
    can hold: a range coder spends at least -log2 q bits on a symbol of
    quantised probability q <= p + 2^-23 (constriction's quantisation adds
    at most two units of 2^-24 to a float probability p), and an honest
    stream ends within its final state (64 bits) of what it holds. A header
    that declares more bytes, or other settings, than its payload was made
    with decodes garbage whose information soon exceeds the payload: the
    decode stops there instead of running on (issue 17).
    """

    SLACK_BITS = 128  # the coder's final state, and rounding in the count

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
            symbols = self._coder.decode(_MODEL, probabilities)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # pyo3 panics derive from BaseException
            reason = (str(error).splitlines() or [type(error).__name__])[0]
            raise CorruptArchiveError(f"range-coded stream is damaged ({reason})") from None
        chosen = probabilities[np.arange(len(symbols)), symbols].astype(np.float64)
        self._information -= float(np.log2(chosen * (1 + 2 ** -16) + 2 ** -23).sum())
        if self._information > self._capacity:
            raise CorruptArchiveError(
                f"the payload holds {self._capacity - self.SLACK_BITS} bits and the decode has "
                f"used {self._information:.0f}: the header declares more data, or other "
                "settings, than the payload was made with")
        return np.asarray(symbols).astype(np.uint8)
