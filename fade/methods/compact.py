"""Methods stored, deflate, bzip2, xz and lzma: the size floor's archives.

A 23-byte head (magic, version, method, the original's size and CRC-32),
then the original (stored) or one standard stream of the stdlib codec
(fade.floor writes and decodes them). Where one ends: stored, after the
original's size; the others, where their stream ends, which only decoding
finds, so the decoded bytes are kept. The other methods with this head
(statistics, floats) read it with `read_head`.
"""

from __future__ import annotations

from fade import floor
from fade.format.archive import COMPACT_LAYOUT
from fade.format.headers import CompactHeader


def read_head(source, prefix: bytes) -> tuple[bytes, int | None, int]:
    """The compact head that starts with `prefix`, the original's size and
    CRC-32; a size of None where the source ends first (unpack then says
    what is wrong)."""
    head = prefix + source.read(COMPACT_LAYOUT.size - len(prefix))
    if len(head) < COMPACT_LAYOUT.size:
        return head, None, 0
    size, crc = COMPACT_LAYOUT.unpack(head)[3:]
    return head, size, crc


def read(source, prefix: bytes, version: int, method: str, reading) -> tuple[bytes, bytes | None]:
    """One compact archive read to its end (fade.methods.Method.read)."""
    head, size, crc = read_head(source, prefix)
    if size is None:
        return head, None
    if method == "stored":
        return head + source.read(size), None
    stream, rest, data = floor.inflate(method, source.read_some, size)
    source.unread(rest)
    return head + stream, floor.checked(data, size, crc)


def decode(header: CompactHeader, payload: bytes, decoding) -> bytes:
    return floor.decompress(header, payload)


def listing(header: CompactHeader) -> str:
    return header.method
