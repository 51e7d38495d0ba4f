"""Assemble the held-out images of issue 38, and measure the image coders
on them.

    python scripts/image_heldout.py OUT_DIR [--wheel SCIKIT_IMAGE_WHEEL] [--anchors]
                                    [--paq8px PATH]
                                    [--sixteen MATPLOTLIB_WHEEL PYDICOM_WHEEL]

The images are scikit-image 0.26.0's sample photos (its wheel,
scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl,
`pip download scikit-image==0.26.0`; each PNG checked against its SHA-256),
written as binary PNM (P5 gray, P6 colour) and two of them as uncompressed
BMP, decoded with pillow (`pip install pillow`). fade's image models were
tried on two others from the same wheel (chelsea and coins, whose crops are
in tests/corpus), never on these:

- camera.pgm, moon.pgm: gray photos, 512x512 (camera: the 8-bit gray photo
  of issue 38's table, there without its header);
- brick.pgm, grass.pgm, gravel.pgm: gray textures, 512x512;
- astronaut.ppm (issue 38's colour photo), coffee.ppm, ihc.ppm (a stained
  microscope slide), motorcycle_left.ppm: colour photos;
- coffee.bmp (24 bits, rows bottom-up, padded), moon.bmp (8 bits with a
  gray palette);
- camera.raw, astronaut.raw: the pixels alone, without a header (issue
  38's table has these two so).

With --sixteen MATPLOTLIB_WHEEL PYDICOM_WHEEL (matplotlib 3.11.2's and
pydicom 3.0.2's wheels, each source checked against its SHA-256), four
16-bit gray images too, as 16-bit PGM (big-endian samples, maxval 65535),
none ever tried on: mri_s1045.pgm (matplotlib's s1045.ima, a 256x256 MRI
slice), dem_jacksboro.pgm (its jacksboro_fault_dem.npz, 403x344
elevations), mr_overlay.pgm (pydicom's examples_overlay.dcm, a 484x300 MR
image, 12 bits stored) and ct_small.pgm (its CT_small.dcm, 128x128 CT),
and mr_overlay.raw, the largest one's samples alone. WebP has no 16-bit
lossless mode: its column says so.

With --anchors, prints a Markdown table of the bytes of JPEG XL lossless
(`cjxl -d 0 -e 9`), WebP lossless (`cwebp -lossless -z 9 -exact`) and
`xz -9e` on each file, each decoded again and its pixels compared (a BMP's
and a raw file's anchors code its PNM twin: they read neither); with --paq8px, paq8px -8's
bytes too (not decoded back: it takes as long as coding). fade's own
figures come from scripts/versus.py on OUT_DIR's files, which decodes every
archive in a fresh process.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

SOURCES = {  # name in the wheel: SHA-256 of the PNG
    "camera": "b0793d2adda0fa6ae899c03989482bff9a42d3d5690fc7e3648f2795d730c23a",
    "moon": "78739619d11f7eb9c165bb5d2efd4772cee557812ec847532dbb1d92ef71f577",
    "brick": "7966caf324f6ba843118d98f7a07746d22f6a343430add0233eca5f6eaaa8fcf",
    "grass": "b6b6022426b38936c43a4ac09635cd78af074e90f42ffa8227ac8b7452d39f89",
    "gravel": "c48615b451bf1e606fbd72c0aa9f8cc0f068ab7111ef7d93bb9b0f2586440c12",
    "astronaut": "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5",
    "coffee": "cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7",
    "ihc": "f8dd1aa387ddd1f49d8ad13b50921b237df8e9b262606d258770687b0ef93cef",
    "motorcycle_left": "db18e9c4157617403c3537a6ba355dfeafe9a7eabb6b9b94cb33f6525dd49179",
}
# 16-bit sources: (wheel, path in it, SHA-256), read by `sixteen`
SIXTEEN = {
    "mri_s1045": ("matplotlib", "matplotlib/mpl-data/sample_data/s1045.ima.gz",
                  "32b424d64f62b7e71cb24d29fd53938ad5664d608055a67ab2b2af4369f8b89e"),
    "dem_jacksboro": ("matplotlib", "matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz",
                      "d493f50a33e82a4420494c54d1fca1539d177bdc27ab190bc5fe6e92f62fb637"),
    "mr_overlay": ("pydicom", "pydicom/data/test_files/examples_overlay.dcm",
                   "112539bc17c0e281987397e827dff9e99890109866d570f08761f83b8f55c277"),
    "ct_small": ("pydicom", "pydicom/data/test_files/CT_small.dcm",
                 "3dd31e5cc835b3f2cdd46c9da1982f59251e78518fefa8163d914631c66437d6"),
}
RAW16 = ("mr_overlay",)
BMPS = ("coffee", "moon")
RAWS = ("camera", "astronaut")  # also as their pixels alone: issue 38's two photos


def pnm(image) -> bytes:
    """`image` (pillow, mode L or RGB) as binary PGM or PPM."""
    magic = b"P5" if image.mode == "L" else b"P6"
    return magic + f"\n{image.width} {image.height}\n255\n".encode() + image.tobytes()


def bmp(image) -> bytes:
    """`image` as an uncompressed Windows bitmap: 24 bits BGR for RGB, 8
    bits with a gray palette for L; rows bottom-up, padded to 4 bytes."""
    gray = image.mode == "L"
    pixel = 1 if gray else 3
    stride = (image.width * pixel + 3) & ~3
    palette = bytes(b for v in range(256) for b in (v, v, v, 0)) if gray else b""
    offset = 14 + 40 + len(palette)
    rows = []
    raw = image.tobytes()
    for y in range(image.height - 1, -1, -1):
        line = raw[y * image.width * pixel:(y + 1) * image.width * pixel]
        if not gray:
            line = b"".join(line[i:i + 3][::-1] for i in range(0, len(line), 3))
        rows.append(line + bytes(stride - len(line)))
    body = b"".join(rows)
    head = b"BM" + struct.pack("<IHHI", offset + len(body), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, image.width, image.height, 1, 8 * pixel, 0,
                       len(body), 2835, 2835, 256 if gray else 0, 0)
    return head + info + palette + body


def images(wheel: Path):
    """(name, pillow image) of each source in the wheel."""
    from PIL import Image
    with zipfile.ZipFile(wheel) as archive:
        for name, digest in SOURCES.items():
            data = archive.read(f"skimage/data/{name}.png")
            if hashlib.sha256(data).hexdigest() != digest:
                raise SystemExit(f"image_heldout: {name}.png differs from the one pinned")
            image = Image.open(io.BytesIO(data))
            yield name, image.convert("L" if image.mode in ("L", "I", "I;16") else "RGB")


def dicom_pixels(data: bytes):
    """The samples of an uncompressed DICOM file in explicit VR little
    endian with one 16-bit sample a pixel (the two read here), as a 2-D
    numpy array: rows, columns and the pixel data found by their tags (the
    pixel data's last: an icon's may come before)."""
    import numpy as np
    if data[128:132] != b"DICM":
        raise SystemExit("image_heldout: not a DICOM file")

    def short(tag: bytes) -> int:
        at = data.find(tag + b"US\x02\x00")
        return struct.unpack_from("<H", data, at + 8)[0]

    rows, columns = short(b"\x28\x00\x10\x00"), short(b"\x28\x00\x11\x00")
    at = data.rfind(b"\xe0\x7f\x10\x00OW\x00\x00")
    size = struct.unpack_from("<I", data, at + 8)[0]
    if short(b"\x28\x00\x00\x01") != 16 or size != rows * columns * 2:
        raise SystemExit("image_heldout: not 16 bits a pixel, uncompressed")
    samples = np.frombuffer(data, dtype="<u2", count=rows * columns, offset=at + 12)
    if short(b"\x28\x00\x03\x01"):  # signed samples
        samples = samples.view("<i2")
    return samples.reshape(rows, columns)


def sixteen(wheels: dict[str, Path]):
    """(name, 16-bit PGM bytes, the samples alone) of each SIXTEEN source."""
    import gzip
    import numpy as np
    for name, (package, inside, digest) in SIXTEEN.items():
        with zipfile.ZipFile(wheels[package]) as archive:
            data = archive.read(inside)
        if hashlib.sha256(data).hexdigest() != digest:
            raise SystemExit(f"image_heldout: {inside} differs from the one pinned")
        if inside.endswith(".ima.gz"):
            image = np.frombuffer(gzip.decompress(data), dtype=">u2").reshape(256, 256)
        elif inside.endswith(".npz"):
            image = np.load(io.BytesIO(data))["elevation"]
        else:
            image = dicom_pixels(data)
        if image.min() < 0:
            raise SystemExit(f"image_heldout: {name} has negative samples")
        samples = image.astype(">u2").tobytes()
        height, width = image.shape
        yield name, f"P5\n{width} {height}\n65535\n".encode() + samples, samples


def pixels(path: Path, mode: str) -> bytes:
    from PIL import Image
    return Image.open(path).convert(mode).tobytes()


# name: (OUT's extension, encode to OUT, decode OUT to BACK), {} filled in
ANCHORS = {
    "JPEG XL -d 0 -e 9": (".jxl", ["cjxl", "-d", "0", "-e", "9", "--quiet", "{file}", "{out}"],
                          ["djxl", "{out}", "{back}.png", "--quiet"]),
    "WebP lossless -z 9": (".webp", ["cwebp", "-quiet", "-lossless", "-z", "9", "-exact",
                                     "{file}", "-o", "{out}"],
                           ["dwebp", "-quiet", "{out}", "-o", "{back}.png"]),
    "xz -9e": (".xz", ["sh", "-c", "xz -9e -c < '{file}' > '{out}'"],
               ["sh", "-c", "xz -dc < '{out}' > '{back}.png'"]),
}


def anchor_bytes(file: Path, mode: str, extension: str, encode: list[str],
                 decode: list[str], scratch: Path) -> int:
    """The size of `file` coded by one anchor, after checking its pixels
    (or, for xz, its bytes) come back."""
    coded = scratch / f"{file.name}{extension}"
    back = scratch / "back"
    names = {"file": str(file), "out": str(coded), "back": str(back)}
    for command in (encode, decode):
        subprocess.run([part.format(**names) for part in command], check=True,
                       capture_output=True)
    decoded = Path(f"{back}.png")
    same = (decoded.read_bytes() == file.read_bytes() if extension == ".xz"
            else pixels(decoded, mode) == pixels(file, mode))
    if not same:
        raise SystemExit(f"image_heldout: {file.name}: {encode[0]} did not give it back")
    return coded.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--wheel", type=Path)
    parser.add_argument("--anchors", action="store_true")
    parser.add_argument("--paq8px", type=Path)
    parser.add_argument("--sixteen", type=Path, nargs=2,
                        metavar=("MATPLOTLIB_WHEEL", "PYDICOM_WHEEL"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    made = []  # (file, its PNM twin, pillow mode)
    for name, image in images(args.wheel) if args.wheel else ():
        twin = args.out / f"{name}.{'pgm' if image.mode == 'L' else 'ppm'}"
        twin.write_bytes(pnm(image))
        made.append((twin, twin, image.mode))
        if name in BMPS:
            (args.out / f"{name}.bmp").write_bytes(bmp(image))
            made.append((args.out / f"{name}.bmp", twin, image.mode))
        if name in RAWS:
            (args.out / f"{name}.raw").write_bytes(image.tobytes())
            made.append((args.out / f"{name}.raw", twin, image.mode))
    if args.sixteen:
        wheels = dict(zip(("matplotlib", "pydicom"), args.sixteen))
        for name, pgm, samples in sixteen(wheels):
            twin = args.out / f"{name}.pgm"
            twin.write_bytes(pgm)
            made.append((twin, twin, "I"))
            if name in RAW16:
                (args.out / f"{name}.raw").write_bytes(samples)
                made.append((args.out / f"{name}.raw", twin, "I"))
    print(f"{len(made)} files in {args.out}")
    columns = [*ANCHORS, *(["paq8px -8"] if args.paq8px else [])]
    if args.anchors:
        print(f"\n| file | bytes | {' | '.join(columns)} |\n|---|---:|" + "---:|" * len(columns))
        with tempfile.TemporaryDirectory() as scratch:
            for file, twin, mode in made:
                sizes = [None if mode == "I" and name.startswith("WebP") else
                         anchor_bytes(twin if name != "xz -9e" else file, mode, *commands,
                                      Path(scratch)) for name, commands in ANCHORS.items()]
                if args.paq8px:
                    copy = Path(scratch) / file.name
                    copy.write_bytes(file.read_bytes())
                    subprocess.run([str(args.paq8px), "-8", str(copy), f"{copy}.paq8px"],
                                   check=True, capture_output=True)
                    sizes.append(Path(f"{copy}.paq8px").stat().st_size)
                print(f"| {file.name} | {file.stat().st_size:,} | "
                      + " | ".join("none" if size is None else f"{size:,}" for size in sizes)
                      + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
