"""Benchmark fade against the compressors a user would pick instead.

    python scripts/bench.py PATH... [--fade SPEC]... [--classic LIST] [--out DIR] [--resume]
    python scripts/bench.py --quick

Every file (directories are walked, each file benchmarked separately) is
compressed and decompressed by each compressor, the output compared byte
for byte with the input, and only then are its numbers reported: sizes,
ratio, bits per byte, compression and decompression throughput, peak RSS,
GPU peak memory (fade on CUDA) and the device. A TOTAL row per compressor
sums over the files. A mismatch or a failed run is reported loudly and makes
the exit status 1.

Compressors: fade in every configuration given with --fade, and gzip -9,
bzip2 -9, xz -9e, zstd -19 --long=27, brotli quality 11 and PPMd orders 6
and 16 (`--classic` picks among them). The command-line tools run as
installed; brotli and PPMd need the Python packages `brotli` and `pyppmd`.
A missing one is skipped with a one-line note, never fatal.

How things are measured:
- each compression and each decompression runs in its own process, so the
  peak RSS (`ru_maxrss` from `os.wait4`) is that of the process doing the
  work; a row shows the larger of the two. Rows run through Python (fade,
  brotli, PPMd) include the interpreter (and torch, for fade). A command
  that stays under the ~10 MiB of the bare Python that starts it shows as
  "≤10" (see SPAWNER for why no lower bound can be read);
- command-line tools are timed from start to exit (their start-up, about a
  millisecond, dominates on tiny files); Python codecs are timed around the
  library call only, after imports, so fade's times leave out loading
  torch, as a long-running service would;
- KB/s is 1024 bytes per second of original data; the "total" throughput
  in results.json and the plot is original bytes / (compress + decompress
  seconds), a whole round trip, as the FADE paper's Figure 1 plots it.

Outputs, in --out DIR (default bench-out/, git-ignored): results.jsonl (one
line per finished (file, compressor) pair, flushed as it finishes, so that
--resume can skip the pairs already done after an interruption),
results.md (also printed), results.json, and ratio_vs_speed.png (one point
per compressor, total over the files; skipped without matplotlib).

Examples:

    # a few minutes on two cores: every compressor on the first 64 KiB of
    # each file of ../shared/corpus/ (its README.md aside), fade fast
    python scripts/bench.py --quick

    # presets side by side on enwik6 (the paper preset alone takes ~20 minutes each way)
    python scripts/bench.py ../shared/corpus/enwik6 --fade fast --fade balanced \\
        --fade paper:batch=512

    # Enwik9 on a GPU, hours long: run again with --resume after a stop
    python scripts/bench.py enwik9 --fade paper:batch=512,device=cuda --out bench-out/enwik9
    python scripts/bench.py enwik9 --fade paper:batch=512,device=cuda --out bench-out/enwik9 \\
        --resume

A fade SPEC is [PRESET][:]OPTION=VALUE,... with options level (fast: the
statistics alone; default: the hybrid), method (auto, or fade to force the
learned archive), batch (sub-streams), device (auto, cpu or cuda), threads
(torch CPU threads), native (1: the native numeric profile, `--native`),
jobs (frames coded at once, `-T`; 0: one per core, the default), frame
(the frame size in bytes, `--frame-size`) and ray (frames as tasks of the
Ray cluster at this address, `--ray`; instead of jobs), e.g.
`balanced:batch=64`, `balanced:native=1`, `level=fast`,
`level=default,frame=1048576,jobs=2`, `level=fast,frame=1048576,ray=auto`,
`balanced:level=default,method=fade`. A preset without a level is the
network alone, as `fade compress --preset` gives. Without --fade, fade runs
as `fade compress` does by default (level default).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import datetime
import filecmp
import functools
import hashlib
import importlib
import io
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

REPO = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve()
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
if not DEFAULT_CORPUS.is_dir():  # a checkout alone: the tests' copy (some files cut to 64 KiB)
    DEFAULT_CORPUS = REPO / "tests" / "corpus"
DEFAULT_OUT = REPO / "bench-out"
QUICK_OUT = DEFAULT_OUT / "quick"
QUICK_SLICE = 64 * 1024
QUICK_FADE = "fast"
# The corpus's description of itself, not corpus data (the CLI tests leave it out too).
QUICK_SKIP = ("README.md", "SHA256SUMS")
DEFAULT_FADE = "level=default"  # fade.config.DEFAULT_LEVEL (not imported: it loads torch)

KIB = 1024
MIB = 1024 * 1024

# Exit codes, as in the CLI.
EXIT_OK = 0
EXIT_FAILED = 1  # some result failed or did not round-trip
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

WORKER_FLAG = "--worker"  # internal: run one codec call in this process (see run_worker)


# --------------------------------------------------------------------------
# Compressors


@dataclass(frozen=True)
class Compressor:
    """One compressor at one setting, and how to run it.

    Either a command-line tool (stdin to stdout, `compress_argv` and
    `decompress_argv`) or a codec that runs in a Python worker process
    (`codec` names it in WORKER_CODECS, `params` are its settings).
    """

    name: str  # as shown in the tables, e.g. "xz -9e"
    requires: str  # the Python package it needs, or the program both argvs run
    compress_argv: tuple[str, ...] = ()
    decompress_argv: tuple[str, ...] = ()
    codec: str = ""
    params: tuple[tuple[str, object], ...] = ()

    @property
    def in_python(self) -> bool:
        return bool(self.codec)


# PPMd needs its model size on both sides; 256 MiB lets the order-16 model
# grow on large files (Enwik9) before it restarts, and costs nothing on small
# ones (the memory is touched only as the model grows). Both orders get it so
# that order is the only difference between the two rows.
PPMD_MEMORY = 256 * MIB

# The classic compressors, in table order. Threading is pinned to one thread
# where the tool has a choice, so sizes do not depend on the machine.
CLASSIC: dict[str, Compressor] = {
    "gzip": Compressor("gzip -9", "gzip", ("gzip", "-9", "-n", "-c"), ("gzip", "-d", "-c")),
    "bzip2": Compressor("bzip2 -9", "bzip2", ("bzip2", "-9", "-c"), ("bzip2", "-d", "-c")),
    "xz": Compressor("xz -9e", "xz", ("xz", "-9e", "-T1", "-c"), ("xz", "-d", "-c")),
    # --long=27: a 128 MiB match window, which zstd decodes without extra flags.
    "zstd": Compressor("zstd -19 --long=27", "zstd",
                       ("zstd", "-19", "--long=27", "-T1", "-q", "-c"),
                       ("zstd", "-d", "--long=27", "-q", "-c")),
    # lgwin 24: brotli's largest standard window (the default is 22).
    "brotli": Compressor("brotli -q 11 -w 24", "brotli", codec="brotli",
                         params=(("quality", 11), ("lgwin", 24))),
    # PPMd variant I (as in .zip), raw stream: the decoder is told the order and
    # memory size, which an archive would store in a few header bytes.
    "ppmd6": Compressor("ppmd -o6 -m256M", "pyppmd", codec="ppmd",
                        params=(("max_order", 6), ("mem_size", PPMD_MEMORY))),
    "ppmd16": Compressor("ppmd -o16 -m256M", "pyppmd", codec="ppmd",
                         params=(("max_order", 16), ("mem_size", PPMD_MEMORY))),
}

# --fade options: name -> how to read its value.
FADE_OPTIONS: dict[str, Callable[[str], object]] = {
    "level": str, "method": str, "batch": int, "device": str, "threads": int,
    "native": lambda value: bool(int(value)), "jobs": int, "frame": int, "ray": str}


def parse_fade_spec(spec: str) -> Compressor:
    """`[PRESET][:]level=L,method=M,batch=N,device=D,threads=N,native=0|1,jobs=N,
    frame=BYTES,ray=ADDRESS` -> a fade Compressor (syntax only; `check_fade`
    validates the values against the library)."""
    preset, _, rest = spec.partition(":")
    if "=" in preset:  # options only: the level's own network, if any
        preset, rest = "", spec
    options: dict[str, object] = {}
    for item in filter(None, rest.split(",")):
        key, equals, value = item.partition("=")
        if not equals or key not in FADE_OPTIONS:
            raise argparse.ArgumentTypeError(
                f"bad fade option {item!r} in {spec!r} "
                f"(PRESET[:{','.join(k + '=...' for k in FADE_OPTIONS)}])")
        try:
            options[key] = FADE_OPTIONS[key](value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad value for {key} in {spec!r}") from None
    if not preset and "level" not in options:
        raise argparse.ArgumentTypeError(f"no preset or level in fade spec {spec!r}")
    name = " ".join(["fade"] + [preset] * bool(preset)
                    + [f"{k}={options[k]}" for k in FADE_OPTIONS if k in options])
    params = (("preset", preset or None), ("level", options.get("level")),
              ("method", options.get("method", "auto")), ("batch", options.get("batch")),
              ("device", options.get("device", "auto")), ("threads", options.get("threads")),
              ("native", options.get("native", False)), ("jobs", options.get("jobs")),
              ("frame", options.get("frame")), ("ray", options.get("ray")))
    return Compressor(name, "fade", codec="fade", params=params)


def check_fade(compressor: Compressor) -> None:
    """Raise ValueError when the library would reject this configuration, so
    that a typo fails now rather than hours into a run."""
    try:
        import fade  # here, not at the top: loading torch takes seconds
        from fade.device import resolve_device
        from fade.single import METHOD_CHOICES
        from fade.config import LEVELS, MAX_THREADS
    except ImportError:
        return  # reported as missing, and skipped, like any other compressor

    params = dict(compressor.params)
    if params["preset"] is not None and params["preset"] not in fade.PRESETS:
        raise ValueError(f"unknown fade preset {params['preset']!r} "
                         f"(choose from {', '.join(fade.PRESETS)})")
    if params["level"] is not None and params["level"] not in LEVELS:
        raise ValueError(f"unknown fade level {params['level']!r} "
                         f"(choose from {', '.join(LEVELS)})")
    if params["method"] not in METHOD_CHOICES:
        raise ValueError(f"unknown fade method {params['method']!r}")
    if params["batch"] is not None and params["batch"] < 1:
        raise ValueError("fade batch must be at least 1")
    if params["threads"] is not None and not 1 <= params["threads"] <= MAX_THREADS:
        raise ValueError(f"fade threads must be between 1 and {MAX_THREADS}")
    if params.get("jobs") is not None and params["jobs"] < 0:
        raise ValueError("fade jobs must be 0 (one per core) or more")
    if params.get("frame") is not None:
        from fade.frames import check_frame_size

        try:
            check_frame_size(params["frame"])
        except fade.FadeError as error:
            raise ValueError(str(error)) from None
    try:
        resolve_device(params["device"])
    except fade.FadeError as error:
        raise ValueError(str(error)) from None


def parse_classic(text: str) -> list[str]:
    """`all`, `none` or a comma-separated list of CLASSIC keys."""
    if text == "all":
        return list(CLASSIC)
    if text == "none":
        return []
    keys = [key.strip() for key in text.split(",") if key.strip()]
    unknown = [key for key in keys if key not in CLASSIC]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown compressor {', '.join(unknown)} (choose from {', '.join(CLASSIC)}, "
            "all or none)")
    return keys


def missing_reason(compressor: Compressor) -> str | None:
    """Why this compressor cannot run here, or None when it can."""
    if not compressor.in_python:
        if shutil.which(compressor.requires) is None:
            return f"`{compressor.requires}` not found on PATH"
        return None
    try:
        importlib.import_module(compressor.requires)
    except ImportError:
        return f"Python package `{compressor.requires}` not installed"
    return None


def with_absolute_programs(compressor: Compressor) -> Compressor:
    """The same tool with its program resolved once, so that every run uses
    the binary whose version is reported."""
    if compressor.in_python:
        return compressor
    program = shutil.which(compressor.requires)
    return dataclasses.replace(
        compressor, compress_argv=(program, *compressor.compress_argv[1:]),
        decompress_argv=(program, *compressor.decompress_argv[1:]))


def tool_version(compressor: Compressor) -> str:
    """First line of `TOOL --version` (tools print it on stdout or stderr)."""
    try:
        result = subprocess.run([compressor.compress_argv[0], "--version"],
                                stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = (result.stdout + result.stderr).decode(errors="replace").splitlines()
    return next((line.strip(" *") for line in lines if line.strip()), "")


# --------------------------------------------------------------------------
# The worker: one codec call in a fresh process (the parent reads its RSS)


@dataclass
class WorkerReport:
    """What a worker prints (one JSON line) about the call it timed."""

    seconds: float
    version: str
    device: str = "cpu"
    device_name: str = ""
    gpu_peak_mib: float | None = None
    details: str = ""


def _timed(call: Callable[[], bytes]) -> tuple[bytes, float]:
    start = time.perf_counter()
    output = call()
    return output, time.perf_counter() - start


def _brotli_codec(operation: str, data: bytes, params: dict) -> tuple[bytes, WorkerReport]:
    import brotli

    if operation == "compress":
        output, seconds = _timed(lambda: brotli.compress(data, quality=params["quality"],
                                                         lgwin=params["lgwin"]))
    else:
        output, seconds = _timed(lambda: brotli.decompress(data))
    return output, WorkerReport(seconds, f"brotli {brotli.__version__} (Python)")


def _ppmd_codec(operation: str, data: bytes, params: dict) -> tuple[bytes, WorkerReport]:
    import pyppmd

    settings = dict(max_order=params["max_order"], mem_size=params["mem_size"], variant="I")
    work = pyppmd.compress if operation == "compress" else pyppmd.decompress
    output, seconds = _timed(lambda: work(data, **settings))
    return output, WorkerReport(seconds, f"pyppmd {pyppmd.__version__} (PPMd var. I)")


def _fade_codec(operation: str, data: bytes, params: dict) -> tuple[bytes, WorkerReport]:
    import torch

    import fade
    from fade import frames
    from fade.device import decode_device, device_name, resolve_device
    from fade.format.headers import CompactHeader, StatisticsHeader

    jobs = params.get("jobs") or frames.default_jobs()
    if operation == "compress":
        device = resolve_device(params["device"])
        options = dict(preset_name=params["preset"], level=params["level"],
                       method=params["method"], batch_size=params["batch"], device=device.type,
                       threads=params["threads"], native=params.get("native", False))

        def call() -> bytes:  # as `fade compress`: frames above the frame size
            out = io.BytesIO()
            fade.compress_stream(io.BytesIO(data), out.write, jobs=jobs, ray=params.get("ray"),
                                 frame_size=params.get("frame") or frames.DEFAULT_FRAME_SIZE,
                                 **options)
            return out.getvalue()
    else:
        header = fade.read_header(data)
        first = header.frames[0] if isinstance(header, frames.FramesHeader) else None
        device = decode_device(header if first is None else fade.read_header(
            data[first.archive_offset:first.archive_offset + first.archive_size]),
            params["device"])

        def call() -> bytes:
            if first is None:
                return fade.decompress(data, device=device.type)
            parts: list[bytes] = []
            fade.decompress_stream(io.BytesIO(data), parts.append, jobs=jobs,
                                   ray=params.get("ray"), device=device.type)
            return b"".join(parts)
    if device.type == "cuda":
        torch.zeros(1, device=device)  # create the CUDA context outside the timing
        torch.cuda.reset_peak_memory_stats(device)
    output, seconds = _timed(call)
    gpu_peak = None
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        gpu_peak = torch.cuda.max_memory_allocated(device) / MIB
    if operation == "compress":
        header = fade.read_header(output)
    if isinstance(header, frames.FramesHeader):
        kinds = collections.Counter(frame.method for frame in header.frames)
        details = (f"{len(header.frames)} frames of {header.frame_size} B ("
                   + ", ".join(f"{count} {kind}" for kind, count in kinds.items())
                   + (f"), Ray {params['ray']}" if params.get("ray") else f"), {jobs} jobs"))
    elif isinstance(header, CompactHeader):  # the size floor stood in for the model
        details = f"{header.method} (size floor)"
    elif isinstance(header, StatisticsHeader):
        details = f"statistics, 2^{header.statistics.table_bits} slots"
    else:
        details = (f"{header.coding}, batch {header.batch_size}, {header.threads} "
                   f"thread{'s' * (header.threads > 1)}")
    return output, WorkerReport(seconds, f"fade {fade.__version__}, torch {torch.__version__}",
                                device.type, device_name(device), gpu_peak, details)


WORKER_CODECS = {"brotli": _brotli_codec, "ppmd": _ppmd_codec, "fade": _fade_codec}


def run_worker(job_json: str) -> int:
    """Worker side: read `input`, run the codec, write `output`, print the report."""
    job = json.loads(job_json)
    try:
        data = Path(job["input"]).read_bytes()
        output, report = WORKER_CODECS[job["codec"]](job["operation"], data, job["params"])
        Path(job["output"]).write_bytes(output)
    except Exception:  # the parent reports the traceback's last line
        traceback.print_exc()
        return 1
    print(json.dumps(dataclasses.asdict(report)))
    return 0


# --------------------------------------------------------------------------
# Running one (file, compressor) pair


class StepFailed(Exception):
    """A compression or decompression process exited with an error."""


@dataclass
class Step:
    """One compression or decompression as the parent saw it."""

    seconds: float
    peak_rss_mib: float
    rss_floor_mib: float  # a peak at or under this is an upper bound (see SPAWNER)
    report: WorkerReport | None  # None for command-line tools


# Every measured command is started by this small program in a bare
# interpreter (-I -S: no site-packages, about 10 MiB), never by the harness
# itself. Linux carries the peak RSS of the process that starts a command into
# the command's ru_maxrss (exec keeps the larger of the old and the new address
# space's peaks), so a command started from this process, which has loaded
# torch, would report this process's few hundred MiB. The spawner reports its
# own peak as a floor: a command that stayed under it shows as "at most" that.
SPAWNER = """
import json, os, sys, time
argv, stdin, stdout = json.loads(sys.argv[1])
source = os.open(stdin or os.devnull, os.O_RDONLY)
sink = os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
start = time.perf_counter()
pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
    (os.POSIX_SPAWN_DUP2, source, 0), (os.POSIX_SPAWN_DUP2, sink, 1)])
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
floor = 0
if os.path.exists("/proc/self/status"):
    with open("/proc/self/status") as lines:
        floor = next((int(l.split()[1]) for l in lines if l.startswith("VmHWM:")), 0)
