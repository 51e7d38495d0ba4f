"""Assemble files of other kinds from this machine, outside the shared corpus,
for measuring speed and ratio ideas on data they were not tuned on.

    python scripts/heldout.py OUT_DIR [--size BYTES]

Writes, each a slice of a real file found on a Debian machine with a Rust
toolchain, SciPy and the Google Cloud SDK (a file that is missing is
skipped with a note); the slices are 256 KiB, or --size bytes (262144 by
default; 1048576 makes the 1 MiB set on which the default's speed is
measured):

- z3.so: 256 KiB of x86-64 machine code, libz3.so.4 from offset 4 MiB;
- x265.so: 256 KiB of x86-64 machine code with hand-written SIMD,
  libx265.so.199 from offset 2 MiB;
- man-index.db: the first 256 KiB of man-db's index (gdbm records);
- dpkg.log: the first 256 KiB of dpkg's log (text records);
- pypi.tsv: 256 KiB of a package list (tab-separated text), from 32 MiB;
- screenshot.rgb: 256 KiB of raw 8-bit RGB rows (5,964 bytes a row),
  decoded from the rustc book's llvm-cov-show-01.png, from row 400;
- levy.npy: SciPy's stable-Z1-pdf-sample-data.npy (float64 records);
- pyc.bin: the first 256 KiB of the system Python's .pyc files, sorted by
  path, concatenated (bytecode);
- zoneinfo.bin: the first 256 KiB of the tz database's TZif files under
  /usr/share/zoneinfo/Area/, sorted by path, concatenated (binary records);
- urls.txt: the distinct absolute URLs in the Rust documentation's HTML,
  sorted, the lines in the first 256 KiB;
- arm64.so, arm32.so, x86.dll: JNA's native dispatch library built for
  Linux on AArch64, Linux on 32-bit ARM and 32-bit Windows (machine code of
  other instruction sets), whole, from the jna 5.17.0 jar in ~/.m2;
- jvm.class: the first 256 KiB of that jar's .class files, sorted by name,
  concatenated (JVM bytecode);
- iso639.xml: the first 256 KiB of iso-codes' iso_639-3.xml (markup);
- rustc.html: the first 256 KiB of the rustc book's print.html (markup);
- screen.rgba: raw 8-bit RGBA rows (5,240 bytes a row) decoded from the
  Cloud SDK's copy of requests' ss.png, from the first row;
- boost.f64: SciPy's boost.npz test arrays (float64 records), each
  array's raw bytes in member-name order, concatenated.

The PNG is decoded here with zlib and the five PNG row filters, so no
imaging library is needed.
"""

from __future__ import annotations

import argparse
import glob
import io
import os
import re
import struct
import sys
import zipfile
import zlib

import numpy as np

RUST_DOC = os.path.expanduser("~/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/"
                              "rust/html")
SLICES = {  # name: (path, offset of the slice; None: the whole file)
    "z3.so": ("/usr/lib/x86_64-linux-gnu/libz3.so.4", 4 << 20),
    "x265.so": ("/usr/lib/x86_64-linux-gnu/libx265.so.199", 2 << 20),
    "man-index.db": ("/var/cache/man/index.db", 0),
    "dpkg.log": ("/var/log/dpkg.log", 0),
    "pypi.tsv": ("/usr/share/package-lists/pypi.tsv", 32 << 20),
    "levy.npy": (next(iter(glob.glob(os.path.expanduser(
        "~/.pyenv/versions/*/lib/python3*/site-packages/scipy/stats/tests/data/levy_stable/"
        "stable-Z1-pdf-sample-data.npy"))), "missing"), None),
    "iso639.xml": ("/usr/share/xml/iso-codes/iso_639-3.xml", 0),
    "rustc.html": (os.path.join(RUST_DOC, "rustc", "print.html"), 0),
}
SCREEN_PNG = "/usr/lib/google-cloud-sdk/platform/gsutil/third_party/requests/ext/ss.png"
BOOST_NPZ = next(iter(glob.glob(os.path.expanduser(
    "~/.pyenv/versions/*/lib/python3*/site-packages/scipy/special/tests/data/boost.npz"))),
    "missing")
JNA = os.path.expanduser("~/.m2/repository/net/java/dev/jna/jna/5.17.0/jna-5.17.0.jar")
JNA_LIBRARIES = {"arm64.so": "com/sun/jna/linux-aarch64/libjnidispatch.so",
                 "arm32.so": "com/sun/jna/linux-arm/libjnidispatch.so",
                 "x86.dll": "com/sun/jna/win32-x86/jnidispatch.dll"}


