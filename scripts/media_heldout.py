"""Assemble the held-out recordings of issue 38 (audio), and measure the
format-specific coders on them.

    python scripts/media_heldout.py OUT_DIR [--mirror DIR] [--anchors]

Each file is a whole real file, checked against its SHA-256 (sources as in
scripts/kinds_heldout.py, whose reader this uses): two of Debian 12's
packages (install them with `apt-get install alsa-utils sound-icons`) and
jiaaro/pydub's test data at a pinned commit, read from the snapshot that
the `fetch` tool brings under --mirror. None of them was looked at while
fade's audio models were written, but for pydub_test-dc_offset.wav, whose
channels differ by a constant, which the stereo side of the predictor
answers (docs/statistics.md, "Models 21 to 23"):

- Front_Left.wav, Rear_Right.wav: speech, 16-bit mono, 48 kHz (alsa-utils;
  the same voice as Front_Center.wav, which the models were tried on);
- glass-water-1.wav, guitar-12.wav: sounds, 16-bit mono, 16 kHz (sound-icons);
- pydub_test1.wav: 10 s, 16-bit stereo, 32 kHz; pydub_test4.wav: 8 s,
  16-bit mono, 48 kHz; pydub_test-dc_offset.wav: 10 s, 16-bit stereo,
  22 kHz.

With --anchors, prints a Markdown table of the bytes of FLAC -8, WavPack
-hhx6 and xz -9e on each file, every one decoded again and compared.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

from kinds_heldout import source_bytes

PYDUB = ("jiaaro+pydub", "996cec42e9621701edb83354232b2c0ca0121560")
FILES = {
    "Front_Left.wav": (("file", "/usr/share/sounds/alsa/Front_Left.wav"),
                       "9f97e8458785da2f0aa0ec60bf9cc81520cbf80a4683e83eca9cb5f2958e9fef"),
    "Rear_Right.wav": (("file", "/usr/share/sounds/alsa/Rear_Right.wav"),
                       "12828d125f692faa75c7445d52125dcc2c36f82c4f7a3ef49b8ae6afd74ada9d"),
    "glass-water-1.wav": (("file", "/usr/share/sounds/sound-icons/glass-water-1.wav"),
                          "943f21d8fd9038dd5ba704076006d69ddccdb9c5ba302591afff9ee940d3adc2"),
    "guitar-12.wav": (("file", "/usr/share/sounds/sound-icons/guitar-12.wav"),
                      "9ad7c730706aecb420604e8b65cd72952102a16f68e72416c18bf18395a773c4"),
    "pydub_test1.wav": (("git", *PYDUB, "test/data/test1.wav"),
                        "b935e12085ff5d6828f756fa16188052cc65fc5d60fcd4a6e9138ece86530575"),
    "pydub_test4.wav": (("git", *PYDUB, "test/data/test4.wav"),
                        "c952f27f8bfdbc9553da936b9eec07c157220438a0a9ded245dff9c77a6193f9"),
    "pydub_test-dc_offset.wav": (
        ("git", *PYDUB, "test/data/test-dc_offset.wav"),
        "8cee8224c33f3f3c0f4d57acc2bc62a563f7699a28f2f70d48331b3be82e7fb7"),
}
# name: (OUT's extension, encode to OUT, decode OUT to BACK), {} filled in
ANCHORS = {
    "FLAC -8": (".flac", ["flac", "-8", "-s", "-f", "-o", "{out}", "{file}"],
                ["flac", "-d", "-s", "-f", "-o", "{back}", "{out}"]),
    "WavPack -hhx6": (".wv", ["wavpack", "-hhx6", "-q", "-y", "{file}", "-o", "{out}"],
                      ["wvunpack", "-q", "-y", "{out}", "-o", "{back}"]),
    "xz -9e": (".xz", ["sh", "-c", "xz -9e -c < '{file}' > '{out}'"],
               ["sh", "-c", "xz -dc < '{out}' > '{back}'"]),
}


def anchor_bytes(file: Path, extension: str, encode: list[str], decode: list[str],
                 scratch: Path) -> int:
    """The size of `file` coded by one anchor, after checking it decodes back."""
    coded = scratch / f"{file.name}{extension}"
    names = {"file": str(file), "out": str(coded), "back": str(scratch / "back.wav")}
    for command in (encode, decode):
        subprocess.run([part.format(**names) for part in command], check=True,
                       capture_output=True)
    if (scratch / "back.wav").read_bytes() != file.read_bytes():
        raise SystemExit(f"media_heldout: {file.name}: {encode[0]} did not give it back")
    return coded.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--anchors", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    made = []
    for name, (source, digest) in FILES.items():
        try:
            data = source_bytes(source, args.mirror, Path())
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"media_heldout: {name}: skipped, its source is missing ({error})",
                  file=sys.stderr)
            continue
        if hashlib.sha256(data).hexdigest() != digest:
            print(f"media_heldout: {name}: skipped, its source differs from the one pinned",
                  file=sys.stderr)
            continue
        (args.out / name).write_bytes(data)
        made.append(args.out / name)
    print(f"{len(made)} of {len(FILES)} files in {args.out}")
    if args.anchors and made:
        print(f"\n| file | bytes | {' | '.join(ANCHORS)} |\n|---|---:|" + "---:|" * len(ANCHORS))
        with tempfile.TemporaryDirectory() as scratch:
            for file in made:
                sizes = [anchor_bytes(file, *commands, Path(scratch))
                         for commands in ANCHORS.values()]
                print(f"| {file.name} | {file.stat().st_size:,} | "
                      + " | ".join(f"{size:,}" for size in sizes) + " |")
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main())
