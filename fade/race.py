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
import logging
from dataclasses import dataclass
from typing import Callable

import numpy as np

from fade import statistics
from fade.config import DEFAULT_MEMORY_LIMIT, StatisticsConfig, format_bytes
from fade.errors import FadeError
from fade.format.archive import pack_statistics
from fade.lockstep import Layout

log = logging.getLogger("fade")  # the decision's evidence: the command line shows it under -v


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
    steps: int = 0  # the hybrid's steps in all (for the evidence logged)

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
        saving = 1 - hybrid_bits / max(lockstep_bits, 1)
        lost = saving < share * self.need
        log.info("the race at step %d of %d: the network saved %.2f%% of the statistics' "
                 "bits, %.0f%% of the %.2f%% it must save (at least %.0f%% here): %s", step,
                 self.steps, 100 * saving, 100 * saving / max(self.need, 1e-9),
                 100 * self.need, 100 * share,
                 "the statistics alone win" if lost else "the hybrid goes on")
        return lost


# Inputs the network cannot pay on go to the statistics alone before any of
# its steps (`Screen`): shorter than MIN_NETWORK_INPUT, too few steps for it
# to learn; or text (at least TEXT_SHARE of the bytes printable ASCII,
# whitespace or valid UTF-8), where the statistics already model the
# structure the network finds and the network saves less than the lockstep
# order costs them (docs/results.md, "Deciding early").
MIN_NETWORK_INPUT = 16 << 10
TEXT_SHARE = 0.97
_TEXT_BYTES = np.zeros(256, dtype=bool)
_TEXT_BYTES[32:127] = True
_TEXT_BYTES[[9, 10, 13]] = True


@dataclass(frozen=True)
class Screen:
    """What the bytes say before any coding: their size and the share of
    them that is text, and so whether the hybrid may run at all."""

    length: int
    text: float  # share of printable ASCII, tab, CR, LF and valid UTF-8 sequences

    @classmethod
    def of(cls, data: bytes) -> "Screen":
        symbols = np.frombuffer(data, dtype=np.uint8)
        text = int(_TEXT_BYTES[symbols].sum())
        high = int((symbols >= 128).sum())
        if high:  # bytes >= 128 count as text, less four for each invalid UTF-8 sequence
            bad = data.decode("utf-8", errors="replace").count("\ufffd")
            text += max(0, high - 4 * bad)
        return cls(len(data), text / max(len(data), 1))

    @property
    def is_text(self) -> bool:
        return self.text >= TEXT_SHARE

    @property
    def network_may_pay(self) -> bool:
        return self.length >= MIN_NETWORK_INPUT and not self.is_text

    @property
    def content(self) -> str:
        """What the bytes are, in words."""
        if self.is_text:
            return f"text ({self.text:.1%} of the bytes)"
        return f"not text ({self.text:.1%} of the bytes text)"

    def __str__(self) -> str:
        """What the bytes are, and whether the network may pay on them."""
        if self.length < MIN_NETWORK_INPUT:
            return (f"{self.length:,} bytes, too few for the network to learn from (under "
                    f"{MIN_NETWORK_INPUT:,})")
        if self.is_text:
            return f"{self.content}, where the network cannot pay"
        return self.content


# (fraction of the hybrid's steps, share of the need its saving must reach
# there): the saving grows as the network learns, so the early checkpoints
# ask for less of it (docs/results.md, "Design notes from the code").
RACE_CHECKPOINTS = ((1 / 16, 0.2), (1 / 8, 0.3), (1 / 4, 0.4), (1 / 2, 0.6), (3 / 4, 0.8))


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
                   memory_limit: int | None,
                   checkpoints: tuple[tuple[float, float], ...] = RACE_CHECKPOINTS,
                   alone: StatisticsConfig | None = None
                   ) -> tuple[bytes | None, Race | None]:
    """The level's statistics alone in file order (`alone`, default the
    hybrid's `mixing`): their archive of `data` (None if it cannot be made),
    and the Race a hybrid of `layout` with statistics `mixing` runs against
    it at `checkpoints` (fraction of the steps, share of the need)."""
    config = file_order(alone or mixing, len(data))
    check_memory(config, len(data), memory_limit)
    stream = statistics.encode_file(data, config)
    if stream is None:
        return None, None
    shares = {int(layout.steps * fraction): share for fraction, share in checkpoints}
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
                8 * len(stream), layout.steps)
    log.info("the statistics alone: %s bytes in file order; the hybrid must save %.2f%% of "
             "their bits in its lockstep order (%s bytes) to win", f"{len(stream):,}",
             100 * race.need, f"{lockstep // 8:,}")
    return pack_statistics(config, data, stream), race
