"""Bytes on disk: a field table as a struct, a CRC-32 seal, an exact read.

Every header, table and record of the format is a list of (field, struct
code) pairs in file order, little-endian (docs/format.md prints the same
tables), and most end in the CRC-32 of every byte before it. The archive
headers (fade.format.archive) and the frames container (fade.format.container)
both build their structs and seals here, so the two cannot drift apart.
"""

from __future__ import annotations

import struct
import zlib
from typing import BinaryIO

Fields = list[tuple[str, str]]

U16 = struct.Struct("<H")
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")


def layout(fields: Fields) -> struct.Struct:
    """The little-endian struct of a field table."""
    return struct.Struct("<" + "".join(code for _, code in fields))


def seal(body: bytes) -> bytes:
    """`body` followed by its CRC-32 (u32)."""
    return body + U32.pack(zlib.crc32(body))


def seal_last(packed: bytes) -> bytes:
    """A struct packed with a placeholder in its last field, the CRC-32:
    the placeholder replaced by the CRC-32 of every byte before it."""
    return seal(packed[:-U32.size])


def sealed(blob: bytes, end: int) -> bool:
    """Whether the u32 at `end` is the CRC-32 of `blob[:end]`."""
    return zlib.crc32(blob[:end]) == U32.unpack_from(blob, end)[0]


def read_exactly(source: BinaryIO, size: int) -> bytes:
    """Up to `size` bytes: fewer only at the end of `source` (pipes give partial reads)."""
    parts, left = [], size
    while left > 0:
        part = source.read(left)
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
