"""The statistics alone, in file order: level fast's archive, and the race
that stops a hybrid that is losing to it.

Coded in file order as one stream (`file_order`), a level's statistics
(fade.statistics) write a "statistics" archive at a small fraction of the
hybrid's time. Where the network has too little data to learn from, that
archive is the smaller one; so where a hybrid runs unasked, the encoder
codes the input with the statistics alone in a thread of their own
(`alone_pass`, started before the network loads) and in the hybrid's
lockstep order (`lockstep_pass`), and the lockstep loop asks a `Race` at
its checkpoints whether the hybrid is losing to them
(fade.lockstep.Referee).
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Callable

from fade.lazy import numpy as np

from fade import statistics
from fade.config import DEFAULT_MEMORY_LIMIT, StatisticsConfig, format_bytes
from fade.errors import FadeError
from fade.format.archive import pack_statistics
from fade.lockstep import Layout



def _note(message: str, *values) -> None:
    """One line of the decision's evidence, at level info on the "fade"
    logger (the command line shows it under -v; logging loads only here)."""
    import logging

    logging.getLogger("fade").info(message, *values)


class Background:
    """A pass of the statistics in a thread of its own (their compiled loop
    releases the GIL), so that it runs while the network loads and the
    hybrid codes: `result()` waits for it (and raises what it raised),
    `cancel()` stops it within a chunk of its work."""

    def __init__(self, name: str, work: Callable[[Callable[[], None]], object]):
        self._result: object = None
        self._error: BaseException | None = None
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(work,), daemon=True,
                                        name=f"fade-{name}")
        self._thread.start()

    def _check(self) -> None:
        if self._cancel.is_set():
            raise _Cancelled

    def _run(self, work: Callable[[Callable[[], None]], object]) -> None:
        try:
            self._result = work(self._check)
        except _Cancelled:
            pass
        except BaseException as error:  # raised again in the caller's thread
            self._error = error

    def result(self) -> object:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result

    def cancel(self) -> None:
        self._cancel.set()
        self._thread.join()


class _Cancelled(Exception):
    pass


def alone_pass(data: bytes, config: StatisticsConfig, memory_limit: int | None,
               general: StatisticsConfig | None = None) -> Background:
    """The statistics `config` (in file order: `file_order`) coding `data`,
    started now in a thread of their own (guarded by the level's `general`
    model: `guarded_archive`): its result is their "statistics" archive
    (None where they cannot code `data`) and its stream's bits."""
    check_memory(config, len(data), memory_limit)
    head = len(pack_statistics(config, b"", b""))  # (the same for every model)

    def work(check: Callable[[], None]) -> tuple[bytes | None, int]:
        archive = guarded_archive(data, config, general, memory_limit,
                                  lambda done, bits: check())
        if archive is None:
            return None, 0
        return archive, 8 * (len(archive) - head)
    return Background("statistics-alone", work)


def lockstep_pass(data: bytes, layout: Layout, mixing: StatisticsConfig,
                  steps: list[int]) -> Background:
    """The hybrid's statistics `mixing` with no network, coding `data` in the
    hybrid's lockstep order (one group's statistics at a time: the memory of
    one), started now in a thread of their own: its result is their bits
    before each of `steps`, and in all."""
    def work(check: Callable[[], None]) -> tuple[dict[int, int], int]:
        at = dict.fromkeys(steps, 0)
        symbols = np.frombuffer(data, dtype=np.uint8)
        starts, lengths = layout.starts, layout.lengths
        total = 0
        for start, stop in layout.group_rows:
            alone = statistics.Statistics(mixing, lengths[start:stop])
            for step in range(layout.steps):
                if step in at:
                    at[step] += alone.bits
                count = int((lengths[start:stop] > step).sum())
                if count:
                    alone.encode(symbols[starts[start:start + count] + step], None)
                if step % 16 == 0:  # a Ctrl-C waits for at most 16 steps
                    check()
            total += 8 * len(alone.finish())
        return at, total
    return Background("statistics-lockstep", work)


