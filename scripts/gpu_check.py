"""The GPU path, measured in one command that fits a short loan of a GPU.

    python scripts/gpu_check.py --device cuda --out OUT --input enwik6 \
        [--wheels DIR] [--budget 480] [--text-size 16M]

Round trips, each compressed and then decoded by a fresh process and
compared byte for byte with its input:

- the hybrid forced (`--level max --method fade`, so the race cannot pick
  the statistics);
- the network alone (`--method fade`) at each of --presets (paper,
  balanced) and --batches (512, 4096);

on each --input and on --text-size bytes of real text made here: this
Python's `.py` sources (its standard library's, then its site-packages'),
sorted by path and concatenated.
For each: archive bytes, compress and decompress KB/s (whole processes, and
the coding loop alone), peak GPU memory (torch's allocator) and peak RSS,
and from the loop's per-step timings (`fade --profile`) the share of the
loop's wall time the device sat idle (on a GPU: no kernel running, which
is when the model waits for the coders or for Python; on a CPU: the model
blocked on the coders) and the share the coders sat idle waiting for the
model's probabilities. Then an archive made on the GPU is decoded with
the GPU hidden (CUDA_VISIBLE_DEVICES="") and with --device cpu: both must
be refused in one line before any work. With --device cpu the same check
runs on a CPU archive whose header is rewritten to claim a GPU.

Cases run in that order, the inputs' first; a case on the large text is
skipped where the same settings on the first input say it would not fit in
what is left of --budget, and a case still running at the budget is
stopped. OUT/gpu_check.json and OUT/gpu_check.md are rewritten after every
case, so a run cut short keeps what it measured.

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
from fade.cli.main import main
rc = main(sys.argv[2:])
report = {"rc": rc, "seconds": time.perf_counter() - began,
          "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
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
    kind: str  # "hybrid" or "network"
    args: list[str]  # fade's options beside the common ones
    key: str  # the settings, without the input: for the time estimate
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

    def child(self, fade_args: list[str], env: dict | None = None) -> dict:
        """fade's command line in a fresh process; its report, stderr and
        whole-process seconds (None where the budget stopped it)."""
        report_path = self.work / "child.json"
        report_path.unlink(missing_ok=True)
        began = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, "-c", CHILD, str(report_path), *fade_args],
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
        archive = self.work / (case.name.replace(" ", "_") + ".fade")
        restored = self.work / "restored"
        profiles = {way: self.work / f"{way}.tsv" for way in ("compress", "decompress")}
        device = ["--device", self.args.device]
        result = {"case": case.name, "kind": case.kind, "input": case.source,
                  "input_bytes": len(data), "options": " ".join(case.args)}
        squeeze = self.child(["-z", "-q", "-f", "--frame-size", "64M", *device, "--profile",
                              str(profiles["compress"]), *case.args, "-o", str(archive),
                              str(source)])
        result["compress"] = summary(squeeze, len(data), profiles["compress"])
        if squeeze["rc"] != 0:
            result["verdict"] = "stopped at the budget" if squeeze["rc"] is None else \
                f"compress failed: {last_line(squeeze['stderr'])}"
            return result
        result["bytes"] = archive.stat().st_size
        result["groups"], result["batch"] = header_groups(archive)
        restored.unlink(missing_ok=True)
        expand = self.child(["-d", "-q", "-f", *device, "--profile",
                             str(profiles["decompress"]), "-o", str(restored), str(archive)])
        result["decompress"] = summary(expand, len(data), profiles["decompress"])
        if expand["rc"] != 0:
            result["verdict"] = "stopped at the budget" if expand["rc"] is None else \
                f"decompress failed: {last_line(expand['stderr'])}"
            return result
        same = restored.read_bytes() == data
        result["verdict"] = "identical" if same else "DIFFERENT BYTES"
        for way in ("compress", "decompress"):
            result[way].update(idle_shares(profiles[way], result["groups"], self.args.device))
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
    return header.groups, header.batch_size


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
    out = {"seconds": round(report["wall"], 3), "rc": report["rc"]}
    if report["rc"] == 0:
        out["kb_s"] = round(size / 1024 / report["wall"], 2)
        rows = read_profile(profile)
        if rows:
            loop = sum(r[0] for r in rows)
            out["loop_seconds"] = round(loop, 3)
            out["loop_kb_s"] = round(size / 1024 / max(loop, 1e-9), 2)
            out["steps"] = len(rows)
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
    """The network alone at each preset and batch, then the hybrid, per input:
    the network first, as it fails fastest where the device path is broken."""
    cases = []
    for label, _ in sources:
        for name in args.presets.split(","):
            for batch in args.batches.split(","):
                cases.append(Case(f"{label} network {name} b{batch}", label, "network",
                                  ["--preset", name, "--batch-size", batch, "--method", "fade"],
                                  f"{name} b{batch}"))
        hybrid = ["--level", args.hybrid_level, "--method", "fade"]
        if args.hybrid_preset:
            hybrid += ["--preset", args.hybrid_preset]
        if args.hybrid_batch:
            hybrid += ["--batch-size", str(args.hybrid_batch)]
        cases.append(Case(f"{label} hybrid {args.hybrid_level}", label, "hybrid", hybrid,
                          "hybrid"))
    if args.groups:
        for case in cases:
            case.args += ["--groups", str(args.groups)]
            case.name += f" g{args.groups}"
    return cases


def estimate(case: Case, done: list[Case], size: int) -> float | None:
    """Seconds a round trip of `size` bytes with `case`'s settings should
    take, from the same settings' round trip on another input."""
    for other in done:
        r = other.result
        if other.key == case.key and r.get("verdict") == "identical":
            per_byte = (r["compress"]["seconds"] + r["decompress"]["seconds"]) / r["input_bytes"]
            return per_byte * size
    return None


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
             "decompress KB/s (loop) | peak GPU MiB | peak RSS MiB | device idle c/d | "
             "model blocked c/d | coders idle c/d | groups, coders | verdict |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in record["cases"]:
        sides = [r.get("compress", {}), r.get("decompress", {})]

        def speed(side):
            return f"{side['kb_s']:.1f} ({side['loop_kb_s']:.1f})" if "loop_kb_s" in side \
                else ""

        def share(key):
            return " / ".join(f"{100 * side[key]:.0f}%" for side in sides if key in side)

        def peak(key):
            return mib(max((side.get(key, 0) for side in sides), default=0) or None)

        size = f"{r['bytes']:,} | {8 * r['bytes'] / r['input_bytes']:.3f}" if "bytes" in r \
            else " | "
        coders = f"{r['groups']}, {sides[0].get('coder_workers', '')}" if "groups" in r else ""
        lines.append(f"| {r['case']} | {r['input_bytes']:,} | {size} | {speed(sides[0])} | "
                     f"{speed(sides[1])} | {peak('gpu_peak_allocated')} | {peak('peak_rss')} | "
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
    parser.add_argument("--budget", type=float, default=480.0,
                        help="seconds; the run stops itself cleanly there")
    parser.add_argument("--presets", default="paper,balanced")
    parser.add_argument("--batches", default="512,4096")
    parser.add_argument("--hybrid-level", default="max")
    parser.add_argument("--hybrid-preset", default=None, help="default: the level's network")
    parser.add_argument("--hybrid-batch", type=int, default=None)
    parser.add_argument("--groups", type=int, default=None,
                        help="fade's --groups for every case (default: fade's default)")
    parser.add_argument("--wheels", type=Path, default=None,
                        help="install these wheels (fade, constriction) first, offline")
    parser.add_argument("--work", type=Path, default=None, help="default: a temporary folder")
    args = parser.parse_args(argv)
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
        from fade.cli.files import ByteSize  # fade's own size syntax (after --wheels)
        size = 0 if args.text_size.strip() == "0" else \
            ByteSize().convert(args.text_size, None, None)
        if size:
            text = python_sources(size)
            path = work / "python-sources.txt"
            path.write_bytes(text)
            label = f"pysrc-{len(text) >> 20}M" if len(text) >= 1 << 20 else \
                f"pysrc-{len(text) >> 10}K"
            sources.append((label, path))
            record["notes"].append(
                f"{label}: {len(text):,} bytes of Python {platform.python_version()}'s "
                f".py sources (the standard library's, then site-packages'), sorted by path, "
                f"concatenated; sha256 {hashlib.sha256(text).hexdigest()[:16]}")
        paths = dict(sources)
        done: list[Case] = []
        pending = cases_for(args, sources)
        while pending:
            # The first input's cases in order; then the cheapest estimate first.
            first = [c for c in pending if c.source == sources[0][0]]
            if not first:
                pending.sort(key=lambda c: estimate(c, done, paths[c.source].stat().st_size)
                             or float("inf"))
            case = (first or pending)[0]
            pending.remove(case)
            if runner.stopped:
                record["notes"].append(f"{case.name}: not run ({runner.stopped})")
                continue
            guess = estimate(case, done, paths[case.source].stat().st_size) \
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
