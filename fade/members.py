"""Archives one after another: where each ends.

Like xz, bzip2 and gzip streams, fade archives may be concatenated (`cat
a.fade b.fade > ab.fade`, or `fade.open(path, "ab")`): the whole decodes to
their originals one after another, each archive checked against its own
checksums. Bytes after the last archive that do not start another one are an
error ("unexpected bytes after archive N (at byte X)"), never dropped.

Where an archive ends (docs/format.md has every layout):

- learned ("fade", versions 1 to 8): `header_size` + `payload_size`;
- stored: its 23-byte header and `original_size` bytes;
- deflate, bzip2, xz: the header and a self-delimiting stream, whose end the
  stdlib decoder finds: finding it decodes it, so the decoded bytes are kept;
- statistics: header, table and the coder's stream, whose end only decoding
  finds (`fade.statistics.decode_prefix`), so the decoded bytes are kept;
- floats: fast, the table's stream sizes; strong, the end of its nested
  archive (found the same way, recursively);
- frames: its records walked from the head to the index and footer
  (`fade.frames.archive_length`); a frames archive is decoded frame by frame.

Example:

    >>> import fade
    >>> both = fade.compress(b"spam ", method="stored") + fade.compress(b"eggs", method="xz")
    >>> fade.decompress(both)
    b'spam eggs'
    >>> archive_extent(both)[0]
    28
"""

from __future__ import annotations

import io
import lzma
import struct
import zlib
from typing import TYPE_CHECKING, BinaryIO, Callable

from fade import floor, frames, statistics
from fade import single
from fade.format.archive import STATISTICS_BYTES_PER_BIT, method_of, unpack
from fade.format.headers import (COMPACT_FIELDS, FLOAT_FIELDS, FLOATS, FRAMES, LEARNED, MAGIC,
                                 READABLE_VERSIONS, SEGMENT_FIELDS, STATISTICS, FloatHeader)
from fade.format.legacy import fixed_fields, statistics_fields
from fade.race import check_memory as check_statistics_memory
from fade.config import StatisticsConfig
from fade.errors import ChecksumMismatchError, CorruptArchiveError, FadeError, FormatError

if TYPE_CHECKING:
    from fade.lockstep import StepTimings

Progress = Callable[[int, int, float], None]  # (bytes done, bytes in this archive, bits)
StreamProgress = Callable[[int, float | None], None]  # (bytes done, bits), as fade.frames


def _struct(fields: list[tuple[str, str]]) -> struct.Struct:
    return struct.Struct("<" + "".join(code for _, code in fields))


def _offset(fields: list[tuple[str, str]], name: str) -> int:
    names = [field for field, _ in fields]
    return _struct(fields[:names.index(name)]).size


# What every archive starts with: magic, version and (from version 2) the
# method byte; a version 1 archive's 11th byte is its flags' first.
PREFIX_SIZE = len(MAGIC) + 2 + 1
# The fixed part of a learned header in each version.
_LEARNED_FIELDS = {version: fixed_fields(version) for version in READABLE_VERSIONS}
_COMPACT = _struct(COMPACT_FIELDS)
_FLOAT_TABLE, _SEGMENT = _struct(FLOAT_FIELDS), _struct(SEGMENT_FIELDS)
_STATISTICS_TABLE = {7: _struct(statistics_fields(7)), 8: _struct(statistics_fields(8))}
_U32 = struct.Struct("<I")
# The bit coder gives a bit at least 1/65536 of its range: at most 16 bits a
# bit, 16 bytes a byte, plus its 4-byte final state. A statistics stream is
# never longer, so no more than this is read to find where it ends.
_STATISTICS_BYTES_PER_BYTE = 16
_STATISTICS_SLACK = 64
_READ_CHUNK = 1 << 20  # how much is asked of a stream at a time