print(json.dumps({"exit": os.waitstatus_to_exitcode(status), "seconds": seconds,
                  "maxrss_kib": usage.ru_maxrss, "floor_kib": floor}))
"""


def _child_env() -> dict[str, str]:
    """The environment of every child: the worker imports this checkout's fade."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(REPO) + (os.pathsep + path if path else "")}


def _error_line(stderr_lines: list[str]) -> str:
    """The line that says what went wrong: tools print it first (a usage hint
    may follow), Python prints it last, after the traceback."""
    lines = [line.strip() for line in stderr_lines if line.strip()]
    if not lines:
        return ""
    return lines[-1] if lines[0].startswith("Traceback") else lines[0]


def run_process(argv: list[str], stdin: Path | None, stdout: Path) -> Step:
    """Run argv (argv[0] an absolute path) with stdin and stdout redirected to
    files, through SPAWNER. Raises StepFailed, with the line of its stderr
    that says why, when it fails."""
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", SPAWNER,
             json.dumps([argv, str(stdin) if stdin else None, str(stdout)])],
            stdout=subprocess.PIPE, stderr=errors, env=_child_env(),
            start_new_session=True)  # its own process group, to stop it whole
        try:
            report, _ = process.communicate()
        except BaseException:  # Ctrl-C: leave no command running
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
        errors.seek(0)
        lines = errors.read().decode(errors="replace").strip().splitlines()
    if process.returncode != 0:  # the spawner itself failed
        raise StepFailed(_error_line(lines) or f"spawner exit status {process.returncode}")
    usage = json.loads(report)
    if usage["exit"] != 0:
        raise StepFailed(_error_line(lines) or f"exit status {usage['exit']}")
    # ru_maxrss and VmHWM are in KiB on Linux.
    return Step(usage["seconds"], usage["maxrss_kib"] / KIB, usage["floor_kib"] / KIB, None)


