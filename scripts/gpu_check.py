"""The GPU path, measured in one command that fits a short loan of a GPU.

    python scripts/gpu_check.py --device cuda --out OUT --input enwik6 \
        [--wheels DIR] [--budget 480] [--text-size 16M] [--presets balanced] \
        [--batches 4096,512] [--kinds network,hybrid,statistics]

Round trips, each compressed and then decoded by a fresh process and
compared byte for byte with its input, per input in this order, so that a
run cut short keeps the most telling figures:

- the network alone (`--method fade`) at the first of --presets and
  --batches (balanced at 4096 for the paper's scale);
- the hybrid forced (`--level max --method fade`, so the race cannot pick
  the statistics) on the longest prefix whose round trip should fit what
  is left of --budget (--hybrid-size auto; from --hybrid-speed, or from
  the hybrid's own speed on an input before);
- the network at the other presets and batches;
- level max's statistics alone (`--method statistics`) on the whole input
  and on the hybrid's prefix: the bytes the network must beat. They take
  as long on a GPU machine as anywhere, and their bytes are the same on
  every CPU, so a GPU run may leave them to a CPU machine (`--kinds
  statistics --hybrid-size SIZE` there, on the same input file: each row
  records its input's SHA-256).

Inputs are each --input and --text-size bytes of real text made here: this
Python's `.py` sources (its standard library's, then its site-packages'),
sorted by path and concatenated (`--save-text FILE` keeps them, to carry
the same bytes to another machine).
For each: archive bytes, compress and decompress KB/s (whole processes, and
the coding loop alone), the seconds each process spent outside the loop
and, of those, torch's import and CUDA's start, peak GPU memory (torch's
allocator) and peak RSS, and from the loop's per-step timings (`fade
--profile`) the share of the loop's wall time the device sat idle (on a
GPU: no kernel running, which is when the model waits for the coders or
for Python; on a CPU: the model blocked on the coders) and the share the
coders sat idle waiting for the model's probabilities. Then an archive made
on the GPU is decoded with the GPU hidden (CUDA_VISIBLE_DEVICES="") and
with --device cpu: both must be refused in one line before any work. With
--device cpu the same check runs on a CPU archive whose header is
rewritten to claim a GPU.

A case on a later input is skipped where the same settings on the first
input say it would not fit in what is left of --budget, and a case still
running at the budget is stopped. OUT/gpu_check.json and OUT/gpu_check.md
are rewritten after every case, so a run cut short keeps what it measured.

--wheels DIR installs every wheel in DIR (fade's own, constriction: what a
GPU machine lacks) into a folder of the work directory, with no network,
and runs the children from there. fade's wheel: `pip wheel --no-deps
--no-build-isolation -w DIR .` in a checkout.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import glob
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

# The child: run fade's command line in this process, then report what it
# held. A fresh process for every compression and decompression.
CHILD = r"""
import json, resource, sys, time
began = time.perf_counter()
report = {}
if sys.argv[2] != "-":
    # What fade pays inside main before its loop, timed apart: a learned
    # archive imports torch, and on a GPU starts CUDA, before any byte is coded
    # (fade first, as its portable profile on a CPU needs).
    import fade
    mark = time.perf_counter()
    import torch
    report["torch_import_s"] = time.perf_counter() - mark
    if sys.argv[2] == "cuda" and torch.cuda.is_available():
        mark = time.perf_counter()
        torch.zeros(1, device="cuda")
        torch.cuda.synchronize()
        report["cuda_start_s"] = time.perf_counter() - mark
