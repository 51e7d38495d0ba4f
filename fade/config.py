"""Configuration of the FADE predictor and the rule that picks the batch size.

Every number the decoder needs is a field of `ModelConfig` and is written to
the archive header (see docs/format.md), so a preset name is only a
convenience: changing a preset never breaks an old archive.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass

from fade.errors import FadeError
from fade.statistics.choice import for_kind, level_model
from fade.statistics.models import EVERY_MODEL, MEASURED, MODELS
from fade.statistics.state import state_bytes


@dataclass(frozen=True)
class ModelConfig:
    """Sizes and optimiser settings of the dual-stream predictor.

    The defaults are the paper's (Ma et al., arXiv 2604.07239, and its
    published code): with batch 512 this is 7.8 GMAC per step.
    """

    timesteps: int = 16  # T: context length in bytes
    embed_dim: int = 32  # d: per-byte embedding width; T*d = 512 is the model width
    global_width: int = 4096  # Fg: width of the global stream's rolling cache
    cache_step: int = 64  # cache values appended per step (4096/64 = 64 bytes of history)
    branches: int = 2  # coarse refiner branches (512 = 2 x 256)
    coarse_rank: int = 64  # width of the per-sub-stream memory U_s (64 x 64)
    fine_width: int = 8192  # hidden width of the fine GeGLU refiner
    init_std: float = 0.01  # N(0, 0.01) init of embedding, output and memories (paper code)
    learning_rate: float = 1e-3  # Adam, one step per coded step (paper)
    weight_decay: float = 1e-7  # Adam L2 weight decay (paper)
    adam_beta1: float = 0.9  # torch defaults, as the paper's code uses
    adam_beta2: float = 0.999
    adam_eps: float = 1e-8

    @property
    def width(self) -> int:
        """Model width T*d (512 in the paper)."""
        return self.timesteps * self.embed_dim

    @property
    def forward_macs(self) -> int:
        """Multiply-adds of one sub-stream's forward in the dense layers (the
        per-step cache append, global projection, router, coarse and fine
        refiners, head); a step's backward costs about twice as much."""
        width, branch = self.width, self.width // self.branches
        return (2 * self.embed_dim * self.cache_step + self.global_width * width  # global
                + width * width  # router
                + self.branches * (branch * (2 * self.coarse_rank + branch)
                                   + self.coarse_rank ** 2)  # coarse, memory product
                + 3 * width * self.fine_width  # fine: GeGLU to 2F, project F -> width
                + width * 256)  # head

    def parameter_count(self, batch: int) -> int:
        """Parameters of the model for `batch` sub-streams (fade.model.FADE,
        every tensor, the per-sub-stream memories included)."""
        d, width, fg, fine = self.embed_dim, self.width, self.global_width, self.fine_width
        branch, rank = width // self.branches, self.coarse_rank
        return (256 * d + 2 * width  # embedding, input LayerNorm
                + width * 2 * fg + 2 * fg + d * 2 * self.cache_step + 2 * self.cache_step
                + fg * width + width + 1  # global stream: first, append, out, a_g
                + 2 * d + 4 * d  # local stream: LayerNorm, depthwise conv (3 taps + bias)
                + width * width + width  # router
                + 2 * branch + 2 * (branch * rank) + rank + branch + branch * branch + branch + 1
                + batch * (rank * rank + self.branches * branch)  # coarse + memories
                + 4 * width + width * 2 * fine + 2 * fine + fine * width + width + 1  # fine
                + width * 256 + 256)  # head

    def memory_bytes(self, batch: int) -> int:
        """An upper estimate of what coding with `batch` sub-streams holds:
        float32 parameters with their gradients and two Adam moments, and
        one step's activations and their gradients per sub-stream (the
        rolling cache, the GeGLU and refiner widths, the 256 logits)."""
        per_substream = (4 * self.global_width + 6 * self.fine_width + 24 * self.width
                         + 8 * self.timesteps * self.embed_dim + 1024)
        return 4 * (4 * self.parameter_count(batch) + 2 * batch * per_substream)

    def validate(self, what: str = "model config") -> "ModelConfig":
        """Raise FadeError, naming the field and its value, when a field is
        outside MODEL_LIMITS or the sizes cannot build a model; `what` starts
        the message."""
        for name, (low, high, closed) in MODEL_LIMITS.items():
            value = getattr(self, name)
            inside = isinstance(value, (int, float)) and math.isfinite(value) \
                and low <= value <= high and (closed or value != low)
            if not inside:
                raise FadeError(f"{what} {name} = {value!r} is outside its domain "
                                f"{_domain(low, high, closed)}")
        if self.width > MAX_WIDTH:
            raise FadeError(f"{what}s timesteps * embed_dim = {self.width} is above {MAX_WIDTH}")
        if self.global_width % self.cache_step:
            raise FadeError(f"{what} global_width = {self.global_width} is not a multiple of "
                            f"cache_step = {self.cache_step}")
        if self.width % self.branches:
            raise FadeError(f"{what}s timesteps * embed_dim = {self.width} is not a multiple of "
                            f"branches = {self.branches}")
        return self


