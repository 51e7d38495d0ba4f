"""The command line's file handling: where each result goes, written atomically.

zstd's and xz's habits: FILE -> FILE.fade and back, never overwrite without
-f, never write the output over the input, no compressed data to or from a
terminal, output written to a temporary file and renamed into place (nothing
partial is left after an error or Ctrl-C), the input's mode and mtime kept,
progress on stderr only when it is a terminal, and every user error as one
line `fade: FILE: reason`.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable

import click

from fade.format.archive import method_of

# Exit codes, in one place.
EXIT_OK = 0
EXIT_ERROR = 1  # a file could not be processed
EXIT_USAGE = 2  # bad command line
EXIT_INTERNAL = 3  # a bug in fade: reported in one line (FADE_DEBUG=1 shows the traceback)
EXIT_INTERRUPTED = 130  # Ctrl-C or SIGTERM (the command itself then dies of the signal)

SUFFIX = ".fade"
STDIO = "-"
# Set in the process that replays an archive in other numeric settings
# (decode.replay_elsewhere), so that it never starts another and the parent
# says the summary.
REPLAY_VARIABLE = "FADE_REPLAY_PROCESS"


class UserError(Exception):
    """One file failed: `fade: <where>: <reason>`."""

    def __init__(self, where: str, reason: str):
        super().__init__(f"{where}: {reason}")


class AlreadySaid(Exception):
    """One file failed, and a process fade started has said why."""


@dataclass(frozen=True)
class Options:
    """What every file operation needs from the command line."""

    mode: str  # "compress", "decompress", "test" or "list"
    output: str | None
    stdout: bool
    force: bool
    remove_input: bool
    verbosity: int  # 0 quiet, 1 normal, 2 verbose
    device: str = "auto"
    coder_threads: int | None = None
    timings: str | None = None  # where per-step timings go ("-": stderr)
    memory_limit: int | None = None  # bytes a model may need (None: fade's default)
    jobs: int = 1  # frames coded at once (fade.frames)
    ray: str | None = None  # a Ray cluster's address: frames become its tasks
    stdin_name: str = "stdin"  # what messages call standard input

    @property
    def compressing(self) -> bool:
        return self.mode == "compress"

    def name(self, path: str) -> str:
        return self.stdin_name if path == STDIO else path


def say(message: str) -> None:
    """One line on stderr, whatever a library underneath put in `message`."""
    one_line = " ".join(part.strip() for part in message.splitlines() if part.strip())
    click.echo(f"fade: {one_line}", err=True)


class ByteSize(click.ParamType):
    """A size in bytes: a number with an optional binary unit (K, M, G, T;
    KiB or KB alike mean 1024)."""

    name = "SIZE"
    UNITS = {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        text = value.strip().upper().removesuffix("B").removesuffix("I")
        number, unit = (text[:-1], text[-1]) if text[-1:] in self.UNITS else (text, "")
        try:
            size = float(number) * (1 << self.UNITS[unit])
        except ValueError:
            size = -1.0
        if not (size >= 1 and size < 1 << 60):
            self.fail(f"{value!r} is not a size (e.g. 8G, 512M, 1073741824)", param, ctx)
        return int(size)


class ByteRange(click.ParamType):
    """START:END in bytes (units as for sizes), END excluded; either may be left out."""

    name = "START:END"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        start, colon, stop = value.partition(":")
        if not colon:
            self.fail(f"{value!r} is not a range START:END (e.g. 1M:2M, :4096, 100:)",
                      param, ctx)
        size = ByteSize()
        first = size.convert(start, param, ctx) if start.strip() not in ("", "0") else 0
        last = size.convert(stop, param, ctx) if stop.strip() else None
        if last is not None and last < first:
            self.fail(f"{value!r} ends before it starts", param, ctx)
        return first, last




def os_reason(error: OSError) -> str:
    return error.strerror or str(error)


def open_input(path: str, opts: Options):
    """A binary file object for `path` ('-': stdin); the caller closes a file.
    Compressed data is never read from a terminal."""
    if path == STDIO:
        if not opts.compressing and sys.stdin.isatty():
            raise UserError(opts.stdin_name, "is a terminal; refusing to read compressed data "
                                             "(give a FILE or redirect)")
        return sys.stdin.buffer
    if os.path.isdir(path):
        raise UserError(path, "is a directory")
    try:
        return open(path, "rb")
    except OSError as error:
        raise UserError(path, os_reason(error)) from None


def output_path(path: str, opts: Options) -> str | None:
    """Where the result goes; None for standard output (or nowhere: -t).
    Checks before any work."""
    if opts.mode == "test":
        return None
    compressing = opts.compressing
    if opts.stdout or opts.output == STDIO or (path == STDIO and not opts.output):
        if compressing and sys.stdout.isatty():
            raise UserError("stdout", "is a terminal; refusing to write compressed data "
                                      "(use -o FILE or redirect)")
        return None
    if opts.output:
        out = opts.output
    elif compressing:
        if path.endswith(SUFFIX) and not opts.force:
            raise UserError(path, f"already has {SUFFIX} suffix; ignored (use -f to compress "
                                  "it again)")
        out = path + SUFFIX
    elif path.endswith(SUFFIX) and len(path) > len(SUFFIX):
        out = path[:-len(SUFFIX)]
    else:
        raise UserError(path, f"unknown suffix (expected {SUFFIX}); use -o to name the output")
    if path != STDIO and os.path.abspath(out) == os.path.abspath(path):
        raise UserError(path, "output would overwrite the input")
    if os.path.isdir(out):
        raise UserError(out, "is a directory")
    if os.path.lexists(out):
        if path != STDIO and os.path.exists(out) and os.path.samefile(out, path):
            raise UserError(path, "output would overwrite the input")
        if not opts.force:
            raise UserError(out, "already exists; use -f to overwrite")
    return out


class AtomicOutput:
    """A temporary file beside `out`, renamed into place by `commit`.

    Created before any work, so an unwritable destination fails at once
    rather than after a long compression; removed on any failure.
    """

    def __init__(self, out: str):
        self.out = out
        try:
            fd, self.temp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(out)),
                                             prefix=f".{os.path.basename(out)}.", suffix=".tmp")
        except OSError as error:
            raise UserError(out, os_reason(error)) from None
        self.file = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> None:
        try:
            self.file.write(data)
        except OSError as error:
            raise UserError(self.out, os_reason(error)) from None

    def commit(self, attributes_from: str | None) -> None:
        """Everything written: make it durable, give it the input's mode and
        times (as zstd and gzip do), and put it in place."""
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            if attributes_from is not None:
                with contextlib.suppress(OSError):
                    stat = os.stat(attributes_from)
                    os.chmod(self.temp, stat.st_mode & 0o777)
                    os.utime(self.temp, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            os.replace(self.temp, self.out)
        except OSError as error:
            raise UserError(self.out, os_reason(error)) from None

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self.file.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temp)


def write_stdout(data: bytes) -> None:
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except OSError as error:
        raise UserError("stdout", os_reason(error)) from None


class ProgressBar:
    """A tqdm bar on stderr, shown only when stderr is a terminal; `total`
    None (a pipe): a byte counter. Called with (done, total, bits so far)."""

    def __init__(self, name: str, total: int | None, verbosity: int, action: str):
        self._bar = None
        if verbosity > 0 and sys.stderr.isatty() and total != 0:
            from tqdm import tqdm  # (only for a bar shown: its import is a tenth of a start)

            self._bar = tqdm(total=total, desc=f"{action} {name}", unit="B", unit_scale=True,
                             unit_divisor=1024, file=sys.stderr, leave=False,
                             dynamic_ncols=True)

    def __call__(self, done: int, total: int = 0, bits: float | None = None) -> None:
        if self._bar is None:
            return
        if bits is not None:
            self._bar.set_postfix_str(f"{bits / max(done, 1):.3f} bits/B", refresh=False)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


HEAD_BYTES = 16  # enough to name an archive's method


class Counted:
    """A sink that counts what it passes on and keeps its first bytes."""

    def __init__(self, write: Callable[[bytes], None]):
        self.size, self.head, self._write = 0, b"", write

    def __call__(self, data: bytes) -> None:
        if len(self.head) < HEAD_BYTES:
            self.head += data[:HEAD_BYTES - len(self.head)]
        self.size += len(data)
        self._write(data)


class Reader:
    """A binary source that counts what is read from it and keeps its first bytes."""

    def __init__(self, file):
        self.file, self.size, self.head = file, 0, b""

    def read(self, size: int = -1) -> bytes:
        data = self.file.read(size)
        if len(self.head) < HEAD_BYTES:
            self.head += data[:HEAD_BYTES - len(self.head)]
        self.size += len(data)
        return data


def _discard(data: bytes) -> None:
    """The sink of -t: decoded and verified, then dropped."""


def process(path: str, opts: Options, transform: Callable) -> str | None:
    """Open `path` and its output (checked before any work), then
    `transform(source, sink, make_bar)` streams the result into `sink`:
    written atomically (a file, renamed into place at the end), as it comes
    (stdout), or nowhere (-t). Returns the file written (None: none)."""
    name = opts.name(path)
    out = output_path(path, opts)
    file = open_input(path, opts)
    target = None
    try:
        target = None if out is None else AtomicOutput(out)
        write = _discard if opts.mode == "test" else write_stdout if target is None \
            else target.write
        source, sink = Reader(file), Counted(write)
        start = time.perf_counter()
        action = {"compress": "compressing", "decompress": "decompressing"}.get(opts.mode,
                                                                              "testing")
        transform(source, sink, lambda total: ProgressBar(name, total, opts.verbosity, action))
        seconds = time.perf_counter() - start
        if target is not None:
            target.commit(None if path == STDIO else path)
    except OSError as error:  # reading the input
        raise UserError(name, os_reason(error)) from None
    finally:
        if target is not None:
            target.discard()  # no-op after a successful commit
        if file is not sys.stdin.buffer:
            file.close()
    if opts.remove_input and out is not None and path != STDIO:  # like zstd: not with -c
        try:
            os.unlink(path)
        except OSError as error:
            raise UserError(path, f"cannot remove input: {os_reason(error)}") from None
    _summary(opts, name, out, source, sink, seconds)
    return out


def _summary(opts: Options, name: str, out: str | None, source: Reader, sink: Counted,
             seconds: float) -> None:
    """The line after each file: with -v always; by default where the result
    went to a file (zstd: no summary beside data on stdout, as under tar);
    never when the parent process says it or only part was decoded (--range:
    the archive was read elsewhere, none of it through `source`)."""
    (original, packed), archive = ((source, sink), sink) if opts.compressing else \
        ((sink, source), source)
    shown = opts.verbosity > 1 or (opts.verbosity == 1 and (out is not None or
                                                            opts.mode == "test"))
    if not shown or os.environ.get(REPLAY_VARIABLE) or len(archive.head) < HEAD_BYTES:
        return
    original, packed = original.size, packed.size
    ratio = f"{original / packed:.3f}" if packed else "inf"
    bpb = f"{8 * packed / original:.3f}" if original else "n/a"
    where = "OK" if opts.mode == "test" else f"-> {'stdout' if out is None else out}"
    speed = f"{original / 1024 / max(seconds, 1e-9):.2f} KB/s"
    say(f"{name}: {source.size} -> {sink.size} bytes, ratio {ratio}, {bpb} bits/byte, "
        f"{method_of(archive.head)}, {seconds:.1f} s, {speed} {where}")


def run_files(files: tuple[str, ...], opts: Options, transform: Callable[..., None],
              written: list[str] | None = None) -> int:
    """`transform(source, sink, make_bar, path)` each file (see `process`);
    every file is tried, the status is that of the worst. The files written
    are appended to `written`, where given."""
    from fade import FadeError

    if not files:
        files = (STDIO,)
    if opts.output and len(files) > 1:
        raise click.UsageError("-o/--output takes a single input file")
    if opts.timings and len(files) > 1:
        raise click.UsageError("--profile takes a single input file")
    status = EXIT_OK
    for path in files:
        try:
            out = process(path, opts,
                          lambda source, sink, bar: transform(source, sink, bar, path))
            if out is not None and written is not None:
                written.append(out)
        except UserError as error:
            say(str(error))
            status = EXIT_ERROR
        except FadeError as error:
            say(f"{opts.name(path)}: {error}")
            status = EXIT_ERROR
        except AlreadySaid:
            status = EXIT_ERROR
    return status
