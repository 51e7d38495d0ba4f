"""Hash every statistics model's stream, to show a restructuring keeps the bytes.

    PYTHONPATH=. python scripts/stream_hashes.py [--corpus DIR] [NUMBER...] > hashes.txt

For each model fade.statistics can code (the table's, the colour band's
and the candidates: fade.statistics.models.EVERY_MODEL, or the NUMBERs
given), codes a sample of its kind from the corpus (tests/corpus unless
--corpus: 40 KB, 60 KB of an image or a JPEG) in file order, and its first
6 KB over three keyed lockstep sub-streams (the hybrid's order, no
network), at its level's settings, and prints a line: the number, kind,
level, each stream's size and the start of its sha256. Run it in the tree
before and after, and compare the two outputs (`diff`).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
from pathlib import Path

from fade import statistics
from fade.config import LEVELS
from fade.statistics.models import EVERY_MODEL
from statistics_sweep import lockstep_stream  # (beside this script)

SAMPLES = {"text": "alice29.txt", "table": "umath-cos.csv", "markup": "docx-styles.xml",
           "log": "dpkg.log", "dna": "genome-2.fna", "x86": "mapsdatazrh",
           "audio": "pydub-test1.wav", "image": "coins.pgm", "image-green": "chelsea.ppm",
           "image-green-swap": "chelsea.ppm", "pixels": "coins.pgm",
           "pixels-green": "chelsea.ppm", "pixels-green-swap": "chelsea.ppm",
           "binary": "mapsdatazrh", "jpeg": "testorig.jpg", None: "lcet10.txt"}
WHOLE = ("image", "image-green", "image-green-swap", "jpeg")  # (their headers kept)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("numbers", nargs="*", type=int, help="models (all unless given)")
    parser.add_argument("--corpus", default=str(Path(__file__).parent.parent / "tests" / "corpus"))
    args = parser.parse_args()
    for number, model in enumerate(EVERY_MODEL):
        if args.numbers and number not in args.numbers:
            continue
        level = model.level if model.level in LEVELS else "default"
        config = dataclasses.replace(LEVELS[level].statistics, model=number)
        data = (Path(args.corpus) / SAMPLES[model.kind]).read_bytes()
        data = data[:60_000] if model.kind in WHOLE else data[:40_000]
        alone = statistics.encode_file(data, config.sized(len(data))) or b""
        stepped = lockstep_stream(data[:6_000], config, 3)
        print(number, model.kind, model.level, len(alone), hashlib.sha256(alone).hexdigest()[:16],
              len(stepped), hashlib.sha256(stepped).hexdigest()[:16], flush=True)


if __name__ == "__main__":
    main()
