"""File objects over fade archives, as lzma and bz2 have: `fade.open`.

Three layers, like CPython's `lzma` module: the one-shot `fade.compress` and
`fade.decompress`; the incremental `FadeCompressor` and `FadeDecompressor`,
fed chunks of any size; and `open()`, a binary (or text) file object whose
reads pull frames as they are needed and whose writes push frames as they
fill. The archives are exactly those of `fade.frames.compress_stream`, and
archives one after another read as their originals concatenated
(fade.members), which is what mode "a" makes.

The incremental coders live in fade.incremental; the file object reads
through a FadeDecompressor where the file cannot seek, and writes through a
FadeCompressor.

Example:

    >>> import fade
    >>> with fade.open("notes.fade", "wb", level="fast") as file:
    ...     file.write(b"hello " * 1000)
    6000
    >>> with fade.open("notes.fade") as file:
    ...     file.seek(3000), file.read(5)
    (3000, b'hello')
"""

from __future__ import annotations

import bisect
import builtins
import io
import os
from dataclasses import dataclass
from typing import BinaryIO

from fade import frames, members
from fade.format.archive import unpack
from fade.format.headers import MAGIC
from fade.errors import CorruptArchiveError, FadeError
from fade.format.container import FramesHeader
from fade.incremental import FadeCompressor, FadeDecompressor
from fade.single import Settings

# Bytes asked of a file that cannot seek at a time: a statistics archive's
# end is found by decoding what has arrived, again as more arrives, so few
# large pieces cost less than many small ones.
_READ_SIZE = 1 << 20
_MODES = {"r": "rb", "rb": "rb", "w": "wb", "wb": "wb", "x": "xb", "xb": "xb", "a": "ab",
          "ab": "ab"}


@dataclass
class _Member:
    """An archive of a seekable input: its place there and in the original."""

    start: int  # bytes from the first archive's start
    length: int
    original_offset: int
    original_size: int
    index: FramesHeader | None  # a frames archive's


class _SeekableReader:
    """Reads the originals of the archives in a seekable file: a frames
    archive one frame at a time, through its index, any other whole."""

    def __init__(self, file: BinaryIO, options: dict):
        # Frames are decoded one at a time here, as reads reach them.
        self._file = file
        self._options = {k: v for k, v in options.items() if k not in ("jobs", "ray")}
        self._base = file.tell()
        self._members: list[_Member] = []
        self._decoded: dict[int, bytes] = {}  # member number -> original, found decoding its end
        self._scanned = 0  # where the next archive to find starts
        self._complete = False
        self.frames_decoded = 0

    def _discover(self) -> bool:
        """Find the next archive; False at the end of the input."""
        if self._complete:
            return False
        number, offset = len(self._members) + 1, self._scanned
        self._file.seek(self._base + offset)
        prefix = frames.read_exactly(self._file, members.PREFIX_SIZE)
        if number > 1 and not prefix:
            self._complete = True
            return False
        if number > 1 and prefix[:len(MAGIC)] != MAGIC:
            end = self._file.seek(0, os.SEEK_END)
            raise members.trailing_bytes(number - 1, offset, end - self._base - offset)
        before = self._members[-1].original_offset + self._members[-1].original_size \
            if self._members else 0
        try:
            if frames.is_frames(prefix):
                start = self._base + offset
                index = frames.read_index(self._file, start)
                member = _Member(offset, frames.archive_length(self._file, start), before,
                                 index.original_size, index)
            else:
                self._file.seek(self._base + offset)
                archive, data = members.read_archive(members.Source(self._file),
                                                     self._options.get("memory_limit"))
                if data is None:
                    size = unpack(archive)[0].original_size
                    if not size:  # checked now: no read ever lands in it
                        data = self._decode_archive(archive)
                else:
                    size = len(data)
                if data is not None:
                    self._decoded[number - 1] = data
                member = _Member(offset, len(archive), before, size, None)
        except FadeError as error:
            members.locate(error, number, offset)
            raise
        self._members.append(member)
        self._scanned = offset + member.length
        return True

    def _decode_archive(self, archive: bytes) -> bytes:
        from fade import single

        return single.decompress(archive, **self._options)

    def size(self) -> int:
        """The total size of the originals (finds every archive)."""
        while self._discover():
            pass
        last = self._members[-1]
        return last.original_offset + last.original_size

    def chunk(self, position: int) -> tuple[int, bytes] | None:
        """(offset, bytes) of the original holding `position`: a frame of a
        frames archive, or a whole archive's original; None past the end."""
        ends = [m.original_offset + m.original_size for m in self._members]
        number = bisect.bisect_right(ends, position)
        while number >= len(self._members):
            if not self._discover():
                return None
            member = self._members[-1]
            if member.original_offset + member.original_size > position:
                number = len(self._members) - 1
        member = self._members[number]
        try:
            if member.index is not None:
                return self._frame(member, position - member.original_offset)
            data = self._decoded.pop(number, None)
            if data is None:
                self._file.seek(self._base + member.start)
                archive, data = members.read_archive(members.Source(self._file),
                                                     self._options.get("memory_limit"))
                if data is None:
                    data = self._decode_archive(archive)
            if len(data) != member.original_size:
                raise CorruptArchiveError("the archive changed while it was read")
        except FadeError as error:
            members.locate(error, number + 1, member.start)
            raise
        return member.original_offset, data

    def _frame(self, member: _Member, offset: int) -> tuple[int, bytes]:
        index = member.index
        assert index is not None
        starts = [frame.original_offset for frame in index.frames]
        frame = index.frames[bisect.bisect_right(starts, offset) - 1]
        data, _ = frames.decompress_range(
            self._file, frame.original_offset, frame.original_offset + frame.original_size,
            archive_start=self._base + member.start, header=index, **self._options)
        self.frames_decoded += 1
        return member.original_offset + frame.original_offset, data


