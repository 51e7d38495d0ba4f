"""Archives one after another: where each ends.

Like xz, bzip2 and gzip streams, fade archives may be concatenated (`cat
a.fade b.fade > ab.fade`, or `fade.open(path, "ab")`): the whole decodes to
their originals one after another, each archive checked against its own
checksums. Bytes after the last archive that do not start another one are an
error ("unexpected bytes after archive N (at byte X)"), never dropped.

Where an archive ends is its method's to say (fade.methods: `read` in
each method's module; docs/format.md has every layout). Where finding the
end means decoding (deflate, bzip2, xz, lzma, statistics, and a strong
floats archive nesting one of them), the decoded bytes are kept; a frames
archive's records are walked from the head to the index and footer
(`fade.frames.archive_length`) and it is decoded frame by frame.

Example:

    >>> import fade
    >>> both = fade.compress(b"spam ", method="stored") + fade.compress(b"eggs", method="xz")
    >>> fade.decompress(both)
    b'spam eggs'
    >>> archive_extent(both)[0]
    28
"""

from __future__ import annotations

import contextlib
import io
import os
from typing import TYPE_CHECKING, BinaryIO, Callable

from fade import frames
from fade import single
from fade.format.archive import PREFIX_SIZE, method_named, method_of, unpack
from fade.format.container import FramesHeader
from fade.format.headers import (FLOATS, FRAMES, LEARNED, MAGIC, READABLE_VERSIONS, STATISTICS,
                                 Header)
from fade.errors import CorruptArchiveError, FadeError, FormatError
from fade.methods import METHODS, Reading
from fade.profile import decoded_by

if TYPE_CHECKING:
    from fade.lockstep import StepTimings

Progress = Callable[[int, int, float], None]  # (bytes done, bytes in this archive, bits)
StreamProgress = Callable[[int, float | None], None]  # (bytes done, bits), as fade.frames


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
    reading = Reading(memory_limit, progress,
                      lambda nested: read_archive(nested, memory_limit, progress))
    return METHODS[method].read(source, prefix, version, method, reading)


# Up to this many bytes at the end of a file are read whole to check
# whether they are one archive (the usual case: no decoding to list it).
LAST_MEMBER_READ = 256 << 20


def list_archives(file: BinaryIO) -> list[tuple[object, int, str | None]]:
    """(header, size, what decodes it) of each archive in a seekable `file`,
    without decoding them where their headers say where they end; what
    decodes it is None where fade alone does (no learned model). A
    statistics archive's header does not say where it ends: the last one is
    recognised by its stream's checksum over the rest of the file; one
    followed by another archive is decoded to find its end (and a compact
    archive's deflate, bzip2, xz or lzma stream to find its own). What
    `fade -l` lists."""
    end = file.seek(0, os.SEEK_END)
    found: list[tuple[object, int, str | None]] = []
    offset = 0
    while offset < end or not found:
        file.seek(offset)
        prefix = file.read(PREFIX_SIZE)
        if found and not prefix.startswith(MAGIC):
            raise trailing_bytes(len(found), offset)
        if frames.is_frames(prefix):
            size = frames.archive_length(file, offset)
            header = frames.read_index(file, start=offset)
            learned = _learned_frame_header(file, offset, header)
        else:
            file.seek(offset)
            header, size, learned = _plain_archive(file, end - offset)
        needs = None if learned is None else decoded_by(learned.machine())
        found.append((header, size, needs))
        offset += size
    return found


def _learned_frame_header(file, offset: int, header: FramesHeader) -> Header | None:
    """The learned header of a frames archive's first frame that runs a
    model, if any: every frame of one archive was made on the same machine."""
    for frame in header.frames:
        if frame.method in (LEARNED, FLOATS):
            file.seek(offset + frame.archive_offset)
            learned = single.model_header(file.read(frame.archive_size))
            if learned is not None:
                return learned
    return None


def _plain_archive(file: BinaryIO, left: int) -> tuple[object, int, Header | None]:
    """The header and size of the archive (not frames) at `file`'s position,
    and the learned header its model runs with (None: none runs)."""
    start = file.tell()
    prefix = file.read(PREFIX_SIZE)
    if left <= LAST_MEMBER_READ and method_named(prefix) == STATISTICS:
        file.seek(start)
        rest = file.read()
        with contextlib.suppress(FadeError):  # its stream's CRC-32 holds: the last archive
            return unpack(rest)[0], len(rest), None
    file.seek(start)
    archive, _ = read_archive(Source(file))
    return unpack(archive)[0], len(archive), single.model_header(archive)


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


def each_archive(source: BinaryIO, step: Callable[[Source, int, int], int]) -> int:
    """Call `step(reader, number, offset)` for each archive in `source`, one
    after another, as archive `number` (from 1) starts at byte `offset`:
    the step reads exactly that archive from `reader` and returns its
    original's size; returns their sum. Bytes after the last archive that
    start no archive are a FormatError; an error about the second archive
    or a later one names it (`locate`). The loop of `decompress_stream`,
    and of the command line's decoder (whose step replays, notes and times)."""
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
        try:
            total += step(reader, number, offset)
        except FadeError as error:
            locate(error, number, offset)
            raise


def _decode_all(source: BinaryIO, sink: Callable[[bytes], None], jobs: int, ray: str | None,
                progress_for: Callable[[int], Progress | None],
                check: Callable[[bytes], object] | None,
                on_archive: Callable[[int, int], None] | None, options: dict) -> int:
    """`decompress_stream`'s decoding; `progress_for(done)` gives the
    progress callback of an archive whose originals before it hold `done` bytes."""
    done = 0

    def step(reader: Source, number: int, offset: int) -> int:
        nonlocal done
        if on_archive is not None:
            on_archive(number, offset)
        size = decode_archive(reader, sink, jobs=jobs, ray=ray, progress=progress_for(done),
                              check=check, options=options)
        done += size
        return size

    return each_archive(source, step)


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
