"""`fade -d` and `fade -t`: decode each archive, or a concatenation of them,
verified against its checksums; -t writes nothing."""

from __future__ import annotations

import os
import sys

import fade
from fade import frames
from fade.format.archive import COMPACT_LAYOUT, COMPACT_OVERHEAD, PREFIX_SIZE, method_named
from fade.format.headers import LEARNED
from fade.device import decode_device, environment_differences
from fade.frames import check_archive, read_header
from fade.lockstep import StepTimings
from fade.config import coder_threads_for
from fade.errors import ReplayEnvironmentError
from fade.members import Source, each_archive, read_archive
from fade.lazy import torch
from fade.profile import NATIVE

from .files import (EXIT_INTERRUPTED, EXIT_OK, REPLAY_VARIABLE, STDIO,
                    AlreadySaid, Options, UserError, run_files, say)
from .report import write_timings


def _compact_size(head: bytes) -> int | None:
    """The original size a compact, statistics or floats archive's header
    holds (the progress bar's total); None for a learned archive, which
    reports its own, or bytes that are no archive (read_archive says so)."""
    if len(head) < COMPACT_OVERHEAD or method_named(head) in (None, LEARNED):
        return None
    return COMPACT_LAYOUT.unpack_from(head)[3]  # the original's size (COMPACT_FIELDS)


class Decoder:
    """Decodes the archives of one command line (`decode_files`)."""

    def __init__(self, opts: Options, max_threads: int | None):
        self.opts, self.max_threads = opts, max_threads
        self.options = dict(device=opts.device, coder_threads=opts.coder_threads,
                            memory_limit=opts.memory_limit, max_threads=max_threads)

    def check(self, archive: bytes):
        """check_archive's model header, or the settings a fresh process
        needs to replay the archive."""
        try:
            return check_archive(archive, self.opts.memory_limit, self.max_threads,
                                 self.opts.device)
        except ReplayEnvironmentError as error:
            if os.environ.get(REPLAY_VARIABLE):  # already the replay process: no second one
                raise
            return error

    def transform(self, source, sink, make_bar, path: str) -> None:
        """Every archive in `source`, one after another, decoded into `sink`;
        bytes after the last that start no archive are an error (as xz)."""
        each_archive(source, lambda reader, number, offset: self._one(reader, sink, make_bar,
                                                                       path, offset))

    def _one(self, reader: Source, sink, make_bar, path: str, offset: int) -> int:
        """Decode the archive at the front of `reader`, reading exactly it;
        returns its original's size."""
        name = self.opts.name(path)
        prefix = reader.peek(PREFIX_SIZE)
        if frames.is_frames(prefix):
            total = None
            if path != STDIO:  # the index first: a damaged one stops before any work
                with open(path, "rb") as file:
                    total = frames.read_index(file, start=offset).original_size
            bar = make_bar(total)
            try:
                return frames.decompress_stream(reader, sink, jobs=self.opts.jobs,
                                                ray=self.opts.ray,
                                                progress=lambda done, bits: bar(done, 0, bits),
                                                check=lambda archive: check_archive(
                                                    archive, self.opts.memory_limit,
                                                    self.max_threads, self.opts.device),
                                                **self.options)
            finally:
                bar.close()
        bar = make_bar(_compact_size(reader.peek(COMPACT_OVERHEAD)))
        try:
            archive, data = read_archive(reader, self.opts.memory_limit, progress=bar)
        finally:
            bar.close()
        data = self._decode_whole(archive, make_bar, name) if data is None else data
        sink(data)
        return len(data)

    def _decode_whole(self, archive: bytes, make_bar, name: str) -> bytes:
        header = self.check(archive)  # a strong floats archive's nested one, or None
        opts = self.opts
        if isinstance(header, ReplayEnvironmentError):
            return replay_elsewhere(archive, header.environment, name, opts, self.max_threads)
        if header is None:  # no model: nothing to set up or warn about
            bar = make_bar(read_header(archive).original_size)
            try:
                data = fade.decompress(archive, memory_limit=opts.memory_limit, progress=bar)
            finally:
                bar.close()
            if opts.timings:
                write_timings(StepTimings(torch.device("cpu")), name, opts)
            return data
        torch_device = decode_device(header, opts.device)
        if opts.verbosity > 0 and header.profile == NATIVE:  # portable: checked to be equal
            for difference in environment_differences(header, torch_device):
                say(f"{name}: warning: {difference}; probabilities may differ and "
                    "the decode may fail its checksum")
        if opts.verbosity > 1:
            workers = coder_threads_for(header.groups, opts.coder_threads, torch_device.type,
                                        os.cpu_count())
            say(f"{name}: decoding on {torch_device.type} with {header.threads} threads, "
                f"batch {header.batch_size}, {header.groups} groups, {workers} coder threads, "
                f"preset {header.preset or 'custom'}")
        bar = make_bar(header.original_size)
        timings = StepTimings(torch_device) if opts.timings else None
        try:
            data = fade.decompress(archive, device=torch_device.type, progress=bar,
                                   coder_threads=opts.coder_threads,
                                   memory_limit=opts.memory_limit,
                                   max_threads=self.max_threads, profile=timings)
        finally:
            bar.close()
        if timings is not None:
            write_timings(timings, name, opts)
        return data

    def decode_range(self, path: str, byte_range: tuple[int, int | None], sink) -> None:
        """Bytes START:END of the original into `sink`: from a frames archive
        only the frames that hold them, from any other the whole archive."""
        name = self.opts.name(path)
        if path == STDIO:
            raise UserError(name, "--range needs a file (it reads the frame index at the end)")
        start, stop = byte_range
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if frames.is_frames(file.read(PREFIX_SIZE)) and \
                    frames.archive_length(file) == size:  # one frames archive: its index
                data, decoded = frames.decompress_range(file, start, stop, **self.options)
                total = len(frames.read_index(file).frames)
                if self.opts.verbosity > 1:
                    say(f"{name}: decoded {len(decoded)} of {total} frames "
                        f"({', '.join(map(str, decoded)) or 'none'})")
                sink(data)
                return
        parts: list[bytes] = []
        with open(path, "rb") as file:
            self.transform(file, parts.append, lambda total: _NoBar(), path)
        sink(b"".join(parts)[start:stop])