from fade.cli.main import main
rc = main(sys.argv[3:])
report.update(rc=rc, seconds=time.perf_counter() - began,
              peak_rss=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
torch = sys.modules.get("torch")
if torch is not None and torch.cuda.is_initialized():
    report["gpu_peak_allocated"] = torch.cuda.max_memory_allocated()
    report["gpu_peak_reserved"] = torch.cuda.max_memory_reserved()
with open(sys.argv[1], "w") as out:
    json.dump(report, out)
"""

# What the parent learns of the machine, in a child (the parent never
# initialises CUDA: the coder workers are forked from fade's own process).
ABOUT = r"""
import json, os, sys
from importlib.metadata import version
import fade, fade.cli, torch, numba, numpy, constriction
about = {"fade": fade.__version__, "fade_path": os.path.dirname(fade.__file__),
         "torch": torch.__version__, "cuda": torch.version.cuda, "numba": numba.__version__,
         "numpy": numpy.__version__, "constriction": version("constriction"),
         "python": sys.version.split()[0], "cpus": os.cpu_count()}
if torch.cuda.is_available():
    about["gpu"] = torch.cuda.get_device_name(0)
    about["gpu_memory"] = torch.cuda.get_device_properties(0).total_memory
print(json.dumps(about))
"""


@dataclasses.dataclass
class Case:
    name: str  # e.g. "enwik6 network paper b512"
    source: str  # the input's label
    kind: str  # "network", "hybrid" or "statistics"
    args: list[str]  # fade's options beside the common ones
    key: str  # the settings, without the input: for the time estimate
    size: int | None = None  # a prefix of the input this many bytes long; None: all of it
    bytes_of: "Case | None" = None  # statistics: on that case's bytes (its prefix)
    result: dict = dataclasses.field(default_factory=dict)


def python_sources(size: int) -> bytes:
    """`size` bytes of this Python's own sources: its standard library's .py
    files, then (where they are fewer than `size` bytes: 10.7 MB in Python
    3.12) its site-packages' .py files, each set sorted by path and
    concatenated."""
    paths = sysconfig.get_paths()
    stdlib = Path(paths["stdlib"])
    found = sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts)
    for folder in dict.fromkeys((paths["purelib"], paths["platlib"])):
        found += sorted(Path(folder).rglob("*.py"))
    parts, total = [], 0
    for path in found:
        if total >= size:
            break
        try:
            data = path.read_bytes()
        except OSError:  # a broken link: not part of the text
            continue
        parts.append(data)
        total += len(data)
    return b"".join(parts)[:size]


class Runner:
    def __init__(self, args, work: Path, env: dict, deadline: float):
        self.args, self.work, self.env = args, work, env
        self.deadline = deadline  # time.monotonic() at which the run stops
        self.stopped = ""  # why the run ended early, if it did

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def child(self, fade_args: list[str], env: dict | None = None, torch: str = "-") -> dict:
        """fade's command line in a fresh process; its report, stderr and
        whole-process seconds (None where the budget stopped it). `torch`:
        "cpu" or "cuda" where the process runs a network (its import of
        torch, and CUDA's start, are then timed apart), else "-"."""
        report_path = self.work / "child.json"
        report_path.unlink(missing_ok=True)
        began = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, "-c", CHILD, str(report_path), torch,
                                   *fade_args],
                                  env=env or self.env, capture_output=True, text=True,
                                  cwd=self.work, timeout=max(1.0, self.left()))
        except subprocess.TimeoutExpired as expired:
            self.stopped = f"stopped at the budget of {self.args.budget:g} s"
            return {"rc": None, "stderr": (expired.stderr or b"").decode(errors="replace")
                    if isinstance(expired.stderr, bytes) else (expired.stderr or ""),
                    "wall": time.perf_counter() - began}
        report = json.loads(report_path.read_text()) if report_path.exists() else {}
        report.update(wall=time.perf_counter() - began, stderr=done.stderr.strip(),
                      exit=done.returncode)
        report.setdefault("rc", done.returncode)
        return report

    def round_trip(self, case: Case, source: Path) -> dict:
        data = source.read_bytes()
        if case.size is not None and case.size < len(data):
            data = data[:case.size]
            source = self.work / f"prefix-{case.size}"
            source.write_bytes(data)
        archive = self.work / (case.name.replace(" ", "_") + ".fade")
        restored = self.work / "restored"
        profiles = {way: self.work / f"{way}.tsv" for way in ("compress", "decompress")}
        for path in profiles.values():  # (a statistics archive writes none)
            path.unlink(missing_ok=True)
        device = ["--device", self.args.device]
        result = {"case": case.name, "kind": case.kind, "input": case.source,
                  "input_bytes": len(data), "input_sha256": hashlib.sha256(data).hexdigest(),
                  "options": " ".join(case.args)}
        torch = "-" if case.kind == "statistics" else self.args.device
        squeeze = self.child(["-z", "-q", "-f", "--frame-size", "64M", *device, "--profile",
                              str(profiles["compress"]), *case.args, "-o", str(archive),
                              str(source)], torch=torch)
        result["compress"] = summary(squeeze, len(data), profiles["compress"])
        if squeeze["rc"] != 0:
            result["verdict"] = "stopped at the budget" if squeeze["rc"] is None else \
                f"compress failed: {last_line(squeeze['stderr'])}"
            return result
        result["bytes"] = archive.stat().st_size
        result["groups"], result["batch"] = header_groups(archive)
        restored.unlink(missing_ok=True)
        expand = self.child(["-d", "-q", "-f", *device, "--profile",
                             str(profiles["decompress"]), "-o", str(restored), str(archive)],
                            torch=torch)
        result["decompress"] = summary(expand, len(data), profiles["decompress"])
        if expand["rc"] != 0:
            result["verdict"] = "stopped at the budget" if expand["rc"] is None else \
                f"decompress failed: {last_line(expand['stderr'])}"
            return result
        same = restored.read_bytes() == data
        result["verdict"] = "identical" if same else "DIFFERENT BYTES"
        for way in ("compress", "decompress"):
            if case.kind != "statistics":
                result[way].update(idle_shares(profiles[way], result["groups"],
                                               self.args.device))
        restored.unlink(missing_ok=True)
        return result

    def refusals(self, archive: Path) -> list[dict]:
        """A GPU archive decoded on the CPU: refused in one line, before any
        work, leaving no output."""
        checks = []
        if self.args.device == "cuda":
            hidden = dict(self.env, CUDA_VISIBLE_DEVICES="")
            ways = [("GPU hidden (CUDA_VISIBLE_DEVICES=\"\")", [], hidden),
                    ("--device cpu beside the GPU", ["--device", "cpu"], self.env)]
        else:
            archive = claim_gpu(archive, self.work / "claims-gpu.fade")
            ways = [("header rewritten to claim a GPU (simulated on a CPU)", [], self.env)]
        for label, extra, env in ways:
            out = self.work / "refused.out"
            out.unlink(missing_ok=True)
            report = self.child(["-d", "-f", *extra, "-o", str(out), str(archive)], env)
            lines = report["stderr"].splitlines()
            refused = report["rc"] == 1 and len(lines) == 1 and not out.exists()
            checks.append({"how": label, "rc": report["rc"], "seconds": round(report["wall"], 2),
                           "stderr": report["stderr"], "one_line_refusal": refused})
        return checks


