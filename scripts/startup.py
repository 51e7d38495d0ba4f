"""What a process of fade costs before it codes: whole processes on a
1-byte file, and `import fade`, against `python -c "import numpy"`, one
or more source trees side by side in one run.

    python scripts/startup.py --tree NAME=DIR [--tree NAME=DIR ...] [--rounds 15]

Each round runs every command once, in turn (numpy's import first, then
each tree's commands), each a fresh `python` with PYTHONPATH=DIR, from a
scratch folder (so that `-m fade` finds the tree's fade, not an install);
the table gives each command's median wall time and its ratio to numpy's
median (issue 76 asks 1.5x for the 1-byte file, 1.2x for `import fade`).
The archive of the 1-byte file is decoded by each tree and compared.
Python writes bytecode here even where PYTHONDONTWRITEBYTECODE is set, as
an install's is written at install: a first, untimed round writes it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, bytes]:
    """Wall seconds of `argv` as a new process, and its standard output."""
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"startup: {' '.join(argv)} failed: {done.stderr.decode()[-500:]}")
    return seconds, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", required=True, metavar="NAME=DIR")
    parser.add_argument("--rounds", type=int, default=15)
    options = parser.parse_args()
    trees = dict(item.split("=", 1) for item in options.tree)
    python = sys.executable
    base = {key: value for key, value in os.environ.items()
            if key not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    with tempfile.TemporaryDirectory() as scratch:
        with open(os.path.join(scratch, "one"), "wb") as file:
            file.write(b"a")
        commands = {("numpy", "import"): ([python, "-c", "import numpy"], base)}
        for name, tree in trees.items():
            env = dict(base, PYTHONPATH=os.path.abspath(tree))
            archive = f"{name}.fade"
            commands[(name, "1-byte compress")] = (
                [python, "-m", "fade", "-q", "-f", "-o", archive, "one"], env)
            commands[(name, "1-byte decompress")] = (
                [python, "-m", "fade", "-d", "-q", "-c", archive], env)
            commands[(name, "import fade")] = ([python, "-c", "import fade"], env)
        times: dict[tuple[str, str], list[float]] = {key: [] for key in commands}
        for round_ in range(options.rounds + 1):
            for key, (argv, env) in commands.items():
                seconds, out = timed(argv, env, scratch)
                if key[1] == "1-byte decompress" and out != b"a":
                    raise SystemExit(f"startup: {key[0]} decoded {out!r}, not b'a'")
                if round_:  # the first round writes bytecode
                    times[key].append(seconds)
    numpy_median = statistics.median(times[("numpy", "import")])
    print(f"{options.rounds} rounds, medians, `{python}`")
    print("| tree | command | seconds | against `import numpy` |")
    print("|---|---|---:|---:|")
    for (name, what), values in times.items():
        median = statistics.median(values)
        print(f"| {name} | {what} | {median:.3f} | {median / numpy_median:.2f}x |")


if __name__ == "__main__":
    main()
