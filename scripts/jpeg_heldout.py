"""Assemble issue 77's held-out JPEGs and measure fade and the anchors on them.

    python scripts/jpeg_heldout.py OUT_DIR [--mirror DIR] [--level L ...]
                                           [--anchors] [--paq8px PATH]

Twenty-nine whole JPEG files that fade's JPEG models were not tuned on
(those were tried on other photos of ianare/exif-samples and on
libjpeg-turbo's test images; but for one choice, made on the ICC profile of
pil_icc_profile_big.jpg: docs/results.md, "JPEG photos held out"): twenty-one of ianare/exif-samples
(photos of fourteen cameras and phones, 24 KB to 2 MB, one progressive,
three with restart markers) and eight of Pillow's test images (two
progressive, a gray one with restart markers, a 4:4:4 one with restart
markers, an MPO of two photos, one whose headers hold five bytes of junk,
which neither fade's parser nor paq8px's follows), read from the snapshots
that the `fetch` tool brings under --mirror at the commits below and
checked against their SHA-256.

Prints a Markdown table of each file's bytes: fade's archive at each
--level (the command line, whole process: `fade --level L -c FILE`, its
archive decoded by another process and compared), and with --anchors JPEG
XL's lossless transcoding (`cjxl` at its default effort and `-e 9`,
decoded by `djxl` and compared), xz -9e and, with --paq8px, paq8px -8; then
the totals, each level's time and speed, and each one's change against the
JPEGs' size and paq8px's. An anchor that fails on a file (cjxl 0.7 on the
gray one) is left out of its column's total, and the files it fails on are
named.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXIF = ("ianare+exif-samples", "5332a9cf0220e9c6c93f88a187daa90808051e10")
PILLOW = ("python-pillow+Pillow", "4e5f09f533dbd0d87d39951f48b62f4d1a421cba")
# name: (repository, commit, path, sha256)
FILES = {f"es_{path[4:].replace('/', '_')}": (*EXIF, path, digest) for path, digest in (
    ("jpg/Konica_Minolta_DiMAGE_Z3.jpg",
     "b1b914f47528384e6252fa7caabb489f123b88c81ebd62ecb8eacdf64c46fd5e"),
    ("jpg/exif-org/fujifilm-finepix40i.jpg",
     "722fa6b893b01d5970d9b0761df6ee97bcee28fcd5b8e78d761738058c6b7822"),
    ("jpg/exif-org/kodak-dc240.jpg",
     "6dcac4b77b55a9f5e5c0486c1f28b8b2eb65b292d3c43499cdde47ef11d367a4"),
    ("jpg/exif-org/olympus-d320l.jpg",
     "6a41599dc31c73e8a9c896e2669ecfb2b03a74be04fac0dd9371ed457e50a762"),
    ("jpg/exif-org/sanyo-vpcsx550.jpg",
     "74401cc6e0b6bdb03b7d3a1c99a0ba3b4dd5b3ac9b7728a38f6fb3607f3360ea"),
    ("jpg/exif-org/sony-cybershot.jpg",
     "0e69b12f261907dc9fcfb89082a6a61948db849d836673017a7e972d49184404"),
    ("jpg/exif-org/sony-powershota5.jpg",
     "608c6c0a57205c42ca4169b5574823ed1c05e4e636a038cda64b6ef18ae5d274"),
    ("jpg/gps/DSCN0021.jpg", "441daaea545eb8bdb1434817fc36be0baa8992a4c9ad4b089726033bfc4bc963"),
    ("jpg/hdr/canon_hdr_YES.jpg",
     "30603e14619140acaea51bee6fecab4a72956d1aa570e20f5b9b3d9271b8bdf4"),
    ("jpg/hdr/iphone_hdr_NO.jpg",
     "eb81d33a9b1d1bea5d133483f918c2cc927161c0dda44c9fedfa4da87c8b1cc3"),
    ("jpg/orientation/landscape_2.jpg",
     "47aa72c02bd24b17db58cd8e25a57dd97f54abc9461fc1fb8bf2d8889d8494a5"),
    ("jpg/tests/11-tests.jpg", "2a41ccc348800707d7c19ce0e3457f5d4295486f29bf0a73f8cbe4bcf272136e"),
    ("jpg/tests/28-hex_value.jpg",
     "2a08dd2931cb224f9b4864a4699cdd5093ed334faf68c9d2ef1e832855b219ae"),
    ("jpg/tests/30-type_error.jpg",
     "f2c156654b78e8a1f84a4d60932a15e76d3e106c7e51bd968fe2f5eda4d33f4d"),
    ("jpg/tests/32-lens_data.jpeg",
     "f0096a6d5c24dbe270525f7dc575e26ea28df63824055e7ad3253e2cf0d1dab0"),
    ("jpg/tests/35-empty.jpg", "44f1819124a7f7dba6552f629372649441f8ab24e4e7f4c1ebe5091d582220c8"),
    ("jpg/tests/36-memory_error.jpg",
     "3b0d73976a304eb0fe99048b066e19e6006b35cb620737af4c8915acedf98b16"),
    ("jpg/tests/45-gps_ifd.jpg",
     "0a986ea141d5f8f8b7588d6217e9a2d12140a76ec36cb0a022710c3e9fdfc921"),
    ("jpg/tests/67-0_length_string.jpg",
     "d45980d197658e88f7a4452b379fc3e9b2feb37f1b271ad7e5ce8560da8c2b10"),
    ("jpg/tests/87_OSError.jpg",
     "1f2b247e1ab6c26a41f670a7653404eda7eb198e923d71cafea04a0a934380e6"),
    ("jpg/xmp/BlueSquare.jpg", "1e1cdf92904b5da35302c2655e5f7a2ea68d6bf8d9b3922225e3f2a17ba3bb6b"),
)}
FILES.update({f"pil_{path.split('/')[-1]}": (*PILLOW, path, digest) for path, digest in (
    ("Tests/images/app13-multiple.jpg",
     "1fbf57a5ef811845df2795ff91269fe248dc6e98386b7c2b42dc1cd3a7aaa55b"),
    ("Tests/images/exif-72dpi-int.jpg",
     "9a77846a19a58f29bae67233c99f29fd2361536044176077c1ea4a2507c79b68"),
    ("Tests/images/flower2.jpg",
     "4462d640037c4040c39695b6fbd8203d539ad371e30ec35b663801b8d6621dc2"),
    ("Tests/images/frozenpond.mpo",
     "efaa9344f24bbb1d51707f8eb2552d7de42e5e03588b4a284c5c73305da9083b"),
    ("Tests/images/hopper_bad_exif.jpg",
     "40a244d871395af15d4a799816374b7a12933e5a14376b7b484ad6b0f519ade1"),
    ("Tests/images/icc_profile_big.jpg",
     "9329fadea9654d127bdf1f5c31d0583a5797282ffc45d668662da4df6ee4c3dd"),
    ("Tests/images/junk_jpeg_header.jpg",
     "fcb61dacabfdc97c4f714492401c05b94f181f48fd272fc18b6e457fc71a6120"),
    ("Tests/images/xmp_test.jpg",
     "b024c2d84839f63249b220e42480a2150d9540a7daf464cbd8f459ea575ff0e9"),
)})
# name: (suffix, encoder, decoder), {file}, {out} and {back} filled in
ANCHORS = {
    "cjxl": (".jxl", ["cjxl", "--quiet", "{file}", "{out}"],
             ["djxl", "--quiet", "{out}", "{back}"]),
    "cjxl -e 9": (".jxl", ["cjxl", "--quiet", "-e", "9", "{file}", "{out}"],
                  ["djxl", "--quiet", "{out}", "{back}"]),
    "xz -9e": (".xz", ["xz", "-9e", "-k", "{file}"], ["xz", "-dc", "{out}"]),
}


def assemble(out: Path, mirror: Path) -> list[Path]:
    """The files written to `out`, each checked against its digest."""
    made = []
    for name, (repository, commit, path, digest) in FILES.items():
        git = mirror / repository / "repo"
        found = subprocess.run(["git", f"--git-dir={git}", "show", f"{commit}:{path}"],
                               capture_output=True)
        if found.returncode or hashlib.sha256(found.stdout).hexdigest() != digest:
            print(f"jpeg_heldout: {name}: skipped, its source is missing or differs",
                  file=sys.stderr)
            continue
        (out / name).write_bytes(found.stdout)
        made.append(out / name)
    return made


def run(command: list[str], back: Path | None = None, **options) -> float:
    """Seconds `command` took, whole process (its standard output to `back`;
    `options`: subprocess.run's, an environment, a folder)."""
    start = time.perf_counter()
    with open(back, "wb") if back else open("/dev/null", "wb") as sink:
        subprocess.run(command, check=True, stdout=sink, stderr=subprocess.PIPE, **options)
    return time.perf_counter() - start


def fade_bytes(file: Path, level: str, scratch: Path,
               checkout: Path | None = None) -> tuple[int, float, float]:
    """fade's archive of `file` at `level` (the fade this folder or Python
    imports, or that of the checkout `checkout`, run in `scratch` so that no
    other is found first), decoded and compared: its size and both ways'
    seconds, each a process of its own."""
    archive, back = scratch / f"{file.name}.fade", scratch / "back"
    options = {} if checkout is None else {
        "env": {"PYTHONPATH": str(checkout.resolve()), "PATH": "/usr/bin:/bin"}, "cwd": scratch}
    fade = [sys.executable, "-m", "fade", "-q"]
    seconds = run([*fade, "--level", level, "-c", str(file.resolve())], archive, **options)
    undo = run([*fade, "-dc", str(archive.resolve())], back, **options)
    if back.read_bytes() != file.read_bytes():
        raise SystemExit(f"{file.name}: fade --level {level} ({checkout or 'this Python'}'s) "
                         "did not give it back")
    return archive.stat().st_size, seconds, undo


def anchor_bytes(file: Path, name: str, scratch: Path) -> int | None:
    """`file` coded by anchor `name` and decoded again: its size, None where
    the anchor fails or does not give the file back."""
    suffix, encode, decode = ANCHORS[name]
    out = scratch / f"{file.name}{suffix}" if suffix != ".xz" else Path(f"{file}.xz")
    names = {"file": str(file), "out": str(out), "back": str(scratch / "back.jpg")}
    try:
        subprocess.run([part.format(**names) for part in encode], check=True,
                       capture_output=True)
        if suffix == ".xz":
            run([part.format(**names) for part in decode], scratch / "back.jpg")
        else:
            subprocess.run([part.format(**names) for part in decode], check=True,
                           capture_output=True)
    except subprocess.CalledProcessError:
        return None
    size = out.stat().st_size
    same = (scratch / "back.jpg").read_bytes() == file.read_bytes()
    out.unlink()
    return size if same else None


def paq8px_bytes(file: Path, paq8px: Path, scratch: Path) -> int:
    copy = scratch / file.name
    copy.write_bytes(file.read_bytes())
    subprocess.run([str(paq8px), "-8", str(copy), f"{copy}.paq8px"], check=True,
                   capture_output=True)
    return Path(f"{copy}.paq8px").stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--level", action="append", default=[], help="fade's level (repeat)")
    parser.add_argument("--anchors", action="store_true")
    parser.add_argument("--paq8px", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    files = assemble(args.out, args.mirror)
    print(f"{len(files)} of {len(FILES)} files in {args.out}")
    columns = [f"fade {level}" for level in args.level] + \
        (list(ANCHORS) if args.anchors else []) + (["paq8px -8"] if args.paq8px else [])
    if not columns:
        return 0 if files else 1
    print(f"\n| file | bytes | {' | '.join(columns)} |\n|---|---:|" + "---:|" * len(columns))
    sizes: dict[str, list[int | None]] = {column: [] for column in columns}
    times: dict[str, list[tuple[float, float]]] = {level: [] for level in args.level}
    with tempfile.TemporaryDirectory() as scratch:
        for file in files:
            for level in args.level:
                size, seconds, undo = fade_bytes(file, level, Path(scratch))
                sizes[f"fade {level}"].append(size)
                times[level].append((seconds, undo))
            for name in ANCHORS if args.anchors else ():
                sizes[name].append(anchor_bytes(file, name, Path(scratch)))
            if args.paq8px:
                sizes["paq8px -8"].append(paq8px_bytes(file, args.paq8px, Path(scratch)))
            cells = " | ".join("fails" if column[-1] is None else f"{column[-1]:,}"
                               for column in sizes.values())
            print(f"| {file.name} | {file.stat().st_size:,} | {cells} |", flush=True)
    lengths = [file.stat().st_size for file in files]
    totals = [sum(size for size in column if size is not None) for column in sizes.values()]
    print(f"| total | {sum(lengths):,} | " + " | ".join(f"{total:,}" for total in totals) + " |")
    for column, column_sizes in sizes.items():
        failed = [file.name for file, size in zip(files, column_sizes) if size is None]
        if failed:
            print(f"{column} fails on {', '.join(failed)}: left out of its total")
    paq = sizes.get("paq8px -8")
    for level in args.level:
        coded = sizes[f"fade {level}"]
        line = f"fade {level}: {sum(coded) / sum(lengths) - 1:+.1%} against the JPEGs"
        if paq:
            line += f", {sum(coded) / sum(paq) - 1:+.1%} against paq8px -8"
        for what, least in (("all", 0), ("those of 1 MB or more", 1 << 20)):
            chosen = [(length, took) for length, took in zip(lengths, times[level])
                      if length >= least]
            kilobytes = sum(length for length, _ in chosen) / 1024
            encode, decode = (sum(took[way] for _, took in chosen) for way in (0, 1))
            line += (f"; {what}: {kilobytes / encode:.0f} KB/s compressing, "
                     f"{kilobytes / decode:.0f} KB/s decompressing")
        print(line + " (whole process)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
