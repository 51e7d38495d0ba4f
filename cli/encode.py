"""`fade FILE` / `fade -z`: compress each input, frame by frame, into its archive."""

from __future__ import annotations

import os
import sys

import fade
from fade import floats, frames
from fade.device import resolve_device
from fade.errors import FadeError
from fade.lazy import torch
from fade.lockstep import StepTimings
from fade.members import list_archives
from fade.profile import machine_lacks_portable
from fade.single import Plan

from .files import STDIO, Options, run_files, say
from .report import write_timings

LARGE_FLOAT_FILE = 16 * 1024 * 1024  # above this, suggest --floats fast for tensor files


def compress_files(files: tuple[str, ...], opts: Options, settings: fade.Settings) -> int:
    """Compress each of `files` ('-': stdin) with `settings` (the command
    line's options, whole), as `opts` say; the exit status."""
    lacks = machine_lacks_portable()
    # (Only where a network runs: asking torch about CUDA loads it, ~1 s.)
    if opts.verbosity > 0 and not settings.native and lacks and settings.runs_network and (
            opts.device == "cpu" or (opts.device == "auto" and not torch.cuda.is_available())):
        say(f"note: {lacks}: archives made here are native and decode only on machines "
            "like this one")

    def transform(source, sink, make_bar, path: str) -> None:
        name = opts.name(path)
        bar = make_bar(None if path == STDIO else os.path.getsize(path))
        timings = StepTimings(resolve_device(opts.device)) if opts.timings else None

        def show_plan(plan: Plan) -> None:
            """What compress runs on the first frame, as the library planned it."""
            say(f"{name}: {plan}")

        try:
            frames.compress_stream(
                source, sink, settings, progress=lambda done, bits: bar(done, 0, bits),
                announce=lambda data, framed: _announce(name, data, framed, opts, settings),
                show_plan=show_plan if opts.verbosity > 1 else None, profile=timings)
        finally:
            bar.close()
        if timings is not None:
            write_timings(timings, name, opts)

    written: list[str] = []
    status = run_files(files, opts, transform, written)
    if settings.runs_network and opts.verbosity > 0 and sys.stderr.isatty():
        _say_what_decodes(written)
    return status


def _say_what_decodes(written: list[str]) -> None:
    """Once, where a learned archive was written: what decodes it (a
    user at a terminal learns that it is not any machine)."""
    for out in written:
        try:
            with open(out, "rb") as file:
                needs = [decoder for _, _, decoder in list_archives(file) if decoder]
        except (OSError, FadeError):  # listed by `fade -l`, which says what is wrong
            continue
        if needs:
            say(f"note: {out} is a learned archive: it decodes only with {needs[0]} "
                "(level default's archives decode anywhere)")
            return


def _announce(name: str, data: bytes, framing: frames.Framing | None, opts: Options,
              settings: fade.Settings) -> None:
    """Notes on the input (its first frame), before any coding."""
    if settings.dtype == "auto" and settings.method in ("auto", "floats") and \
            opts.verbosity > 0:
        try:
            found = floats.find(data, settings.dtype)
        except floats.NotAContainer as error:
            found = None
            if settings.float_mode != "off":
                say(f"{name}: warning: looks like a tensor file but {error}; "
                    "compressing it as plain bytes")
        if found and settings.float_mode == "off" and len(data) >= LARGE_FLOAT_FILE:
            say(f"{name}: note: {found[0]} float tensors found; the model codes them "
                "at KB/s, --floats fast at hundreds of MB/s (larger archive)")
    if opts.verbosity > 1 and framing is not None:
        where = f"as tasks of the Ray cluster {opts.ray}" if opts.ray else \
            f"{opts.jobs} at a time"
        say(f"{name}: {framing}, {where}, one thread each; settings of the first:")
