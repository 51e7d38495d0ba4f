"""The cost of frames: one input compressed at several frame sizes, side by side.

    python scripts/frame_sweep.py FILE [--level fast] [--preset P] \\
        [--frame-sizes 512K,1M,2M,4M] [--jobs N]

For each frame size (and the whole input as one frame) prints the archive
size, its cost against one frame, the number of frames (the work that can
run in parallel) and the compression time with N jobs; first, the input as
one piece, not cut where its kind changes (`fade.compress`: what the cuts
of fade/cuts.py are measured against); the round trip of each archive is
checked in this process (unless --no-verify). Run it alone on the
machine: the times are of one run each. `--frame-sizes ""`: the whole
input only.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fade  # noqa: E402  (first: it sets what torch reads when it loads)
from fade import frames  # noqa: E402

UNITS = {"K": 10, "M": 20, "G": 30}


def size(text: str) -> int:
    text = text.strip().upper()
    return int(float(text[:-1]) * (1 << UNITS[text[-1]])) if text[-1] in UNITS else int(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--level", default=None)
    parser.add_argument("--preset", default=None)
    parser.add_argument("--frame-sizes", default="512K,1M,2M,4M")
    parser.add_argument("--jobs", type=int, default=0, help="0: one per core")
    parser.add_argument("--no-verify", action="store_true",
                        help="skip the round-trip check (it doubles the time)")
    args = parser.parse_args()
    data = args.file.read_bytes()
    jobs = args.jobs or frames.default_jobs()
    whole_size = max(len(data), 4096)
    sizes = [whole_size] + [size(s) for s in args.frame_sizes.split(",") if s.strip()]
    print(f"{args.file} ({len(data):,} bytes), level {args.level}, preset {args.preset}, "
          f"{jobs} jobs")
    print("| frame size | frames | archive bytes | vs one frame | bits/byte | compress s |")
    print("|---:|---:|---:|---:|---:|---:|", flush=True)
    start = time.perf_counter()
    piece = fade.compress(data, level=args.level, preset_name=args.preset)
    seconds = time.perf_counter() - start
    if not args.no_verify:
        assert fade.decompress(piece) == data
    print(f"| one piece, not cut by kind | 1 | {len(piece):,} | | "
          f"{8 * len(piece) / len(data):.3f} | {seconds:.1f} |", flush=True)
    whole = None
    for frame_size in sizes:  # the whole input first: the others are measured against it
        out = io.BytesIO()
        start = time.perf_counter()
        fade.compress_stream(io.BytesIO(data), out.write, frame_size=frame_size, jobs=jobs,
                             level=args.level, preset_name=args.preset)
        seconds = time.perf_counter() - start
        blob = out.getvalue()
        if not args.no_verify:
            assert fade.decompress(blob) == data, frame_size
        whole = whole or len(blob)
        label = f"whole (cut by kind: {100 * (len(blob) / len(piece) - 1):+.2f}% against one " \
            "piece)" if frame_size == whole_size else f"{frame_size:,}"
        print(f"| {label} | {-(-len(data) // frame_size)} | {len(blob):,} | "
              f"{100 * (len(blob) / whole - 1):+.2f}% | {8 * len(blob) / len(data):.3f} | "
              f"{seconds:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