def last_line(text: str) -> str:
    return (text.strip().splitlines() or ["(no message)"])[-1]


def header_groups(archive: Path) -> tuple[int, int]:
    from fade.format.archive import unpack
    header, _ = unpack(archive.read_bytes())
    return getattr(header, "groups", 0), getattr(header, "batch_size", 0)


def claim_gpu(archive: Path, target: Path) -> Path:
    """A copy of a learned CPU archive whose header says it was made on a GPU."""
    from fade.format.archive import pack, unpack
    from fade.profile import NATIVE
    header, payload = unpack(archive.read_bytes())
    gpu = dataclasses.replace(header, device_kind="cuda", device_name="NVIDIA H100 80GB HBM3",
                              profile=NATIVE, cuda_version="12.4", cudnn_version="90100")
    target.write_bytes(pack(gpu, payload))
    return target


def summary(report: dict, size: int, profile: Path) -> dict:
    """A side's seconds and speeds; for a network, the seconds outside its
    coding loop (the whole process less the loop: Python's start, torch's
    import, CUDA's start, the model's build, the coders' fork, the file's
    reading, writing and checksum) and the parts of them timed apart."""
    out = {"seconds": round(report["wall"], 3), "rc": report["rc"]}
    if report["rc"] == 0:
        out["kb_s"] = round(size / 1024 / report["wall"], 2)
        rows = read_profile(profile)
        if rows:
            loop = sum(r[0] for r in rows)
            out["loop_seconds"] = round(loop, 3)
            out["loop_kb_s"] = round(size / 1024 / max(loop, 1e-9), 2)
            out["steps"] = len(rows)
            out["outside_seconds"] = round(report["wall"] - loop, 3)
            # before the child's first line: the interpreter's start
            out["python_start_s"] = round(report["wall"] - report["seconds"], 3)
    for key in ("torch_import_s", "cuda_start_s"):
        if key in report:
            out[key] = round(report[key], 3)
    for key in ("peak_rss", "gpu_peak_allocated", "gpu_peak_reserved"):
        if key in report:
            out[key] = report[key]
    return out


