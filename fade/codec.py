"""The online coding loop: compress() and decompress().

The file is split into B contiguous sub-streams coded as one batch, and the
batch into G contiguous groups, each with its own range coder and payload.
At step t the model predicts byte t of every sub-stream from that
sub-stream's previous T bytes (zeros before its start), group by group; the
coder workers (fade.pipeline) code those bytes; and the model takes one Adam
step on the step's bytes. The decoder runs the very same loop, `_run`, with
the workers reading symbols instead of writing them, so both sides get their
probabilities from one function (`Predictor.probabilities`).

The schedule ("lockstep", recorded in the header): at step t every group's
forward sees the parameters after t Adam steps; each group's loss is its
mean cross-entropy weighted by its share of the batch, the backwards run in
group order and accumulate, and one Adam step follows. With one group this
is exactly the single-batch computation of format versions 1 to 3. More
groups let a decoder decode group g while the device computes the forwards
of groups after g and the backwards of groups before it.

Determinism: the model is initialised from `seed` on the CPU, computes in
float32 with deterministic algorithms and no TF32, and runs with the intra-op
thread count recorded in the header (torch 2.13 on CPU gives LayerNorm
weight gradients that differ in the last bits between 1 and 2 threads, so
the decoder restores the encoder's count instead of using its own).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import os
import platform
import time
import zlib
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

# cuBLAS needs this before its first handle is created to be deterministic.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

from fade.lazy import functional as F  # noqa: E402
from fade.lazy import torch  # noqa: E402

from fade import __version__  # noqa: E402
from fade import floats, floor, frames, statistics  # noqa: E402
from fade import profile as profiles  # noqa: E402
from fade.archive import (COMPACT_OVERHEAD, FLOATS, LEARNED, METHODS, STATISTICS,  # noqa: E402
                          AnyHeader, CompactHeader, FloatHeader, Header, StatisticsHeader, pack,
                          pack_floats, pack_statistics, sha256, unpack)
from fade.config import (DEFAULT_LEVEL, DEFAULT_MEMORY_LIMIT, DEFAULT_PRESET,  # noqa: E402
                         MAX_THREADS,
                         ModelConfig, StatisticsConfig, batch_size_for, check_memory,
                         check_threads, format_bytes, level as named_level,
                         coder_threads_for, default_threads, group_rows, groups_for, preset,
                         split_sizes)
from fade.errors import (ChecksumMismatchError, CorruptArchiveError, FadeError,  # noqa: E402
                         ProfileMismatchError, ReplayEnvironmentError)
from fade.pipeline import CoderPool, Coding  # noqa: E402

DEVICES = ("auto", "cpu", "cuda")
# "auto": the learned model, unless the size floor (fade.floor) says it cannot win
# or its archive comes out larger than the stored data.
METHOD_CHOICES = ("auto",) + tuple(METHODS.values())

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


def resolve_device(device: str) -> torch.device:
    if device not in DEVICES:
        raise FadeError(f"unknown device {device!r} (choose from {', '.join(DEVICES)})")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise FadeError("CUDA is not available on this machine (use --device cpu)")
    return torch.device(device)


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def environment_differences(header: Header, device: torch.device) -> list[str]:
    """Everything recorded about the encoding machine that differs here
    (fields the archive does not record left out): the likely causes when a
    decode fails after the up-front check passed."""
    there = header.machine()
    mine = profiles.here(device.type, device_name(device))
    differences = [f"{name.replace('_', ' ')} {getattr(there, name)!r} (archive) vs "
                   f"{getattr(mine, name)!r} (here)"
                   for name in profiles.MACHINE_FIELDS
                   if name != "profile" and getattr(there, name) and
                   getattr(there, name) != getattr(mine, name)]
    if header.version < 5 and device.type == "cpu" and there.cpu_capability != mine.cpu_isa:
        # Before v5 nothing was pinned: the capability recorded was the CPU's best.
        differences.append(f"CPU capability {there.cpu_capability!r} (archive, unpinned) vs "
                           f"a CPU with {mine.cpu_isa!r} (here)")
    return differences


def choose_profile(device: torch.device, native: bool) -> str:
    """The profile an archive made here is computed in: portable unless asked
    for native, on a GPU, or where the CPU cannot run it (aarch64, x86-64
    without AVX2); a process that could but is set up otherwise is an error
    (fade.profile.portable_unavailable)."""
    if native or device.type != "cpu" or profiles.machine_lacks_portable():
        return profiles.NATIVE
    reason = profiles.portable_unavailable(device.type)
    if reason is None:
        return profiles.PORTABLE
    raise FadeError(f"{reason}; or make a native archive (--native), which decodes only on "
                    "machines like this one")


def check_replay(header: Header, device: torch.device) -> None:
    """Raise unless this process can replay `header`'s numeric profile:
    ProfileMismatchError where this machine cannot (one line naming what
    differs and what would decode it), ReplayEnvironmentError where only a
    process with other settings can."""
    recorded = header.machine()
    replay = profiles.replay_problems(recorded, profiles.here(device.type, device_name(device)),
                                     header.version)
    if replay.refusals:
        if recorded.profile == profiles.PORTABLE:
            advice = f"decode with torch {recorded.torch_version} on an x86-64 machine with AVX2"
        elif recorded.device_kind == "cuda":
            advice = "decode on a machine with that GPU and those versions"
        else:
            advice = ("decode on the encoding machine, or re-compress there with the default "
                      "portable profile")
        raise ProfileMismatchError(f"archive made in profile {profiles.describe(recorded)}; "
                                   f"this machine differs: {'; '.join(replay.refusals)}: {advice}")
    environment = dict(replay.environment)
    if os.environ.get("ONEDNN_DEFAULT_FPMATH_MODE", "strict").lower() != "strict":
        environment["ONEDNN_DEFAULT_FPMATH_MODE"] = "strict"
    if environment:
        settings = " ".join(f"{key}={value}" for key, value in sorted(environment.items()))
        raise ReplayEnvironmentError(
            f"this archive replays only in a process started with {settings} (the fade "
            "command starts one itself; in a program, set them before importing fade)",
            environment)


@contextlib.contextmanager
def deterministic(threads: int) -> Iterator[None]:
    """Pin the numerics that the archive records, restoring them afterwards."""
    saved = (torch.get_num_threads(), torch.are_deterministic_algorithms_enabled(),
             torch.get_float32_matmul_precision(), torch.backends.cudnn.deterministic,
             torch.backends.cudnn.benchmark, torch.backends.cudnn.allow_tf32)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    torch.set_float32_matmul_precision("highest")
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.set_num_threads(saved[0])
        torch.use_deterministic_algorithms(saved[1])
        torch.set_float32_matmul_precision(saved[2])
        (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark,
         torch.backends.cudnn.allow_tf32) = saved[3:]


class Predictor:
    """The online model: probabilities group by group, then one Adam step.

    Per step: `probabilities(g)` for every group, `learn(g, targets)` for
    every group (after its bytes are known), then `update()`. The contexts
    (the last T bytes of every sub-stream) live here, on the device.
    """

    def __init__(self, cfg: ModelConfig, batch_size: int, seed: int, device: torch.device,
                 groups: int = 1, portable: bool = False):
        from fade.model import FADE  # torch's modules: loaded here, not with fade (fade.lazy)
        with torch.random.fork_rng(devices=[]):  # seeded init on the CPU, global RNG untouched
            torch.manual_seed(seed)
            model = FADE(cfg, batch_size, groups, portable)
        self.model = model.to(device)
        self.optimizer = torch.optim.Adam(
            self.model.parameters(), lr=cfg.learning_rate, betas=(cfg.adam_beta1, cfg.adam_beta2),
            eps=cfg.adam_eps, weight_decay=cfg.weight_decay, fused=True)
        self.device = device
        self.group_rows = group_rows(batch_size, groups)
        # Each group's loss is its mean weighted by its share of the batch, so
        # the summed gradient is the whole batch's mean; one group: the mean.
        self._weights = [None] if groups == 1 else \
            [(stop - start) / batch_size for start, stop in self.group_rows]
        self.context = torch.zeros(batch_size, cfg.timesteps, dtype=torch.long, device=device)
        self._logits: list[torch.Tensor | None] = [None] * groups
        self._targets: list[torch.Tensor | None] = [None] * groups

    def probabilities(self, group: int = 0) -> torch.Tensor:
        """(B_g, 256) float32 next-byte probabilities of a group's sub-streams,
        on the device.

        The single source of probabilities for encoder and decoder alike.
        """
        start, stop = self.group_rows[group]
        logits = self.model(self.context[start:stop], group)
        self._logits[group] = logits
        return torch.softmax(logits.detach(), dim=-1)

    def learn(self, group: int, targets: torch.Tensor) -> None:
        """Backward of the group's cross-entropy on its (B_g,) int64 bytes;
        gradients accumulate over the groups of a step."""
        if group == 0:
            self.optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(self._logits[group], targets)
        if self._weights[group] is not None:
            loss = loss * self._weights[group]
        loss.backward()
        self._logits[group] = None
        self._targets[group] = targets

    def update(self) -> None:
        """The Adam step; each context drops its oldest byte and takes the new one."""
        self.optimizer.step()
        targets = self._targets[0] if len(self._targets) == 1 else torch.cat(self._targets)
        self.context = torch.cat((self.context[:, 1:], targets[:, None]), dim=1)


class StepProfile:
    """Per-step timings of the loop: wall time, time the device computed,
    time the model's side waited for the coders, and the coders' own time.

    On a CPU the model runs in the calling thread, so "device" is the time
    spent in model calls and "wait" the time blocked on coder workers. On a
    GPU work is queued, so both come from CUDA events read after the run:
    "device" sums the queued segments' durations, "wait" is the rest of the
    step (the device idle).
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
                                  coder=coder_seconds.get(step, 0.0)))


