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
    """Reads back what an Encoder wrote, step by step, with the same tables."""

    def __init__(self, payload: bytes):
        if len(payload) % 4:
            raise CorruptArchiveError(
                "range-coded stream is damaged (its length is not a multiple of 4)")
        words = np.frombuffer(payload, dtype="<u4").astype(np.uint32)
        self._coder = constriction.stream.queue.RangeDecoder(words)

    def decode(self, probabilities: np.ndarray) -> np.ndarray:
        """One symbol per row of `probabilities`, as uint8."""
        assert probabilities.dtype == PROB_DTYPE
        try:
            symbols = self._coder.decode(_MODEL, probabilities)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # pyo3 panics derive from BaseException
            raise CorruptArchiveError(f"range-coded stream is damaged ({error})") from None
        return np.asarray(symbols).astype(np.uint8)