def _domain(low: float, high: float, closed: bool) -> str:
    return f"{'[' if closed else '('}{low:g}, {high:g}]"


# The domain of every ModelConfig field: (low, high, low included). The
# encoder builds nothing outside it and the decoder refuses a header outside
# it (docs/format.md, "Field domains"). Sizes go 16x past the paper's model
# (T 16, d 32, Fg 4096, F 8192); the float settings are those an optimiser
# can run with. What a whole configuration needs is bounded separately, by
# `memory_bytes` against a memory limit (DEFAULT_MEMORY_LIMIT).
MODEL_LIMITS: dict[str, tuple[float, float, bool]] = {
    "timesteps": (1, 256, True),
    "embed_dim": (1, 1024, True),
    "global_width": (1, 65536, True),
    "cache_step": (1, 65536, True),
    "branches": (1, 256, True),
    "coarse_rank": (1, 4096, True),
    "fine_width": (1, 131072, True),
    "init_std": (0.0, 1.0, False),
    "learning_rate": (0.0, 1.0, False),
    "weight_decay": (0.0, 1.0, True),
    "adam_beta1": (0.0, 0.999999, True),
    "adam_beta2": (0.0, 0.999999, True),
    "adam_eps": (0.0, 1.0, False),
}
MAX_WIDTH = 16384  # timesteps * embed_dim (the paper: 512)
# Most sub-streams in one batch (the paper's largest is 16384, Table 8).
MAX_BATCH = 65536
MAX_THREADS = 1024  # the header has 16 bits for it; more would only oversubscribe
# What a model may hold (ModelConfig.memory_bytes) unless the user raises
# it (`--memory-limit`): the paper's model at batch 4096 needs about 3.1 GiB,
# the default preset at batch 512 about 0.2 GiB. Encoder and decoder apply
# the same limit, so an archive made with the defaults decodes with them.
DEFAULT_MEMORY_LIMIT = 8 << 30