def _run(layout: Layout, cfg: ModelConfig, seed: int, device: torch.device, pool: CoderPool,
         targets_of: Callable[[int, int, int], torch.Tensor], progress: Progress | None,
         profile: StepProfile | None = None, portable: bool = False,
         race: Race | None = None) -> None:
    """The coding loop shared by compress and decompress.

    `targets_of(step, group, count)` gives a group's bytes of a step as an
    int64 tensor on the device: the encoder reads them from the input, the
    decoder waits for its coder worker. `portable`: the model's products
    in fade.kernels (the portable profile). `race` (encode): raise _Lost
    where it says the hybrid has lost.
    """
    predictor = Predictor(cfg, layout.batch_size, seed, device, layout.groups, portable)
    cuda = device.type == "cuda"
    ready = [[torch.cuda.Event() for _ in layout.group_rows] for _ in range(2)] if cuda else None
    waits: list[float] = []
    timed = profile.device_work if profile is not None else contextlib.nullcontext
    for step in range(layout.steps):
        last = step + 1 == layout.steps
        waited = pool.wait_seconds
        if profile is not None:
            profile.begin_step()
        pool.reserve(step)  # the slot this step writes is free
        if race is not None and step in race.checkpoints:
            pool.drain()  # every earlier step coded: its bits are the same on any run
            if race.lost(step, pool.counters.bits):
                raise _Lost
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
    if profile is not None:
        profile.finish(waits, pool.counters.coder_seconds)


