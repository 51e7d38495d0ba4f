"""JPEG photos inside other bytes: a tar of photos and a PDF that embeds
them, coded by fade and by an earlier fade (issue 77).

    python scripts/jpeg_containers.py PHOTO_DIR OUT_DIR [--level L] [--before DIR]

Makes, from the JPEGs in PHOTO_DIR (scripts/jpeg_heldout.py's set): a tar
of them all (photos.tar), and a PDF of one page per photo, each drawn from
an image XObject whose stream is the JPEG as it is (/DCTDecode, as PDF
writers embed photos) under a page of text (Lewis Carroll's Alice, a
Project Gutenberg text of tests/corpus, in /FlateDecode content streams, as
PDF writers compress them): photos.pdf, of the photos of PDF_PHOTOS bytes
or fewer. Each container and its photos alone are coded by this checkout's
fade at level L (whole process; each archive decoded by another process
and compared) and, with --before, by the fade of the checkout DIR (say the
release before, `git worktree add DIR v0.11.0`); prints a table of the
bytes and of what fade saves on the container against what it saves on its
photos alone.
"""

from __future__ import annotations

import argparse
import io
import sys
import tarfile
import tempfile
import zlib
from pathlib import Path

from jpeg_heldout import fade_bytes  # (beside this script)

REPO = Path(__file__).resolve().parent.parent
PDF_PHOTOS = 160 << 10  # the PDF's photos: each at most this many bytes


def tar_of(photos: list[Path]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for photo in photos:
            info = tarfile.TarInfo(photo.name)
            info.size, info.mtime, info.mode = photo.stat().st_size, 1_700_000_000, 0o644
            tar.addfile(info, io.BytesIO(photo.read_bytes()))
    return out.getvalue()


def _size(jpeg: bytes) -> tuple[int, int, int]:
    """Width, height and components of a JPEG's frame."""
    at = 2
    while at + 9 < len(jpeg):
        if jpeg[at] != 0xFF:  # (bytes between segments that are no marker)
            at += 1
            continue
        marker, length = jpeg[at + 1], jpeg[at + 2] << 8 | jpeg[at + 3]
        if marker in (0xC0, 0xC1, 0xC2):
            return (jpeg[at + 7] << 8 | jpeg[at + 8], jpeg[at + 5] << 8 | jpeg[at + 6],
                    jpeg[at + 9])
        at += 2 + length
    raise ValueError("no frame")


def pdf_of(photos: list[Path], text: bytes) -> bytes:
    """A PDF of one page per photo: the photo as an image XObject
    (/DCTDecode) drawn under lines of `text`."""
    objects: list[bytes] = []  # object k + 1
    lines = text.decode("latin-1").splitlines()
    pages = []
    font = 3
    objects += [b"<< /Type /Catalog /Pages 2 0 R >>", b"",
                b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for n, photo in enumerate(photos):
        jpeg = photo.read_bytes()
        width, height, components = _size(jpeg)
        space = {1: "/DeviceGray", 3: "/DeviceRGB", 4: "/DeviceCMYK"}[components]
        objects.append(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s "
                       b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n"
                       % (width, height, space.encode(), len(jpeg)) + jpeg + b"\nendstream")
        image = len(objects)
        shown = lines[(n * 40) % len(lines):(n * 40) % len(lines) + 40]
        drawn = "".join(f"({line.replace(chr(92), '').replace('(', '').replace(')', '')}) Tj "
                        "0 -12 Td " for line in shown)
        content = zlib.compress(("q 400 0 0 300 100 420 cm /Im0 Do Q BT /F1 10 Tf 72 400 Td "
                                 f"{drawn}ET").encode("latin-1"), 9)
        objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) +
                       content + b"\nendstream")
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                       b"/Resources << /Font << /F1 %d 0 R >> /XObject << /Im0 %d 0 R >> >> >>"
                       % (len(objects), font, image))
        pages.append(len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % page for page in pages), len(pages))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("photos", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--level", default="default")
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    photos = sorted(path for path in args.photos.iterdir()
                    if path.suffix.lower() in (".jpg", ".jpeg", ".mpo"))
    small = [photo for photo in photos if photo.stat().st_size <= PDF_PHOTOS]
    text = (REPO / "tests" / "corpus" / "alice29.txt").read_bytes()
    made = {"photos.tar": (tar_of(photos), photos), "photos.pdf": (pdf_of(small, text), small)}
    checkouts = {"now": REPO, **({"before": args.before} if args.before else {})}
    print("| input | bytes | its JPEGs | " + " | ".join(
        f"fade {args.level} ({name})" for name in checkouts) + " |\n|---|---:|---:|" +
        "---:|" * len(checkouts))
    with tempfile.TemporaryDirectory() as scratch:
        for name, (data, inside) in made.items():
            (args.out / name).write_bytes(data)
            share = sum(photo.stat().st_size for photo in inside)
            sizes = {which: fade_bytes(args.out / name, args.level, Path(scratch), checkout)[0]
                     for which, checkout in checkouts.items()}
            alone = {which: sum(fade_bytes(photo, args.level, Path(scratch), checkout)[0]
                                for photo in inside) for which, checkout in checkouts.items()}
            print(f"| {name} | {len(data):,} | {share:,} | " +
                  " | ".join(f"{sizes[which]:,}" for which in checkouts) + " |")
            print(f"| its {len(inside)} JPEGs alone | {share:,} | {share:,} | " +
                  " | ".join(f"{alone[which]:,}" for which in checkouts) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
