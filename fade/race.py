"""The statistics alone, in file order: level fast's archive, and the race
that stops a hybrid that is losing to it.

Coded in file order as one stream (`file_order`), a level's statistics
(fade.statistics) write a "statistics" archive at a small fraction of the
hybrid's time. Where the network has too little data to learn from, that
archive is the smaller one; so before a hybrid runs, the encoder codes the
input with the statistics alone (`against_hybrid`) and sets up a `Race` that
the lockstep loop consults at its checkpoints (fade.lockstep.Referee).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import numpy as np

from fade import statistics
from fade.config import DEFAULT_MEMORY_LIMIT, StatisticsConfig, format_bytes
from fade.errors import FadeError
from fade.format.archive import pack_statistics
from fade.lockstep import Layout


@dataclass(frozen=True)
class Race:
    """The hybrid against the statistics alone, so that a hybrid that cannot
    win stops early and level fast's archive is written.

    Before the hybrid runs, the encoder codes the input twice with the
    statistics alone: in file order (level fast: `fast_bits`, its payload)
    and in the hybrid's own lockstep order with no network (`lockstep_bits`
    in all, and up to each of the `checkpoints` steps). The hybrid wins
    if the network saves more than `need` = 1 - fast_bits / lockstep_bits of
    the lockstep statistics' bits. At a checkpoint the network's saving so
    far is measured on exactly the bytes coded: 1 - hybrid bits / lockstep
    bits. It grows as the network learns, so at each checkpoint the hybrid stops only where its saving is below a
    share of `need` (RACE_CHECKPOINTS)."""

    checkpoints: dict[int, tuple[int, float]]  # step -> (lockstep bits before it, share)
    lockstep_bits: int
    fast_bits: int

    @property
    def need(self) -> float:
        """The share of the lockstep statistics' bits the network must save."""
        return 1 - self.fast_bits / max(self.lockstep_bits, 1)

    def lost(self, step: int, hybrid_bits: float) -> bool:
        """Whether the hybrid's saving at checkpoint `step`, with
        `hybrid_bits` coded so far, falls short of its share of the need."""
        if step not in self.checkpoints:
            return False
        lockstep_bits, share = self.checkpoints[step]
        return 1 - hybrid_bits / max(lockstep_bits, 1) < share * self.need


# (fraction of the hybrid's steps, share of the need its saving must reach
# there): the saving grows as the network learns, so the early checkpoints
# ask for less of it (docs/results.md, "Design notes from the code").
RACE_CHECKPOINTS = ((1 / 4, 0.4), (1 / 2, 0.6), (3 / 4, 0.8))


def file_order(mixing: StatisticsConfig, length: int) -> StatisticsConfig:
    """A level's statistics for `length` bytes coded alone, in file order:
    one stream, so no contexts keyed by sub-stream."""
    return dataclasses.replace(mixing, keyed=False).sized(length)


def check_memory(config: StatisticsConfig, length: int, limit: int | None = None) -> None:
    """Raise FadeError if the statistics' tables for `length` bytes need more
    than `limit` (default DEFAULT_MEMORY_LIMIT); nothing is allocated."""
    limit = DEFAULT_MEMORY_LIMIT if limit is None else limit
    need = config.memory_bytes(length)
    if need > limit:
        raise FadeError(f"the statistics need about {format_bytes(need)} of memory, above "
                        f"the limit of {format_bytes(limit)} (raise it with --memory-limit)")


def statistics_archive(data: bytes, config: StatisticsConfig, memory_limit: int | None = None,
             progress: Callable[[int, int], None] | None = None) -> bytes | None:
    """A "statistics" archive of `data` coded alone with `config` (in file
    order), or None where the statistics cannot code it."""
    check_memory(config, len(data), memory_limit)
    stream = statistics.encode_file(data, config, progress)
    return None if stream is None else pack_statistics(config, data, stream)


def against_hybrid(data: bytes, layout: Layout, mixing: StatisticsConfig,
                   memory_limit: int | None) -> tuple[bytes | None, Race | None]:
    """The hybrid's statistics alone in file order: their archive of `data`
    (None if it cannot be made), and the Race a hybrid of `layout` with
    statistics `mixing` runs against it."""
    config = file_order(mixing, len(data))
    check_memory(config, len(data), memory_limit)
    stream = statistics.encode_file(data, config)
    if stream is None:
        return None, None
    shares = {int(layout.steps * fraction): share for fraction, share in RACE_CHECKPOINTS}
    shares.pop(0, None)
    at = dict.fromkeys(shares, 0)
    symbols = np.frombuffer(data, dtype=np.uint8)
    starts, lengths = layout.starts, layout.lengths
    lockstep = 0
    for start, stop in layout.group_rows:  # one group's statistics at a time: bounded memory
        alone = statistics.Statistics(mixing, lengths[start:stop])
        for step in range(layout.steps):
            if step in at:
                at[step] += alone.bits
            count = int((lengths[start:stop] > step).sum())
            if count:
                alone.encode(symbols[starts[start:start + count] + step], None)
        lockstep += 8 * len(alone.finish())
    race = Race({step: (at[step], share) for step, share in shares.items()}, lockstep,
                8 * len(stream))
    return pack_statistics(config, data, stream), race