def read_profile(path: Path) -> list[tuple[float, ...]]:
    """(wall, device, wait, coder, blocked) seconds per step, from `fade --profile`."""
    if not path.exists():
        return []
    lines = path.read_text().splitlines()[1:]
    return [tuple(float(x) / 1000 for x in line.split("\t")[1:6]) for line in lines]


def idle_shares(profile: Path, groups: int, device: str) -> dict:
    """Shares of the loop's wall time: the device idle, the model's thread
    blocked on the coders, and the coders idle (1 - their busy seconds /
    (wall x coder workers))."""
    from fade.config import coder_threads_for
    rows = read_profile(profile)
    wall = max(sum(r[0] for r in rows), 1e-9)
    workers = coder_threads_for(groups, None, device, os.cpu_count())
    busy = sum(r[3] for r in rows) / (wall * workers)
    return {"device_idle_share": round(sum(r[2] for r in rows) / wall, 4),
            "blocked_share": round(sum(r[4] for r in rows) / wall, 4),
            "coder_idle_share": round(max(0.0, 1 - busy), 4), "coder_workers": workers}


def cases_for(args, sources: list[tuple[str, Path]]) -> list[Case]:
    """Per input, in the order that keeps the most telling figures where the
    budget cuts the run short: the first network (the first of --presets at
    the first of --batches: on a GPU, the paper's scale), the hybrid (on a
    prefix: --hybrid-size), the other networks, then level max's statistics
    alone (`--method statistics`) on the same bytes as the cases before, the
    bytes the network must beat. A network first: it fails fastest where
    the device path is broken, and its archive is the one the refusal needs.
    --kinds leaves kinds out (a CPU machine makes the statistics' rows of a
    GPU run: the same bytes code the same on any CPU)."""
    kinds = set(args.kinds.split(","))
    cases = []
    for label, _ in sources:
        networks = [Case(f"{label} network {name} b{batch}", label, "network",
                         ["--preset", name, "--batch-size", batch, "--method", "fade"],
                         f"{name} b{batch}")
                    for name in args.presets.split(",") for batch in args.batches.split(",")]
        hybrid = ["--level", args.hybrid_level, "--method", "fade"]
        if args.hybrid_preset:
            hybrid += ["--preset", args.hybrid_preset]
        if args.hybrid_batch:
            hybrid += ["--batch-size", str(args.hybrid_batch)]
        size = None if args.hybrid_size in ("auto", "0") else parse_size(args.hybrid_size)
        hybrids = [Case(f"{label} hybrid {args.hybrid_level}", label, "hybrid", hybrid, "hybrid",
                        size=size)]
        if args.groups:
            for case in networks + hybrids:
                case.args += ["--groups", str(args.groups)]
                case.name += f" g{args.groups}"
        group = [case for case in networks[:1] + hybrids + networks[1:] if case.kind in kinds]
        if "statistics" in kinds:
            # on the whole input, and on the hybrid's prefix (its size decided
            # when the hybrid runs, where --hybrid-size is auto; none: skipped then)
            for of in (None, hybrids[0]):
                case = Case(f"{label} statistics {args.hybrid_level}", label, "statistics",
                            ["--level", args.hybrid_level, "--method", "statistics"],
                            "statistics", bytes_of=of)
                group.append(case)
        cases += group
    return cases