class Source:
    """A binary stream read exactly, where bytes read past an archive's end
    can be put back for the next one; `position` counts the bytes taken.

    >>> source = Source(io.BytesIO(b"abcdef"))
    >>> source.read(4), source.unread(b"cd"), source.read(), source.position
    (b'abcd', None, b'cdef', 6)
    """

    def __init__(self, file: BinaryIO):
        self.file = file
        self.position = 0
        self._back = bytearray()

    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes (all that is left if negative); fewer only at the end."""
        if size < 0:
            data = bytes(self._back) + self.file.read()
            self._back.clear()
        elif len(self._back) >= size:
            data = bytes(self._back[:size])
            del self._back[:size]
        else:
            data = bytes(self._back)
            self._back.clear()
            parts, left = [data], size - len(data)
            while left > 0:  # in pieces: a damaged size must not allocate what is not there
                part = self.file.read(min(left, _READ_CHUNK))
                if not part:
                    break
                parts.append(part)
                left -= len(part)
            data = b"".join(parts)
        self.position += len(data)
        return data

    def read_some(self, size: int) -> bytes:
        """Some bytes, at most `size`, at least one unless at the end: what
        was put back, else one read of the stream (a pipe gives what it has;
        a file all it can)."""
        if self._back:
            data = bytes(self._back[:size])
            del self._back[:size]
            if len(data) < size and getattr(self.file, "ready", lambda: True)():
                data += self.file.read(size - len(data))
        else:
            data = self.file.read(size)
        self.position += len(data)
        return data

    def unread(self, data: bytes) -> None:
        """Put `data`, the bytes last read, back in front of the stream."""
        self._back[:0] = data
        self.position -= len(data)

    def peek(self, size: int) -> bytes:
        """The next `size` bytes (fewer at the end), left unread."""
        data = self.read(size)
        self.unread(data)
        return data

    def pending(self) -> bytes:
        """The bytes put back and not read again (taken from the stream already)."""
        return bytes(self._back)


def read_archive(source: Source, memory_limit: int | None = None,
                 progress: Progress | None = None) -> tuple[bytes, bytes | None]:
    """Read exactly one archive that is not a frames archive from `source`;
    returns its bytes and, where finding its end meant decoding it (deflate,
    bzip2, xz, statistics, and a strong floats archive nesting one of them),
    its original, checked against the archive's checksums (else None).

    Cost: reading the archive; decoding, for those methods. A truncated or
    damaged archive is given back as far as it was read (None), so that
    decoding it reports the damage as `fade.decompress` does.

    >>> archive, data = read_archive(Source(io.BytesIO(fade.compress(b"ab", method="xz"))))
    >>> data
    b'ab'
    """
    prefix = source.read(PREFIX_SIZE)
    version = int.from_bytes(prefix[len(MAGIC):len(MAGIC) + 2], "little")
    if len(prefix) < PREFIX_SIZE or not prefix.startswith(MAGIC) or \
            version not in READABLE_VERSIONS:
        unpack(prefix)  # says what is wrong: not an archive, truncated, a newer version
        raise CorruptArchiveError("archive is truncated (incomplete header)")
    method = method_of(prefix)
    if method == FRAMES:
        unpack(prefix)  # a frames archive has no single header: fade.frames reads it
    if method == LEARNED:
        return _read_learned(source, prefix, version), None
    head = prefix + source.read(_COMPACT.size - len(prefix))
    if len(head) < _COMPACT.size:
        return head, None
    size, crc = _COMPACT.unpack(head)[3:]
    if method == STATISTICS:
        return _read_statistics(source, head, version, size, crc, memory_limit, progress)
    if method == FLOATS:
        return _read_floats(source, head, size, crc, memory_limit, progress)
    if method == "stored":
        return head + source.read(size), None
    stream, data = _inflate(source, method, size)
    if len(data) < size:
        raise CorruptArchiveError(f"archive is damaged or truncated: decoded {len(data)} of "
                                  f"{size} bytes")
    if zlib.crc32(data) != crc:
        raise CorruptArchiveError("decoded data fails its CRC-32 (the archive is damaged)")
    return head + stream, data


def _read_learned(source: Source, prefix: bytes, version: int) -> bytes:
    """A learned archive: its header (checked before its sizes are trusted), then its payload."""
    fields = _LEARNED_FIELDS[version]
    fixed = _struct(fields).size
    head = prefix + source.read(fixed - len(prefix))
    if len(head) < fixed:
        return head
    (header_size,) = _U32.unpack_from(head, _offset(fields, "header_size"))
    (payload_size,) = struct.unpack_from("<Q", head, _offset(fields, "payload_size"))
    head += source.read(max(header_size - len(head), 0))
    if header_size < fixed + _U32.size or len(head) < header_size or \
            zlib.crc32(head[:header_size - _U32.size]) != \
            _U32.unpack_from(head, header_size - _U32.size)[0]:
        return head  # unpack reports the damage
    return head + source.read(payload_size)


def _inflate(source: Source, method: str, size: int) -> tuple[bytes, bytes]:
    """The stream of a deflate, bzip2, xz or lzma archive read to its end
    (what follows it left in `source`), and what it decodes to
    (floor.inflate: never more than `size` + 1 bytes of it)."""
    stream, rest, data = floor.inflate(method, source.read_some, size)
    source.unread(rest)
    return stream, data


def _read_statistics(source: Source, head: bytes, version: int, size: int, crc: int,
                     memory_limit: int | None,
                     progress: Progress | None) -> tuple[bytes, bytes | None]:
    """A statistics archive: its table, then its stream decoded to where it ends."""
    table = _STATISTICS_TABLE[8 if version >= 8 else 7]  # versions 6 and 7: no model field
    head += source.read(table.size + _U32.size)
    end = _COMPACT.size + table.size
    if len(head) < end + _U32.size or zlib.crc32(head[:end]) != _U32.unpack_from(head, end)[0]:
        return head, None  # unpack reports the damage
    values = table.unpack_from(head, _COMPACT.size)
    table_bits, match_bits, rate, keyed = values[:4]
    model = values[4] if version >= 8 else 0
    try:
        config = StatisticsConfig(table_bits, match_bits, rate, bool(keyed), model).validate(
            "header field")
    except FadeError as error:
        raise FormatError(str(error)) from None
    if keyed:
        raise FormatError(f"header field keyed = {keyed} is outside its domain (0 in a "
                          "statistics archive: one stream)")

    check_statistics_memory(config, size, memory_limit)
    # The stream's end is known only once it is decoded: decoded from what
    # the source has, and again from its start if that ran out and more
    # comes (a file gives all it can at once: one decode; a pipe what has
    # arrived: one decode per piece).
    limit = _STATISTICS_BYTES_PER_BYTE * size + _STATISTICS_SLACK
    stream = source.read_some(limit)
    report = None if progress is None else (lambda done, bits: progress(done, size, bits))
    while True:
        # No decode (nor its arrays of `size` bytes) before the bytes there
        # can hold `size` (docs/format.md, "Field domains").
        most = (8 * len(stream) + 64) * STATISTICS_BYTES_PER_BIT
        try:
            if size > most:
                raise FormatError(f"header field original_size = {size} is outside its domain "
                                  f"(at most {most} for a payload of {len(stream)} bytes)")
            data, used = statistics.decode_prefix(stream, size, config, report)
            break
        except FadeError:
            more = source.read_some(limit - len(stream)) if len(stream) < limit else b""
            if not more:  # all there is: as the last archive, its CRC-32 names the damage
                unpack(head + stream)
                raise
            stream += more
    source.unread(stream[used:])
    archive = head + stream[:used]
    unpack(archive)  # the stream's CRC-32 and the size's domain
    if zlib.crc32(data) != crc:
        raise ChecksumMismatchError("decoded data fails its CRC-32 (the archive is damaged, "
                                    "or a bug in fade: the statistics decode alike on any "
                                    "machine)")
    return archive, data


def _read_floats(source: Source, head: bytes, size: int, crc: int, memory_limit: int | None,
                 progress: Progress | None) -> tuple[bytes, bytes | None]:
    """A floats archive: its segment table, then the segments' streams (fast)
    or one nested archive (strong)."""
    head += source.read(_FLOAT_TABLE.size)
    if len(head) < _COMPACT.size + _FLOAT_TABLE.size:
        return head, None
    mode, _, count, _ = _FLOAT_TABLE.unpack_from(head, _COMPACT.size)
    end = _COMPACT.size + _FLOAT_TABLE.size + count * _SEGMENT.size
    head += source.read(end + _U32.size - len(head))
    if len(head) < end + _U32.size or zlib.crc32(head[:end]) != _U32.unpack_from(head, end)[0]:
        return head, None
    if mode == 0:  # fast: the table says how long each segment's stream is
        streams = sum(row[3] for row in _SEGMENT.iter_unpack(
            head[_COMPACT.size + _FLOAT_TABLE.size:end]))
        return head + source.read(streams), None
    if _is_floats(source.peek(PREFIX_SIZE)):  # so that damage cannot make reading recurse
        raise CorruptArchiveError("a floats archive nests another floats archive")
    nested, planes = read_archive(source, memory_limit, progress)
    archive = head + nested
    if planes is None:
        return archive, None
    from fade import floats

    header = unpack(archive)[0]
    assert isinstance(header, FloatHeader)
    data = floats.from_planes(planes, header.segments)
    if len(data) != size or zlib.crc32(data) != crc:
        raise ChecksumMismatchError("decoded data fails its CRC-32 (the archive is damaged)")
    return archive, data


def _is_floats(prefix: bytes) -> bool:
    try:
        return len(prefix) == PREFIX_SIZE and prefix.startswith(MAGIC) and \
            method_of(prefix) == FLOATS
    except FadeError:
        return False


def archive_extent(buffer: bytes, offset: int = 0,
                   memory_limit: int | None = None) -> tuple[int, bytes | None]:
    """The length of the archive that starts at `offset` in `buffer` (any
    method, frames included), and its original where finding the end meant
    decoding it (deflate, bzip2, xz, statistics), checked; else None.

    Raises a FadeError where the archive is damaged or truncated.

    >>> both = fade.compress(b"spam", method="stored") * 2
    >>> archive_extent(both)
    (27, None)
    """
    file = io.BytesIO(buffer)
    if frames.is_frames(buffer[offset:offset + PREFIX_SIZE]):
        length = frames.archive_length(file, offset)
        if offset + length > len(buffer):
            raise CorruptArchiveError("archive is truncated (in the frame index)")
        return length, None
    file.seek(offset)
    source = Source(file)
    archive, data = read_archive(source, memory_limit)
    if data is None:
        unpack(archive)  # a truncated or damaged archive is an error here, not a short length
    return len(archive), data


def decode_archive(source: Source, sink: Callable[[bytes], None], *, jobs: int, ray: str | None,
                progress: Progress | None, check: Callable[[bytes], object] | None,
                options: dict) -> int:
    """Decode the one archive at the front of `source` into `sink` (a frames
    archive frame by frame, any other whole), reading exactly that archive;
    returns its original's size. `progress` as `fade.decompress`'s, for this
    archive; `check` as for `decompress_stream`; `options` go to
    `fade.decompress`.

    >>> source = Source(io.BytesIO(fade.compress(b"a") + fade.compress(b"b")))
    >>> decode_archive(source, print, jobs=1, ray=None, progress=None, check=None, options={})
    b'a'
    1
    """


    if frames.is_frames(source.peek(PREFIX_SIZE)):
        framed = None if progress is None else (
            lambda done, bits: progress(done, 0, 0.0 if bits is None else bits))
        return frames.decompress_stream(source, sink, jobs=jobs, ray=ray, progress=framed,
                                        check=check, **options)
    archive, data = read_archive(source, options.get("memory_limit"), progress)
    if check is not None:
        check(archive)
    if data is None:
        data = single.decompress(archive, progress=progress, **options)
    sink(data)
    return len(data)


def _left(reader: Source) -> int | None:
    """The bytes left in `reader` where it is in memory (an archive given
    whole); None for a stream (not read to its end to count them)."""
    if isinstance(reader.file, io.BytesIO):
        return len(reader.file.getbuffer()) - reader.file.tell() + len(reader.pending())
    return None


def trailing_bytes(number: int, offset: int, left: int | None = None) -> FormatError:
    """The error for bytes after archive `number` that start no archive, at
    byte `offset` of the input; `left`: how many, where known."""
    count = "" if left is None else f"{left} "
    return FormatError(f"{count}unexpected bytes after archive {number} (at byte {offset})")


def locate(error: FadeError, number: int, offset: int) -> None:
    """Say which archive of several an error is about (the first: no change)."""
    if number > 1:
        error.args = (f"archive {number} (at byte {offset}): {error}",) + error.args[1:]


def _decode_all(source: BinaryIO, sink: Callable[[bytes], None], jobs: int, ray: str | None,
                progress_for: Callable[[int], Progress | None],
                check: Callable[[bytes], object] | None,
                on_archive: Callable[[int, int], None] | None, options: dict) -> int:
    """The loop of `decompress_stream`; `progress_for(done)` gives the
    progress callback of an archive whose originals before it hold `done` bytes."""
    reader = Source(source)
    total = number = 0
    while True:
        offset = reader.position
        if number:
            magic = reader.peek(len(MAGIC))
            if not magic:
                return total
            if magic != MAGIC:
                raise trailing_bytes(number, offset, _left(reader))
        number += 1
        if on_archive is not None:
            on_archive(number, offset)
        try:
            total += decode_archive(reader, sink, jobs=jobs, ray=ray, progress=progress_for(total),
                                 check=check, options=options)
        except FadeError as error:
            locate(error, number, offset)
            raise


def decompress_stream(source: BinaryIO, sink: Callable[[bytes], None], *, jobs: int = 1,
                      ray: str | None = None, progress: StreamProgress | None = None,
                      check: Callable[[bytes], object] | None = None,
                      on_archive: Callable[[int, int], None] | None = None,
                      **options) -> int:
    """Decode every archive in `source`, one after another, into `sink`;
    returns the total size of the originals.

    A frames archive is decoded frame by frame as `fade.frames.decompress_stream`
    does (with `jobs`, `ray`, `check`); any other archive is read whole and
    decoded (memory: that archive and its original). `progress(done, bits)`
    counts bytes over all archives; `check(archive)` runs on each archive (each
    frame's) before it is decoded, except where finding an archive's end
    decodes it (deflate, bzip2, xz, statistics): after, before `sink` sees it.
    `on_archive(number, offset)` is called as archive `number` (from 1) starts
    at byte `offset` of `source`. `options` go to `fade.decompress`
    (memory_limit also bounds the statistics decoded here). `source` is read
    to its end. Errors: each a FadeError; one about the second archive or a
    later one names it ("archive 2 (at byte 1234): ..."), and bytes after the
    last archive that start no archive are a FormatError, "[K ]unexpected
    bytes after archive N (at byte X)" (K where `source` is a BytesIO). The
    first archive's errors read as `fade.decompress`'s.

    >>> out = []
    >>> decompress_stream(io.BytesIO(fade.compress(b"a") + fade.compress(b"b")), out.append)
    2
    >>> out
    [b'a', b'b']
    """
    def progress_for(done: int) -> Progress | None:
        if progress is None:
            return None
        return lambda count, total, bits: progress(done + count, bits)

    return _decode_all(source, sink, jobs, ray, progress_for, check, on_archive, options)


def decompress(archive: bytes, *, device: str = "auto", coder_threads: int | None = None,
               memory_limit: int | None = None, max_threads: int | None = None,
               progress: Progress | None = None, profile: StepTimings | None = None) -> bytes:
    """Decode an archive, or several one after another (their originals
    concatenated, as `lzma.decompress` does), each verified against its
    checksums; what follows the last archive must be another archive.

    `device`, `coder_threads`, `memory_limit`, `max_threads` and `profile`
    as for one archive (fade.single.decompress);
    `progress(done, total, bits)` is called for each archive in turn (its
    own bytes done and total).

    >>> decompress(fade.compress(b"spam ") + fade.compress(b"eggs"))
    b'spam eggs'
    """
    options: dict = dict(device=device, coder_threads=coder_threads, memory_limit=memory_limit,
                         max_threads=max_threads)
    if profile is not None:
        options["profile"] = profile
    parts: list[bytes] = []
    _decode_all(io.BytesIO(archive), parts.append, 1, None, lambda done: progress, None, None,
                options)
    return b"".join(parts)