class _NoBar:
    def __call__(self, *args) -> None:
        pass

    def close(self) -> None:
        pass


def decode_files(files: tuple[str, ...], opts: Options, max_threads: int | None,
                 byte_range: tuple[int, int | None] | None) -> int:
    """Decode (or with opts.mode "test" only verify) each of `files`."""
    decoder = Decoder(opts, max_threads)

    def transform(source, sink, make_bar, path: str) -> None:
        if byte_range is not None:
            return decoder.decode_range(path, byte_range, sink)
        return decoder.transform(source, sink, make_bar, path)

    return run_files(files, opts, transform)


def replay_elsewhere(archive: bytes, environment: dict[str, str], name: str, opts: Options,
                     max_threads: int | None) -> bytes:
    """Decode `archive` in a fresh `fade -d` process started with
    `environment` (numeric settings torch reads when it loads: an archive
    made in other settings that this machine can still replay, such as one
    of format v1-v4 from an AVX-512 CPU). The archive goes to its stdin, the
    data comes back on its stdout; it prints its own progress and errors."""
    command = [sys.executable, "-m", "fade", "-d", "-c", "--as-name", name,
               "--device", opts.device]
    if opts.verbosity == 0:
        command.append("-q")
    for flag, value in (("--coder-threads", opts.coder_threads),
                        ("--memory-limit", opts.memory_limit), ("--max-threads", max_threads),
                        ("--profile", opts.timings)):
        if value is not None:
            command += [flag, str(value)]
    if opts.verbosity > 1:
        say(f"{name}: replaying in a process with "
            + " ".join(f"{key}={value}" for key, value in sorted(environment.items())))
    import subprocess  # (only to replay: not in every process's start)

    result = subprocess.run(command + [STDIO], input=archive, stdout=subprocess.PIPE,
                            env={**os.environ, **environment, REPLAY_VARIABLE: "1",
                                 "FADE_OPT": ""})
    if result.returncode == EXIT_INTERRUPTED or result.returncode < 0:
        raise KeyboardInterrupt
    if result.returncode != EXIT_OK:
        raise AlreadySaid
    return result.stdout
