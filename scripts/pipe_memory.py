"""Peak memory of fade in a pipe, for inputs of any size (issue 15).

    python scripts/pipe_memory.py random:1G -- -T 2
    python scripts/pipe_memory.py repeat:../shared/corpus/alice29.txt:256M -- --level fast -T 2

Streams a generated input (random bytes from a seeded generator, or a file
repeated to a size) through `fade compress -c ARGS | fade decompress -c`,
each a fresh process reading a pipe, and reports for each side the peak
resident memory of the whole process tree (fade and its -T workers, summed,
sampled every 0.1 s) and of its largest process, the archive's size, the
time, and whether the output's SHA-256 is the input's. This script sits in
the pipe between the stages to hash and count; its own memory is not
counted.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHUNK = 1 << 20
UNITS = {"K": 10, "M": 20, "G": 30}


def size_of(text: str) -> int:
    return int(float(text[:-1]) * (1 << UNITS[text[-1].upper()])) if text[-1:].upper() in \
        UNITS else int(text)


def generate(spec: str):
    """Chunks of the input `spec` describes: random:SIZE or repeat:FILE:SIZE."""
    kind, _, rest = spec.partition(":")
    if kind == "random":
        import numpy as np

        rng, left = np.random.default_rng(15), size_of(rest)
        while left > 0:
            yield rng.bytes(min(CHUNK, left))
            left -= CHUNK
    elif kind == "repeat":
        path, _, size = rest.rpartition(":")
        data, left = Path(path).read_bytes(), size_of(size)
        block = data * max(1, CHUNK // len(data))
        while left > 0:
            yield block[:left]
            left -= len(block[:left])
    else:
        raise SystemExit(f"unknown input {spec!r}: random:SIZE or repeat:FILE:SIZE")


def tree_rss(root: int) -> tuple[int, int]:
    """(sum, largest) resident bytes of `root` and its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as file:
                    parent = int(file.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    total = largest = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/status") as file:
                rss = next((int(line.split()[1]) * 1024 for line in file
                            if line.startswith("VmRSS:")), 0)
        except OSError:
            continue
        total += rss
        largest = max(largest, rss)
    return total, largest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="random:SIZE or repeat:FILE:SIZE (SIZE: 1G, 256M, ...)")
    parser.add_argument("fade_args", nargs="*", help="after --: options for fade compress "
                        "(-T also goes to decompress)")
    args = parser.parse_args()
    fade = [sys.executable, "-m", "fade"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    jobs = [a for i, a in enumerate(args.fade_args)
            if a.startswith("-T") or (i and args.fade_args[i - 1] in ("-T", "--jobs"))
            or a == "--jobs" or a.startswith("--jobs=")]
    compress = subprocess.Popen(fade + ["compress", "-c", *args.fade_args], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    decompress = subprocess.Popen(fade + ["decompress", "-c", *jobs], env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    result = {"in": hashlib.sha256(), "out": hashlib.sha256(), "archive": 0, "size": 0}
    peaks = {"compress": [0, 0], "decompress": [0, 0]}
    done = threading.Event()

    def feed():
        for chunk in generate(args.input):
            result["in"].update(chunk)
            result["size"] += len(chunk)
            compress.stdin.write(chunk)
        compress.stdin.close()

    def relay():
        while chunk := compress.stdout.read(CHUNK):
            result["archive"] += len(chunk)
            decompress.stdin.write(chunk)
        decompress.stdin.close()

    def drain():
        while chunk := decompress.stdout.read(CHUNK):
            result["out"].update(chunk)

    def sample():
        while not done.is_set():
            for name, process in (("compress", compress), ("decompress", decompress)):
                total, largest = tree_rss(process.pid)
                peaks[name] = [max(peaks[name][0], total), max(peaks[name][1], largest)]
            time.sleep(0.1)

    start = time.perf_counter()
    threads = [threading.Thread(target=f) for f in (feed, relay, drain, sample)]
    for thread in threads:
        thread.start()
    for thread in threads[:3]:
        thread.join()
    codes = compress.wait(), decompress.wait()
    seconds = time.perf_counter() - start
    done.set()
    threads[3].join()
    exact = result["in"].digest() == result["out"].digest()
    mib = 1 << 20
    print(f"input {args.input}: {result['size']:,} bytes; fade compress -c "
          f"{' '.join(args.fade_args)} | fade decompress -c {' '.join(jobs)}")
    print(f"archive {result['archive']:,} bytes; {seconds:.1f} s for both stages "
          f"({result['size'] / 1024 / seconds:,.0f} KB/s); exit codes {codes}; "
          f"output {'identical' if exact else 'DIFFERENT'}")
    for name, (total, largest) in peaks.items():
        print(f"{name}: peak RSS {total / mib:,.0f} MiB (all its processes), largest "
              f"process {largest / mib:,.0f} MiB")
    return 0 if exact and codes == (0, 0) else 1


if __name__ == "__main__":
    sys.exit(main())