def png_rgb(path: str, limit: int | None = None) -> tuple[np.ndarray, int]:
    """The 8-bit RGB or RGBA pixels of a non-interlaced PNG, (rows, bytes a
    row): all its rows, or the first `limit`."""
    data = open(path, "rb").read()
    pos, idat, header = 8, [], None
    while pos < len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + size
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"{path}: not 8-bit RGB(A), non-interlaced")
    channels = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    stride = width * channels
    rows = raw.reshape(height, stride + 1)
    height = min(height, limit or height)
    out = np.zeros((height, stride), dtype=np.int32)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        above = out[y - 1] if y else np.zeros(stride, dtype=np.int32)
        if kind == 0:
            out[y] = line
        elif kind == 2:
            out[y] = (line + above) & 255
        else:  # 1 sub, 3 average, 4 Paeth: depend on the pixel to the left
            row = out[y]
            for x in range(stride):
                left = row[x - channels] if x >= channels else 0
                corner = above[x - channels] if x >= channels else 0
                if kind == 1:
                    guess = left
                elif kind == 3:
                    guess = (left + above[x]) >> 1
                else:
                    p = left + above[x] - corner
                    pa, pb, pc = abs(p - left), abs(p - above[x]), abs(p - corner)
                    guess = left if pa <= pb and pa <= pc else above[x] if pb <= pc else corner
                row[x] = (line[x] + guess) & 255
    return out.astype(np.uint8), stride


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--size", type=int, default=256 << 10, help="bytes of each slice")
    args = parser.parse_args()
    out, size = args.out, args.size
    os.makedirs(out, exist_ok=True)
    for name, (path, offset) in SLICES.items():
        if not os.path.exists(path):
            print(f"skipped {name}: {path} is missing")
            continue
        with open(path, "rb") as file:
            if offset is not None:
                file.seek(offset)
            data = file.read() if offset is None else file.read(size)
        open(os.path.join(out, name), "wb").write(data)
    png = os.path.join(RUST_DOC, "rustc", "images", "llvm-cov-show-01.png")
    if os.path.exists(png):
        pixels, stride = png_rgb(png)
        open(os.path.join(out, "screenshot.rgb"), "wb").write(pixels[400:].tobytes()[:size])
    if os.path.exists(SCREEN_PNG):
        pixels, stride = png_rgb(SCREEN_PNG, limit=-(-size // 5240))
        open(os.path.join(out, "screen.rgba"), "wb").write(pixels.tobytes()[:size])
    if os.path.exists(BOOST_NPZ):
        with zipfile.ZipFile(BOOST_NPZ) as arrays:
            data = b"".join(np.load(io.BytesIO(arrays.read(name))).tobytes()
                            for name in sorted(arrays.namelist()))
        open(os.path.join(out, "boost.f64"), "wb").write(data[:size])
    for name, pattern in (("pyc.bin", "/usr/lib/python3*/**/*.pyc"),
                          ("zoneinfo.bin", "/usr/share/zoneinfo/[A-Z]*/**")):
        paths = sorted(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
        data = b"".join(open(p, "rb").read() for p in paths)[:size]
        if data:
            open(os.path.join(out, name), "wb").write(data)
    if os.path.exists(JNA):
        with zipfile.ZipFile(JNA) as jar:
            for name, member in JNA_LIBRARIES.items():
                open(os.path.join(out, name), "wb").write(jar.read(member))
            classes = sorted(n for n in jar.namelist() if n.endswith(".class"))
            data = b"".join(jar.read(n) for n in classes)[:size]
            open(os.path.join(out, "jvm.class"), "wb").write(data)
    else:
        print(f"skipped the JNA files: {JNA} is missing")
    urls = set()
    for page in glob.glob(os.path.join(RUST_DOC, "**", "*.html"), recursive=True):
        urls.update(re.findall(r'href="(https?://[^"#]+)"', open(page, errors="replace").read()))
    if urls:
        text = "\n".join(sorted(urls)) + "\n"
        open(os.path.join(out, "urls.txt"), "w").write(text[:text.rfind("\n", 0, size) + 1])
    for name in sorted(os.listdir(out)):
        print(f"{name}: {os.path.getsize(os.path.join(out, name)):,} bytes")


if __name__ == "__main__":
    main()