def check_memory(model: ModelConfig, batch: int, limit: int | None = None,
                 statistics: "StatisticsConfig | None" = None, length: int = 0,
                 groups: int = 1, racing: int = 0) -> None:
    """Raise FadeError if coding `batch` sub-streams with `model` (and, for
    the hybrid, `groups` statistics for `length` bytes, and the `racing`
    bytes of the statistics alone racing it) needs more than `limit` bytes
    (default DEFAULT_MEMORY_LIMIT); nothing is allocated."""
    limit = DEFAULT_MEMORY_LIMIT if limit is None else limit
    need = model.memory_bytes(batch)
    if statistics is not None:
        need += groups * statistics.memory_bytes(-(-length // max(groups, 1)), batch)
    need += racing
    if need > limit:
        raise FadeError(f"the model needs about {format_bytes(need)} of memory "
                        f"({model.parameter_count(batch):,} parameters, batch {batch}"
                        f"{', with the statistics' if statistics else ''}"
                        f"{' and those racing it' if racing else ''}), above the "
                        f"limit of {format_bytes(limit)} (raise it with --memory-limit)")


def format_bytes(size: int) -> str:
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.1f} {unit}"
    return f"{size} bytes"


@dataclass(frozen=True)
class StatisticsConfig:
    """What a decoder must repeat: recorded in the archive.

    `table_bits`: log2 of the hash table's slots (64 bytes each);
    `match_bits`: log2 of the match model's table (8 bytes an entry);
    `mixer_rate`: the mixers' learning rate (x / 65536 of input x error);
    `keyed`: contexts keyed by sub-stream (lockstep layouts);
    `model`: which model (fade.statistics.models.MODELS: its parts and
    table size, one for each level and kind of bytes; docs/statistics.md,
    "The models")."""

    table_bits: int = 22
    match_bits: int = 22
    mixer_rate: int = 24
    keyed: bool = False
    model: int = 0

    def memory_bytes(self, length: int = 0, streams: int = 1) -> int:
        """Bytes of every array the statistics hold for `streams` sub-streams
        of `length` bytes in all (fade.statistics.state.state_arrays, from
        which fade.statistics.Tables allocates them): exact, known before
        anything is built."""
        return state_bytes(self, streams, length)

    def for_kind(self, kind: str) -> "StatisticsConfig":
        """These settings for bytes of `kind` (fade.kinds.Screen.kind: "text",
        "table", "markup", "log", "dna", "x86", "audio", "image", "pixels", each of
        those two with "-green" or "-green-swap", "jpeg" or "binary"): a level's model
        for text becomes its model for that kind (fade.statistics.choice.for_kind;
        the table in docs/statistics.md, "The models")."""
        model = for_kind(self.model, kind)
        return self if model == self.model else dataclasses.replace(self, model=model)

    def sized(self, length: int) -> "StatisticsConfig":
        """These settings with tables no larger than `length` bytes call for
        (the model's slots a byte, 4 to 32, and a match entry per byte, at
        least 2^16 and 2^12): small inputs start faster and
        lose almost nothing (docs/statistics.md)."""
        bits = max(length, 1).bit_length()
        known = 0 <= self.model < len(EVERY_MODEL)
        slots = EVERY_MODEL[self.model].slots_per_byte_bits if known else 2
        return dataclasses.replace(self, table_bits=min(self.table_bits, max(16, bits + slots)),
                                   match_bits=min(self.match_bits, max(12, bits)))

    def validate(self, what: str = "statistics", measured: bool = False) -> "StatisticsConfig":
        """Raise FadeError naming the field and its value if one is out of
        STATISTICS_LIMITS; with `measured`, the model may also be one that
        is measured but never archived (fade.statistics.models.MEASURED: the
        colour band's, the candidates)."""
        for name, (low, high) in STATISTICS_LIMITS.items():
            value = int(getattr(self, name))
            if measured and name == "model":
                high += len(MEASURED)
            if not low <= value <= high:
                raise FadeError(f"{what} {name} = {value} is outside its domain [{low}, {high}]")
        return self


# Domains of StatisticsConfig's fields (docs/format.md): tables from 64 KiB
# to 4 GiB; the mixer's rate as a 16-bit fraction.
STATISTICS_LIMITS = {"table_bits": (10, 26), "match_bits": (10, 28), "mixer_rate": (1, 65535),
                     "keyed": (0, 1), "model": (0, len(MODELS) - 1)}


@dataclass(frozen=True)
class Level:
    """A named way to code (`--level`): the statistics, the network, or both."""

    statistics: StatisticsConfig | None  # None: the network alone
    preset: str | None  # the network's preset; None: never a network
    # Whether the level runs its network unasked (method auto): it then races
    # the hybrid against its statistics alone. A level that does not runs it
    # only where the user asks for a network (`network_runs`).
    learned: bool = False

    def runs_network(self, asked: bool) -> bool:
        """Whether this level runs its network, given whether the options ask
        for one (`network_runs`)."""
        return self.preset is not None and (self.learned or asked)


def network_runs(level: str | None, preset_given: bool, method: str, float_mode: str) -> bool:
    """Whether compressing with these options may run a network (the race
    or the screen may still code with the statistics alone): never with
    method statistics; with a preset and no level, the network alone;
    otherwise where the level (default: DEFAULT_LEVEL) runs one unasked or
    the options ask for one (a preset or a model, method fade, float mode
    strong; float mode fast codes float data with no network, and other
    bytes as with float mode off)."""
    if method == "statistics":
        return False
    if level is None and preset_given:
        return True
    asked = preset_given or method == "fade" or float_mode == "strong"
    return LEVELS[level or DEFAULT_LEVEL].runs_network(asked)


# Levels, fastest first. A preset given without a level means the network
# alone with that preset (the archives of fade 0.5 and before).
LEVELS: dict[str, Level] = {
    # Statistics alone in file order, for speed: each kind's fastest model,
    # with 256 MiB of tables (docs/results.md).
    "fast": Level(StatisticsConfig(table_bits=22, match_bits=22,
                                   model=level_model("fast", "text")), None),
    # Statistics alone in file order, each kind's model of this level
    # (for_kind), or the size floor where smaller: archives that decode with
    # fade alone on any CPU, at the statistics' speed. Asked for a network
    # (--preset, --method fade, --floats), the default network and this
    # level's text model mixed bit by bit.
    "default": Level(StatisticsConfig(table_bits=22, match_bits=22, keyed=True,
                                      model=level_model("default", "text")),
                     "balanced"),
    # The best ratio: the default network mixed bit by bit with this level's
    # text model (tables of up to 1 GiB), or, where the network cannot help,
    # each kind's model of this level alone in file order.
    "max": Level(StatisticsConfig(table_bits=24, match_bits=22, keyed=True,
                                  model=level_model("max", "text")),
                 "balanced", learned=True),
}
DEFAULT_LEVEL = "default"


def level(name: str) -> Level:
    """The level called `name`; an unknown name lists the valid ones."""
    return _named(LEVELS, name, "level")


def _named(table: dict, name: str, kind: str):
    try:
        return table[name]
    except KeyError:
        raise FadeError(f"unknown {kind} {name!r} (choose from {', '.join(table)})") from None


# Named presets, fastest first: one table, one line each on what it is for.
# Widths and learning rates were chosen on measurements (docs/results.md);
# the smallest models learn best with larger steps.
PRESETS: dict[str, ModelConfig] = {
    # Minimal widths for tests: exercises every block in milliseconds per step.
    "tiny": ModelConfig(timesteps=16, embed_dim=4, global_width=128, cache_step=8,
                        coarse_rank=8, fine_width=128),
    # The fastest network, sized for a full batch of 512: for inputs of a
    # megabyte or more; on small inputs the batch rule makes it slower.
    "fast": ModelConfig(embed_dim=8, global_width=256, cache_step=16, coarse_rank=16,
                        fine_width=256, learning_rate=1e-2),
    # Between fast and the default.
    "medium": ModelConfig(embed_dim=16, global_width=512, cache_step=32, coarse_rank=32,
                          fine_width=1024, learning_rate=5e-3),
    # The default: the paper's architecture at reduced widths (cache 512, fine
    # 1024), with the paper's learning rate, which suits the default batch
    # sizes (docs/results.md).
    "balanced": ModelConfig(global_width=512, fine_width=1024),
    # The paper's model, unchanged, for the best ratio and for reproduction;
    # the slowest.
    "paper": ModelConfig(),
}

DEFAULT_PRESET = "balanced"


def preset(name: str) -> ModelConfig:
    """The preset called `name`; an unknown name lists the valid ones."""
    return _named(PRESETS, name, "preset")


# Default batch-size rule. A sub-stream must be long enough for the online
# model to learn (too short a one loses to xz: docs/results.md). So every
# sub-stream gets at least MIN_SUBSTREAM bytes, and the batch is capped per
# preset and device.
MIN_SUBSTREAM = 2048
# On the CPU a step's time grows with the batch, so fewer sub-streams cost
# little time and gain ratio: for balanced, 128 is the knee of ratio against
# speed (docs/results.md). fast and medium are sized for batch 512, their
# speed comes from it; the paper's model is slower per byte at smaller batches.
CPU_BATCH_CAPS = {"balanced": 128}
# A GPU step is taken to cost about the same at any batch up to the paper's
# 512, so there the cap is 512 for every preset.
DEFAULT_BATCH_CAP = 512


def batch_cap(preset_name: str | None = None, device_kind: str = "cpu") -> int:
    """Most sub-streams the default rule gives `preset_name` on `device_kind`."""
    if device_kind == "cpu":
        return CPU_BATCH_CAPS.get(preset_name or "", DEFAULT_BATCH_CAP)
    return DEFAULT_BATCH_CAP


def default_batch_size(length: int, preset_name: str | None = None,
                       device_kind: str = "cpu") -> int:
    """Number of sub-streams for `length` bytes: length // 2048, in [1, batch_cap]."""
    return max(1, min(batch_cap(preset_name, device_kind), length // MIN_SUBSTREAM))


def batch_size_for(length: int, requested: int | None = None, preset_name: str | None = None,
                   device_kind: str = "cpu") -> int:
    """The batch actually used: the request or the default, never more than
    one sub-stream per byte (0 for empty input)."""
    if requested is not None and not 1 <= requested <= MAX_BATCH:
        raise FadeError(f"batch size must be between 1 and {MAX_BATCH}")
    return min(requested or default_batch_size(length, preset_name, device_kind), length)


def split_sizes(total: int, parts: int) -> list[int]:
    """`total` items in `parts` contiguous runs, the first `total % parts`
    one longer: the rule for sub-streams in a file and for groups in a batch."""
    base, longer = divmod(total, parts)
    return [base + 1] * longer + [base] * (parts - longer)


def group_rows(batch: int, groups: int) -> list[tuple[int, int]]:
    """[start, stop) of each group's rows in a batch of `batch` sub-streams."""
    bounds = list(itertools.accumulate(split_sizes(batch, groups), initial=0))
    return list(zip(bounds[:-1], bounds[1:]))


# Default CPU threads. A second torch thread pays only when a step has work
# to share: at least this many multiply-adds in one step's forward over the
# batch (docs/results.md). Below it the extra thread only burns CPU (both
# threads busy all the time) and must be scheduled for every op, which on a
# shared machine makes the step wait for a core.
MIN_MACS_FOR_THREADS = 10_000_000


# Every decoder replays the encoder's thread count, whatever its own cores,
# and threads beyond the cores cost dearly (docs/results.md). So the default
# count is at most DEFAULT_THREADS_CAP (torch's threads scale poorly past a
# few at fade's batch sizes anyway), and a decoder refuses more than
# `thread_limit` of its own unless the user raises it (--max-threads): an
# archive made with the defaults decodes with the defaults anywhere.
DEFAULT_THREADS_CAP = 8
# The hybrid on a CPU: one thread for the network, whose small steps a second
# thread slows down, and a core left to the statistics' coder thread
# (scripts/hybrid_step.py: balanced, batch 128, 56.7 ms a step on one
# thread, 67.4 ms on two; docs/results.md, "A cheaper hybrid step").
HYBRID_CPU_THREADS = 1


def default_threads(model: ModelConfig, batch: int, available: int,
                    hybrid_on_cpu: bool = False) -> int:
    """Threads for a model of `batch` sub-streams when the user names none:
    `available` (torch's default, one per core) up to DEFAULT_THREADS_CAP,
    or 1 for a step too small to share, and 1 for the hybrid on a CPU,
    whose statistics code in a thread of their own beside the network
    (HYBRID_CPU_THREADS)."""
    if hybrid_on_cpu:
        return HYBRID_CPU_THREADS
    if model.forward_macs * batch < MIN_MACS_FOR_THREADS:
        return 1
    return min(available, DEFAULT_THREADS_CAP)


def thread_limit(cpus: int | None) -> int:
    """The most threads a decoder on `cpus` cores replays without being asked:
    four per core, and never fewer than the encoder's default cap."""
    return max(DEFAULT_THREADS_CAP, 4 * (cpus or 1))


def check_threads(threads: int, limit: int | None, cpus: int | None) -> None:
    """Raise FadeError if decoding with `threads` threads exceeds `limit`
    (default `thread_limit(cpus)`)."""
    limit = thread_limit(cpus) if limit is None else limit
    if threads > limit:
        raise FadeError(f"the archive was coded with {threads} threads and decodes only with "
                        f"as many; this machine has {cpus} cores, so that would be slow (limit "
                        f"{limit}; raise it with --max-threads {threads})")


# Groups: the batch's sub-streams are cut into G contiguous groups, each with
# its own range coder and payload. A decoder then decodes one group's step
# while the device computes another's (fade.pipeline), and several coder
# threads decode different groups at once. G is part of the format (the
# header records it); the number of coder threads is not.
MAX_GROUPS = 16
# On a CPU the model and the coder share the cores and coding costs a small
# fraction of a step (docs/results.md), so splitting the batch only adds
# per-call overhead: one group. On a GPU too: a step there is bound by
# issuing the model's kernels, which every group repeats, while the
# network's coders sit idle nearly all the time; and the hybrid's
# statistics, one model per group, see a quarter of the data each with 4
# groups. On an H200, on enwik6, balanced at batch 512 coded 62.5 KB/s with
# one group and 16.7 with 4; the hybrid of level max made 226,379 bytes
# with one and 242,928 with 4, at twice the speed (docs/results.md, "On a
# GPU").
DEFAULT_GROUPS = {"cpu": 1, "cuda": 1}
MAX_CODER_THREADS = 16


def groups_for(batch: int, requested: int | None = None, device_kind: str = "cpu") -> int:
    """Groups actually used: the request or the device's default, at most
    one per sub-stream (0 for empty input)."""
    if requested is not None and not 1 <= requested <= MAX_GROUPS:
        raise FadeError(f"groups must be between 1 and {MAX_GROUPS}")
    return min(requested or DEFAULT_GROUPS.get(device_kind, 1), batch)


def coder_threads_for(groups: int, requested: int | None = None, device_kind: str = "cpu",
                      cpus: int | None = None) -> int:
    """Coder threads actually used: the request or a default from the CPU
    count, never more than one per group. On a CPU the cores run the model,
    so the default is one coder thread; beside a GPU, one per group up to
    half the cores."""
    if requested is not None and not 1 <= requested <= MAX_CODER_THREADS:
        raise FadeError(f"coder threads must be between 1 and {MAX_CODER_THREADS}")
    if requested is None:
        requested = 1 if device_kind == "cpu" else max(1, (cpus or 2) // 2)
    return max(1, min(requested, groups))