def parse_size(text: str) -> int:
    from fade.cli.files import ByteSize  # fade's own size syntax (after --wheels)
    return ByteSize().convert(text, None, None)


def hybrid_size(case: Case, done: list[Case], size: int, left: float, speeds: str) -> int:
    """The bytes of the input the hybrid codes where --hybrid-size is auto:
    all of them where their round trip should fit in `left` seconds, else
    the longest prefix that should, in whole MiB (in 64 KiB under 1 MiB; 0:
    not even that). The seconds come from a hybrid round trip done on an
    input before, else from `speeds` (compress and decompress KB/s,
    measured on a GPU before) and HYBRID_STARTS for the processes' start."""
    cost = round_trip_cost(case, done)
    if cost is not None:
        fixed, per_byte = cost
    else:
        squeeze, expand = (float(x) * 1024 for x in speeds.split(","))
        fixed, per_byte = HYBRID_STARTS, 1 / squeeze + 1 / expand
    fits = int((left - fixed) / max(per_byte, 1e-12))
    if fits >= size:
        return size
    step = 1 << 20 if fits >= 1 << 20 else 1 << 16
    return max(fits, 0) // step * step


KINDS = ("network", "hybrid", "statistics")  # the kinds of case, in --kinds
HYBRID_STARTS = 30.0  # seconds: two processes' start on a GPU machine (8-10 s each, measured)


def round_trip_cost(case: Case, done: list[Case]) -> tuple[float, float] | None:
    """(fixed seconds, seconds a byte) of a round trip with `case`'s settings,
    from the same settings' round trip on another input: its seconds outside
    the loop as they were, its loop's (or, without one, all its seconds) in
    proportion to the bytes."""
    for other in done:
        r = other.result
        if other.key == case.key and r.get("verdict") == "identical":
            sides = (r["compress"], r["decompress"])
            fixed = sum(side.get("outside_seconds", PROCESS_START) for side in sides)
            scaled = sum(side["seconds"] for side in sides) - fixed
            return fixed, max(scaled, 0.0) / r["input_bytes"]
    return None


def estimate(case: Case, done: list[Case], size: int) -> float | None:
    """Seconds a round trip of `size` bytes with `case`'s settings should take."""
    cost = round_trip_cost(case, done)
    return None if cost is None else cost[0] + cost[1] * size


PROCESS_START = 1.0  # seconds a process of the statistics alone takes to start (measured: 0.9)


def size_label(size: int) -> str:
    return f"{size / (1 << 20):g} MiB" if size >= 1 << 20 else f"{size:,} bytes"


def write_reports(out: Path, record: dict) -> None:
    (out / "gpu_check.json").write_text(json.dumps(record, indent=1) + "\n")
    (out / "gpu_check.md").write_text(markdown(record))


def mib(value) -> str:
    return f"{value / (1 << 20):,.0f}" if isinstance(value, (int, float)) else ""


