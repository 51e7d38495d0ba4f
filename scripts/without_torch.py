"""The default level's promise, checked: archives made without torch that
decode where torch is not installed.

    python scripts/without_torch.py --python VENV/bin/python [--args "FADE OPTIONS"] FILE...

Compresses each FILE with this interpreter's fade (the default level unless
--args says otherwise), in a fresh process that reports whether torch was
loaded; decodes the archive with the interpreter --python names (a virtual
environment with fade and its other dependencies but no torch: the script
first checks that `import torch` fails there), in a fresh process; and
compares the bytes. Prints one Markdown row per file: sizes, what was
written, whole-process KB/s each way (1024 bytes), whether torch was
loaded, and the verdict; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time

# Compress in this process, then say whether torch was loaded.
COMPRESS = ("import sys; from fade.cli.main import main; status = main(sys.argv[1:]); "
            "print('torch' in sys.modules); sys.exit(status)")


def timed(argv: list[str], cwd: str) -> tuple[subprocess.CompletedProcess, float]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True)
    return done, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--python", required=True, help="an interpreter without torch")
    parser.add_argument("--args", default="", help="fade's options when compressing")
    args = parser.parse_args()
    probe = subprocess.run([args.python, "-c", "import torch"], capture_output=True)
    if probe.returncode == 0:
        raise SystemExit(f"without_torch: {args.python} imports torch")
    failed = False
    print("| file | bytes | archive | written as | compress KB/s | decompress KB/s "
          "(no torch) | torch loaded | verdict |")
    print("|---|---:|---:|---|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as scratch:  # children run here: no checkout on the path
        archive, restored = os.path.join(scratch, "a.fade"), os.path.join(scratch, "a")
        for path in args.files:
            data = open(path, "rb").read()
            squeeze, packing = timed([sys.executable, "-c", COMPRESS, *shlex.split(args.args),
                                      "-q", "-f", "-o", archive, os.path.abspath(path)],
                                     scratch)
            if squeeze.returncode:
                print(f"| {os.path.basename(path)} | {len(data):,} | | | | | | compress "
                      f"failed: {squeeze.stderr.decode(errors='replace').strip()} |")
                failed = True
                continue
            loaded = squeeze.stdout.decode().strip().splitlines()[-1]
            listed = subprocess.run([args.python, "-m", "fade", "-l", archive], cwd=scratch,
                                    capture_output=True, text=True).stdout.splitlines()
            kind = listed[1].split()[4] if len(listed) > 1 else "?"
            expand, unpacking = timed([args.python, "-m", "fade", "-d", "-q", "-f", "-o",
                                       restored, archive], scratch)
            same = expand.returncode == 0 and open(restored, "rb").read() == data
            verdict = "identical" if same else \
                f"FAILED: {expand.stderr.decode(errors='replace').strip() or 'different bytes'}"
            failed |= not same or loaded != "False"
            print(f"| {os.path.basename(path)} | {len(data):,} | "
                  f"{os.path.getsize(archive):,} | {kind} | {len(data) / 1024 / packing:.1f} | "
                  f"{len(data) / 1024 / unpacking:.1f} | {'yes' if loaded == 'True' else 'no'} | "
                  f"{verdict} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