class _StreamReader:
    """Reads the originals of the archives in a file that cannot seek: each
    archive through a FadeDecompressor, frame by frame."""

    def __init__(self, file: BinaryIO, options: dict):
        self._file, self._options = file, options
        self._decompressor = FadeDecompressor(**options)
        self._number = 1
        self._start = 0  # where the current archive starts in the input
        self._consumed = 0  # bytes given to decompressors
        self._complete = False
        self._counted = 0  # frames of the archives before the current one
        self._pending = b""  # output that came with the bytes starting an archive
        self._in_archive = True  # False while what follows an archive is looked at

    @property
    def frames_decoded(self) -> int:
        return self._counted + self._decompressor.frames_decoded

    def next_chunk(self) -> bytes | None:
        """The next decoded bytes (at least one), or None at the end."""
        while not self._complete:
            try:
                return self._step()
            except FadeError as error:
                if self._in_archive:  # not the data after the last archive
                    members.locate(error, self._number, self._start)
                raise
        return None

    def _step(self) -> bytes | None:
        while True:
            if self._pending:
                output, self._pending = self._pending, b""
                return output
            decompressor = self._decompressor
            if decompressor.eof:
                if not self._next_archive(decompressor.unused_data):
                    self._complete = True
                    return None
                continue
            data = self._file.read(_READ_SIZE)
            self._consumed += len(data)
            output = decompressor.decompress(data) if data else decompressor.end_input()
            if output:
                return output
            if not data and not decompressor.eof:
                raise CorruptArchiveError("archive is truncated")

    def _next_archive(self, rest: bytes) -> bool:
        """Start the archive after the one just decoded; False if none follows."""
        while len(rest) < len(MAGIC):
            more = self._file.read(_READ_SIZE)
            if not more:
                break
            self._consumed += len(more)
            rest += more
        if not rest:
            return False
        start = self._consumed - len(rest)
        self._in_archive = False
        if rest[:len(MAGIC)] != MAGIC:
            raise members.trailing_bytes(self._number, start)
        self._counted += self._decompressor.frames_decoded
        self._number += 1
        self._start = start
        self._decompressor = FadeDecompressor(**self._options)
        self._in_archive = True
        self._pending = self._decompressor.decompress(rest)
        return True