def run_step(compressor: Compressor, operation: str, source: Path, target: Path,
             workdir: Path) -> Step:
    """Compress or decompress `source` into `target` in a fresh process."""
    if not compressor.in_python:
        argv = compressor.compress_argv if operation == "compress" else compressor.decompress_argv
        return run_process(list(argv), source, target)
    job = {"codec": compressor.codec, "params": dict(compressor.params), "operation": operation,
           "input": str(source), "output": str(target)}
    report_path = workdir / "report.json"
    step = run_process([sys.executable, str(BENCH), WORKER_FLAG, json.dumps(job)], None,
                       report_path)
    # The worker times its codec call only, leaving out interpreter start-up and imports.
    step.report = WorkerReport(**json.loads(report_path.read_text().strip().splitlines()[-1]))
    step.seconds = step.report.seconds
    return step


# --------------------------------------------------------------------------
# Results


@dataclass
class Result:
    """One compressor on one file (or, with file "TOTAL", on all of them).

    Sizes and times are only filled in when the round trip was verified.
    """

    file: str
    compressor: str
    original_bytes: int
    input_sha256: str = ""
    verified: bool = False
    error: str = ""  # why it is not verified (or, for a TOTAL, what it leaves out)
    compressed_bytes: int | None = None
    compress_seconds: float | None = None
    decompress_seconds: float | None = None
    compress_rss_mib: float | None = None
    decompress_rss_mib: float | None = None
    rss_floor_mib: float | None = None  # peaks up to this are only known to be at most this
    gpu_peak_mib: float | None = None
    device: str = "cpu"
    device_name: str = ""
    version: str = ""
    details: str = ""
    slice_bytes: int | None = None  # the input is the first slice_bytes of the file

    @property
    def key(self) -> tuple[str, str, str]:
        """What --resume matches on: the same bytes under the same name, same compressor."""
        return self.file, self.input_sha256, self.compressor

    @property
    def ratio(self) -> float | None:
        return self.original_bytes / self.compressed_bytes if self.compressed_bytes else None

    @property
    def bits_per_byte(self) -> float | None:
        if self.compressed_bytes is None or not self.original_bytes:
            return None
        return 8 * self.compressed_bytes / self.original_bytes

    def _kb_per_second(self, seconds: float | None) -> float | None:
        return self.original_bytes / KIB / seconds if seconds and self.original_bytes else None

    @property
    def compress_kbps(self) -> float | None:
        return self._kb_per_second(self.compress_seconds)

    @property
    def decompress_kbps(self) -> float | None:
        return self._kb_per_second(self.decompress_seconds)

    @property
    def total_kbps(self) -> float | None:
        """Round-trip throughput: original bytes over compress + decompress time."""
        if self.compress_seconds is None or self.decompress_seconds is None:
            return None
        return self._kb_per_second(self.compress_seconds + self.decompress_seconds)

    @property
    def peak_rss_mib(self) -> float | None:
        values = [v for v in (self.compress_rss_mib, self.decompress_rss_mib) if v is not None]
        return max(values) if values else None

    @property
    def peak_rss_is_bound(self) -> bool:
        """The processes stayed under the spawner's own RSS (see SPAWNER), so
        their peak is only known to be at most rss_floor_mib."""
        peak = self.peak_rss_mib
        return peak is not None and self.rss_floor_mib is not None and peak <= self.rss_floor_mib

    def to_json(self) -> dict:
        derived = {name: getattr(self, name) for name in (
            "ratio", "bits_per_byte", "compress_kbps", "decompress_kbps", "total_kbps",
            "peak_rss_mib", "peak_rss_is_bound")}
        return {**dataclasses.asdict(self), **derived}

    @classmethod
    def from_json(cls, record: dict) -> Result:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in record.items() if k in names})


