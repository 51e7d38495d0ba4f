"""Two (or more) source trees of fade side by side in one run: bytes and
whole-process times of `fade compress -c` and `fade decompress -c` on each
file.

    python scripts/versus.py --tree NAME=DIR [--tree NAME=DIR ...] [--rounds N]
                             [--args "FADE OPTIONS"] [--tree-args NAME="OPTIONS"] FILE...

Each tree is run as `python -m fade` with PYTHONPATH=DIR (a checkout's root,
e.g. a `git worktree` of fade 0.10.0 beside this one), the trees alternating
file by file and round by round, so that a noisy machine's drift falls on
all of them alike. Every archive is decoded in a fresh process and compared
byte for byte with its input (a mismatch exits 1). Prints one Markdown row
per file and tree (the best of the rounds' times), a total row per tree,
and for every tree after the first, the ratios against the first. Each
tree's bytecode is written before the first run (`compileall`), as an
install writes it: where PYTHONDONTWRITEBYTECODE is set, a checkout without
it would parse its sources again in every process (0.06 s each, 2026-12-08).
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time


def run(tree: str, args: list[str], scratch: str) -> tuple[bytes, float]:
    """`fade ARGS` from `tree`, in `scratch` (a working directory of its own:
    `python -m` puts the working directory first on the path)."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    # fade 0.10.0 and before ran as `python -m cli` from a checkout
    module = "fade" if os.path.exists(os.path.join(tree, "fade", "__main__.py")) else "cli"
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", module, *args], cwd=scratch,
                            capture_output=True, env=env)
    seconds = time.perf_counter() - start
    if result.returncode:
        raise SystemExit(f"versus: {tree}: fade {shlex.join(args)} failed: "
                         f"{result.stderr.decode(errors='replace').strip()}")
    return result.stdout, seconds


def write_bytecode(tree: str) -> None:
    """The tree's modules (`fade`, and `cli` at its top where it has one)
    compiled to bytecode beside them."""
    folders = [os.path.join(tree, name) for name in ("fade", "cli")
               if os.path.isdir(os.path.join(tree, name))]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True,
                   stdout=subprocess.DEVNULL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--tree", action="append", required=True, metavar="NAME=DIR")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--args", default="", help="options for every tree's `fade -c`")
    parser.add_argument("--tree-args", action="append", default=[], metavar="NAME=OPTIONS",
                        help="options for one tree's `fade -c`, after --args")
    options = parser.parse_args()
    trees = dict(item.split("=", 1) for item in options.tree)
    extra = dict(item.split("=", 1) for item in options.tree_args)
    rows: dict[tuple[str, str], tuple[int, float, float]] = {}
    for tree in trees.values():
        write_bytecode(tree)
    with tempfile.TemporaryDirectory() as scratch:
        for path in options.files:
            size = os.path.getsize(path)
            for _ in range(options.rounds):
                for name, tree in trees.items():
                    args = ["compress", "-c", *shlex.split(options.args),
                            *shlex.split(extra.get(name, "")), os.path.abspath(path)]
                    archive, packed = run(tree, args, scratch)
                    stored = os.path.join(scratch, "a.fade")
                    with open(stored, "wb") as file:
                        file.write(archive)
                    original, unpacked = run(tree, ["decompress", "-c", stored], scratch)
                    with open(path, "rb") as file:
                        if original != file.read():
                            print(f"versus: {name}: {path} does not round-trip", file=sys.stderr)
                            return 1
                    best = rows.get((path, name))
                    if best is not None:
                        packed, unpacked = min(packed, best[1]), min(unpacked, best[2])
                    rows[(path, name)] = (len(archive), packed, unpacked)
            for name in trees:
                print(f"  {os.path.basename(path)} {name}: {rows[(path, name)]}", file=sys.stderr,
                      flush=True)
    print("| file | tree | bytes | compress s | KB/s | decompress s | KB/s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    totals = {name: [0, 0, 0.0, 0.0] for name in trees}
    for path in options.files:
        size = os.path.getsize(path)
        for name in trees:
            length, packed, unpacked = rows[(path, name)]
            total = totals[name]
            total[0] += size
            total[1] += length
            total[2] += packed
            total[3] += unpacked
            print(f"| {os.path.basename(path)} | {name} | {length:,} | {packed:.2f} | "
                  f"{size / packed / 1000:.1f} | {unpacked:.2f} | {size / unpacked / 1000:.1f} |")
    for name, (size, length, packed, unpacked) in totals.items():
        print(f"| **total** | {name} | {length:,} | {packed:.2f} | {size / packed / 1000:.1f} | "
              f"{unpacked:.2f} | {size / unpacked / 1000:.1f} |")
    first = next(iter(trees))
    for name in list(trees)[1:]:
        print(f"\n{name} against {first}, per file: bytes, compress speed, decompress speed")
        for path in options.files + ["total"]:
            if path == "total":
                a, b = totals[first], totals[name]
                a, b = (a[1], a[2], a[3]), (b[1], b[2], b[3])
            else:
                a, b = rows[(path, first)], rows[(path, name)]
            print(f"- {os.path.basename(path)}: {b[0] / a[0] - 1:+.2%} bytes, "
                  f"{a[1] / b[1]:.2f}x compress, {a[2] / b[2]:.2f}x decompress")
    return 0


if __name__ == "__main__":
    sys.exit(main())
