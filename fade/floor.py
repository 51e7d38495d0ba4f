"""The size floor: the compact methods used where the learned model would not win.

A learned archive carries a ~200-byte header and the model starts from a
random init, so on tiny inputs it cannot beat storing the bytes, and on
incompressible ones (random, already compressed) nothing can. There fade
writes a compact archive (23-byte header, `fade.format.headers.COMPACT_FIELDS`) with the
data stored raw or coded by one of Python's own codecs, whichever is
smallest, so an archive is never more than 23 bytes larger than its input.
"""

from __future__ import annotations

import bz2
import lzma
import zlib
from typing import Callable

from fade.lazy import numpy as np

from fade.config import DEFAULT_MEMORY_LIMIT
from fade.format.archive import pack_compact
from fade.format.headers import CompactHeader
from fade.errors import CorruptArchiveError

# Below this many bytes the model is not tried: its header alone is ~200 bytes.
MIN_LEARNED_SIZE = 256
# Incompressible: order-0 entropy at least this many bits per byte, and
# deflate at its fastest saves under INCOMPRESSIBLE_SAVING of the size.
INCOMPRESSIBLE_ENTROPY = 7.9
INCOMPRESSIBLE_SAVING = 0.02

_XZ_PRESET = 9 | lzma.PRESET_EXTREME
_XZ_DICTIONARY = 64 << 20  # the preset's own dictionary


def _dictionary(length: int) -> int:
    """xz -9e's dictionary for `length` bytes, no larger than they need (a
    power of two, at least 4 KiB): the same matches, and ~100 MiB less
    memory for a frame of a few MiB (the preset's 64 MiB dictionary sizes
    its match finder)."""
    return min(_XZ_DICTIONARY, max(4096, 1 << max(length - 1, 1).bit_length()))


def memory_bytes(length: int) -> int:
    """An upper estimate of what `compress` holds for `length` bytes beside
    them: xz -9e's encoder (674 MiB for its 64 MiB dictionary, as xz
    reports: under 11 bytes a byte of dictionary), bzip2 -9's (7.6 MiB)
    and their outputs."""
    return 11 * _dictionary(length) + (16 << 20) + 2 * length


def _xz(data: bytes) -> bytes:
    """xz -9e."""
    filters = [{"id": lzma.FILTER_LZMA2, "preset": _XZ_PRESET, "dict_size": _dictionary(len(data))}]
    return lzma.compress(data, format=lzma.FORMAT_XZ, filters=filters)


def _lzma(data: bytes) -> bytes:
    """xz -9e's LZMA in the .lzma format: no index, no check (the archive
    has the CRC-32 of the data) and an end marker, 40-50 bytes less than .xz."""
    filters = [{"id": lzma.FILTER_LZMA1, "preset": _XZ_PRESET, "dict_size": _dictionary(len(data))}]
    return lzma.compress(data, format=lzma.FORMAT_ALONE, filters=filters)


_ENCODERS = {
    "stored": lambda data: data,
    "deflate": lambda data: zlib.compress(data, 9),
    "bzip2": lambda data: bz2.compress(data, 9),
    "xz": _xz,
    "lzma": _lzma,
}
# Streaming decompressors, so that a damaged or hostile archive cannot make
# fade inflate more than the original size it declares.
DECOMPRESSORS = {
    "deflate": zlib.decompressobj,
    "bzip2": bz2.BZ2Decompressor,
    "xz": lambda: lzma.LZMADecompressor(format=lzma.FORMAT_XZ),
    # A .lzma header names its dictionary: at most what `_lzma` writes is allowed.
    "lzma": lambda: lzma.LZMADecompressor(format=lzma.FORMAT_ALONE,
                                          memlimit=2 * _XZ_DICTIONARY + (16 << 20)),
}
# The methods the floor tries, ties to the earlier (cheaper to decode): "lzma"
# is "xz"'s coder in a smaller container, so "xz" is written only when asked for.
COMPACT_METHODS = ("stored", "deflate", "bzip2", "lzma")
# Every compact method a decoder reads (xz too, which the floor no longer tries).
DECODED_METHODS = ("stored", *DECOMPRESSORS)


HISTOGRAM_SLICE = 1 << 18  # bytes `order0_entropy` counts at a time


def order0_entropy(data: bytes) -> float:
    """Bits per byte of the byte histogram (0.0 for empty input)."""
    if not data:
        return 0.0
    symbols = np.frombuffer(data, dtype=np.uint8)
    # counted a slice at a time: bincount widens its input to 64-bit indices,
    # 8 bytes of new memory for each byte at once (128 MB for 16 MB)
    counts = np.zeros(256, dtype=np.int64)
    for start in range(0, len(symbols), HISTOGRAM_SLICE):
        counts += np.bincount(symbols[start:start + HISTOGRAM_SLICE], minlength=256)
    p = counts[counts > 0] / len(data)
    return float(-(p * np.log2(p)).sum())


def incompressible(data: bytes) -> bool:
    """True when the data looks random: a flat byte histogram and nothing for
    deflate to find. One fast deflate pass; the model is not worth running."""
    if order0_entropy(data) < INCOMPRESSIBLE_ENTROPY:
        return False
    return len(zlib.compress(data, 1)) > (1 - INCOMPRESSIBLE_SAVING) * len(data)