def measure(data: Input, compressor: Compressor, workdir: Path) -> Result:
    """Round-trip the input through `compressor` and verify it byte for byte."""
    result = Result(data.label, compressor.name, data.size, data.sha256,
                    slice_bytes=data.slice_bytes)
    packed, unpacked = workdir / "packed", workdir / "unpacked"
    try:
        squeeze = run_step(compressor, "compress", data.path, packed, workdir)
        expand = run_step(compressor, "decompress", packed, unpacked, workdir)
        if not filecmp.cmp(data.path, unpacked, shallow=False):
            result.error = (f"MISMATCH: decompressed output ({unpacked.stat().st_size:,} bytes) "
                            "differs from the input")
            return result
        result.verified = True
        result.compressed_bytes = packed.stat().st_size
        result.compress_seconds, result.decompress_seconds = squeeze.seconds, expand.seconds
        result.compress_rss_mib, result.decompress_rss_mib = squeeze.peak_rss_mib, \
            expand.peak_rss_mib
        result.rss_floor_mib = max(squeeze.rss_floor_mib, expand.rss_floor_mib)
        if squeeze.report is None:
            result.device_name = cpu_name()
        else:
            result.version, result.details = squeeze.report.version, squeeze.report.details
            result.device, result.device_name = squeeze.report.device, \
                squeeze.report.device_name
            peaks = [s.report.gpu_peak_mib for s in (squeeze, expand)
                     if s.report.gpu_peak_mib is not None]
            result.gpu_peak_mib = max(peaks) if peaks else None
    except StepFailed as error:
        result.error = f"FAILED: {error}"
    finally:
        for path in (packed, unpacked):  # an Enwik9 run must not pile up gigabytes
            path.unlink(missing_ok=True)
    return result


