"""fade on a busy machine: the same runs alone and beside busy-loop
processes, in one run, wall and CPU time side by side.

    python scripts/load_bench.py [--busy N] [--case NAME:PRESET:FILE[:BYTES] ...]
        [--variant LABEL[=ENV=VALUE,...] ...] [--no-load] [--compress-only]
        [--fade-arg ARG ...]

Every run is a fresh `fade compress` / `fade decompress` process (what a
user starts), timed from the outside: wall time, and CPU time (user +
system) from the kernel's accounting of the finished child. "Loaded" runs
have N processes (default: one per core) spinning `while True: pass` beside
them, started before and stopped after each run. Every archive is decoded
and compared byte for byte; the archives of a case must be identical under
load and alone (the load may change the speed, never the bits).

The table gives, per case and operation, the loaded/unloaded ratios that
issue 16 judges: wall at most 3x (a fair share of N + 1 busy processes on
N cores is about 2x), CPU at most 1.3x (no time burnt spinning).

Variants run the same cases with other environment settings, e.g. the
behaviour before the fix (libgomp's default spin count) against today's:

    # acceptance of issue 16 (about 10 minutes on two cores)
    python scripts/load_bench.py

    # unloaded speed, old against new setting, on enwik6 (about 9 minutes)
    python scripts/load_bench.py --no-load --compress-only \\
        --case enwik6:balanced:../shared/corpus/enwik6 \\
        --variant new --variant old=GOMP_SPINCOUNT=300000
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_CASES = [f"alice29:balanced:{CORPUS / 'alice29.txt'}",
                 f"slice3k:tiny:{CORPUS / 'alice29.txt'}:3000"]
WALL_LIMIT, CPU_LIMIT = 3.0, 1.3  # issue 16's acceptance


@dataclass(frozen=True)
class Case:
    name: str
    preset: str
    path: Path
    size: int | None  # the first `size` bytes only

    @classmethod
    def parse(cls, spec: str) -> "Case":
        parts = spec.split(":")
        if len(parts) not in (3, 4):
            raise SystemExit(f"load_bench: bad case {spec!r} (NAME:PRESET:FILE[:BYTES])")
        return cls(parts[0], parts[1], Path(parts[2]), int(parts[3]) if len(parts) == 4 else None)


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float


def parse_variant(spec: str) -> tuple[str, dict[str, str]]:
    label, _, settings = spec.partition("=")
    env = {}
    for setting in filter(None, settings.split(",")):
        key, _, value = setting.partition("=")
        env[key] = value
    return label, env


@contextlib.contextmanager
def busy_loops(count: int):
    """`count` processes that spin on a core each until the block ends."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        time.sleep(0.5)  # let them reach the scheduler's steady state
        yield
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()


def timed_fade(args: list[str], env: dict[str, str]) -> Timing:
    """Run `fade ARGS` in a fresh process; its wall and CPU seconds."""
    before = os.times()
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "fade", *args], capture_output=True,
                            env={**os.environ, "PYTHONPATH": str(REPO), **env})
    wall = time.perf_counter() - start
    after = os.times()
    if result.returncode:
        raise SystemExit(f"load_bench: fade {' '.join(args)} failed: "
                         f"{result.stderr.decode().strip()}")
    cpu = (after.children_user - before.children_user) + \
        (after.children_system - before.children_system)
    return Timing(wall, cpu)


def run_case(case: Case, label: str, env: dict[str, str], loads: list[bool], busy: int,
             compress_only: bool, fade_args: list[str], work: Path) -> list[dict]:
    data = case.path.read_bytes()[:case.size] if case.size else case.path.read_bytes()
    source = work / f"{case.name}.in"
    source.write_bytes(data)
    rows, archives = [], {}
    for loaded in loads:
        tag = "loaded" if loaded else "alone"
        archive, restored = work / f"{case.name}.{label}.{tag}.fade", work / f"{case.name}.out"
        runs = [("compress", ["compress", "-q", "-f", "--preset", case.preset, *fade_args,
                              str(source), "-o", str(archive)])]
        if not compress_only:
            runs.append(("decompress", ["decompress", "-q", "-f", str(archive),
                                        "-o", str(restored)]))
        for operation, args in runs:
            with busy_loops(busy) if loaded else contextlib.nullcontext():
                timing = timed_fade(args, env)
            rows.append(dict(case=case.name, variant=label, operation=operation, loaded=loaded,
                             bytes=len(data), timing=timing))
            print(f"  {case.name} {label} {operation} {tag}: {timing.wall:.1f} s wall, "
                  f"{timing.cpu:.1f} s CPU", file=sys.stderr, flush=True)
        archives[tag] = archive.read_bytes()
        if not compress_only and restored.read_bytes() != data:
            raise SystemExit(f"load_bench: {case.name} {label} {tag}: round trip differs")
    if len(set(archives.values())) > 1:
        raise SystemExit(f"load_bench: {case.name} {label}: the archive differs under load")
    return rows


def table(rows: list[dict], busy: int) -> str:
    """Markdown: per case, variant and operation, both loads and their ratios."""
    lines = [f"busy loops: {busy} on {os.cpu_count()} cores", "",
             "| case | variant | operation | KB | alone wall s | loaded wall s | wall ratio "
             "| alone CPU s | loaded CPU s | CPU ratio |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    keyed = {(r["case"], r["variant"], r["operation"], r["loaded"]): r for r in rows}
    seen = []
    for r in rows:
        key = (r["case"], r["variant"], r["operation"])
        if key in seen:
            continue
        seen.append(key)
        alone, loaded = keyed.get((*key, False)), keyed.get((*key, True))
        cells = [r["case"], r["variant"], r["operation"], f"{r['bytes'] / 1024:.1f}"]
        for attribute, limit in (("wall", WALL_LIMIT), ("cpu", CPU_LIMIT)):
            a = getattr(alone["timing"], attribute) if alone else None
            b = getattr(loaded["timing"], attribute) if loaded else None
            cells += [f"{x:.1f}" if x is not None else "–" for x in (a, b)]
            if a and b:
                cells.append(f"{b / a:.2f}x" + ("" if b / a <= limit else f" (> {limit}x)"))
            else:
                cells.append("–")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, default=os.cpu_count(),
                        help="busy-loop processes beside the loaded runs [one per core]")
    parser.add_argument("--case", action="append", dest="cases",
                        help="NAME:PRESET:FILE[:BYTES] (repeatable) [alice29.txt with the "
                             "default preset, its first 3,000 bytes with tiny]")
    parser.add_argument("--variant", action="append", dest="variants",
                        help="LABEL[=ENV=VALUE,...]: run every case with these environment "
                             "settings too (repeatable) [one variant, 'fade', as installed]")
    parser.add_argument("--no-load", action="store_true", help="unloaded runs only")
    parser.add_argument("--compress-only", action="store_true")
    parser.add_argument("--fade-arg", action="append", default=[], dest="fade_args",
                        help="an extra argument for fade compress (repeatable)")
    args = parser.parse_args(argv)
    cases = [Case.parse(spec) for spec in args.cases or DEFAULT_CASES]
    variants = [parse_variant(spec) for spec in args.variants or ["fade"]]
    loads = [False] if args.no_load else [False, True]
    rows = []
    with tempfile.TemporaryDirectory(prefix="fade-load-") as work:
        for case in cases:
            for label, env in variants:
                rows += run_case(case, label, env, loads, args.busy, args.compress_only,
                                 args.fade_args, Path(work))
    print(table(rows, 0 if args.no_load else args.busy))
    return 0


if __name__ == "__main__":
    sys.exit(main())
