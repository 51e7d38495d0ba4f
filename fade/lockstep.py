"""The lockstep coding loop: one model step per byte of every sub-stream.

The file is split into B contiguous sub-streams coded as one batch
(`Layout`), and the batch into G contiguous groups, each with its own coder
and payload. At step t the network (fade.network) predicts byte t of every
sub-stream from that sub-stream's previous T bytes (zeros before its
start), group by group; the coder workers (fade.pipeline.CoderPool) code
those bytes; and the network takes one Adam step on the step's bytes. The
decoder runs the very same loop, `run`, with the workers reading symbols
instead of writing them, so both sides get their probabilities from one
function (`Predictor.probabilities`).

The schedule ("lockstep", recorded in the header): at step t every group's
forward sees the parameters after t Adam steps; each group's loss is its
mean cross-entropy weighted by its share of the batch, the backwards run in
group order and accumulate, and one Adam step follows. With one group this
is exactly the single-batch computation of format versions 1 to 3. More
groups let a decoder decode group g while the device computes the forwards
of groups after g and the backwards of groups before it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Container, Iterator, Protocol

from fade.lazy import numpy as np

from fade.codings import Hybrid, NetworkAlone
from fade.config import ModelConfig, coder_threads_for, group_rows, split_sizes
from fade.device import deterministic
from fade.lazy import torch
from fade.network import Predictor

if TYPE_CHECKING:
    from fade.pipeline import CoderPool

# progress(bytes_done, bytes_total, ideal_bits_so_far)
Progress = Callable[[int, int, float], None]


@dataclass(frozen=True)
class Layout:
    """How N bytes split into B contiguous sub-streams, cut into G groups.

    The first N mod B sub-streams are one byte longer than the rest, so every
    byte belongs to a sub-stream (no uncoded tail) and all sub-streams are
    active on every step but possibly the last. Groups are contiguous runs
    of sub-streams, the first B mod G one sub-stream larger.
    """

    length: int
    batch_size: int
    groups: int = 1

    @property
    def steps(self) -> int:
        return -(-self.length // self.batch_size)  # ceil

    @property
    def lengths(self) -> np.ndarray:
        return np.array(split_sizes(self.length, self.batch_size), dtype=np.int64)

    @property
    def starts(self) -> np.ndarray:
        return np.concatenate(([0], np.cumsum(self.lengths)[:-1]))

    @functools.cached_property
    def group_rows(self) -> list[tuple[int, int]]:
        """[start, stop) of each group's rows in the batch (read every step)."""
        return group_rows(self.batch_size, self.groups)

    def active(self, step: int) -> int:
        """Sub-streams that still have a byte at `step` (always a prefix)."""
        longer = self.length % self.batch_size
        return longer if longer and step == self.steps - 1 else self.batch_size

    def counts(self, step: int) -> list[int]:
        """Active sub-streams of each group at `step` (0 for a group only on
        the last step)."""
        active = self.active(step)
        return [max(0, min(stop, active) - start) for start, stop in self.group_rows]


class Referee(Protocol):
    """Judges an encoding at some steps (fade.race.Race): `lost(step, bits)`
    with the bits of every step before `step`, coded."""

    checkpoints: Container[int]

    def lost(self, step: int, bits: float) -> bool: ...


class Stopped(Exception):
    """The encoding stopped at a checkpoint where its Referee said it had lost."""


class StepTimings:
    """Per-step timings of the loop: wall time, time the device computed,
    time the device waited, the coders' own time, and the time the model's
    thread was blocked on the coders.

    On a CPU the model runs in the calling thread, so "device" is the time
    spent in model calls and "wait" the time blocked on coder workers. On a
    GPU work is queued, so both come from CUDA events read after the run:
    "device" sums the queued segments' durations, "wait" is the rest of the
    step (the device idle, for the coders or for Python). "blocked" is, on
    either, the time the model's thread waited for a coder worker (a free
    ping-pong slot, or a decoded group).
    """

    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"
        self.rows: list[dict[str, float]] = []
        self._marks: list[tuple] = []  # per step: (start, [(begin, end) device segments])

    def _now(self):
        if self.cuda:
            event = torch.cuda.Event(enable_timing=True)
            event.record()
            return event
        return time.perf_counter()

    def begin_step(self) -> None:
        self._marks.append((self._now(), []))

    @contextlib.contextmanager
    def device_work(self) -> Iterator[None]:
        begin = self._now()
        yield
        self._marks[-1][1].append((begin, self._now()))

    def finish(self, wait_seconds: list[float], coder_seconds: dict[int, float]) -> None:
        """Turn the marks into rows; `wait_seconds[t]`: the model's side
        blocked on coders during step t."""
        end = self._now()
        if self.cuda:
            torch.cuda.synchronize()
        starts = [mark[0] for mark in self._marks] + [end]

        def seconds(a, b) -> float:
            return a.elapsed_time(b) / 1000 if self.cuda else b - a

        for step, (start, segments) in enumerate(self._marks):
            wall = seconds(start, starts[step + 1])
            device = sum(seconds(a, b) for a, b in segments)
            wait = wall - device if self.cuda else wait_seconds[step]
            self.rows.append(dict(step=step, wall=wall, device=device, wait=max(0.0, wait),
                                  coder=coder_seconds.get(step, 0.0),
                                  blocked=wait_seconds[step]))