class FadeFile(io.BufferedIOBase):
    """A file object over fade archives, like `lzma.LZMAFile`: reading gives
    the originals of the archives one after another; writing makes one
    archive (mode "a" appends one more to the file).

    `file` is a path or a binary file object (not closed by `close()` then).
    Reading a seekable file uses a frames archive's index: `seek` lands on
    the frame that holds the position and only the frames read are decoded
    (`frames_decoded` counts them); each frame is checked against its record
    and its own checksums, and any other archive against its own. A file that
    cannot seek is read straight through, with
    every archive's checks, a frames archive's whole SHA-256 included, and
    cannot seek (as `lzma.LZMAFile` over such a file).
    Writing: `settings` (a `fade.Settings`), `level` and the other keyword
    arguments as for `FadeCompressor`; reading: the keyword arguments go to
    `fade.decompress`.

    >>> with FadeFile("notes.fade", "wb", level="fast") as file:
    ...     file.write(b"spam")
    4
    >>> FadeFile("notes.fade").read()
    b'spam'
    """

    def __init__(self, file: str | bytes | os.PathLike | BinaryIO, mode: str = "rb", *,
                 settings: Settings | None = None, level: str | None = None, **options):
        if mode not in _MODES:
            raise ValueError(f"invalid mode: {mode!r} (one of {', '.join(_MODES)})")
        self._mode = _MODES[mode]
        if isinstance(file, (str, bytes, os.PathLike)):
            self._file: BinaryIO = builtins.open(file, self._mode)
            self._owned = True
        elif hasattr(file, "read" if self._mode == "rb" else "write"):
            self._file = file
            self._owned = False
        else:
            raise TypeError("file must be a path (str, bytes or os.PathLike) or a file object")
        self._position = 0
        self._chunk, self._chunk_offset = b"", 0
        self._compressor: FadeCompressor | None = None
        self._reader: _SeekableReader | _StreamReader | None = None
        if self._mode == "rb":
            if level is not None or settings is not None:
                raise ValueError("level and settings are for writing")
            seekable = getattr(self._file, "seekable", lambda: False)()
            self._reader = (_SeekableReader if seekable else _StreamReader)(self._file, options)
        else:
            if level is not None:
                options["level"] = level
            self._compressor = FadeCompressor(settings, **options)

    # -- state
    @property
    def frames_decoded(self) -> int:
        """Frames of frames archives decoded so far (reading)."""
        return 0 if self._reader is None else self._reader.frames_decoded

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError("I/O operation on closed file")

    def readable(self) -> bool:
        self._check_open()
        return self._mode == "rb"

    def writable(self) -> bool:
        self._check_open()
        return self._mode != "rb"

    def seekable(self) -> bool:
        self._check_open()
        return isinstance(self._reader, _SeekableReader)

    def close(self) -> None:
        """Finish the archive (writing) and close the file, if it was opened here."""
        if self.closed:
            return
        try:
            if self._compressor is not None:
                self._file.write(self._compressor.flush())
                self._compressor = None
        finally:
            try:
                if self._owned:
                    self._file.close()
            finally:
                self._chunk = b""
                super().close()

    def fileno(self) -> int:
        raise io.UnsupportedOperation("a fade file has no file descriptor of its own")

    # -- reading
    def _need_readable(self) -> None:
        self._check_open()
        if self._mode != "rb":
            raise io.UnsupportedOperation("not open for reading")

    def _load(self) -> bool:
        """Make the chunk hold the position; False at the end."""
        end = self._chunk_offset + len(self._chunk)
        if self._chunk_offset <= self._position < end:
            return True
        if isinstance(self._reader, _SeekableReader):
            found = self._reader.chunk(self._position)
            if found is None:
                return False
            self._chunk_offset, self._chunk = found
            return True
        while self._position >= end:  # a stream: forward only, skipping what is before
            data = self._reader.next_chunk()
            if data is None:
                return False
            self._chunk_offset, self._chunk = end, data
            end += len(data)
        return True

    def read(self, size: int | None = -1) -> bytes:
        """Up to `size` bytes of the originals (to the end if negative or None)."""
        self._need_readable()
        if size is None or size < 0:
            parts = []
            while self._load():
                parts.append(self._take(len(self._chunk)))
            return b"".join(parts)
        parts, left = [], size
        while left > 0 and self._load():
            part = self._take(left)
            parts.append(part)
            left -= len(part)
        return b"".join(parts)

    def _take(self, size: int) -> bytes:
        start = self._position - self._chunk_offset
        part = self._chunk[start:start + size]
        self._position += len(part)
        return part

    def read1(self, size: int = -1) -> bytes:
        """Up to `size` bytes, decoding at most one frame or archive."""
        self._need_readable()
        if size == 0 or not self._load():
            return b""
        return self._take(len(self._chunk) if size < 0 else size)

    def peek(self, size: int = 0) -> bytes:
        """Bytes from the position on, without moving it (at least one, unless at the end)."""
        self._need_readable()
        if not self._load():
            return b""
        return self._chunk[self._position - self._chunk_offset:]

    def readinto(self, buffer: bytearray | memoryview) -> int:
        """Read into `buffer`; returns the number of bytes read."""
        data = self.read(memoryview(buffer).nbytes)
        memoryview(buffer).cast("B")[:len(data)] = data
        return len(data)

    def readinto1(self, buffer: bytearray | memoryview) -> int:
        """Read into `buffer`, decoding at most one frame or archive."""
        data = self.read1(memoryview(buffer).nbytes)
        memoryview(buffer).cast("B")[:len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Move to `offset` of the originals (from the start, the position or
        the end); a frames archive decodes only the frame found there, when
        it is read. Returns the new position."""
        self._need_readable()
        if not isinstance(self._reader, _SeekableReader):
            raise io.UnsupportedOperation("the underlying file cannot seek")
        if whence == io.SEEK_SET:
            target = offset
        elif whence == io.SEEK_CUR:
            target = self._position + offset
        elif whence == io.SEEK_END:
            target = self._reader.size() + offset
        else:
            raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")
        if target < 0:
            raise ValueError(f"negative seek position {target}")
        self._position = target
        return target

    def tell(self) -> int:
        """The position in the originals (reading) or in the input (writing)."""
        self._check_open()
        return self._position

    # -- writing
    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Compress `data` into the archive; returns its length in bytes."""
        self._check_open()
        if self._compressor is None:
            raise io.UnsupportedOperation("not open for writing")
        data = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        self._file.write(self._compressor.compress(bytes(data)))
        self._position += len(data)
        return len(data)


def open(file: str | bytes | os.PathLike | BinaryIO, mode: str = "rb", *,
         settings: Settings | None = None, level: str | None = None,
         encoding: str | None = None, errors: str | None = None,
         newline: str | None = None, **options) -> FadeFile | io.TextIOWrapper:
    """Open a fade archive (or several, one after another) in binary or text
    mode, as `lzma.open` does: "r", "rb", "w", "wb", "x", "xb", "a", "ab"
    give a FadeFile; "rt", "wt", "xt", "at" one wrapped in io.TextIOWrapper
    with `encoding`, `errors` and `newline`. `settings`, `level` and the
    other keyword arguments as for FadeFile.

    >>> with open("poem.fade", "wt", level="fast", encoding="utf-8") as file:
    ...     file.write("Tyger Tyger, burning bright\\n")
    28
    >>> open("poem.fade", "rt", encoding="utf-8").readline()
    'Tyger Tyger, burning bright\\n'
    """
    if "t" in mode:
        if "b" in mode:
            raise ValueError(f"invalid mode: {mode!r}")
    else:
        if encoding is not None:
            raise ValueError("an encoding is for text mode")
        if errors is not None:
            raise ValueError("errors is for text mode")
        if newline is not None:
            raise ValueError("newline is for text mode")
    binary = FadeFile(file, mode.replace("t", ""), settings=settings, level=level, **options)
    if "t" in mode:
        return io.TextIOWrapper(binary, encoding, errors, newline)
    return binary