def markdown(record: dict) -> str:
    about = record["machine"]
    where = about.get("gpu") or platform.processor() or "CPU"
    lines = [f"fade {about.get('fade', '?')} on {where} ({about.get('cpus')} CPUs), torch "
             f"{about.get('torch')} (CUDA {about.get('cuda')}), {record['date']}: "
             f"`{record['command']}`", "",
             "| case | input bytes | bytes | bits/byte | compress KB/s (loop) | "
             "decompress KB/s (loop) | outside the loop s c/d (torch, CUDA) | peak GPU MiB | "
             "peak RSS MiB | device idle c/d | model blocked c/d | coders idle c/d | "
             "groups, coders | verdict |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in record["cases"]:
        sides = [r.get("compress", {}), r.get("decompress", {})]

        def speed(side):
            return f"{side['kb_s']:.1f} ({side['loop_kb_s']:.1f})" if "loop_kb_s" in side \
                else ""

        def outside(side):
            if "outside_seconds" not in side:
                return ""
            timed = [f"{side[key]:.1f}" for key in ("torch_import_s", "cuda_start_s")
                     if key in side]
            return f"{side['outside_seconds']:.1f}" + (f" ({', '.join(timed)})" if timed else "")

        def share(key):
            return " / ".join(f"{100 * side[key]:.0f}%" for side in sides if key in side)

        def peak(key):
            return mib(max((side.get(key, 0) for side in sides), default=0) or None)

        size = f"{r['bytes']:,} | {8 * r['bytes'] / r['input_bytes']:.3f}" if "bytes" in r \
            else " | "
        coders = f"{r['groups']}, {sides[0].get('coder_workers', '')}" if r.get("groups") \
            else ""
        lines.append(f"| {r['case']} | {r['input_bytes']:,} | {size} | {speed(sides[0])} | "
                     f"{speed(sides[1])} | {' / '.join(filter(None, map(outside, sides)))} | "
                     f"{peak('gpu_peak_allocated')} | {peak('peak_rss')} | "
                     f"{share('device_idle_share')} | {share('blocked_share')} | "
                     f"{share('coder_idle_share')} | {coders} | {r['verdict']} |")
    lines.append("")
    for check in record["refusals"]:
        verdict = "refused in one line" if check["one_line_refusal"] else "NOT REFUSED AS IT SHOULD"
        lines.append(f"- A GPU archive decoded on the CPU, {check['how']}: {verdict} "
                     f"(exit {check['rc']}, {check['seconds']} s): `{check['stderr']}`")
    for note in record["notes"]:
        lines.append(f"- {note}")
    return "\n".join(lines) + "\n"


def install_wheels(wheels: Path, work: Path) -> Path:
    site = work / "site"
    found = sorted(glob.glob(str(wheels / "*.whl")))
    if not found:
        raise SystemExit(f"gpu_check: no wheels in {wheels}")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps",
                    "--no-compile", "--disable-pip-version-check", "--target", str(site),
                    *found], check=True)
    return site


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--out", required=True, type=Path, help="folder for the JSON and table")
    parser.add_argument("--input", action="append", required=True, type=Path,
                        help="a file to round-trip (repeatable); the first sets the estimates")
    parser.add_argument("--text-size", default="16M",
                        help="bytes of this Python's own .py sources (0: none)")
    parser.add_argument("--save-text", type=Path, default=None,
                        help="also write the text made for --text-size to this file")
    parser.add_argument("--budget", type=float, default=480.0,
                        help="seconds; the run stops itself cleanly there")
    # The first network is the one run first: balanced at 4096, the paper's scale
    # on a GPU (issue 78), then 512 where the budget leaves time.
    parser.add_argument("--presets", default="balanced")
    parser.add_argument("--batches", default="4096,512")
    parser.add_argument("--hybrid-level", default="max")
    parser.add_argument("--hybrid-preset", default=None, help="default: the level's network")
    parser.add_argument("--hybrid-batch", type=int, default=None)
    parser.add_argument("--hybrid-size", default="auto",
                        help="bytes of each input the hybrid codes: auto (all, or the longest "
                             "whole MiB whose round trip fits what is left of --budget), 0 "
                             "(all) or a size (4M)")
    parser.add_argument("--hybrid-speed", default="18,13",
                        help="compress,decompress KB/s that auto assumes for the hybrid before "
                             "it ran on an input (an H200's, docs/results.md)")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="which kinds of case run (statistics: level max's alone, on the "
                             "same bytes as the others)")
    parser.add_argument("--groups", type=int, default=None,
                        help="fade's --groups for every case (default: fade's default)")
    parser.add_argument("--wheels", type=Path, default=None,
                        help="install these wheels (fade, constriction) first, offline")
    parser.add_argument("--work", type=Path, default=None, help="default: a temporary folder")
    args = parser.parse_args(argv)
    unknown = set(args.kinds.split(",")) - set(KINDS)
    if unknown:
        parser.error(f"--kinds: unknown {', '.join(sorted(unknown))} ({', '.join(KINDS)})")
    began = time.monotonic()
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gpu_check-", dir=args.work)).resolve()
    args.input = [path.resolve() for path in args.input]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    try:
        if args.wheels is not None:
            site = install_wheels(args.wheels, work)
            sys.path.insert(0, str(site))
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site),
                                                              env.get("PYTHONPATH")]))
        # Children run in the work folder: a checkout's fade/ must not shadow the wheel's.
        about = subprocess.run([sys.executable, "-c", ABOUT], env=env, capture_output=True,
                               text=True, cwd=work)
        if about.returncode != 0:
            print(about.stderr, file=sys.stderr)
            raise SystemExit("gpu_check: fade or what it needs does not import here")
        runner = Runner(args, work, env, began + args.budget)  # the install counts too
        record = {"machine": json.loads(about.stdout),
                  "date": datetime.date.today().isoformat(),
                  "command": "python " + " ".join([sys.argv[0]] + (argv or sys.argv[1:])),
                  "cases": [], "refusals": [], "notes": []}
        print(f"gpu_check: {record['machine']}", flush=True)
        sources = [(path.name, path) for path in args.input]
        size = 0 if args.text_size.strip() == "0" else parse_size(args.text_size)
        if size:
            text = python_sources(size)
            path = work / "python-sources.txt"
            path.write_bytes(text)
            if args.save_text is not None:
                args.save_text.write_bytes(text)
            label = f"pysrc-{len(text) >> 20}M" if len(text) >= 1 << 20 else \
                f"pysrc-{len(text) >> 10}K"
            sources.append((label, path))
            record["notes"].append(
                f"{label}: {len(text):,} bytes of Python {platform.python_version()}'s "
                f".py sources (the standard library's, then site-packages'), sorted by path, "
                f"concatenated; sha256 {hashlib.sha256(text).hexdigest()[:16]}")
        paths = dict(sources)
        done: list[Case] = []
        for case in cases_for(args, sources):  # in cases_for's order
            whole = paths[case.source].stat().st_size
            if case.bytes_of is not None:  # statistics on the hybrid's prefix
                of = case.bytes_of
                if of.result:  # the hybrid ran here: the bytes it coded
                    size = of.result["input_bytes"] if of.result.get("verdict") == \
                        "identical" else None
                else:  # not here (--kinds): the prefix as --hybrid-size gives it
                    size = of.size
                if size is None or size >= whole:
                    continue  # no prefix: the whole input's case stands for it
                case.size = size
            if runner.stopped:
                record["notes"].append(f"{case.name}: not run ({runner.stopped})")
                continue
            if case.kind == "hybrid" and args.hybrid_size == "auto":
                case.size = hybrid_size(case, done, whole, runner.left(), args.hybrid_speed)
                if case.size == 0:
                    record["notes"].append(f"{case.name}: skipped, not even 64 KiB fits in "
                                           f"the {runner.left():.0f} s left")
                    continue
            if case.size is not None and case.size < whole:
                case.name += f", first {size_label(case.size)}"
            guess = estimate(case, done, min(whole, case.size or whole)) \
                if case.source != sources[0][0] else None
            if guess is not None and guess > runner.left():
                record["notes"].append(f"{case.name}: skipped, about {guess:.0f} s needed "
                                       f"(from {sources[0][0]}), {runner.left():.0f} s left")
                continue
            print(f"gpu_check: {case.name} ({runner.left():.0f} s left)", flush=True)
            case.result = runner.round_trip(case, paths[case.source])
            record["cases"].append(case.result)
            done.append(case)
            print(f"gpu_check:   {json.dumps(case.result)}", flush=True)
            write_reports(args.out, record)
            if case.kind == "network" and case.result.get("verdict") == "identical" and \
                    not record["refusals"]:
                # The first learned archive made: decoded where it must be refused.
                archive = work / (case.name.replace(" ", "_") + ".fade")
                record["refusals"] = runner.refusals(archive)
                write_reports(args.out, record)
        if not record["refusals"]:
            record["notes"].append("no refusal check: no network archive was made")
        record["seconds"] = round(time.monotonic() - began, 1)
        write_reports(args.out, record)
        print((args.out / "gpu_check.md").read_text(), flush=True)
        failed = [c for c in record["cases"] if c["verdict"] not in
                  ("identical", "stopped at the budget")]
        bad = [c for c in record["refusals"] if not c["one_line_refusal"]]
        return 1 if failed or bad else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
