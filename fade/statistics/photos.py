"""Where JPEG files lie in bytes: the screen's kind "jpeg" and the cuts'.

A JPEG is found by its start of image and a parse of its headers, then
followed over its scans (each scan's data read to the marker that ends it)
to its end of image. Found are the JPEGs that F_JPEG's parser
(fade.statistics.jpeg) follows: Huffman-coded sequential (SOF0, SOF1) and
progressive (SOF2) frames of 8-bit samples, with their Huffman tables and
at least one scan. An arithmetic-coded, 12-bit, lossless or hierarchical
frame, or headers that make no sense (beyond a few bytes between two
segments that are no marker, which libjpeg lets by too), are not a JPEG
here: such bytes go to the models for other bytes. A JPEG cut short in a scan ends where the
bytes do; its end of image is not needed.
"""

from __future__ import annotations

import re

from fade.statistics.layouts.jpeg import JUNK

_START = re.compile(rb"\xff\xd8\xff")
# In a scan's data, a 0xFF is a stuffed zero's, a restart marker's or a fill
# byte's before a marker: the first other marker ends the scan.
_SCAN_END = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")
FOLLOWED = (0xC0, 0xC1, 0xC2)  # the frames the model follows
_OTHER_FRAMES = frozenset(range(0xC3, 0xD0)) - {0xC4, 0xC8, 0xCC}
# A JPEG smaller than this is not cut out of other bytes as a frame of its
# own (fade.cuts): a frame's model starts from nothing, and a small photo's
# scans cannot earn back what that costs the bytes around it.
LEAST_PIECE = 32 << 10


def jpeg_end(data: bytes, start: int) -> int:
    """Where the JPEG whose start of image is at `start` ends: after its end
    of image, or at the end of `data` where a scan is cut short; -1 where
    the bytes from `start` are not a JPEG the model follows (above)."""
    pos, length = start + 2, len(data)
    frame = tables = scanned = False
    while pos + 2 <= length:
        if data[pos] != 0xFF:  # a few bytes between segments that are no marker are let by
            pos = data.find(b"\xff", pos, pos + JUNK + 1)
            if pos < 0:
                return -1
            continue
        marker = data[pos + 1]
        if marker == 0xFF:  # a fill byte
            pos += 1
            continue
        if marker == 0xD9:
            return pos + 2 if scanned else -1
        if 0xD0 <= marker <= 0xD7 or marker in (0x01, 0xD8):
            return -1
        if pos + 4 > length:
            break
        end = pos + 2 + (data[pos + 2] << 8 | data[pos + 3])
        if end < pos + 4 or end > length:
            break
        if marker in FOLLOWED:  # (a frame's segment: 11 bytes and 3 a component, 1 to 4)
            if frame or end < pos + 13 or data[pos + 4] != 8:
                return -1
            components = data[pos + 9]
            height, width = data[pos + 5] << 8 | data[pos + 6], data[pos + 7] << 8 | data[pos + 8]
            if not 1 <= components <= 4 or end != pos + 10 + 3 * components or not height or \
                    not width:
                return -1
            frame = True
        elif marker in _OTHER_FRAMES:
            return -1
        elif marker == 0xC4:
            tables = True
        elif marker == 0xDA:
            if not (frame and tables):
                return -1
            scanned = True
            found = _SCAN_END.search(data, end)
            if found is None:
                return length
            pos = found.start()
            continue
        pos = end
    return length if scanned else -1


def jpeg_spans(data: bytes, least: int = 0) -> list[tuple[int, int]]:
    """The (start, end) of each JPEG in `data` (`jpeg_end`) of at least
    `least` bytes, in order; a JPEG inside another (an Exif thumbnail) is
    part of it."""
    spans: list[tuple[int, int]] = []
    reached = 0
    for found in _START.finditer(data):
        start = found.start()
        if start < reached:
            continue
        end = jpeg_end(data, start)
        if end < 0:
            continue
        reached = end
        if end - start >= least:
            spans.append((start, end))
    return spans


def jpeg_share(data: bytes) -> float:
    """The share of `data` in JPEGs (`jpeg_spans`)."""
    return sum(end - start for start, end in jpeg_spans(data)) / max(len(data), 1)
