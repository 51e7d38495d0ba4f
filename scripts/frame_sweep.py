"""The cost of frames: one input compressed at several frame sizes, side by side.

    python scripts/frame_sweep.py FILE [--level fast] [--preset P] \\
        [--frame-sizes 512K,1M,2M,4M] [--jobs N]

For each frame size (and the whole input as one frame) prints the archive
size, its cost against one frame, the number of frames (the work that can
run in parallel) and the compression time with N jobs; first, the input as
one piece, not cut where its kind changes (`fade.compress`: what the cuts
of fade/cuts.py are measured against), after the pieces the input would be
cut into as one frame and what LZMA saves coding them whole
(`cuts.saving`: where more than cuts.SHARED of the input, the frame is
coded whole too). The round trip of each archive is
checked in this process (unless --no-verify). Run it alone on the
machine: the times are of one run each. `--frame-sizes ""`: the whole
input only.

`--cut-trials`: instead, for each cut fade.cuts makes (A before it, B
after it), a trial of what a guard at the cut could see: the bits of B's
first C bytes (race.guard_check of B) coded by B's own model from nothing,
against those of the model the level picks for the whole input coding
them after the last H bytes of A (H = C and 4C): the first smaller says
the cut pays at its start.
"""

from __future__ import annotations

import argparse
import io
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fade  # noqa: E402  (first: it sets what torch reads when it loads)
from fade import cuts, frames, race, single, statistics  # noqa: E402
from fade.kinds import Screen  # noqa: E402

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
    parser.add_argument("--cut-trials", action="store_true",
                        help="a trial at each cut instead (see above)")
    args = parser.parse_args()
    data = args.file.read_bytes()
    if args.cut_trials:
        return cut_trials(data, args.level or "default")
    jobs = args.jobs or frames.default_jobs()
    whole_size = max(len(data), 4096)
    sizes = [whole_size] + [size(s) for s in args.frame_sizes.split(",") if s.strip()]
    print(f"{args.file} ({len(data):,} bytes), level {args.level}, preset {args.preset}, "
          f"{jobs} jobs")
    settings = fade.Settings(level=args.level, preset=args.preset)
    if settings.kind_model("text") is not None:
        pieces = cuts.kind_pieces(data, settings.kind_model)
        saved = cuts.saving(data, pieces) if len(pieces) > 1 else 0
        print(f"pieces where the kind changes (one frame): {pieces}; LZMA codes them whole in "
              f"{saved:,} bytes fewer ({100 * saved / len(data):.3f}% of the input): "
              f"{'coded whole too' if cuts.shared(data, pieces) else 'not coded whole'}")
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


def cut_trials(data: bytes, level: str) -> int:
    """`--cut-trials` (see above): a row for each cut of `data`."""
    import numpy as np

    statistics_of = single.named_level(level).statistics
    sizes = cuts.kind_pieces(data, single.Settings(level=level).kind_model)
    whole = Screen.of(data).kind
    print(f"level {level}, the whole input's kind {whole}, pieces {sizes}")
    print("| cut at | kinds | C | B's model alone, bits | the whole's, after C of A | "
          "after 4C of A |")
    print("|---:|---|---:|---:|---:|---:|", flush=True)
    starts = [0, *itertools.accumulate(sizes)]
    for k in range(1, len(sizes)):
        before = data[starts[k - 1]:starts[k]]
        after = data[starts[k]:starts[k + 1]]
        check = race.guard_check(len(after))
        kind = Screen.of(after).kind
        alone = race.file_order(statistics_of.for_kind(kind), check)
        row = [f"{starts[k]:,}", f"{Screen.of(before).kind} to {kind}", f"{check:,}",
               f"{statistics.encode_file_marked(after[:check], alone, np.array([check]))[1][0]:,}"]
        for history in (min(check, len(before)), min(4 * check, len(before))):
            config = race.file_order(statistics_of.for_kind(whole), history + check)
            bits = statistics.encode_file_marked(before[-history:] + after[:check], config,
                                                 np.array([history, history + check]))[1]
            row.append(f"{bits[1] - bits[0]:,}")
        print("| " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
