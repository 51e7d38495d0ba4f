"""The `fade` command line: a thin click layer over the `fade` library.

Follows zstd/xz habits: FILE -> FILE.fade and back, never overwrite without
-f, never write the output over the input, no compressed data to a terminal,
output written to a temporary file and renamed into place (nothing partial
is left after an error or Ctrl-C), progress on stderr only when it is a
terminal, and every user error as one line `fade: FILE: reason`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable

import click

import fade  # first: it sets what torch reads when it loads (fade.environment)
from fade.lazy import torch  # noqa: E402
from fade import floats, frames
from fade.device import DEVICES, decode_device, environment_differences, resolve_device
from fade.format.archive import method_of
from fade.frames import check_archive, read_header
from fade.lockstep import StepTimings as StepProfile
from fade.single import METHOD_CHOICES, Plan
from fade.errors import ReplayEnvironmentError
from fade.profile import NATIVE, machine_lacks_portable
from fade.config import (DEFAULT_LEVEL, DEFAULT_MEMORY_LIMIT, DEFAULT_PRESET,
                         MAX_CODER_THREADS, MAX_GROUPS, MAX_THREADS, LEVELS, PRESETS,
                         coder_threads_for, format_bytes)

MAX_JOBS = 1024

# Exit codes, in one place.
EXIT_OK = 0
EXIT_ERROR = 1  # a file could not be processed
EXIT_USAGE = 2  # bad command line
EXIT_INTERNAL = 3  # a bug in fade: reported in one line (FADE_DEBUG=1 shows the traceback)
EXIT_INTERRUPTED = 130  # Ctrl-C or SIGTERM (the command itself then dies of the signal)

SUFFIX = ".fade"
LARGE_FLOAT_FILE = 16 * 1024 * 1024  # above this, suggest --floats fast for tensor files
STDIO = "-"


class UserError(Exception):
    """One file failed: `fade: <where>: <reason>`."""

    def __init__(self, where: str, reason: str):
        super().__init__(f"{where}: {reason}")


class AlreadySaid(Exception):
    """One file failed, and a process fade started has said why."""


@dataclass(frozen=True)
class Options:
    """What every file operation needs from the command line."""

    output: str | None
    stdout: bool
    force: bool
    remove_input: bool
    verbosity: int  # 0 quiet, 1 normal, 2 verbose
    device: str
    coder_threads: int | None
    profile: str | None  # where per-step timings go ("-": stderr)
    memory_limit: int | None  # bytes a model may need (None: fade's default)
    jobs: int = 1  # frames coded at once (fade.frames)
    ray: str | None = None  # a Ray cluster's address: frames become its tasks (fade.cluster)
    stdin_name: str = "stdin"  # what messages call standard input

    def name(self, path: str) -> str:
        return self.stdin_name if path == STDIO else path


def _say(message: str) -> None:
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


def _os_reason(error: OSError) -> str:
    return error.strerror or str(error)


def _open_input(path: str):
    """A binary file object for `path` ('-': stdin); the caller closes a file."""
    if path == STDIO:
        return sys.stdin.buffer
    if os.path.isdir(path):
        raise UserError(path, "is a directory")
    try:
        return open(path, "rb")
    except OSError as error:
        raise UserError(path, _os_reason(error)) from None


def _read_input(path: str) -> bytes:
    source = _open_input(path)
    try:
        return source.read()
    except OSError as error:
        raise UserError(path, _os_reason(error)) from None
    finally:
        if source is not sys.stdin.buffer:
            source.close()


def _output_path(path: str, opts: Options, compressing: bool) -> str | None:
    """Where the result goes; None for standard output. Checks before any work."""
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


class _AtomicOutput:
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
            raise UserError(out, _os_reason(error)) from None
        self.file = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> None:
        try:
            self.file.write(data)
        except OSError as error:
            raise UserError(self.out, _os_reason(error)) from None

    def commit(self, mode_from: str | None) -> None:
        """Everything written: make it durable and put it in place."""
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            if mode_from is not None:
                with contextlib.suppress(OSError):
                    os.chmod(self.temp, os.stat(mode_from).st_mode & 0o777)
            os.replace(self.temp, self.out)
        except OSError as error:
            raise UserError(self.out, _os_reason(error)) from None

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self.file.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temp)


def _write_stdout(data: bytes) -> None:
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except OSError as error:
        raise UserError("stdout", _os_reason(error)) from None


class _ProgressBar:
    """A tqdm bar on stderr, shown only when stderr is a terminal; `total`
    None (a pipe): a byte counter."""

    def __init__(self, name: str, total: int | None, verbosity: int, action: str):
        from tqdm import tqdm

        enabled = verbosity > 0 and sys.stderr.isatty() and total != 0
        self._bar = tqdm(total=total, desc=f"{action} {name}", unit="B", unit_scale=True,
                         unit_divisor=1024, file=sys.stderr, disable=not enabled,
                         leave=False, dynamic_ncols=True)

    def __call__(self, done: int, total: int = 0, bits: float | None = None) -> None:
        if bits is not None:
            self._bar.set_postfix_str(f"{bits / max(done, 1):.3f} bits/B", refresh=False)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        self._bar.close()


def _throughput(size: int, seconds: float) -> str:
    return f"{size / 1024 / max(seconds, 1e-9):.2f} KB/s"


class _Counted:
    """A sink that counts what it passes on and keeps its first bytes."""

    def __init__(self, write: Callable[[bytes], None]):
        self.size, self.head, self._write = 0, b"", write

    def __call__(self, data: bytes) -> None:
        if len(self.head) < HEAD_BYTES:
            self.head += data[:HEAD_BYTES - len(self.head)]
        self.size += len(data)
        self._write(data)


class _Reader:
    """A binary source that counts what is read from it and keeps its first bytes."""

    def __init__(self, file):
        self.file, self.size, self.head = file, 0, b""

    def read(self, size: int = -1) -> bytes:
        data = self.file.read(size)
        if len(self.head) < HEAD_BYTES:
            self.head += data[:HEAD_BYTES - len(self.head)]
        self.size += len(data)
        return data


HEAD_BYTES = 16  # enough to name an archive's method


def _process(path: str, opts: Options, compressing: bool, transform: Callable) -> None:
    """Open `path` and its output (checked before any work), then
    `transform(source, sink, make_bar)` streams the result into `sink`:
    written atomically (a file, renamed into place at the end) or as it
    comes (stdout)."""
    name = opts.name(path)
    out = _output_path(path, opts, compressing)
    file = _open_input(path)
    target = None
    try:
        target = None if out is None else _AtomicOutput(out)
        source, sink = _Reader(file), _Counted(_write_stdout if target is None else target.write)
        start = time.perf_counter()
        transform(source, sink, lambda total: _ProgressBar(
            name, total, opts.verbosity, "compressing" if compressing else "decompressing"))
        seconds = time.perf_counter() - start
        if target is not None:
            target.commit(None if path == STDIO else path)
    except OSError as error:  # reading the input
        raise UserError(name, _os_reason(error)) from None
    finally:
        if target is not None:
            target.discard()  # no-op after a successful commit
        if file is not sys.stdin.buffer:
            file.close()
    if opts.remove_input and out is not None and path != STDIO:  # like zstd: not with -c
        try:
            os.unlink(path)
        except OSError as error:
            raise UserError(path, f"cannot remove input: {_os_reason(error)}") from None
    (original, packed), archive = ((source, sink), sink) if compressing else \
        ((sink, source), source)
    # The summary, unless the parent process says it, or only part was decoded
    # (--range: the archive was read elsewhere, none of it through `source`).
    if opts.verbosity > 0 and not os.environ.get(REPLAY_VARIABLE) and \
            len(archive.head) == HEAD_BYTES:
        original, packed = original.size, packed.size
        ratio = f"{original / packed:.3f}" if packed else "inf"
        bpb = f"{8 * packed / original:.3f}" if original else "n/a"
        where = "stdout" if out is None else out
        _say(f"{name}: {source.size} -> {sink.size} bytes, ratio {ratio}, {bpb} bits/byte, "
             f"{method_of(archive.head)}, {seconds:.1f} s, {_throughput(original, seconds)} "
             f"-> {where}")


def _run_files(files: tuple[str, ...], opts: Options, compressing: bool,
               transform: Callable[..., None]) -> int:
    """`transform(source, sink, make_bar, path)` each file (see _process)."""
    if not files:
        files = (STDIO,)
    if opts.output and len(files) > 1:
        raise click.UsageError("-o/--output takes a single input file")
    if opts.profile and len(files) > 1:
        raise click.UsageError("--profile takes a single input file")
    status = EXIT_OK
    for path in files:
        try:
            _process(path, opts, compressing,
                     lambda source, sink, bar: transform(source, sink, bar, path))
        except UserError as error:
            _say(str(error))
            status = EXIT_ERROR
        except fade.FadeError as error:
            _say(f"{opts.name(path)}: {error}")
            status = EXIT_ERROR
        except AlreadySaid:
            status = EXIT_ERROR
    return status


def _common(func):
    """Options shared by compress and decompress."""
    decorators = [
        click.argument("files", nargs=-1, type=click.Path(dir_okay=True, allow_dash=True)),
        click.option("-o", "--output", metavar="OUT", help="Write to OUT (one input file only)."),
        click.option("-c", "--stdout", "to_stdout", is_flag=True, help="Write to standard output."),
        click.option("-f", "--force", is_flag=True, help="Overwrite existing output files."),
        click.option("-k", "--keep/--rm", "keep", default=True,
                     help="Keep (default) or remove the input after success."),
        click.option("-q", "--quiet", count=True, help="No progress, summary or warnings."),
        click.option("-v", "--verbose", count=True, help="Say more (device, settings)."),
        click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
                     help="Where the model runs."),
        click.option("--coder-threads", type=click.IntRange(1, MAX_CODER_THREADS), default=None,
                     help="Range-coder workers beside the model, at most one per group "
                          "(processes when more than one); changes speed, never the archive "
                          "[default: 1 on a CPU, half the cores beside a GPU]."),
        click.option("--profile", metavar="FILE", default=None,
                     help="Write per-step timings (device, coders, waiting) to FILE as "
                          "tab-separated values ('-': stderr), and a summary line."),
        click.option("-T", "--jobs", type=click.IntRange(0, MAX_JOBS), default=0,
                     help="Frames coded at once, each by its own process on one thread "
                          "(0: one per core); changes speed and memory, never the archive "
                          "[default: 0].", show_default=False),
        click.option("--ray", "ray_address", metavar="ADDRESS", default=None,
                     help="Code frames as tasks of the Ray cluster at ADDRESS ('auto': the "
                          "one this machine belongs to; 'local': a new one here) instead of "
                          "-T local processes; the same archive (needs fade[ray]).",
                     callback=lambda ctx, param, value: value or None),
        click.option("--memory-limit", type=ByteSize(), default=None,
                     help="Most memory a model may need (e.g. 16G); a larger one is refused "
                          f"before it is built [default: {format_bytes(DEFAULT_MEMORY_LIMIT)}]."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def _options(output, to_stdout, force, keep, quiet, verbose, device, coder_threads,
             profile, jobs, ray_address, memory_limit, stdin_name: str = "stdin") -> Options:
    return Options(output=output, stdout=to_stdout, force=force, remove_input=not keep,
                   verbosity=max(0, 1 + verbose - quiet), device=device,
                   coder_threads=coder_threads, profile=profile, memory_limit=memory_limit,
                   jobs=1 if profile else (jobs or frames.default_jobs()),
                   ray=None if profile else ray_address,
                   stdin_name=stdin_name)


def _write_profile(profile: StepProfile, name: str, opts: Options) -> None:
    """The per-step table (tab-separated, milliseconds) and a summary line."""
    rows = profile.rows
    if not rows:
        if opts.verbosity > 0:
            _say(f"{name}: profile: no model steps (compact archive)")
        return
    lines = ["step\twall_ms\tdevice_ms\twait_ms\tcoder_ms"]
    lines += [f"{r['step']}\t{1000 * r['wall']:.3f}\t{1000 * r['device']:.3f}\t"
              f"{1000 * r['wait']:.3f}\t{1000 * r['coder']:.3f}" for r in rows]
    table = "\n".join(lines) + "\n"
    if opts.profile == STDIO:
        click.echo(table, err=True, nl=False)
    else:
        try:
            with open(opts.profile, "w") as file:
                file.write(table)
        except OSError as error:
            raise UserError(opts.profile, _os_reason(error)) from None
    if opts.verbosity > 0:
        total = {key: sum(r[key] for r in rows) for key in ("wall", "device", "wait", "coder")}
        wall = max(total["wall"], 1e-9)
        _say(f"{name}: profile: {len(rows)} steps in {total['wall']:.2f} s; device "
             f"{total['device']:.2f} s ({100 * total['device'] / wall:.1f}%), waiting for "
             f"coders {total['wait']:.2f} s ({100 * total['wait'] / wall:.1f}%), coders "
             f"{total['coder']:.2f} s")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(fade.__version__, prog_name="fade")
def fade_cli():
    """fade: learned lossless compression (FADE dual-stream model, online)."""


@fade_cli.command()
@_common
@click.option("--level", type=click.Choice(list(LEVELS)), default=None,
              help="default: the network and the context-mixing statistics, mixed bit by "
                   "bit (the hybrid; with --method auto the statistics alone where they are "
                   "smaller); fast: the statistics alone, no network (hundreds of KB/s); "
                   "max: as default with stronger statistics (model 3), for the best ratio "
                   f"[default: {DEFAULT_LEVEL}, or with --preset the network alone].")
@click.option("--preset", type=click.Choice(list(PRESETS)), default=None,
              help=f"The network's size; without --level, the network codes alone "
                   f"[default: {DEFAULT_PRESET}].")
@click.option("--batch-size", type=click.IntRange(min=1), default=None,
              help="Sub-streams coded as one batch [default: size // 2048, at most 128 "
                   "for balanced on a CPU, else 512].")
@click.option("--threads", type=click.IntRange(1, MAX_THREADS), default=None,
              help="CPU threads for the model; recorded so the decoder uses the same "
                   "[default: one per core, at most 8; 1 for a model step too small to "
                   "share].")
@click.option("--method", type=click.Choice(METHOD_CHOICES), default="auto", show_default=True,
              help="auto: the model (float data split first with --floats fast/strong), or "
                   "a compact archive (stored/deflate/bzip2/xz, at most 23 bytes over the "
                   "input) where the model cannot win; fade: always the model on the plain "
                   "bytes; floats: require float data; others: force that compact method.")
@click.option("--dtype", type=click.Choice(floats.DTYPE_CHOICES), default="auto",
              show_default=True,
              help="auto: find float tensors in .npy and .safetensors files; bf16/fp16/fp32: "
                   "the input is a raw little-endian array of that type; none: plain bytes.")
@click.option("--floats", "float_mode", type=click.Choice(floats.MODES), default="off",
              show_default=True,
              help="Float data: off codes it as plain bytes; fast codes the exponents only "
                   "(hundreds of MB/s); strong feeds byte planes to the model.")
@click.option("--float-codec", type=click.Choice(floats.CODEC_CHOICES), default="auto",
              show_default=True,
              help="Exponent codec in fast mode (auto: the smallest by estimate, per tensor).")
@click.option("--groups", type=click.IntRange(1, MAX_GROUPS), default=None,
              help="Groups of sub-streams, each with its own range coder: decoders overlap "
                   "them with the model and decode them in parallel; recorded in the archive "
                   "[default: 1 on a CPU, 4 on a GPU].")
@click.option("--native", is_flag=True,
              help="Compute with torch's fastest kernels (MKL) instead of the portable "
                   "profile: faster, but the archive decodes only on machines with the same "
                   "CPU vendor, instruction sets and torch build (recorded and checked).")
@click.option("--frame-size", type=ByteSize(), default=frames.DEFAULT_FRAME_SIZE,
              help="Inputs larger than this are cut into independent frames of this size, "
                   "coded in parallel (-T) and in bounded memory; recorded "
                   f"[default: {format_bytes(frames.DEFAULT_FRAME_SIZE)}].")
def compress(files, output, to_stdout, force, keep, quiet, verbose, device, coder_threads,
             profile, jobs, ray_address, memory_limit, level, preset, batch_size, threads,
             method, dtype, float_mode, float_codec, groups, native, frame_size):
    """Compress FILES (each to FILE.fade; '-' or none: stdin)."""
    runs_network = level is None or LEVELS[level].preset is not None
    opts = _options(output, to_stdout, force, keep, quiet, verbose, device, coder_threads,
                    profile, jobs, ray_address, memory_limit)
    try:
        frames.check_frame_size(frame_size)
    except fade.FadeError as error:
        raise click.BadParameter(str(error), param_hint="--frame-size") from None
    lacks = machine_lacks_portable()
    # (Only where a network runs: asking torch about CUDA loads it, ~1 s.)
    if opts.verbosity > 0 and not native and lacks and runs_network and (
            device == "cpu" or (device == "auto" and not torch.cuda.is_available())):
        _say(f"note: {lacks}: archives made here are native and decode only on machines "
             "like this one")

    def transform(source, sink, make_bar, path: str) -> None:
        name = opts.name(path)

        def announce(data: bytes, framed: bool) -> None:
            """Notes on the input (its first frame), before any coding."""
            if dtype == "auto" and method in ("auto", "floats") and opts.verbosity > 0:
                try:
                    found = floats.find(data, dtype)
                except floats.NotAContainer as error:
                    found = None
                    if float_mode != "off":
                        _say(f"{name}: warning: looks like a tensor file but {error}; "
                             "compressing it as plain bytes")
                if found and float_mode == "off" and len(data) >= LARGE_FLOAT_FILE:
                    _say(f"{name}: note: {found[0]} float tensors found; the model codes them "
                         "at KB/s, --floats fast at hundreds of MB/s (larger archive)")
            if opts.verbosity > 1 and framed:
                where = f"as tasks of the Ray cluster {opts.ray}" if opts.ray else \
                    f"{opts.jobs} at a time"
                _say(f"{name}: frames of {format_bytes(frame_size)}, {where}, one thread each; "
                     "settings of the first:")

        def show_plan(plan: Plan) -> None:
            """What compress will run on the first frame, as the library planned it."""
            _say(f"{name}: {plan}")

        bar = make_bar(None if path == STDIO else os.path.getsize(path))
        timings = StepProfile(resolve_device(device)) if opts.profile else None
        try:
            frames.compress_stream(source, sink, frame_size=frame_size, jobs=opts.jobs,
                                   ray=opts.ray,
                                   progress=lambda done, bits: bar(done, 0, bits),
                                   announce=announce,
                                   show_plan=show_plan if opts.verbosity > 1 else None,
                                   preset_name=preset,
                                   batch_size=batch_size, device=device, threads=threads,
                                   method=method, dtype=dtype, float_mode=float_mode,
                                   float_codec=float_codec, groups=groups,
                                   coder_threads=coder_threads, memory_limit=opts.memory_limit,
                                   native=native, level=level, profile=timings)
        finally:
            bar.close()
        if timings is not None:
            _write_profile(timings, name, opts)

    return _run_files(files, opts, True, transform)


@fade_cli.command()
@_common
@click.option("--max-threads", type=click.IntRange(1, MAX_THREADS), default=None,
              help="Most threads to replay: an archive is decoded with the thread count it "
                   "was coded with, and one coded with more is refused [default: 4 per "
                   "core, at least 8].")
@click.option("--as-name", "display_name", hidden=True, default=None,
              help="The name messages give stdin (used by fade's own replay process).")
@click.option("--range", "byte_range", type=ByteRange(), default=None,
              help="Decode only bytes START:END of the original (END excluded; either may "
                   "be left out), reading only the frames that hold them; needs -c or -o.")
def decompress(files, output, to_stdout, force, keep, quiet, verbose, device, coder_threads,
               profile, jobs, ray_address, memory_limit, max_threads, display_name,
               byte_range):
    """Decompress FILES.fade (each to FILE; '-' or none: stdin). No model flags needed."""
    opts = _options(output, to_stdout, force, keep, quiet, verbose, device, coder_threads,
                    profile, jobs, ray_address, memory_limit, display_name or "stdin")
    if byte_range is not None and not (to_stdout or output):
        raise click.UsageError("--range needs -c or -o (the output is part of the original)")
    options = dict(device=device, coder_threads=coder_threads, memory_limit=opts.memory_limit,
                   max_threads=max_threads)

    def check(archive: bytes):
        try:
            return check_archive(archive, opts.memory_limit, max_threads, device)
        except ReplayEnvironmentError as error:
            if os.environ.get(REPLAY_VARIABLE):  # already the replay process: no second one
                raise
            return error

    def transform(source, sink, make_bar, path: str) -> None:
        name = opts.name(path)
        if byte_range is not None:
            return _decode_range(path, name, byte_range, sink, opts, options)
        prefix = frames.read_exactly(source, HEAD_BYTES)
        if frames.is_frames(prefix):
            total = None
            if path != STDIO:  # the index first: a damaged one stops before any work
                with open(path, "rb") as file:
                    total = frames.read_index(file).original_size
            bar = make_bar(total)
            try:
                frames.decompress_stream(_Prefixed(prefix, source), sink, jobs=opts.jobs,
                                         ray=opts.ray,
                                         progress=lambda done, bits: bar(done, 0, bits),
                                         check=_frame_check, **options)
            finally:
                bar.close()
            return None
        archive = prefix + source.read()
        sink(_decode_whole(archive, make_bar, name, check(archive)))
        return None

    def _frame_check(archive: bytes) -> None:
        check_archive(archive, opts.memory_limit, max_threads, device)

    def _decode_whole(archive: bytes, make_bar, name: str, header) -> bytes:
        # `header`: check_archive's (a strong floats archive's nested one), or
        # the settings a fresh process needs to replay it
        if isinstance(header, ReplayEnvironmentError):
            return _replay_elsewhere(archive, header.environment, name, opts, max_threads)
        if header is None:  # no model: nothing to set up or warn about
            bar = make_bar(read_header(archive).original_size)
            try:
                data = fade.decompress(archive, memory_limit=opts.memory_limit, progress=bar)
            finally:
                bar.close()
            if opts.profile:
                _write_profile(StepProfile(torch.device("cpu")), name, opts)
            return data
        torch_device = decode_device(header, device)
        if opts.verbosity > 0 and header.profile == NATIVE:  # portable: checked to be equal
            for difference in environment_differences(header, torch_device):
                _say(f"{name}: warning: {difference}; probabilities may differ and "
                     "the decode may fail its checksum")
        if opts.verbosity > 1:
            workers = coder_threads_for(header.groups, coder_threads, torch_device.type,
                                        os.cpu_count())
            _say(f"{name}: decoding on {torch_device.type} with {header.threads} threads, "
                 f"batch {header.batch_size}, {header.groups} groups, {workers} coder threads, "
                 f"preset {header.preset or 'custom'}")
        bar = make_bar(header.original_size)
        timings = StepProfile(torch_device) if opts.profile else None
        try:
            data = fade.decompress(archive, device=torch_device.type, progress=bar,
                                   coder_threads=coder_threads, memory_limit=opts.memory_limit,
                                   max_threads=max_threads, profile=timings)
        finally:
            bar.close()
        if timings is not None:
            _write_profile(timings, name, opts)
        return data

    return _run_files(files, opts, False, transform)


class _Prefixed:
    """`source` with `prefix` (already read from it) put back in front."""

    def __init__(self, prefix: bytes, source):
        self.prefix, self.source = prefix, source

    def read(self, size: int = -1) -> bytes:
        if not self.prefix:
            return self.source.read(size)
        if size < 0:
            data, self.prefix = self.prefix + self.source.read(), b""
            return data
        data, self.prefix = self.prefix[:size], self.prefix[size:]
        return data


def _decode_range(path: str, name: str, byte_range: tuple[int, int | None], sink,
                  opts: Options, options: dict) -> None:
    """Bytes START:END of the original into `sink`: from a frames archive
    only the frames that hold them, from any other the whole archive."""
    if path == STDIO:
        raise UserError(name, "--range needs a file (it reads the frame index at the end)")
    start, stop = byte_range
    with open(path, "rb") as file:
        if frames.is_frames(file.read(HEAD_BYTES)):
            data, decoded = frames.decompress_range(file, start, stop, **options)
            total = len(frames.read_index(file).frames)
            if opts.verbosity > 1:
                _say(f"{name}: decoded {len(decoded)} of {total} frames "
                     f"({', '.join(map(str, decoded)) or 'none'})")
            sink(data)
            return
    archive = _read_input(path)
    check_archive(archive, opts.memory_limit, options["max_threads"], opts.device)
    sink(fade.decompress(archive, **options)[start:stop])


# Set in the process `_replay_elsewhere` starts, so that it never starts another.
REPLAY_VARIABLE = "FADE_REPLAY_PROCESS"


def _replay_elsewhere(archive: bytes, environment: dict[str, str], name: str, opts: Options,
                      max_threads: int | None) -> bytes:
    """Decode `archive` in a fresh `fade decompress` process started with
    `environment` (numeric settings torch reads when it loads: an archive
    made in other settings that this machine can still replay, such as one
    of format v1-v4 from an AVX-512 CPU). The archive goes to its stdin, the
    data comes back on its stdout; it prints its own progress and errors."""
    command = [sys.executable, "-m", "cli", "decompress", "-c", "--as-name", name,
               "--device", opts.device]
    if opts.verbosity == 0:
        command.append("-q")
    for flag, value in (("--coder-threads", opts.coder_threads),
                        ("--memory-limit", opts.memory_limit), ("--max-threads", max_threads),
                        ("--profile", opts.profile)):
        if value is not None:
            command += [flag, str(value)]
    if opts.verbosity > 1:
        _say(f"{name}: replaying in a process with "
             + " ".join(f"{key}={value}" for key, value in sorted(environment.items())))
    result = subprocess.run(command + [STDIO], input=archive, stdout=subprocess.PIPE,
                            env={**os.environ, **environment, REPLAY_VARIABLE: "1"})
    if result.returncode == EXIT_INTERRUPTED or result.returncode < 0:
        raise KeyboardInterrupt
    if result.returncode != EXIT_OK:
        raise AlreadySaid
    return result.stdout


@fade_cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
def info(files):
    """Print every header field of FILES.fade."""
    status = EXIT_OK
    for path in files:
        name = "stdin" if path == STDIO else path
        try:
            header, size = _read_info(path)
        except UserError as error:
            _say(str(error))
            status = EXIT_ERROR
            continue
        except fade.FadeError as error:
            _say(f"{name}: {error}")
            status = EXIT_ERROR
            continue
        click.echo(f"{name}:")
        click.echo(f"  archive_size: {size}")
        for key, value in header.fields().items():
            click.echo(f"  {key}: {value}")
        if header.original_size:
            click.echo(f"  ratio: {header.original_size / size:.3f}")
            click.echo(f"  bits_per_byte: {8 * size / header.original_size:.3f}")
        for frame in getattr(header, "frames", ()):
            click.echo(f"  frame {frame.number}: original {frame.original_offset}+"
                       f"{frame.original_size}, archive {frame.archive_offset}+"
                       f"{frame.archive_size}, {frame.method}")
    return status


def _read_info(path: str):
    """An archive's header (a frames archive's index, read without its
    frames) and the archive's size."""
    if path != STDIO and not os.path.isdir(path):
        try:
            with open(path, "rb") as file:
                if frames.is_frames(file.read(HEAD_BYTES)):
                    return frames.read_index(file), os.path.getsize(path)
        except OSError as error:
            raise UserError(path, _os_reason(error)) from None
    archive = _read_input(path)
    return fade.read_header(archive), len(archive)


