"""F_JPEG's models on damaged JPEGs: every mutated file codes and decodes
exactly, in bounded time (issue 77's fuzz).

    PYTHONPATH=. python scripts/jpeg_fuzz.py [--level default] [--model M]
        [--count 1000] [--seed 77] JPEG...

Each round takes one of the JPEGs (in turn) and damages it one way, chosen
at random: a byte set to a random value, a run of bytes cut out, random
bytes put in, the file cut short, a marker segment dropped (its Huffman or
quantisation tables gone), the frame's size said to be 65535x65535, a
start of image put inside the scan, a segment repeated. It is coded with
the level's JPEG model, or model M (a number, or a candidate's name)
(fade.statistics.encode_file, in file order) and
decoded, and the bytes compared; the time of both against the undamaged
file's. The memory is the model's tables, sized before coding by the
config and the length alone (the parser allocates nothing from what a
header says). Prints the rounds, the kinds of damage, the slowest ratio,
and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this tree's fade
from fade import statistics  # noqa: E402
from fade.config import LEVELS  # noqa: E402
from fade.statistics.models import CANDIDATE_MODELS, LEVEL_MODELS  # noqa: E402
from jpeg_follow import segments  # noqa: E402  (beside this script)


def _segments(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each marker segment before the scan (jpeg_follow's walk)."""
    found, pos = [], 2
    for marker, payload, coded in segments(data):
        if marker == 0xDA:
            break
        found.append((pos, pos + 4 + len(payload)))
        pos += 4 + len(payload) + len(coded)
    return found


def damaged(data: bytes, rng: np.random.Generator) -> tuple[str, bytes]:
    """One way of damaging a JPEG, and the damaged bytes."""
    way = int(rng.integers(8))
    at = int(rng.integers(2, len(data)))
    segments = _segments(data) or [(2, 2)]
    start, end = segments[int(rng.integers(len(segments)))]
    if way == 0:
        return "byte", data[:at] + bytes([int(rng.integers(256))]) + data[at + 1:]
    if way == 1:
        return "cut", data[:at] + data[at + int(rng.integers(1, 256)):]
    if way == 2:
        return "inserted", data[:at] + rng.bytes(int(rng.integers(1, 64))) + data[at:]
    if way == 3:
        return "short", data[:at]
    if way == 4:
        return "segment dropped", data[:start] + data[end:]
    if way == 5:
        sof = data.find(b"\xff\xc0")
        if sof < 0:
            return "byte", data[:at] + b"\x00" + data[at + 1:]
        return "huge frame", data[:sof + 5] + b"\xff\xff\xff\xff" + data[sof + 9:]
    if way == 6:
        scan = max(data.find(b"\xff\xda"), 2)
        at = int(rng.integers(scan, len(data)))
        return "image start in scan", data[:at] + b"\xff\xd8\xff\xdb" + data[at:]
    return "segment repeated", data[:end] + data[start:end] + data[end:]


def coded(data: bytes, config) -> tuple[bool, float]:
    """Whether `data` codes and decodes back exactly, and the seconds it took."""
    config = config.sized(len(data))
    start = time.perf_counter()
    stream = statistics.encode_file(data, config)
    back = data if stream is None else statistics.decode_file(stream, len(data), config)
    return back == data, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--level", default="default")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("files", nargs="+")
    options = parser.parse_args()
    model = LEVEL_MODELS[(options.level, "jpeg")] if options.model is None else \
        CANDIDATE_MODELS.get(options.model) or int(options.model)
    config = dataclasses.replace(LEVELS[options.level].statistics, model=model)
    photos = [Path(name).read_bytes() for name in options.files]
    base = []
    for photo in photos:
        coded(photo, config)  # (the compiled code loaded)
        base.append(min(coded(photo, config)[1] for _ in range(3)))
    rng = np.random.default_rng(options.seed)
    ways: dict[str, int] = {}
    slowest, failed = 0.0, []
    for round_ in range(options.count):
        k = round_ % len(photos)
        way, data = damaged(photos[k], rng)
        ways[way] = ways.get(way, 0) + 1
        same, seconds = coded(data, config)
        slowest = max(slowest, seconds / base[k])
        if not same:
            failed.append((round_, way))
    print(f"{options.count} damaged files of {len(photos)} JPEGs, model {model}: "
          f"{options.count - len(failed)} coded and decoded exactly; slowest "
          f"{slowest:.2f}x its undamaged file's time")
    print("damage:", ", ".join(f"{way} {count}" for way, count in sorted(ways.items())))
    if failed:
        print("different after decoding:", failed[:20])
        raise SystemExit(1)


if __name__ == "__main__":
    main()
