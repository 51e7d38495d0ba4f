"""The statistics' first compile by numba at run time: what a first run of
fade pays where no module was compiled at install (fade.statistics.ahead:
an edited checkout, a machine without a C compiler, a measured model).

Compresses the first BYTES bytes of a file at a level with numba's cache
empty (a fresh temporary folder; the one the environment names is not
touched) and the install's modules left aside, then decodes the archive,
and prints both times and the numba functions whose compiles took
longest, each with its own time (its callees' compiles taken out) and its
whole time. Run it before and after a change,
alternating, on an otherwise idle machine: compile times vary with the
machine as the coding does.

    python scripts/compile_time.py [--level fast] [--bytes 700] [--top 20] [FILE]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's fade, not an installed one: trees compared side by side


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", default=str(ROOT / "tests" / "corpus" / "alice29.txt"))
    parser.add_argument("--level", default="fast")
    parser.add_argument("--bytes", type=int, default=700)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    data = Path(args.file).read_bytes()[:args.bytes]
    with tempfile.TemporaryDirectory(prefix="fade-compile-") as cache:
        os.environ["NUMBA_CACHE_DIR"] = cache  # before numba is imported
        import fade
        from fade.statistics import compose
        from numba.core import event

        compose._compiled = lambda composition: None  # (numba's compile, not the install's)

        class Compiles(event.Listener):
            """(own seconds, whole seconds, name) of each compile, nested ones apart."""

            def __init__(self) -> None:
                self.open: list[list] = []
                self.done: list[tuple[float, float, str]] = []

            def on_start(self, ev) -> None:
                name = ev.data["dispatcher"].py_func.__qualname__
                self.open.append([name, time.perf_counter(), 0.0])

            def on_end(self, ev) -> None:
                name, start, inner = self.open.pop()
                whole = time.perf_counter() - start
                if self.open:
                    self.open[-1][2] += whole
                self.done.append((whole - inner, whole, name))

        compiles = Compiles()
        event.register("numba:compile", compiles)
        start = time.perf_counter()
        archive = fade.compress(data, level=args.level, method="statistics")
        compress = time.perf_counter() - start
        start = time.perf_counter()
        assert fade.decompress(archive) == data
        decompress = time.perf_counter() - start
    print(f"{len(data)} bytes at level {args.level}, numba's cache empty: "
          f"compress {compress:.1f} s, then decompress {decompress:.1f} s; "
          f"{len(compiles.done)} compiles")
    print("own s  whole s  function")
    for own, whole, name in sorted(compiles.done, reverse=True)[:args.top]:
        print(f"{own:5.2f}  {whole:7.2f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