def total(compressor: str, results: list[Result]) -> Result:
    """The TOTAL row of one compressor: sums over its verified files."""
    done = [r for r in results if r.verified]
    failed = len(results) - len(done)

    def summed(name: str) -> float | None:
        values = [getattr(r, name) for r in done]
        return sum(values) if done and None not in values else None

    peaks = [r.gpu_peak_mib for r in done if r.gpu_peak_mib is not None]
    devices = {(r.device, r.device_name) for r in done}
    device, device_name = devices.pop() if len(devices) == 1 else ("mixed" if devices else "", "")
    return Result(
        file="TOTAL", compressor=compressor,
        original_bytes=sum(r.original_bytes for r in done),
        verified=failed == 0 and bool(done),
        error=f"{failed} of {len(results)} files failed; sums over the rest" if failed else "",
        compressed_bytes=summed("compressed_bytes"),
        compress_seconds=summed("compress_seconds"),
        decompress_seconds=summed("decompress_seconds"),
        compress_rss_mib=max((r.compress_rss_mib for r in done), default=None),
        decompress_rss_mib=max((r.decompress_rss_mib for r in done), default=None),
        rss_floor_mib=max((r.rss_floor_mib for r in done if r.rss_floor_mib), default=None),
        gpu_peak_mib=max(peaks) if peaks else None,
        device=device, device_name=device_name, version=done[0].version if done else "")