def compress(data: bytes, *, model: ModelConfig | None = None, preset_name: str | None = None,
             batch_size: int | None = None, device: str = "auto", threads: int | None = None,
             seed: int = 0, method: str = "auto", dtype: str = "auto", float_mode: str = "off",
             float_codec: str = "auto", groups: int | None = None,
             coder_threads: int | None = None, memory_limit: int | None = None,
             native: bool = False, level: str | None = None,
             progress: Progress | None = None, profile: StepProfile | None = None) -> bytes:
    """Compress `data` into a self-describing archive (see docs/format.md).

    `level` (config.LEVELS) picks what predicts: "fast" is the context-mixing
    statistics alone, in file order (fade.statistics). Without a level, the
    network alone predicts.

    `model` or `preset_name` picks the predictor (default: the default
    preset); `batch_size` defaults to `config.default_batch_size` for the
    size, preset and device; `threads` defaults to torch's current intra-op
    thread count, or 1 where the model's step is too small to share
    (`config.default_threads`). Cost: one forward, backward and Adam step per
    ceil(len(data) / batch_size) bytes.

    `groups` (default per device, `config.DEFAULT_GROUPS`) cuts the batch
    into groups with a coder and payload each, which decoders overlap with
    the model and decode in parallel; it is recorded in the archive.
    `coder_threads` (default `config.coder_threads_for`) is how many coder
    workers run beside the model: it changes the speed, not the archive.
    `profile`: a StepProfile to fill with per-step timings. `memory_limit`
    (default `config.DEFAULT_MEMORY_LIMIT`): a model that would need more is
    refused before it is built, as decoders refuse it.

    The model computes in the portable profile (fade.profile: the archive
    decodes on any x86-64 machine with AVX2 and the same torch build)
    unless `native` (torch's fastest kernels: it decodes on machines like
    this one), on a GPU, or on a CPU the portable profile does not cover.

    `method` "auto" runs the model unless the input is too small or looks
    random (then, and whenever the model's archive would be larger than the
    stored data, the smallest compact archive is written, at most 23 bytes
    over the input); "fade" always runs the model; "stored", "deflate",
    "bzip2" and "xz" force that compact method.

    Float data: with `float_mode` "fast" or "strong", methods "auto" and
    "floats" look for floats (`dtype`: "auto" finds .npy and .safetensors
    files by content, a type name reads a raw array, "none" never splits) and
    write a "floats" archive: "fast" codes the exponents with `float_codec`
    and keeps sign and mantissa raw; "strong" codes byte planes with the
    model (a nested archive). "off" (the default: on the real float files
    measured, the model on the plain bytes compresses best) codes float
    data as bytes. A broken container header counts as plain bytes.
    """
    if method not in METHOD_CHOICES:
        raise FadeError(f"unknown method {method!r} (choose from {', '.join(METHOD_CHOICES)})")
    if float_mode not in floats.MODES:
        raise FadeError(f"unknown float mode {float_mode!r} (choose from "
                        f"{', '.join(floats.MODES)})")
    if method == STATISTICS:
        if model is not None or preset_name:
            raise FadeError("method statistics is the level's statistics alone, in file order: "
                            "it takes no preset")
        level = level or "fast"
    if level is None and model is None and not preset_name:
        level = DEFAULT_LEVEL
    chosen = named_level(level) if level is not None else None
    if chosen is not None and (chosen.preset is None or method == STATISTICS):
        if model is not None or preset_name:
            raise FadeError(f"level {level} runs no network: it takes no preset")
        return _compress_with_statistics(data, file_order(chosen.statistics, len(data)), method,
                                         memory_limit, progress)
    mixing = chosen.statistics if chosen is not None else None
    if model is None:
        preset_name = preset_name or (chosen.preset if chosen else None) or DEFAULT_PRESET
        model = preset(preset_name)
    model.validate()
    torch_device = resolve_device(device)
    numerics = choose_profile(torch_device, native)
    batch = batch_size_for(len(data), batch_size, preset_name, torch_device.type)
    threads = threads or default_threads(model, batch, torch.get_num_threads())
    if not 1 <= threads <= MAX_THREADS:
        raise FadeError(f"threads must be between 1 and {MAX_THREADS}")
    group_count = groups_for(batch, groups, torch_device.type)
    if mixing is not None:
        mixing = mixing.sized(-(-len(data) // max(group_count, 1)))
    check_memory(model, batch, memory_limit, mixing, len(data), group_count)
    coder_threads_for(1, coder_threads)  # a bad request fails here, before any work
    if method == FLOATS and float_mode == "off":
        raise FadeError("method floats needs float mode fast or strong (--floats)")
    if method in ("auto", FLOATS) and float_mode != "off":
        try:
            found = floats.find(data, dtype)
        except floats.NotAContainer:
            found = None
        if found is not None:
            archive = _compress_floats(data, *found, float_mode, float_codec, dict(
                model=model, preset_name=preset_name, batch_size=batch_size, device=device,
                threads=threads, seed=seed, groups=groups, coder_threads=coder_threads,
                memory_limit=memory_limit, native=native, progress=progress, profile=profile))
            if method == "auto" and len(archive) >= len(data) + COMPACT_OVERHEAD:
                return floor.compress(data, "stored")
            return archive
        if method == FLOATS:
            raise FadeError("no float data found (use --dtype for a raw array)")
    if method not in ("auto", LEARNED):
        return floor.compress(data, method)
    if method == "auto" and not floor.model_worthwhile(data):
        return floor.compress(data)
    alone, race = None, None
    if method == "auto" and mixing is not None:
        # The statistics alone in file order cost ~1% of the hybrid's time and
        # win where the network has too little data to learn from; coded
        # first, they also stop a hybrid that is clearly losing to them.
        alone, race = _statistics_alone(data, Layout(len(data), batch, group_count), mixing,
                                        memory_limit)
    try:
        archive = _compress_learned(data, model, preset_name or "", batch, group_count,
                                    coder_threads, torch_device, threads, seed, numerics,
                                    mixing, progress, profile, race)
    except _Lost:
        if progress is not None:
            progress(len(data), len(data), 8.0 * len(alone))
        return alone
    if alone is not None:
        archive = min(archive, alone, key=len)
    if method == "auto" and len(archive) >= len(data) + COMPACT_OVERHEAD:
        return min(archive, floor.compress(data), key=len)
    return archive


class _Lost(Exception):
    """The hybrid stopped: it was losing to the statistics alone (Race)."""


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
    bits. It grows as the network learns (measured: alice29.txt 0.4% at a
    quarter of the steps, 0.9% at the end; mapsdatazrh 6.6% and 8.2%), so
    at each checkpoint the hybrid stops only where its saving is below a
    share of `need` (RACE_CHECKPOINTS)."""

    checkpoints: dict[int, tuple[int, float]]  # step -> (lockstep bits before it, share)
    lockstep_bits: int
    fast_bits: int

    @property
    def need(self) -> float:
        return 1 - self.fast_bits / max(self.lockstep_bits, 1)

    def lost(self, step: int, hybrid_bits: float) -> bool:
        if step not in self.checkpoints:
            return False
        lockstep_bits, share = self.checkpoints[step]
        return 1 - hybrid_bits / max(lockstep_bits, 1) < share * self.need


# (fraction of the hybrid's steps, share of the need its saving must reach
# there). On the shared corpus the saving grew by at most 2.2x from a
# quarter of the steps to the end, 1.5x from half-way and 1.15x from three
# quarters (Race).
RACE_CHECKPOINTS = ((1 / 4, 0.4), (1 / 2, 0.6), (3 / 4, 0.8))


def file_order(mixing: StatisticsConfig, length: int) -> StatisticsConfig:
    """A level's statistics for `length` bytes coded alone, in file order:
    one stream, so no contexts keyed by sub-stream."""
    return dataclasses.replace(mixing, keyed=False).sized(length)


def _statistics_alone(data: bytes, layout: Layout, mixing: StatisticsConfig,
                      memory_limit: int | None) -> tuple[bytes | None, Race | None]:
    """The hybrid's statistics alone in file order: their archive of `data`
    (None if it cannot be made), and the Race a hybrid of `layout` with
    statistics `mixing` runs against it."""
    config = file_order(mixing, len(data))
    check_statistics_memory(config, len(data), memory_limit)
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


def _compress_with_statistics(data: bytes, config: StatisticsConfig, method: str,
                              memory_limit: int | None, progress: Progress | None) -> bytes:
    """Level fast: a "statistics" archive, or with method "auto" the size
    floor where it is smaller or the statistics cannot win."""
    if method not in ("auto", STATISTICS):
        return floor.compress(data, method)
    if method == "auto" and not floor.model_worthwhile(data):
        return floor.compress(data)
    check_statistics_memory(config, len(data), memory_limit)
    report = None if progress is None else (lambda done, bits: progress(done, len(data), bits))
    stream = statistics.encode_file(data, config, report)
    archive = None if stream is None else pack_statistics(config, data, stream)
    if archive is None or (method == "auto" and len(archive) >= len(data) + COMPACT_OVERHEAD):
        return min(filter(None, (archive, floor.compress(data))), key=len)
    return archive


def check_statistics_memory(config: StatisticsConfig, length: int,
                            limit: int | None = None) -> None:
    """Raise FadeError if the statistics' tables for `length` bytes need more
    than `limit` (default DEFAULT_MEMORY_LIMIT); nothing is allocated."""
    limit = DEFAULT_MEMORY_LIMIT if limit is None else limit
    need = config.memory_bytes(length)
    if need > limit:
        raise FadeError(f"the statistics need about {format_bytes(need)} of memory, above "
                        f"the limit of {format_bytes(limit)} (raise it with --memory-limit)")


def _compress_floats(data: bytes, source: str, segments: list, mode: str, codec: str,
                     settings: dict) -> bytes:
    """A "floats" archive; strong mode nests an archive of the byte planes
    made with `settings` (the caller's model settings, method auto)."""
    if mode == "fast":
        segments, payload = floats.encode_fast(data, segments, codec,
                                               resolve_device(settings["device"]))
    else:
        payload = compress(floats.to_planes(data, segments), method="auto", dtype="none",
                           **settings)
    return pack_floats(mode, source, tuple(segments), data, payload)


def _compress_learned(data: bytes, model: ModelConfig, preset_name: str, batch: int,
                      groups: int, coder_threads: int | None, torch_device: torch.device,
                      threads: int, seed: int, numerics: str,
                      mixing: StatisticsConfig | None, progress: Progress | None,
                      profile: StepProfile | None, race: Race | None = None) -> bytes:
    length = len(data)
    payloads: list[bytes] = []
    if length:
        layout = Layout(length, batch, groups)
        symbols = np.frombuffer(data, dtype=np.uint8)
        starts = layout.starts
        if torch_device.type == "cuda":  # the input on the device: targets with no host copy
            on_device = torch.from_numpy(symbols.copy()).to(torch_device)
            starts_on_device = torch.from_numpy(starts).to(torch_device)

            def targets_of(step: int, group: int, count: int) -> torch.Tensor:
                start = layout.group_rows[group][0]
                return on_device[starts_on_device[start:start + count] + step].long()
        else:
            def targets_of(step: int, group: int, count: int) -> torch.Tensor:
                start = layout.group_rows[group][0]
                rows = starts[start:start + count] + step
                return torch.from_numpy(symbols[rows].astype(np.int64))

        coding = Coding("encode", starts, layout.group_rows, data=symbols, statistics=mixing,
                        lengths=layout.lengths)
        workers = coder_threads_for(groups, coder_threads, torch_device.type, os.cpu_count())
        with deterministic(threads), CoderPool(coding, workers, torch_device) as pool:
            _run(layout, model, seed, torch_device, pool, targets_of, progress, profile,
                 numerics == profiles.PORTABLE, race)
            payloads = pool.finish()
    machine = profiles.here(torch_device.type, device_name(torch_device), numerics)
    header = Header(
        original_size=length, original_sha256=sha256(data), batch_size=batch, seed=seed,
        model=model, threads=threads, fade_version=__version__, preset=preset_name,
        groups=len(payloads), group_payload_sizes=tuple(len(payload) for payload in payloads),
        statistics=mixing, **dataclasses.asdict(machine))
    return pack(header, b"".join(payloads))


def read_header(archive: bytes) -> AnyHeader | frames.FramesHeader:
    """Parse and check an archive's header (and a learned one's payload
    checksum); a frames archive's index."""
    if frames.is_frames(archive):
        return frames.read_index(io.BytesIO(archive))
    return unpack(archive)[0]


def model_header(archive: bytes) -> Header | None:
    """The learned header that decoding `archive` runs the model with: its
    own, or a strong floats archive's nested one; None if no model runs."""
    return _model_header(*unpack(archive))


def _model_header(header: AnyHeader, payload: bytes) -> Header | None:
    if isinstance(header, FloatHeader) and header.mode == "strong":
        header = _unpack_nested(payload)[0]
    return header if isinstance(header, Header) else None


def check_archive(archive: bytes, memory_limit: int | None = None,
                  max_threads: int | None = None, device: str = "auto") -> Header | None:
    """Everything a decoder checks before any work: the header field by
    field (fade.archive.unpack), the model it asks for against
    `memory_limit` (default `config.DEFAULT_MEMORY_LIMIT`), its thread
    count against `max_threads` (default `config.thread_limit` of this
    machine), and its numeric profile against this machine and process on
    `device` (`check_replay`). Returns `model_header(archive)`; builds and
    allocates nothing. A frames archive: its index (each frame is checked
    as it is decoded)."""
    if frames.is_frames(archive):
        frames.read_index(io.BytesIO(archive))
        return None
    return _checked_model_header(*unpack(archive), memory_limit, max_threads, device)


def _checked_model_header(header: AnyHeader, payload: bytes,
                          memory_limit: int | None, max_threads: int | None,
                          device: str) -> Header | None:
    if isinstance(header, StatisticsHeader):
        check_statistics_memory(header.statistics, header.original_size, memory_limit)
    learned = _model_header(header, payload)
    if learned is not None and learned.original_size:
        check_memory(learned.model, learned.batch_size, memory_limit, learned.statistics,
                     learned.original_size, learned.groups)
        check_threads(learned.threads, max_threads, os.cpu_count())
        check_replay(learned, decode_device(learned, device))
    return learned


def _unpack_nested(payload: bytes) -> tuple[Header | CompactHeader, bytes]:
    """unpack() of a strong floats archive's nested archive, which is never
    another floats archive (so damage cannot make decoding recurse)."""
    header, nested_payload = unpack(payload)
    if isinstance(header, FloatHeader):
        raise CorruptArchiveError("a floats archive nests another floats archive")
    return header, nested_payload


def decode_device(header: AnyHeader,
                  device: str = "auto") -> torch.device:
    """The device to decode on: by default the archive's kind, where present;
    the CPU for an archive that runs no model."""
    if not isinstance(header, Header):
        return resolve_device("cpu")
    if device == "auto":
        device = header.device_kind if header.device_kind != "cuda" or torch.cuda.is_available() \
            else "cpu"
    return resolve_device(device)


def decompress(archive: bytes, *, device: str = "auto", coder_threads: int | None = None,
               memory_limit: int | None = None, max_threads: int | None = None,
               progress: Progress | None = None, profile: StepProfile | None = None) -> bytes:
    """Decode an archive made by `compress`, verified against its SHA-256
    (a compact or floats archive: against its length and CRC-32).

    `coder_threads`: coder workers (default `config.coder_threads_for`);
    any number decodes any archive. Nothing is built before the checks of
    `check_archive` pass (with `memory_limit` and `max_threads`)."""
    coder_threads_for(1, coder_threads)  # a bad request fails here, before any work
    if frames.is_frames(archive):
        parts: list[bytes] = []
        frames.decompress_stream(
            io.BytesIO(archive), parts.append, device=device, coder_threads=coder_threads,
            memory_limit=memory_limit, max_threads=max_threads,
            progress=None if progress is None else (lambda done, bits: progress(done, 0, 0.0)))
        return b"".join(parts)
    header, payload = unpack(archive)
    _checked_model_header(header, payload, memory_limit, max_threads, device)
    return _decode(header, payload, device, progress, coder_threads, profile)


def _decode(header: AnyHeader, payload: bytes, device: str,
            progress: Progress | None, coder_threads: int | None = None,
            profile: StepProfile | None = None) -> bytes:
    """Decode an unpacked archive: its header and payload."""
    if isinstance(header, CompactHeader):
        return floor.decompress(header, payload)
    if isinstance(header, StatisticsHeader):
        return _decompress_statistics(header, payload, progress)
    if isinstance(header, FloatHeader):
        return _decompress_floats(header, payload, device, progress, coder_threads, profile)
    return _decompress_learned(header, payload, device, progress, coder_threads, profile)


def _decompress_learned(header: Header, payload: bytes, device: str, progress: Progress | None,
                        coder_threads: int | None, profile: StepProfile | None) -> bytes:
    torch_device = decode_device(header, device)
    out = np.zeros(header.original_size, dtype=np.uint8)
    if header.original_size:
        layout = Layout(header.original_size, header.batch_size, header.groups)
        starts = layout.starts
        bounds = np.cumsum((0,) + header.group_payload_sizes)
        payloads = [payload[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        coding = Coding("decode", starts, layout.group_rows, payloads=payloads,
                        statistics=header.statistics, lengths=layout.lengths)
        workers = coder_threads_for(header.groups, coder_threads, torch_device.type,
                                    os.cpu_count())
        with deterministic(header.threads), CoderPool(coding, workers, torch_device) as pool:

            def targets_of(step: int, group: int, count: int) -> torch.Tensor:
                start = layout.group_rows[group][0]
                symbols = pool.symbols(step, group)[:count]
                out[starts[start:start + count] + step] = symbols
                # A view of the shared (on CUDA pinned) slot: an asynchronous copy.
                return torch.from_numpy(symbols).to(torch_device, non_blocking=True).long()

            try:
                _run(layout, header.model, header.seed, torch_device, pool, targets_of,
                     progress, profile, header.profile == profiles.PORTABLE)
            except CorruptArchiveError as error:
                # Every CRC held, so where the encoding machine differs from
                # this one the likelier cause is other probabilities.
                differences = _suspects(header, torch_device)
                if not differences:
                    raise
                raise ChecksumMismatchError(
                    f"decoding failed ({error}); likely cause: {_other_machine(differences)}"
                ) from None
            pool.finish()
    data = out.tobytes()
    if sha256(data) != header.original_sha256:
        differences = _suspects(header, torch_device)
        cause = _other_machine(differences) if differences else \
            "the archive is damaged, or this build of torch is not deterministic here" \
            if header.profile != profiles.PORTABLE else \
            ("the archive is damaged in a way its CRC-32s missed, or a bug in fade: a portable "
             "archive replays on any machine that passed the profile check (please report it)")
        raise ChecksumMismatchError(f"decoded data fails the SHA-256 check; likely cause: {cause}")
    return data


def _decompress_statistics(header: StatisticsHeader, payload: bytes,
                           progress: Progress | None) -> bytes:
    size = header.original_size
    report = None if progress is None else (lambda done, bits: progress(done, size, bits))
    data = statistics.decode_file(payload, size, header.statistics, report)
    if zlib.crc32(data) != header.original_crc32:
        raise ChecksumMismatchError("decoded data fails its CRC-32 (the archive is damaged, "
                                    "or a bug in fade: the statistics decode alike on any "
                                    "machine)")
    return data


def _suspects(header: Header, device: torch.device) -> list[str]:
    """Machine differences that may explain a failed decode: none for a
    portable archive, whose check says they do not matter."""
    return [] if header.profile == profiles.PORTABLE else environment_differences(header, device)


def _other_machine(differences: list[str]) -> str:
    return ("this machine computes different probabilities than the encoding one: "
            + "; ".join(differences))


def _decompress_floats(header: FloatHeader, payload: bytes, device: str,
                       progress: Progress | None, coder_threads: int | None,
                       profile: StepProfile | None) -> bytes:
    if header.mode == "fast":  # on the CPU unless a GPU is asked for
        data = floats.decode_fast(header.segments, payload,
                                  None if device == "auto" else resolve_device(device))
    else:
        planes = _decode(*_unpack_nested(payload), device, progress, coder_threads, profile)
        data = floats.from_planes(planes, header.segments)
    if len(data) != header.original_size or zlib.crc32(data) != header.original_crc32:
        raise ChecksumMismatchError("decoded data fails its CRC-32 (the archive is damaged)")
    return data