def model_worthwhile(data: bytes, screen=None) -> bool:
    """Whether the learned model can plausibly beat the compact methods;
    always for JPEG photos (`screen`: what fade.kinds.Screen says the bytes
    are), whose scans look random to deflate and whose model reads them."""
    photos = screen is not None and screen.jpeg
    return len(data) >= MIN_LEARNED_SIZE and (photos or not incompressible(data))


def compress(data: bytes, method: str | None = None) -> bytes:
    """A compact archive of `data`: with `method`, or the smallest of COMPACT_METHODS."""
    methods = [method] if method else COMPACT_METHODS
    best = None
    for name in methods:
        archive = pack_compact(name, data, _ENCODERS[name](data))
        if best is None or len(archive) < len(best):
            best = archive
    return best


def beside(data: bytes, wanted: bool, held: int, limit: int | None
           ) -> Callable[[bytes], bytes]:
    """`compress` for the floor's contest with the statistics (fade.single):
    where `wanted` (one thread codes the statistics), started now in a
    thread of its own, on the core they leave, if the memory `limit`
    (default DEFAULT_MEMORY_LIMIT) holds its coders (`memory_bytes`) beside
    the `held` bytes of the statistics' tables; then the function
    returned waits for its archive of `data`. Else `compress` itself, called
    after them. (In process, 64-128 KB of audio, images and other bytes
    took 0.95-0.99x the time; machine code, whose guard codes beside the
    statistics at first, 1.03x with the floor beside too: docs/results.md.)"""
    from fade.race import Background  # (the statistics' threads)

    need = memory_bytes(len(data)) + held
    if not wanted or need > (DEFAULT_MEMORY_LIMIT if limit is None else limit):
        return compress
    thread = Background("floor", lambda check: compress(data))
    return lambda _: thread.result()


READ_CHUNK = 1 << 20  # bytes `inflate` asks for at a time


def inflate(method: str, read_some: Callable[[int], bytes], size: int
            ) -> tuple[bytes, bytes, bytes]:
    """A deflate, bzip2, xz or lzma stream that `read_some(n)` yields (at most
    n bytes a call, b"" at the end), decoded to its end: the stream's bytes,
    the bytes read past its end, and what it decodes to. Never more than
    `size` + 1 bytes of output, so a damaged or hostile stream cannot make
    fade inflate more than its archive declares; CorruptArchiveError where
    the stream is damaged, ends early or holds more."""
    decompressor = DECOMPRESSORS[method]()
    taken, parts, produced = [], [], 0
    pending = b""  # zlib's input not yet consumed (its unconsumed_tail)
    try:
        while not decompressor.eof:
            room = size + 1 - produced
            if method == "deflate":
                if not pending:
                    pending = read_some(READ_CHUNK)
                    taken.append(pending)
                    if not pending:
                        raise CorruptArchiveError(f"{method} stream is damaged (truncated)")
                piece = decompressor.decompress(pending, room)
                pending = decompressor.unconsumed_tail
            else:
                chunk = b""
                if decompressor.needs_input:
                    chunk = read_some(READ_CHUNK)
                    taken.append(chunk)
                    if not chunk:
                        raise CorruptArchiveError(f"{method} stream is damaged (truncated)")
                piece = decompressor.decompress(chunk, room)
            parts.append(piece)
            produced += len(piece)
            if produced > size:
                raise CorruptArchiveError(f"archive is damaged: its stream holds more than "
                                          f"the {size} bytes declared")
    except (OSError, EOFError, ValueError, OverflowError, zlib.error, lzma.LZMAError) as error:
        raise CorruptArchiveError(f"{method} stream is damaged ({error})") from None
    rest = decompressor.unused_data + pending
    stream = b"".join(taken)
    return stream[:len(stream) - len(rest)], rest, b"".join(parts)


def _inflate(method: str, stream: bytes, size: int) -> bytes:
    """What `stream` decodes to (at most size + 1 bytes); it must end exactly
    where it is complete."""
    if method == "stored":
        return stream
    pieces = (stream[start:start + READ_CHUNK] for start in range(0, len(stream), READ_CHUNK))
    _, rest, data = inflate(method, lambda count: next(pieces, b""), size)
    if rest:
        raise CorruptArchiveError(f"{len(rest)} unexpected bytes after the {method} stream")
    return data


def decompress(header: CompactHeader, stream: bytes) -> bytes:
    """Decode a compact archive's stream; checks its length and CRC-32.
    Never holds more than the declared size plus one byte of output."""
    return checked(_inflate(header.method, stream, header.original_size),
                   header.original_size, header.original_crc32)


def checked(data: bytes, size: int, crc: int) -> bytes:
    """`data`, decoded from a compact archive that declares `size` bytes of
    CRC-32 `crc`, once it is exactly that; CorruptArchiveError if not."""
    if len(data) > size:
        raise CorruptArchiveError(f"archive is damaged: its stream holds more than the "
                                  f"{size} bytes declared")
    if len(data) < size:
        raise CorruptArchiveError(f"archive is damaged or truncated: decoded {len(data)} of "
                                  f"{size} bytes")
    if zlib.crc32(data) != crc:
        raise CorruptArchiveError("decoded data fails its CRC-32 (the archive is damaged)")
    return data