class Race:
    """The hybrid against the statistics alone, so that a hybrid that cannot
    win stops early and the statistics' archive is written.

    Beside the hybrid, two threads code the input with the statistics alone
    (`alone`, started before the network loads, and `lockstep`): in file
    order (their archive, `fast_bits` its stream) and in the hybrid's own
    lockstep order with no network (`lockstep_bits` in all, and before each
    checkpoint). The hybrid wins if the network saves more than `need` = 1 -
    fast_bits / lockstep_bits of the lockstep statistics' bits. At a
    checkpoint the network's saving so far is measured on exactly the bytes
    coded: 1 - hybrid bits / lockstep bits. It grows as the network learns,
    so at each checkpoint the hybrid stops only where its saving is below a
    share of `need` (RACE_CHECKPOINTS). The first checkpoint waits for both
    passes; nothing reads a clock, so the same input makes the same decision
    on any machine."""

    def __init__(self, alone: Background, lockstep: Background, shares: dict[int, float],
                 steps: int):
        self.alone_pass = alone
        self.lockstep_pass = lockstep
        self.shares = shares
        self.checkpoints = frozenset(shares)
        self.steps = steps

    @classmethod
    def start(cls, alone: Background, data: bytes, layout: Layout, mixing: StatisticsConfig,
              checkpoints: tuple[tuple[float, float], ...] | None = None,
              beside: bool = True) -> "Race":
        """The race of a hybrid of `layout` with statistics `mixing` against
        the `alone` pass: its lockstep pass starts now. Not `beside` the
        hybrid, each pass ends before the next starts (and before the hybrid
        does): the memory of one set of tables at a time, not three."""
        checkpoints = RACE_CHECKPOINTS if checkpoints is None else checkpoints
        shares = {int(layout.steps * fraction): share for fraction, share in checkpoints}
        shares.pop(0, None)
        if not beside:
            alone.result()
        lockstep = lockstep_pass(data, layout, mixing, sorted(shares))
        if not beside:
            lockstep.result()
        return cls(alone, lockstep, shares, layout.steps)

    def alone(self) -> bytes | None:
        """The statistics' archive in file order (None where they cannot
        code the input); waits for their pass."""
        return self.alone_pass.result()[0]

    def need(self) -> float:
        """The share of the lockstep statistics' bits the network must save;
        waits for both passes."""
        fast_bits = self.alone_pass.result()[1]
        return 1 - fast_bits / max(self.lockstep_pass.result()[1], 1)

    def lost(self, step: int, hybrid_bits: float) -> bool:
        """Whether the hybrid's saving at checkpoint `step`, with
        `hybrid_bits` coded so far, falls short of its share of the need."""
        if step not in self.shares:
            return False
        if self.alone() is None:
            _note("the race at step %d: the statistics alone cannot code the input", step)
            return False
        need = self.need()
        at, lockstep_bits = self.lockstep_pass.result()
        if step == min(self.shares):
            _note("the statistics alone: %s bits in file order; the hybrid must save "
                     "%.2f%% of their bits in its lockstep order (%s) to win",
                     f"{self.alone_pass.result()[1]:,}", 100 * need, f"{lockstep_bits:,}")
        share = self.shares[step]
        saving = 1 - hybrid_bits / max(at[step], 1)
        lost = saving < share * need
        _note("the race at step %d of %d: the network saved %.2f%% of the statistics' "
                 "bits, %.0f%% of the %.2f%% it must save (at least %.0f%% here): %s", step,
                 self.steps, 100 * saving, 100 * saving / max(need, 1e-9), 100 * need,
                 100 * share, "the statistics alone win" if lost else "the hybrid goes on")
        return lost

    def cancel(self) -> None:
        """Stop both passes (a result already made stays)."""
        self.alone_pass.cancel()
        self.lockstep_pass.cancel()


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