# --------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class Source:
    """A file to benchmark and its name in the tables."""

    label: str
    path: Path


def collect_sources(paths: Iterable[Path], skip_names: Iterable[str] = ()) -> list[Source]:
    """Files as given, and every non-hidden file under the directories given
    (named relative to that directory) but those called one of `skip_names`,
    in a stable order."""
    sources: list[Source] = []
    for path in paths:
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                relative = file.relative_to(path)
                if file.is_file() and file.name not in skip_names \
                        and not any(p.startswith(".") for p in relative.parts):
                    sources.append(Source(relative.as_posix(), file))
        else:
            sources.append(Source(path.name, path))
    # Two inputs with the same name would share resume keys: keep them apart.
    counts: dict[str, int] = {}
    for source in sources:
        counts[source.label] = counts.get(source.label, 0) + 1
    return [Source(str(s.path), s.path) if counts[s.label] > 1 else s for s in sources]


@dataclass(frozen=True)
class Input:
    """The bytes the compressors get for one source."""

    label: str
    path: Path  # the source itself, or its slice in the work folder
    sha256: str
    size: int
    slice_bytes: int | None


def prepare_input(source: Source, slice_bytes: int | None, workdir: Path) -> Input:
    """The source, or its first slice_bytes copied to the work folder; an
    unsliced file is used in place (Enwik9 is not copied)."""
    path = source.path
    if slice_bytes is not None:
        with open(source.path, "rb") as file:
            head = file.read(slice_bytes)
        path = workdir / "input"
        path.write_bytes(head)
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(MIB), b""):
            digest.update(block)
    return Input(source.label, path, digest.hexdigest(), path.stat().st_size, slice_bytes)


# --------------------------------------------------------------------------
# Reports