def run(layout: Layout, cfg: ModelConfig, seed: int, device: torch.device, pool: CoderPool,
        targets_of: Callable[[int, int, int], torch.Tensor], progress: Progress | None,
        timings: StepTimings | None = None, portable: bool = False,
        referee: Referee | None = None) -> None:
    """The coding loop shared by encode and decode.

    `targets_of(step, group, count)` gives a group's bytes of a step as an
    int64 tensor on the device: the encoder reads them from the input, the
    decoder waits for its coder worker. `portable`: the model's products
    in fade.kernels (the portable profile). `referee` (encode): raise
    Stopped where it says the encoding has lost.
    """
    predictor = Predictor(cfg, layout.batch_size, seed, device, layout.groups, portable)
    cuda = device.type == "cuda"
    ready = [[torch.cuda.Event() for _ in layout.group_rows] for _ in range(2)] if cuda else None
    waits: list[float] = []
    timed = timings.device_work if timings is not None else contextlib.nullcontext
    for step in range(layout.steps):
        last = step + 1 == layout.steps
        waited = pool.wait_seconds
        if timings is not None:
            timings.begin_step()
        pool.reserve(step)  # the slot this step writes is free
        if referee is not None and step in referee.checkpoints:
            pool.drain()  # every earlier step coded: its bits are the same on any run
            if referee.lost(step, pool.counters.bits):
                raise Stopped
        counts = layout.counts(step)
        with timed():
            for group, count in enumerate(counts):
                if count == 0:  # only on the last step, which ends with no update
                    continue
                probs = predictor.probabilities(group)
                pool.probs_slot(step, group)[:count].copy_(probs[:count], non_blocking=cuda)
                event = None
                if cuda:
                    event = ready[step % 2][group]
                    event.record()
                pool.publish(step, group, count, event)
        for group, count in enumerate(counts):
            if count == 0:
                continue
            targets = targets_of(step, group, count)
            if not last:
                with timed():
                    predictor.learn(group, targets)
        if not last:
            with timed():
                predictor.update()
        waits.append(pool.wait_seconds - waited)
        if progress is not None:
            progress(pool.counters.done_bytes, layout.length, pool.counters.bits)
    waited = pool.wait_seconds
    pool.drain()  # the coders finish the last steps (counted as the last step's wait)
    if waits:
        waits[-1] += pool.wait_seconds - waited
    if progress is not None:
        progress(pool.counters.done_bytes, layout.length, pool.counters.bits)
    if timings is not None:
        timings.finish(waits, pool.counters.coder_seconds)


def encode(data: bytes, layout: Layout, cfg: ModelConfig, seed: int, device: torch.device,
           threads: int, portable: bool, way: NetworkAlone | Hybrid,
           coder_threads: int | None, progress: Progress | None = None,
           timings: StepTimings | None = None, referee: Referee | None = None) -> list[bytes]:
    """Each group's payload: `data` (at least one byte) coded in `layout`
    by the network `cfg` on `device`, the way `way` says (fade.codings), with
    `threads` intra-op threads and `coder_threads` coder workers."""
    symbols = np.frombuffer(data, dtype=np.uint8)
    starts = layout.starts
    if device.type == "cuda":  # the input on the device: targets with no host copy
        on_device = torch.from_numpy(symbols.copy()).to(device)
        starts_on_device = torch.from_numpy(starts).to(device)

        def targets_of(step: int, group: int, count: int) -> torch.Tensor:
            start = layout.group_rows[group][0]
            return on_device[starts_on_device[start:start + count] + step].long()
    else:
        def targets_of(step: int, group: int, count: int) -> torch.Tensor:
            start = layout.group_rows[group][0]
            rows = starts[start:start + count] + step
            return torch.from_numpy(symbols[rows].astype(np.int64))

    from fade.pipeline import CoderPool, Coding  # (its processes load with the network)

    coding = Coding("encode", starts, layout.group_rows, layout.lengths, way, data=symbols)
    workers = coder_threads_for(layout.groups, coder_threads, device.type, os.cpu_count())
    with deterministic(threads), CoderPool(coding, workers, device) as pool:
        run(layout, cfg, seed, device, pool, targets_of, progress, timings, portable, referee)
        return pool.finish()


def decode(payloads: list[bytes], layout: Layout, cfg: ModelConfig, seed: int,
           device: torch.device, threads: int, portable: bool,
           way: NetworkAlone | Hybrid, coder_threads: int | None,
           progress: Progress | None = None, timings: StepTimings | None = None) -> bytes:
    """The `layout.length` bytes (at least one) that `payloads` code, as
    `encode` coded them; a CorruptArchiveError where a coder finds damage."""
    from fade.pipeline import CoderPool, Coding

    out = np.zeros(layout.length, dtype=np.uint8)
    starts = layout.starts
    coding = Coding("decode", starts, layout.group_rows, layout.lengths, way,
                    payloads=payloads)
    workers = coder_threads_for(layout.groups, coder_threads, device.type, os.cpu_count())
    with deterministic(threads), CoderPool(coding, workers, device) as pool:

        def targets_of(step: int, group: int, count: int) -> torch.Tensor:
            start = layout.group_rows[group][0]
            symbols = pool.symbols(step, group)[:count]
            out[starts[start:start + count] + step] = symbols
            # A view of the shared (on CUDA pinned) slot: an asynchronous copy.
            return torch.from_numpy(symbols).to(device, non_blocking=True).long()

        run(layout, cfg, seed, device, pool, targets_of, progress, timings, portable)
        pool.finish()
    return out.tobytes()