# A kind's model pays for itself: where the screen guessed the kind from the
# bytes' statistics (fade.kinds.Screen.general), the level's general model
# codes them too, in a thread of its own beside, and the smaller archive is
# written. It first codes the bytes up to the check (`guard_check`: an
# eighth of the input, GUARD_FIRST to GUARD_CHECK bytes) on tables sized
# for them, and stops where the kind's model has put out no more bits
# there; where it has, it codes the whole input on tables of its own size
# and the smaller archive wins. So the second core codes at most an eighth
# of a large input, with tables for that eighth, and reaches the check
# before the kind's model ends even where it is a few times slower.
# (A trial of the general model on a prefix first, one pass after the
# other, made 60 KB tables, logs and genomes 0.42-0.55x as fast:
# docs/results.md, "A kind's model that pays for itself".)
GUARD_FIRST, GUARD_CHECK, GUARD_SHARE = 1 << 14, 1 << 17, 8


def guard_check(length: int) -> int:
    """Where the guard of `length` bytes decides (none where it is `length`
    or more: both models code the whole input)."""
    return min(max(length // GUARD_SHARE, GUARD_FIRST), GUARD_CHECK)


def guard(statistics: StatisticsConfig, kind: str, general: str,
          length: int) -> StatisticsConfig:
    """A level's (`statistics`) `general` model that guards its model for
    `kind`, in file order, sized for `length` bytes, its tables no larger
    than the kind's model's: at max the general models keep 16-32 slots a
    byte where the kinds' keep 4-8, and a 256 KB table's guard held 1.25 GB
    beside its model's 0.4 (docs/results.md)."""
    own = file_order(statistics.for_kind(kind), length)
    config = file_order(statistics.for_kind(general), length)
    return dataclasses.replace(config, table_bits=min(config.table_bits, own.table_bits),
                               match_bits=min(config.match_bits, own.match_bits))


def guarded_archive(data: bytes, config: StatisticsConfig, general: StatisticsConfig | None,
                    memory_limit: int | None = None,
                    progress: Callable[[int, int], None] | None = None) -> bytes | None:
    """`statistics_archive` of `data` with a kind's model `config`, guarded
    by the level's general model `general` (coded beside it, see above):
    the smaller of the two archives, the kind's where they tie. No guard
    where `general` is None or both tables do not fit `memory_limit`
    together. The general model's pass decides at the check, waiting there
    for the kind's bits where it is ahead of them: the kind's pass never
    waits, and the decision is the same on any machine."""
    limit = DEFAULT_MEMORY_LIMIT if memory_limit is None else memory_limit
    if general is None or general.model == config.model or \
            config.memory_bytes(len(data)) + general.memory_bytes(len(data)) > limit:
        return statistics_archive(data, config, memory_limit, progress)
    at = guard_check(len(data))
    marks = np.array([at] if at < len(data) else [], dtype=np.int64)
    kind_bits: list[int] = []  # the kind's bits at the check
    reached = threading.Event()  # the kind's pass is at the check, or ended

    def work(check: Callable[[], None]) -> bytes | None:
        if marks.size:  # the check's bytes first, on tables sized for them
            trial: list[int] = []

            def report(done: int, bits: int) -> None:
                check()
                if done == at:
                    trial.append(bits)
            statistics.encode_file(data[:at], general.sized(at), report)
            reached.wait()
            if kind_bits and (not trial or kind_bits[0] <= trial[0]):
                _note("the model for the kind is ahead of the level's general model after "
                      "%s bytes (%s bits against %s): the general model stops", f"{at:,}",
                      f"{kind_bits[0]:,}", f"{trial[0]:,}" if trial else "more")
                return None
        stream = statistics.encode_file(data, general, lambda done, bits: check())
        return None if stream is None else pack_statistics(general, data, stream)

    beside = Background("statistics-general", work)

    def report(done: int, bits: int) -> None:
        if progress is not None:
            progress(done, bits)
        if done == at:
            kind_bits.append(bits)
            reached.set()
    try:
        stream = statistics.encode_file_marked(data, config, marks, report)[0]
        archive = None if stream is None else pack_statistics(config, data, stream)
        reached.set()
        other = beside.result()
    finally:
        reached.set()
        beside.cancel()
    if other is not None and (archive is None or len(other) < len(archive)):
        _note("the level's general model (model %d) codes the input in %s bytes, its model "
              "for the kind in %s: the general model's archive is written", general.model,
              f"{len(other):,}", "more" if archive is None else f"{len(archive):,}")
        return other
    return archive