def _number(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _speed(kbps: float | None) -> str:
    if kbps is None:
        return "–"
    return f"{kbps:,.0f}" if kbps >= 100 else f"{kbps:.2f}" if kbps >= 1 else f"{kbps:.3f}"


def _mib(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}" if value >= 10 else f"{value:.1f}"


def _rss(result: Result) -> str:
    if result.peak_rss_is_bound:
        return f"≤{_mib(result.rss_floor_mib)}"
    return _mib(result.peak_rss_mib)


TABLE_HEAD = ("| file | compressor | bytes | compressed | ratio | bits/byte | compress KB/s | "
              "decompress KB/s | peak RSS MiB | GPU MiB | device | verified | notes |\n"
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")  # a file name or error message must not split a cell


def table_row(result: Result) -> str:
    name = "**TOTAL**" if result.file == "TOTAL" else _cell(result.file)
    if result.file != "TOTAL" and not result.verified:  # no numbers for an unverified result
        return (f"| {name} | {result.compressor} | {result.original_bytes:,} | – | – | – | – | "
                f"– | – | – | – | **{result.error.split(':')[0]}** | {_cell(result.error)} |")
    compressed = "–" if result.compressed_bytes is None else f"{result.compressed_bytes:,}"
    verified = "yes" if result.verified else "**no**"
    return (f"| {name} | {result.compressor} | {result.original_bytes:,} | {compressed} | "
            f"{_number(result.ratio)} | {_number(result.bits_per_byte)} | "
            f"{_speed(result.compress_kbps)} | {_speed(result.decompress_kbps)} | "
            f"{_rss(result)} | {_mib(result.gpu_peak_mib)} | {result.device} | "
            f"{verified} | {_cell(result.error or result.details)} |")


def markdown(results: list[Result], totals: list[Result], context: dict) -> str:
    lines = ["# fade benchmark", "",
             f"- when: {context['started']}; machine: {context['machine']}",
             f"- inputs: {len(context['inputs'])} files, {context['input_bytes']:,} bytes, "
             f"from {', '.join(context['paths'])}"]
    if context["slice_bytes"] is not None:
        lines.append(f"- **slices**: each input is the first {context['slice_bytes']:,} bytes "
                     "of its file (shorter files whole)")
    lines += [f"- {note}" for note in context["notes"]]
    versions = "; ".join(f"{name}: {v}" for name, v in context["versions"].items() if v)
    lines += [f"- versions: {versions}",
              "- KB/s = 1024 bytes of original data per second; peak RSS = the larger of the "
              "compressing and decompressing processes (≤N: under the N MiB of the bare Python "
              "that starts each command, so only that bound is known); every row with "
              "numbers was decompressed and compared byte for byte", "", TABLE_HEAD]
    lines += [table_row(r) for r in results + totals]
    return "\n".join(lines) + "\n"


def plot_ratio_vs_speed(totals: list[Result], path: Path, title: str) -> str | None:
    """Figure 1 of the FADE paper for this run: ratio against round-trip
    throughput, one point per compressor. Returns a note when it cannot."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib not installed: no plot (pip install matplotlib)"
    points = [t for t in totals if t.ratio and t.total_kbps]
    if not points:
        return "nothing to plot"
    figure, axes = plt.subplots(figsize=(7.5, 4.8))
    # Labels alternate above and below in order of ratio, so that close points
    # (PPMd's two orders, say) stay readable.
    for rank, point in enumerate(sorted(points, key=lambda p: p.ratio)):
        fade_point = point.compressor.startswith("fade")
        axes.scatter(point.total_kbps, point.ratio, s=80 if fade_point else 50,
                     marker="*" if fade_point else "o",
                     color="tab:red" if fade_point else "tab:blue", zorder=3)
        axes.annotate(point.compressor, (point.total_kbps, point.ratio), fontsize=8,
                      textcoords="offset points", xytext=(6, 5 if rank % 2 else -11))
    axes.set_xscale("log")
    axes.margins(x=0.2, y=0.1)
    axes.set_xlabel("total throughput, KB/s (original bytes / (compress + decompress time))")
    axes.set_ylabel("compression ratio (original / compressed)")
    axes.set_title(title, fontsize=10)
    axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=150)
    plt.close(figure)
    return None


def write_reports(out: Path, results: list[Result], totals: list[Result],
                  context: dict) -> str:
    """results.md and results.json (written whole, so a reader never sees half)."""
    text = markdown(results, totals, context)
    _replace(out / "results.md", text)
    document = {**context, "results": [r.to_json() for r in results],
                "totals": [t.to_json() for t in totals]}
    _replace(out / "results.json", json.dumps(document, indent=2) + "\n")
    return text


def _replace(path: Path, text: str) -> None:
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(text)
    os.replace(temp, path)


def load_done(journal: Path) -> dict[tuple[str, str, str], Result]:
    """Verified results of an earlier run, by key; the last record of a key wins."""
    done: dict[tuple[str, str, str], Result] = {}
    if not journal.exists():
        return done
    for line in journal.read_text().splitlines():
        try:
            result = Result.from_json(json.loads(line))
        except (ValueError, TypeError):  # a line cut short by a crash
            continue
        if result.verified:
            done[result.key] = result
        else:
            done.pop(result.key, None)
    return done


@functools.cache
def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# --------------------------------------------------------------------------
# Command line


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench.py", description=__doc__.split("\n\n")[0],
        epilog="See the module docstring (scripts/bench.py) for what is measured and how.")
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help="files and directories to benchmark")
    parser.add_argument("--fade", action="append", type=parse_fade_spec, metavar="SPEC",
                        help=f"a fade configuration, PRESET[:batch=N,device=D,threads=N,native=1]; "
                             f"repeatable (default: {DEFAULT_FADE}; with --quick: {QUICK_FADE})")
    parser.add_argument("--no-fade", action="store_true", help="run the classic compressors only")
    parser.add_argument("--classic", type=parse_classic, default=list(CLASSIC), metavar="LIST",
                        help=f"comma-separated subset of {','.join(CLASSIC)}, or all (default) "
                             "or none")
    parser.add_argument("--slice", type=int, default=None, metavar="BYTES",
                        help="benchmark only the first BYTES of each file")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help=f"where results go (default: {DEFAULT_OUT.relative_to(REPO)}/, "
                             f"with --quick {QUICK_OUT.relative_to(REPO)}/)")
    parser.add_argument("--resume", action="store_true",
                        help="skip the (file, compressor) pairs already in DIR/results.jsonl")
    parser.add_argument("--overwrite", action="store_true",
                        help="start again, discarding an earlier DIR/results.jsonl")
    parser.add_argument("--quick", action="store_true",
                        help=f"a few minutes' check: every file of --corpus (but its "
                             f"README.md and SHA256SUMS) cut to its first {QUICK_SLICE // KIB} KiB, "
                             f"fade {QUICK_FADE}")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, metavar="DIR",
                        help="the corpus --quick runs on (default: ../shared/corpus beside the "
                             "repository, else tests/corpus)")
    args = parser.parse_args(argv)
    if args.quick:
        args.paths = args.paths or [args.corpus]
        args.slice = args.slice or QUICK_SLICE
        args.fade = args.fade or [parse_fade_spec(QUICK_FADE)]
        args.out = args.out or QUICK_OUT
    args.out = args.out or DEFAULT_OUT
    args.fade = [] if args.no_fade else (args.fade or [parse_fade_spec(DEFAULT_FADE)])
    if not args.paths:
        parser.error("give files or directories to benchmark, or --quick")
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        parser.error(f"no such file or directory: {', '.join(missing)}")
    if args.slice is not None and args.slice < 1:
        parser.error("--slice must be at least 1")
    if args.resume and args.overwrite:
        parser.error("--resume and --overwrite contradict each other")
    for compressor in args.fade:
        try:
            check_fade(compressor)
        except ValueError as error:
            parser.error(f"{compressor.name}: {error}")
    return args


def note(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def available_compressors(args: argparse.Namespace) -> tuple[list[Compressor], list[str]]:
    """The compressors to run, and a note for each one skipped."""
    chosen, notes = [], []
    for compressor in args.fade + [CLASSIC[key] for key in args.classic]:
        reason = missing_reason(compressor)
        if reason:
            notes.append(f"skipping {compressor.name}: {reason}")
        else:
            chosen.append(with_absolute_programs(compressor))
    return chosen, notes


def open_journal(args: argparse.Namespace) -> Path | None:
    """DIR/results.jsonl, ready to append to; None (with a note) when that
    would silently throw away an earlier run's hours."""
    args.out.mkdir(parents=True, exist_ok=True)
    journal = args.out / "results.jsonl"
    if journal.exists() and not (args.resume or args.overwrite):
        note(f"{journal} exists: pass --resume to continue that run, or --overwrite to "
             "start again")
        return None
    if args.overwrite:
        journal.unlink(missing_ok=True)
    return journal


def describe_run(args: argparse.Namespace, compressors: list[Compressor],
                 notes: list[str]) -> dict:
    """What results.md and results.json say about the run besides the rows."""
    return {
        "started": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": f"{cpu_name()}, {os.cpu_count()} cores, {platform.system()} "
                   f"{platform.release()}, Python {platform.python_version()}, "
                   f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}",
        "paths": [str(p) for p in args.paths], "slice_bytes": args.slice,
        "inputs": [], "input_bytes": 0, "notes": list(notes),
        "versions": {c.name: tool_version(c) for c in compressors if not c.in_python},
        "compressors": [c.name for c in compressors],
    }


def totals_of(results: list[Result], compressors: list[Compressor]) -> list[Result]:
    return [total(c.name, [r for r in results if r.compressor == c.name]) for c in compressors]


def bench_all(args: argparse.Namespace, sources: list[Source], compressors: list[Compressor],
              journal: Path, context: dict) -> list[Result]:
    """Every (file, compressor) pair not done before, in order, each appended to
    the journal as it finishes; the reports are rewritten after every file, so
    a long run can be read while it goes on."""
    from tqdm import tqdm  # here, so that worker processes never load it

    done = load_done(journal) if args.resume else {}
    results: list[Result] = []
    with tqdm(total=len(sources) * len(compressors), unit="run", file=sys.stderr,
              dynamic_ncols=True, desc="bench") as bar, \
            tempfile.TemporaryDirectory(prefix="fade-bench-") as temp, \
            open(journal, "a") as journal_file:
        workdir = Path(temp)
        for source in sources:
            data = prepare_input(source, args.slice, workdir)
            context["inputs"].append({"file": data.label, "path": str(source.path),
                                      "bytes": data.size, "sha256": data.sha256})
            context["input_bytes"] += data.size
            for compressor in compressors:
                result = done.get((data.label, data.sha256, compressor.name))
                if result is None:
                    bar.set_postfix_str(f"{data.label} · {compressor.name}")
                    result = measure(data, compressor, workdir)
                    journal_file.write(json.dumps(result.to_json()) + "\n")
                    journal_file.flush()
                    if not result.verified:
                        bar.write(f"bench: {source.label} with {compressor.name}: "
                                  f"{result.error}", file=sys.stderr)
                results.append(result)
                bar.update()
            write_reports(args.out, results, totals_of(results, compressors), context)
    return results


def run(args: argparse.Namespace) -> int:
    compressors, notes = available_compressors(args)
    for message in notes:
        note(message)
    if not compressors:
        note("no compressor to run")
        return EXIT_FAILED
    journal = open_journal(args)
    if journal is None:
        return EXIT_USAGE
    sources = collect_sources(args.paths, QUICK_SKIP if args.quick else ())
    context = describe_run(args, compressors, notes)
    if args.slice is not None:
        note(f"slices: each input is the first {args.slice:,} bytes of its file")
    try:
        results = bench_all(args, sources, compressors, journal, context)
    except KeyboardInterrupt:
        note(f"interrupted; finished pairs are in {journal} (run again with --resume)")
        return EXIT_INTERRUPTED
    totals = totals_of(results, compressors)
    for result in results:
        context["versions"].setdefault(result.compressor, result.version)
    title = (f"{len(sources)} files, {context['input_bytes']:,} bytes"
             + (f" (first {args.slice:,} bytes of each)" if args.slice else ""))
    plot_note = plot_ratio_vs_speed(totals, args.out / "ratio_vs_speed.png", title)
    if plot_note:
        note(plot_note)
        context["notes"].append(plot_note)
    print(write_reports(args.out, results, totals, context), end="")
    note(f"results in {args.out}/ (results.md, results.json, results.jsonl"
         + ("" if plot_note else ", ratio_vs_speed.png") + ")")
    failures = sum(not r.verified for r in results)
    if failures:
        note(f"{failures} result(s) FAILED or did not round-trip: see above")
    return EXIT_FAILED if failures else EXIT_OK


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [WORKER_FLAG]:
        return run_worker(argv[1])
    args = parse_args(argv)
    # SIGTERM stops a run like Ctrl-C: the running command is killed, not orphaned.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return run(args)
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
