"""numba's ahead-of-time compiler (numba.pycc) on one level's model for a
kind, against numba's compiler at run time: a way to no compile at run
time (issue 76), measured.

    python scripts/aot_probe.py [--level default] [--kind text] [--target host] \
        [--rounds 3] FILE

Builds the extension module of the model's composition as an install does
(fade.statistics.ahead) for LLVM's --target CPU ("host", or "" for pycc's
generic x86-64), in a temporary folder; then, each in a fresh process: imports the module alone
(with numpy: is numba loaded?), and codes FILE in file order with
fade.statistics.encode_file, once with the module's entry points and once
with numba's (from its cache, after a first call), the two alternating
--rounds times, and checks that both streams are the same bytes.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's fade

# A child: code FILE once with the level's model for the kind, the entry
# points from the module named (or numba's: "-"), after a first call that
# loads them; print the seconds, the stream's size and its digest.
CHILD = r"""
import hashlib, importlib, sys, time
folder, name, path, level, kind = sys.argv[1:6]
sys.path.insert(0, folder)
from fade import statistics
from fade.config import LEVELS
from fade.statistics import compose
compose._compiled = lambda composition: (None if name == "-" else importlib.import_module(name))
data = open(path, "rb").read()
config = LEVELS[level].statistics.for_kind(kind).sized(len(data))
statistics.encode_file(data[:100], config)
began = time.perf_counter()
stream = statistics.encode_file(data, config)
print(time.perf_counter() - began, len(stream), hashlib.sha256(stream).hexdigest())
"""

IMPORT = r"""
import importlib, sys, time
sys.path.insert(0, sys.argv[1])
began = time.perf_counter()
import numpy
importlib.import_module(sys.argv[2])
print(time.perf_counter() - began, "numba" in sys.modules)
"""


def build(folder: Path, level: str, kind: str, target: str) -> tuple[str, float]:
    """The name of the module fade.statistics.ahead writes into `folder` for
    the level's model for the kind, and the seconds it took."""
    from fade.config import LEVELS
    from fade.statistics.ahead import build as build_module
    from fade.statistics.compose import composition_of
    from fade.statistics.models import MODEL_PARTS

    model = LEVELS[level].statistics.for_kind(kind).model
    began = time.perf_counter()
    path = build_module(folder, composition_of(MODEL_PARTS[model]), model, target)
    return path.name.split(".")[0], time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--level", default="default")
    parser.add_argument("--kind", default="text")
    parser.add_argument("--target", default="host", help='LLVM CPU; "" for generic x86-64')
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fade-aot-") as temporary:
        folder = Path(temporary)
        name, seconds = build(folder, args.level, args.kind, args.target)
        built = next(folder.glob(f"{name}*.so"))
        print(f"built {built.name}: {built.stat().st_size:,} bytes in {seconds:.1f} s "
              f"(target {args.target or 'generic'})")
        loaded = subprocess.run([sys.executable, "-c", IMPORT, str(folder), name],
                                capture_output=True, text=True, check=True).stdout.split()
        print(f"numpy and the module imported in {float(loaded[0]):.3f} s in a fresh process; "
              f"numba loaded: {loaded[1]}")
        results = {"module": [], "numba": []}
        for _ in range(args.rounds):
            for way, module in (("module", name), ("numba", "-")):
                done = subprocess.run([sys.executable, "-c", CHILD, str(folder), module,
                                       args.file, args.level, args.kind],
                                      capture_output=True, text=True, check=True, cwd=ROOT)
                seconds, size, digest = done.stdout.split()
                results[way].append((float(seconds), int(size), digest))
        for way, runs in results.items():
            times = sorted(run[0] for run in runs)
            print(f"{way:7} {Path(args.file).name} at {args.level} ({args.kind}): "
                  f"{runs[0][1]:,} bytes, encode {', '.join(f'{x:.2f}' for x in times)} s")
        same = {run[2] for runs in results.values() for run in runs}
        print("the same stream both ways" if len(same) == 1 else "STREAMS DIFFER")
        return 0 if len(same) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
