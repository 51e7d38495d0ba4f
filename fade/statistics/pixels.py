"""Where an image's pixels lie: read from its header, or measured (F_IMAGE, F_PIXELS).

The image models (fade.statistics.image) give each pixel byte contexts
from its neighbours, so they must know the layout: where the pixels start,
the bytes a row takes, a pixel and a row's pixels. `image_layout` reads it
from a binary PNM's or an uncompressed BMP's header, from exactly the
bytes before the pixels (so the decoder, looking after each byte it
decodes, finds it at the same byte: fade.statistics.coding);
`raw_layout` measures it in pixels without a header (F_PIXELS),
and `made_header` writes it as the PNM header those models code first.
docs/format.md has the rules.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from fade.lazy import numpy as np

HEAD_LIMIT = 4096  # the pixels start within this many bytes, or it is no image here
RAW_HEAD = 32  # F_PIXELS: the most bytes the made header takes
RAW_PIXELS = (1, 2, 3)  # bytes a pixel that raw pixels may have: gray, 16-bit gray, RGB
RAW_SIDE = 8  # ... with at least this many rows and columns (at most 65,535 columns)
RAW_SAMPLE = 1 << 15  # bytes whose prediction errors are measured
RAW_NEAR = 0.5  # W's and N's errors, at most this share of one far back
RAW_SHARE = 0.93  # W and N together: at most this share of the error of either alone


class Layout(NamedTuple):
    """Where an image's pixels lie in its file: from `start`, `height` rows
    of `stride` bytes each (`row` of them pixels, `pixel` bytes a pixel)."""

    start: int
    stride: int
    row: int
    pixel: int
    height: int

    @property
    def end(self) -> int:
        return self.start + self.stride * self.height


def image_layout(data: bytes | np.ndarray) -> Layout | None:
    """The layout of the image `data` begins with: a binary PNM (P5 gray,
    P6 colour; 8 or 16 bits a sample) or an uncompressed BMP (8, 24 or 32
    bits a pixel); None for anything else. It is found from the bytes
    before the pixels alone, and from no fewer: None while data stops
    before them (what lets the decoder find it where the encoder did)."""
    head = bytes(data[:HEAD_LIMIT])
    layout = _pnm(head) if head[:1] == b"P" else _bmp(head) if head[:2] == b"BM" else None
    if layout is None or layout.start > len(head) or layout.start >= HEAD_LIMIT:
        return None
    if layout.row < 1 or layout.height < 1 or layout.stride < layout.row:
        return None
    return layout


def coded_layout(data: bytes | np.ndarray) -> Layout | None:
    """The layout of the image `data` begins with where the image models
    code its pixels, and the decoder finds it too: from exactly the bytes
    before the pixels, which start before data's end; else None."""
    layout = image_layout(data)
    if layout is None or layout.start >= len(data) or image_layout(data[:layout.start]) != layout:
        return None
    return layout


def raw_layout(data: bytes | np.ndarray) -> Layout | None:
    """The layout of raw pixels, measured on RAW_SAMPLE bytes spread over
    the input: the row length that divides it into whole rows (at least
    RAW_SIDE of them, of at least RAW_SIDE bytes) where a byte is nearest
    the one a row back (N); the pixel size of RAW_PIXELS that divides the
    row where it is nearest the one a pixel back (W). Pixels, if both W and
    N are nearer than RAW_NEAR times a byte a row and a half back (a
    picture is alike both ways: records are not along a row), and W and N
    together (their mean or the median predictor) at most RAW_SHARE as far
    as the nearer alone; else None."""
    size = len(data)
    if size < 4096:
        return None
    x = np.frombuffer(bytes(data), dtype=np.uint8)
    at = np.linspace(size // 8, size - 1, RAW_SAMPLE).astype(np.int64)

    def back(distance):  # the sample's bytes `distance` back, widened
        return x[at - distance].astype(np.int64)
    here = back(0)

    def error(distance):
        return float(np.abs(here - back(distance)).mean())

    rows = np.arange(RAW_SIDE, min(3 * 65535, size // RAW_SIDE) + 1)
    rows = rows[(size % rows == 0) & (at[0] >= 2 * rows)].tolist()
    if not rows:
        return None
    row = min(rows, key=error)
    pixel = min((p for p in RAW_PIXELS if row % p == 0), key=error)
    w, n, nw = back(pixel), back(row), back(row + pixel)
    low, high = np.minimum(w, n), np.maximum(w, n)
    median = np.where(nw >= high, low, np.where(nw <= low, high, w + n - nw))
    both = min(float(np.abs(here - median).mean()), float(np.abs(here - (w + n) // 2).mean()))
    near, far = min(error(pixel), error(row)), error(row + row // 2 + 1)
    if max(error(pixel), error(row)) >= RAW_NEAR * far or both > RAW_SHARE * near:
        return None
    return Layout(0, row, row, pixel, size // row)


def made_header(layout: Layout | None) -> bytes:
    """F_PIXELS: the PNM header that says `layout`, whose pixels are the
    input: P5 with maxval 255 for a byte a pixel, 65,535 for two, P6 for
    three; for no layout, a gray image of one pixel (the input's first
    byte; the others are bytes after the image)."""
    if layout is None:
        return b"P5\n1 1\n255\n"
    magic, top = (b"P6", 255) if layout.pixel == 3 else (b"P5", 255 if layout.pixel == 1
                                                         else 65535)
    return magic + b"\n%d %d\n%d\n" % (layout.row // layout.pixel, layout.height, top)


def _pnm(head: bytes) -> Layout | None:
    """P5 or P6: 'P5', then width, height and maxval as decimal numbers
    with white space (and # comments to the line's end) between, then one
    white space byte, then the pixels."""
    if head[1:2] not in (b"5", b"6") or len(head) < 3:
        return None
    numbers, position = [], 2
    while len(numbers) < 3:
        if position >= len(head):
            return None
        byte = head[position]
        if byte == 35:  # '#': a comment to the line's end
            end = head.find(b"\n", position)
            if end < 0:
                return None
            position = end + 1
        elif byte in b" \t\r\n":
            position += 1
        elif 48 <= byte <= 57:
            end = position
            while end < len(head) and 48 <= head[end] <= 57:
                end += 1
            if end >= len(head) or head[end] not in b" \t\r\n" or end - position > 6:
                return None  # (a number must end in white space, as the header's last does)
            numbers.append(int(head[position:end]))
            position = end
        else:
            return None
    width, height, top = numbers
    if not (0 < top < 65536 and width > 0 and height > 0):
        return None
    planes = 1 if head[1:2] == b"5" else 3
    pixel = planes * (1 if top < 256 else 2)
    return Layout(position + 1, width * pixel, width * pixel, pixel, height)


def _bmp(head: bytes) -> Layout | None:
    """A Windows bitmap with an info header of 40 bytes or more, not
    compressed (or 32 bits with bit fields), 8, 24 or 32 bits a pixel; rows
    padded to 4 bytes, bottom-up or top-down."""
    if len(head) < 54:
        return None
    offset = struct.unpack_from("<I", head, 10)[0]
    size, width, height, planes, bits, compression = struct.unpack_from("<IiiHHI", head, 14)
    if size < 40 or planes != 1 or bits not in (8, 24, 32) or width <= 0 or height == 0:
        return None
    if compression not in (0, 3) or (compression == 3 and bits != 32) or offset < 14 + size:
        return None
    pixel = bits // 8
    row = width * pixel
    return Layout(offset, (row + 3) & ~3, row, pixel, abs(height))
