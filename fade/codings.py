"""The ways a group's bytes are coded from the network's probabilities: one
class each, behind one small interface.

As CompressAI's entropy models share compress, decompress and update, every
way here gives the coder workers (fade.pipeline) the same three things:

- `coder(lengths, payload)`: a group's coder, for sub-streams of `lengths`
  bytes; `payload` None to encode. The coder has `encode(symbols, probs)`,
  `decode(probs)` and `finish()`;
- `bits_so_far(coder)` and `step_bits(coder, before, probs, symbols)`: what
  a step cost, for progress and for the race (fade.race);
- `statistics`: what the header records (None: the network alone).

`NetworkAlone` drives a range coder per group with the network's 256
probabilities (fade.entropy); `Hybrid` lets each group's statistics
(fade.statistics) mix them with their own contexts, bit by bit, into a
binary arithmetic coder. The statistics alone, in file order and with no
network, code a whole input without this loop (fade.race).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fade.lazy import numpy as np

from fade import statistics  # (its Statistics loads numba: when first coded with)
from fade.config import StatisticsConfig
from fade.entropy import Decoder, Encoder

if TYPE_CHECKING:
    from fade.statistics.coding import Statistics


@dataclass(frozen=True)
class NetworkAlone:
    """The network's probabilities drive a range coder per group (format
    versions 1 to 5, and coding "network" since)."""

    statistics: None = None

    def coder(self, lengths: np.ndarray, payload: bytes | None = None) -> Encoder | Decoder:
        return Encoder() if payload is None else Decoder(payload)

    def bits_so_far(self, coder: Encoder | Decoder) -> float:
        return 0.0

    def step_bits(self, coder: Encoder | Decoder, before: float, probs: np.ndarray,
                  symbols: np.ndarray) -> float:
        """The network's ideal code length of the step's bytes."""
        with np.errstate(divide="ignore"):
            return -float(np.log2(probs[np.arange(len(symbols)), symbols]).sum())


@dataclass(frozen=True)
class Hybrid:
    """Each group's statistics mix the network's probabilities with their
    own contexts into a bit coder (coding "hybrid", format version 6)."""

    statistics: StatisticsConfig

    def coder(self, lengths: np.ndarray, payload: bytes | None = None) -> Statistics:
        return statistics.Statistics(self.statistics, lengths, payload)

    def bits_so_far(self, coder: Statistics) -> float:
        return float(coder.bits)

    def step_bits(self, coder: Statistics, before: float, probs: np.ndarray,
                  symbols: np.ndarray) -> float:
        """What the bit coder put out (or took in) for the step."""
        return float(coder.bits - before)


def coding_for(statistics: StatisticsConfig | None) -> NetworkAlone | Hybrid:
    """The way a header's (or a Plan's) `statistics` say the bytes are coded."""
    return NetworkAlone() if statistics is None else Hybrid(statistics)