_received_signal: int | None = None  # the signal that stopped the last main() call


def _interrupt(signum, frame):
    global _received_signal
    _received_signal = signum
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Run the CLI on argv and return the exit code (never raises).

    Tests call this directly; the `fade` command goes through `entry`.
    """
    global _received_signal
    _received_signal = None
    previous = {signum: signal.signal(signum, _interrupt)
                for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        result = fade_cli.main(args=argv, prog_name="fade", standalone_mode=False)
        return result if isinstance(result, int) else EXIT_OK
    except click.exceptions.Exit as done:  # --help, --version
        return done.exit_code
    except click.UsageError as error:
        _say(error.format_message())
        return EXIT_USAGE
    except click.ClickException as error:
        _say(error.format_message())
        return error.exit_code
    except (KeyboardInterrupt, click.exceptions.Abort):
        _say("interrupted")
        return EXIT_INTERRUPTED
    except UserError as error:
        _say(str(error))
        return EXIT_ERROR
    except MemoryError:
        _say("out of memory (try a smaller --batch-size or preset)")
        return EXIT_ERROR
    except Exception as error:  # a bug: still one line, and no partial output
        if os.environ.get("FADE_DEBUG"):
            raise
        first_line = (str(error).splitlines() or [""])[0]
        _say(f"internal error: {type(error).__name__}: {first_line} "
             "(please report it; FADE_DEBUG=1 shows the traceback)")
        return EXIT_INTERNAL
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def entry() -> None:
    """The `fade` command: exit with main()'s status. After Ctrl-C or SIGTERM
    (output already cleaned up), die of that signal as Unix tools do, so the
    shell sees 128 + signal (130 for Ctrl-C) and a calling script stops too."""
    status = main()
    if status == EXIT_INTERRUPTED and _received_signal is not None:
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(_received_signal, signal.SIG_DFL)
        os.kill(os.getpid(), _received_signal)
    sys.exit(status)


if __name__ == "__main__":
    entry()
