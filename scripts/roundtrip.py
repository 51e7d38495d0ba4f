"""Round-trip files through the `fade` CLI and report size and speed.

    python scripts/roundtrip.py FILE... [-- COMPRESS-OPTIONS]

Each file is compressed and decompressed by `fade` in fresh processes (as a
user runs it), the output compared byte for byte, and one Markdown row
printed per file: sizes, ratio, bits per byte, both throughputs, peak RSS.
A file that does not round-trip is reported and the exit status is 1.
Example (the README's enwik6 row):

    python scripts/roundtrip.py ../shared/corpus/enwik6 -- --preset paper --batch-size 512
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_cli(args: list[str], cwd: Path) -> tuple[float, int]:
    """Run `fade ARGS`; return (seconds, peak RSS of that process in MiB)."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=cwd,
                                   env={**os.environ, "PYTHONPATH": str(REPO)}, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            raise RuntimeError(errors.read().decode().strip())
    return seconds, usage.ru_maxrss // 1024  # ru_maxrss is in KiB on Linux


def main(argv: list[str]) -> int:
    files, options = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv \
        else (argv, [])
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    print(f"options: `{' '.join(options) or '(defaults)'}`\n")
    print("| file | bytes | fade bytes | ratio | bits/byte | compress KB/s | "
          "decompress KB/s | peak RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    status = 0
    for name in files:
        source = Path(name)
        with tempfile.TemporaryDirectory() as work:
            work = Path(work)
            shutil.copyfile(source, work / "input")
            try:
                c_seconds, c_rss = run_cli(["compress", "-q", *options, "input"], work)
                (work / "input").rename(work / "original")
                d_seconds, d_rss = run_cli(["decompress", "-q", "input.fade"], work)
            except RuntimeError as error:
                print(f"| {source.name} | FAILED: {error} |||||||")
                status = 1
                continue
            if (work / "input").read_bytes() != (work / "original").read_bytes():
                print(f"| {source.name} | ROUND TRIP MISMATCH |||||||")
                status = 1
                continue
            size, packed = source.stat().st_size, (work / "input.fade").stat().st_size
            print(f"| {source.name} | {size:,} | {packed:,} | {size / max(packed, 1):.3f} | "
                  f"{8 * packed / max(size, 1):.3f} | {size / 1024 / c_seconds:.2f} | "
                  f"{size / 1024 / d_seconds:.2f} | {max(c_rss, d_rss)} |", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
