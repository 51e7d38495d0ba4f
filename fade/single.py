"""One archive: the method chosen for an input (`Settings` -> `Plan`), the
coding it runs, and the decoding of any single archive.

`compress` turns its keyword arguments into `Settings`, one frozen object
for every choice (as python-zstandard's ZstdCompressor holds its
parameters); `Settings.plan` decides, before any coding, what runs and
where (a `Plan`, which the command line prints under -v); then the bytes
decide the rest: float data, the size floor (fade.floor), the statistics
alone against the hybrid (fade.race). Which method a level means is said in
one place, config.LEVELS.

A frames archive (many single archives in a container) is read by
fade.frames, which calls `decompress` for each of its frames.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from fade import floats, floor, kinds, lockstep, methods, race, statistics
from fade import profile as profiles
from fade.codings import coding_for
from fade.config import (DEFAULT_LEVEL, DEFAULT_PRESET, MAX_THREADS, Level, ModelConfig,
                         StatisticsConfig, batch_size_for, check_memory, check_threads,
                         coder_threads_for, default_threads, format_bytes, groups_for,
                         level as named_level, network_runs, preset)
from fade.device import (DEVICES, check_replay, choose_profile, decode_device, device_name,
                         resolve_device)
from fade.errors import FadeError
from fade.format.archive import COMPACT_OVERHEAD, pack, pack_floats, unpack
from fade.format.headers import (FLOATS, FRAMES, LEARNED, METHODS, STATISTICS, AnyHeader,
                                 Header, StatisticsHeader, sha256)
from fade.lazy import torch
from fade.lockstep import Layout, Progress, StepTimings, Stopped
from fade.methods import Decoding
from fade.methods import floats as float_method
from fade.version import __version__

# "auto": the learned model, unless the size floor (fade.floor) says it cannot win
# or its archive comes out larger than the stored data. "frames" is a container
# (fade.frames: --frame-size, -T), not a method one archive can be made with.
METHOD_CHOICES = ("auto",) + tuple(name for name in METHODS.values() if name != FRAMES)


@dataclass(frozen=True)
class Plan:
    """What compressing `length` bytes runs, decided from the Settings
    before any coding: the statistics alone in file order (`alone`), or a
    network (`model`, with the hybrid's `statistics` or alone) and where and
    how it runs. Float data and the size floor are decided later, from the
    bytes themselves."""

    length: int
    level: str | None = None
    alone: StatisticsConfig | None = None  # the statistics alone, in file order: no network
    model: ModelConfig | None = None
    preset: str | None = None  # the preset's name; None for a model given whole
    statistics: StatisticsConfig | None = None  # the hybrid's, sized; None: the network alone
    device: torch.device | None = None
    device_name: str = ""
    profile: str = ""  # the numeric profile (fade.profile)
    batch: int = 0
    groups: int = 0
    threads: int = 0  # torch's intra-op threads, recorded in the archive
    coder_threads: int = 0  # coder workers beside the model: speed only
    screen: kinds.Screen | None = None  # what the bytes are: the model, the network or not
    racing: StatisticsConfig | None = None  # the statistics alone a hybrid races (method auto)
    compact: str | None = None  # a compact method asked for (fade.floor): no model runs
    guard: StatisticsConfig | None = None  # the general model beside `alone` or `racing`

    def __str__(self) -> str:
        if self.compact is not None:
            return f"writing a compact archive with method {self.compact}: no model runs"
        if self.alone is not None:
            tables = format_bytes(self.alone.memory_bytes(self.length))
            why = ""
            if self.screen is not None:  # a hybrid level says why its network does not run
                learned = named_level(self.level).learned
                why = f": {self.screen if learned else self.screen.content}"
            guard = "" if self.guard is None else \
                f", beside it model {self.guard.model} (the smaller is written)"
            return (f"compressing with the statistics alone, model {self.alone.model} "
                    f"(level {self.level}{why}), {tables} of tables{guard}")
        coding = "the network alone" if self.statistics is None else \
            f"the hybrid with statistics model {self.statistics.model}"
        return (f"compressing on {self.device.type} ({self.device_name}), profile {self.profile}, "
                f"preset {self.preset or 'custom'}, batch {self.batch}, {self.groups} groups, "
                f"{self.threads} threads, {self.coder_threads} coder threads, {coding}")


@dataclass(frozen=True)
class Settings:
    """Every choice of a compression, one frozen object (exported as
    `fade.Settings`), as python-zstandard's ZstdCompressionParameters holds
    a compressor's: `fade.compress`, `compress_stream`, `FadeCompressor`,
    `fade.open` and the command line take it whole (`settings=`), and their
    keyword arguments of the same names build one (`Settings.of`). Each
    field defaults as `compress`'s docstring says; `plan` says what a
    compression with it runs (what `fade -vv` prints).

    `statistics_model`: the level's statistics with this model instead of
    the level's own for text or other bytes (fade.statistics.models.MODELS;
    for benchmarks and tests). `frame_size`, `jobs` and `ray`: how
    `compress_stream` cuts the input into frames and where it codes them
    (one archive per frame); `compress` makes one archive and takes none of
    them."""

    model: ModelConfig | None = None
    preset: str | None = None  # the network's preset by name (config.PRESETS)
    batch_size: int | None = None
    device: str = "auto"
    threads: int | None = None
    seed: int = 0
    method: str = "auto"
    dtype: str = "auto"
    float_mode: str = "off"
    float_codec: str = "auto"
    groups: int | None = None
    coder_threads: int | None = None
    memory_limit: int | None = None
    native: bool = False
    level: str | None = None
    statistics_model: int | None = None
    frame_size: int | None = None  # None: sized to the input and jobs (fade.frames)
    jobs: int = 1
    ray: str | None = None  # a Ray cluster's address: frames coded as its tasks
    # Where a hybrid races the statistics alone: their two passes run in
    # threads beside it (less time, three sets of tables at once), or one
    # after the other before it (frames coded in parallel jobs, whose cores
    # are busy anyway: the memory of one set at a time).
    race_beside: bool = True

    @classmethod
    def of(cls, settings: "Settings | None" = None, **keywords) -> "Settings":
        """`settings` (default: every field's default) with the fields named
        by keyword arguments replaced, where `preset_name` (fade 0.10's name
        for `preset`) still works; an unknown name is a TypeError."""
        if "preset_name" in keywords:
            if keywords.get("preset") is not None:
                raise FadeError("give the preset as preset (preset_name is its older name), "
                                "not both")
            keywords["preset"] = keywords.pop("preset_name")
        if settings is None:
            return cls(**keywords)
        if not isinstance(settings, cls):
            raise TypeError(f"settings must be fade.Settings, not {type(settings).__name__}")
        return dataclasses.replace(settings, **keywords)

    @property
    def framed(self) -> bool:
        """Whether any of the frame settings (compress_stream's) is set."""
        return self.frame_size is not None or self.jobs != 1 or self.ray is not None

    @property
    def seeks_floats(self) -> bool:
        """Whether compressing looks for float data (methods auto and floats, float mode on)."""
        return self.method in ("auto", FLOATS) and self.float_mode != "off"

    @property
    def runs_network(self) -> bool:
        """Whether compressing with these settings may run a network."""
        return network_runs(self.level, self.model is not None or bool(self.preset),
                            self.method, self.float_mode)

    def kind_model(self, kind: str) -> int | None:
        """The statistics model these settings code bytes of `kind`
        (kinds.Screen.kind) with where what the bytes are picks it, else None:
        a network alone (a preset or model and no level), a model given
        (`statistics_model`), the network or floats asked for by method or
        float mode. Where it is not None, `compress_stream` cuts the input
        where it changes (fade.cuts)."""
        if self.method not in ("auto", STATISTICS) or self.float_mode != "off" or \
                self.statistics_model is not None:
            return None
        level = self._level_name()
        statistics = None if level is None else named_level(level).statistics
        return None if statistics is None else statistics.for_kind(kind).model

    def _level_name(self) -> str | None:
        """The level these settings code with: the one given; with method
        statistics and none given, "fast"; with no model or preset either,
        the default level; else None (the network alone)."""
        level = self.level or ("fast" if self.method == STATISTICS else None)
        if level is None and self.model is None and not self.preset:
            level = DEFAULT_LEVEL
        return level

    def _level_statistics(self, chosen: Level | None, kind: str) -> StatisticsConfig | None:
        """The statistics level `chosen` codes bytes of `kind` (kinds.Screen.kind)
        with: its model for them, or `statistics_model`."""
        if chosen is None or chosen.statistics is None:
            if self.statistics_model is not None:
                raise FadeError("a statistics model needs a level with statistics")
            return None
        if self.statistics_model is None:
            return chosen.statistics.for_kind(kind)
        return dataclasses.replace(chosen.statistics, model=self.statistics_model).validate()

    def _choose(self, length: int, data: bytes | None, screen: kinds.Screen | None = None
                ) -> tuple[Plan | None, str | None, Level | None, kinds.Screen | None]:
        """What `plan` decides before it loads the network (no torch): a
        Plan of the statistics alone or of a compact method where no network
        runs (else None), the level, the Level and what the bytes are
        (`screen`, where the caller has it: `screen_of` the same bytes).
        Float mode fast plans as off: `compress` codes float data first."""
        if self.method not in METHOD_CHOICES:
            raise FadeError(f"unknown method {self.method!r} (choose from "
                            f"{', '.join(METHOD_CHOICES)})")
        if self.float_mode not in floats.MODES:
            raise FadeError(f"unknown float mode {self.float_mode!r} (choose from "
                            f"{', '.join(floats.MODES)})")
        if self.method == FLOATS and self.float_mode == "off":
            raise FadeError("method floats needs float mode fast or strong (--floats)")
        if self.device not in DEVICES:
            resolve_device(self.device)  # its error, without loading torch
        model, preset_name = self.model, self.preset
        if self.method == STATISTICS and (model is not None or preset_name):
            raise FadeError("method statistics is the level's statistics alone, in file "
                            "order: it takes no preset")
        level = self._level_name()
        chosen = named_level(level) if level is not None else None
        if chosen is not None and chosen.preset is None and (
                model is not None or preset_name or self.method == LEARNED or
                self.method in ("auto", FLOATS) and self.float_mode == "strong"):
            raise FadeError(f"level {level} runs no network: it takes no preset, method fade "
                            "or float mode strong")
        if preset_name:
            preset(preset_name)  # a wrong name is refused whatever runs
        if self.method in floor.DECODED_METHODS:  # neither the screen nor torch is needed
            if model is not None:
                model.validate()
            return Plan(length, level, compact=self.method), level, chosen, None
        if screen is None and data is not None and len(data) < floor.MIN_LEARNED_SIZE and \
                self.method == "auto" and self.float_mode != "strong" and chosen is not None and \
                chosen.statistics is not None:  # too few for any model: unread (no numpy)
            alone = race.file_order(self._level_statistics(chosen, "text"), length)
            return Plan(length, level, alone=alone), level, chosen, None
        # What the bytes are picks the model of the level's statistics alone
        # (text, table, dna, x86, binary: StatisticsConfig.for_kind) and, for a hybrid,
        # whether the network runs. A hybrid mixes the level's own text model:
        # with the network beside it, a model for other bytes gained nothing on
        # binaries (mapsdatazrh +0.07%; docs/history/statistics-0.11.md, "Models 4 to 6").
        if screen is None or chosen is None:
            screen = self.screen_of(data)
        statistics = self._level_statistics(chosen, "text" if screen is None else screen.kind)
        alone = Plan(length, level, alone=race.file_order(statistics, length), screen=screen,
                     guard=self._guard(chosen, screen, length)) if statistics is not None \
            else None
        if chosen is not None and (chosen.preset is None or self.method == STATISTICS):
            return alone, level, chosen, screen
        if chosen is not None and not network_runs(level, model is not None or bool(preset_name),
                                                   self.method, self.float_mode):
            return alone, level, chosen, screen
        if screen is not None and self.method == "auto" and self.float_mode != "strong" and \
                not screen.network_may_pay:
            return alone, level, chosen, screen
        return None, level, chosen, screen

    def screen_of(self, data: bytes | None) -> kinds.Screen | None:
        """What the bytes `data` are, as `plan` screens them (a colour
        image coded in part both ways: kinds.Screen.of with `measure`), where
        the level has statistics to choose a model of; else None."""
        if data is None or self._level_name() is None:
            return None
        return kinds.Screen.of(data, measure=True)

    def race_statistics(self, length: int, data: bytes, screen: kinds.Screen | None = None
                        ) -> tuple[StatisticsConfig, StatisticsConfig | None] | None:
        """The statistics alone that a hybrid of these settings races (method
        auto, a level with statistics) and their guard (`_racing`), or None."""
        alone, _, chosen, screen = self._choose(length, data, screen)
        if alone is not None or self.method != "auto" or chosen is None or \
                chosen.statistics is None or screen is None:
            return None
        return self._racing(chosen, screen, length)

    def _racing(self, chosen: Level, screen: kinds.Screen, length: int
                ) -> tuple[StatisticsConfig, StatisticsConfig | None]:
        """The statistics alone that a hybrid of level `chosen` races, the
        level's model for what the bytes are (`screen`) in file order, and
        the general model that guards it (`_guard`), sized for the bytes."""
        return (race.file_order(self._level_statistics(chosen, screen.kind), length),
                self._guard(chosen, screen, length))

    def _guard(self, chosen: Level | None, screen: kinds.Screen | None,
               length: int) -> StatisticsConfig | None:
        """The level's general model, in file order, beside its model for a
        kind the screen guessed (kinds.Screen.general; race.guarded_archive);
        None for a model asked for, no screen, text, other bytes, a header's."""
        if self.statistics_model is None and screen is not None and screen.general and \
                chosen is not None and chosen.statistics is not None:
            return race.guard(chosen.statistics, screen.kind, screen.general, length)
        return None

    def plan(self, length: int, data: bytes | None = None,
             screen: kinds.Screen | None = None) -> Plan:
        """The Plan for `length` bytes; a FadeError for any choice that is
        wrong or does not fit (memory, threads), before anything is built.
        Given the bytes (`data`), a hybrid level with method "auto" screens
        them (kinds.Screen; `screen`, where the caller has it: `screen_of`
        the same bytes) and codes what the network cannot pay on with its
        statistics alone, in file order."""
        alone, level, chosen, screen = self._choose(length, data, screen)
        if alone is not None:
            return alone
        model, preset_name = self.model, self.preset
        if model is None:
            preset_name = preset_name or (chosen.preset if chosen else None) or DEFAULT_PRESET
            model = preset(preset_name)
        model.validate()
        device = resolve_device(self.device)
        numerics = choose_profile(device, self.native)
        batch = batch_size_for(length, self.batch_size, preset_name, device.type)
        # the hybrid mixes the level's own model (or statistics_model), whatever the bytes
        mixing = self._level_statistics(chosen, "text")
        threads = self.threads or default_threads(model, batch, torch.get_num_threads(),
                                                  mixing is not None and device.type == "cpu")
        if not 1 <= threads <= MAX_THREADS:
            raise FadeError(f"threads must be between 1 and {MAX_THREADS}")
        groups = groups_for(batch, self.groups, device.type)
        if mixing is not None:
            mixing = mixing.sized(-(-length // max(groups, 1)))
        racing, guard = self._racing(chosen, screen, length) if mixing is not None and \
            self.method == "auto" and screen is not None else (None, None)
        # beside the hybrid, the race's two passes hold their tables too (and the guard's)
        beside = racing.memory_bytes(length) + \
            mixing.memory_bytes(-(-length // max(groups, 1)), batch) + \
            (0 if guard is None else guard.memory_bytes(length)) \
            if racing is not None and self.race_beside else 0
        check_memory(model, batch, self.memory_limit, mixing, length, groups, beside)
        coder_threads_for(1, self.coder_threads)  # a bad request fails here, before any work
        return Plan(length, level, None, model, preset_name, mixing, device, device_name(device),
                    numerics, batch, groups, threads,
                    coder_threads_for(groups, self.coder_threads, device.type, os.cpu_count()),
                    screen, racing, guard=guard)


def plan(length: int, data: bytes | None = None, settings: Settings | None = None,
         **keywords) -> Plan:
    """The Plan `compress` makes for `length` bytes (given them, `data`)
    with `settings` and keyword arguments as it takes them (its `progress`
    and `profile` play no part)."""
    keywords.pop("progress", None)
    keywords.pop("profile", None)
    return Settings.of(settings, **keywords).plan(length, data)


def compress(data: bytes, settings: Settings | None = None, *,
             progress: Progress | None = None, profile: StepTimings | None = None,
             **keywords) -> bytes:
    """Compress `data` into a self-describing archive (see docs/format.md)
    with `settings` (a `fade.Settings`), its fields replaced by the keyword
    arguments of the same names: `compress_with(Settings.of(settings,
    **keywords), data, progress, profile)`. One archive: the frame settings
    (`frame_size`, `jobs`, `ray`) are `compress_stream`'s.

    `level` (config.LEVELS) picks what predicts: "fast" is the context-mixing
    statistics alone, in file order (fade.statistics); "default" and "max"
    the hybrid, where the network can pay: with method "auto", an input
    shorter than kinds.MIN_NETWORK_INPUT or that is text (kinds.Screen) is
    coded by the level's statistics alone, with no network step, and a
    hybrid losing to them is stopped at the race's checkpoints (fade.race;
    `race_beside` False runs the race's passes before the hybrid instead of
    beside it: less memory, more time, the same archive). With no level,
    model or preset, the default level (config.DEFAULT_LEVEL) is used; a
    model or preset without a level runs the network alone.

    `model` or `preset` picks the network (default: the level's
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
    `profile`: a StepTimings to fill with per-step timings. `memory_limit`
    (default `config.DEFAULT_MEMORY_LIMIT`): a model that would need more is
    refused before it is built, as decoders refuse it.

    The model computes in the portable profile (fade.profile: the archive
    decodes on any x86-64 machine with AVX2 and the same torch build)
    unless `native` (torch's fastest kernels: it decodes on machines like
    this one), on a GPU, or on a CPU the portable profile does not cover.

    `method` "auto" runs the model unless the input is too small or looks
    random (then, and whenever the model's archive would be larger than the
    stored data, the smallest compact archive is written, at most 23 bytes
    over the input); "fade" always runs the model; a compact method
    ("stored", "deflate", "bzip2", "xz", "lzma": fade.floor) forces it.

    Float data: with `float_mode` "fast" or "strong", methods "auto" and
    "floats" look for floats (`dtype`: "auto" finds .npy and .safetensors
    files by content, a type name reads a raw array, "none" never splits; a
    broken container header counts as plain bytes) and write a "floats"
    archive: "fast" codes the exponents with `float_codec`, keeps sign and
    mantissa raw and runs no network, at any level; "strong" codes byte
    planes with the network alone (a nested archive), at a level with one.
    "off" (the default) codes float data as bytes."""
    return compress_with(Settings.of(settings, **keywords), data, progress, profile)


def compress_with(settings: Settings, data: bytes, progress: Progress | None = None,
                  timings: StepTimings | None = None) -> bytes:
    """`data` compressed with `settings` (see `compress`)."""
    if settings.framed:
        raise FadeError("frame_size, jobs and ray are for compress_stream (frames); compress "
                        "makes one archive")
    # Where a hybrid will race the statistics alone, they start coding now,
    # in a thread of their own, while the network loads (race.alone_pass).
    # (The bytes screened once, for the race and the plan: a colour image's
    # band is coded both ways. Only method auto races; any other screens in
    # the plan, where it needs to.)
    alone = screen = None
    if settings.method == "auto" and settings.race_beside and settings.float_mode == "off" \
            and floor.model_worthwhile(data):
        screen = settings.screen_of(data)
        racing = settings.race_statistics(len(data), data, screen)
        if racing is not None:
            alone = race.alone_pass(data, racing[0], settings.memory_limit, racing[1])
    try:
        return _compress_planned(settings, data, progress, timings, alone, screen)
    finally:  # where it was not used (an error, Ctrl-C), it stops within 64 KiB
        if alone is not None:
            alone.cancel()


def _compress_planned(settings: Settings, data: bytes, progress: Progress | None,
                      timings: StepTimings | None, alone: race.Background | None,
                      screen: kinds.Screen | None) -> bytes:
    method, found = settings.method, None
    if settings.seeks_floats:
        settings._choose(len(data), None)  # a wrong option fails first, as in the plan
        found = float_method.find(data, settings.dtype, required=method == FLOATS)
    if found is not None and settings.float_mode == "fast":  # at any level; no network, no torch
        archive = float_method.encode(data, *found, settings.float_codec, settings.device)
        return _at_most_floor(data, archive, method, stored=True)
    plan = settings.plan(len(data), data, screen)
    if found is not None:
        archive = _compress_planes(data, *found, settings, plan, progress, timings)
        return _at_most_floor(data, archive, method, stored=True)
    # Where the bytes are not text, LZ matching may still win (numbers whose
    # digits repeat at any offset): method auto then writes the size floor's
    # smallest archive where it is smaller (docs/history/statistics-0.11.md, "The floor's
    # contest"); not on JPEG photos, whose model codes what LZ matching finds.
    contest = plan.screen is not None and not plan.screen.is_text and not plan.screen.jpeg
    if plan.alone is not None:
        return _compress_alone(data, plan, method, settings.memory_limit, progress, contest)
    if method not in ("auto", LEARNED):
        return floor.compress(data, method)
    if method == "auto" and not floor.model_worthwhile(data):
        return floor.compress(data)
    if method != "auto" or plan.racing is None:
        archive = _compress_learned(data, plan, settings.seed, progress, timings, None)
        return _at_most_floor(data, archive, method, contest=contest)
    # The statistics alone in file order cost a small fraction of the
    # hybrid's time and win where the network has too little data to learn
    # from; coded beside the hybrid, in file order and in its lockstep
    # order, they also stop it at its checkpoints where it is losing to them
    # (fade.race).
    if alone is None:  # not beside the hybrid, or float mode on and no float data
        alone = race.alone_pass(data, plan.racing, settings.memory_limit, plan.guard)
    referee = race.Race.start(alone, data, Layout(len(data), plan.batch, plan.groups),
                              plan.statistics, beside=settings.race_beside)
    try:
        archive = _compress_learned(data, plan, settings.seed, progress, timings, referee)
        written = referee.alone()
    except Stopped:
        written = referee.alone()
        if progress is not None and written is not None:
            progress(len(data), len(data), 8.0 * len(written))
        return _at_most_floor(data, written, method, contest=contest)
    finally:
        referee.cancel()  # the lockstep pass, where the hybrid ended before it
    if written is not None:
        archive = min(archive, written, key=len)
    return _at_most_floor(data, archive, method, contest=contest)


def _at_most_floor(data: bytes, archive: bytes | None, method: str,
                   stored: bool = False, contest: bool = False, floored=None) -> bytes:
    """The archive to write: `archive`, unless it is missing (the statistics
    could not code `data`) or, with method "auto", no smaller than the stored
    data with a compact header (with `contest`: than the size floor's smallest
    archive, `floored(data)` if given); then that where it is smaller, or with
    `stored` (a floats archive) the stored data outright."""
    if archive is not None and (method != "auto" or (
            not contest and len(archive) < len(data) + COMPACT_OVERHEAD)):
        return archive
    if stored:
        return floor.compress(data, "stored")
    return min(filter(None, (archive, (floored or floor.compress)(data))), key=len)


def _compress_alone(data: bytes, plan: Plan, method: str, memory_limit: int | None,
                    progress: Progress | None, contest: bool = False) -> bytes:
    """The statistics alone (`plan.alone`, guarded by `plan.guard`), or with
    method "auto" the size floor where it is smaller (`contest`: tried, beside
    them where no guard codes and memory allows: floor.beside) or they lose."""
    if method not in ("auto", STATISTICS):
        return floor.compress(data, method)
    if method == "auto" and not floor.model_worthwhile(data, plan.screen):
        return floor.compress(data)
    report = None if progress is None else (lambda done, bits: progress(done, len(data), bits))
    floored = floor.beside(data, contest and method == "auto" and plan.guard is None,
                           plan.alone.memory_bytes(len(data)), memory_limit)
    archive = race.guarded_archive(data, plan.alone, plan.guard, memory_limit, report)
    return _at_most_floor(data, archive, method, contest=contest, floored=floored)


def _compress_planes(data: bytes, source: str, segments: list, settings: Settings, plan: Plan,
                     progress: Progress | None, timings: StepTimings | None) -> bytes:
    """A strong "floats" archive: the byte planes' archive nested (the plan's network alone)."""
    nested = Settings(model=plan.model, preset=plan.preset,
                      batch_size=settings.batch_size, device=settings.device,
                      threads=plan.threads, seed=settings.seed, groups=settings.groups,
                      coder_threads=settings.coder_threads,
                      memory_limit=settings.memory_limit, native=settings.native,
                      method="auto", dtype="none")
    payload = compress_with(nested, floats.to_planes(data, segments), progress, timings)
    return pack_floats("strong", source, tuple(segments), data, payload)


def _compress_learned(data: bytes, plan: Plan, seed: int, progress: Progress | None,
                      timings: StepTimings | None, referee: race.Race | None) -> bytes:
    """A learned archive of `data` as `plan` says (the network, or the hybrid)."""
    payloads: list[bytes] = []
    if data:
        payloads = lockstep.encode(
            data, Layout(len(data), plan.batch, plan.groups), plan.model, seed, plan.device,
            plan.threads, plan.profile == profiles.PORTABLE, coding_for(plan.statistics),
            plan.coder_threads, progress, timings, referee)
    machine = profiles.here(plan.device.type, plan.device_name, plan.profile)
    header = Header(
        original_size=len(data), original_sha256=sha256(data), batch_size=plan.batch,
        seed=seed, model=plan.model, threads=plan.threads, fade_version=__version__,
        preset=plan.preset or "", groups=len(payloads),
        group_payload_sizes=tuple(len(payload) for payload in payloads),
        statistics=plan.statistics, **dataclasses.asdict(machine))
    return pack(header, b"".join(payloads))


# -- decoding ----------------------------------------------------------------

def read_header(archive: bytes) -> AnyHeader:
    """Parse and check a single archive's header (and a learned one's
    payload checksum)."""
    return unpack(archive)[0]


def model_header(archive: bytes) -> Header | None:
    """The learned header that decoding `archive` runs the model with: its
    own, or a strong floats archive's nested one; None if no model runs."""
    return float_method.learned_header(*unpack(archive))


def check_archive(archive: bytes, memory_limit: int | None = None,
                  max_threads: int | None = None, device: str = "auto") -> Header | None:
    """Everything a decoder checks before any work: the header field by
    field (fade.format.archive.unpack), the model it asks for against
    `memory_limit` (default `config.DEFAULT_MEMORY_LIMIT`), its thread
    count against `max_threads` (default `config.thread_limit` of this
    machine), and its numeric profile against this machine and process on
    `device` (fade.device.check_replay). Returns `model_header(archive)`;
    builds and allocates nothing."""
    return _checked_model_header(*unpack(archive), memory_limit, max_threads, device)


def _checked_model_header(header: AnyHeader, payload: bytes,
                          memory_limit: int | None, max_threads: int | None,
                          device: str) -> Header | None:
    if isinstance(header, StatisticsHeader):
        race.check_memory(header.statistics, header.original_size, memory_limit)
    learned = float_method.learned_header(header, payload)
    if learned is not None and learned.original_size:
        check_memory(learned.model, learned.batch_size, memory_limit, learned.statistics,
                     learned.original_size, learned.groups)
        check_threads(learned.threads, max_threads, os.cpu_count())
        check_replay(learned, decode_device(learned, device))
    return learned


def decompress(archive: bytes, *, device: str = "auto", coder_threads: int | None = None,
               memory_limit: int | None = None, max_threads: int | None = None,
               progress: Progress | None = None, profile: StepTimings | None = None) -> bytes:
    """Decode a single archive made by `compress`, verified against its
    SHA-256 (a compact, statistics or floats archive: its CRC-32).

    `coder_threads`: coder workers (default `config.coder_threads_for`);
    any number decodes any archive. Nothing is built before the checks of
    `check_archive` pass (with `memory_limit` and `max_threads`)."""
    coder_threads_for(1, coder_threads)  # a bad request fails here, before any work
    header, payload = unpack(archive)
    _checked_model_header(header, payload, memory_limit, max_threads, device)
    return methods.decode(header, payload, Decoding(device, progress, coder_threads, profile))
