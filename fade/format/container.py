"""The frames container in bytes (format v7, method "frames", docs/format.md).

An input cut into frames is written as

    head | record 0 | archive 0 | record 1 | archive 1 | ... | index | footer

where each archive is a complete single archive of its frame
(fade.format.archive). A record names its frame's number, its place in the
original and the size of the archive after it, and carries the archive's
id (from its first frame), so swapped, repeated or foreign frames are
refused before they are decoded. The index repeats every frame's place (for
random access: the footer says where it starts) and ends with the SHA-256
of the whole original. This module packs and checks those parts; the
drivers that read and write whole streams are in fade.frames.
"""

from __future__ import annotations

import collections
import os
from dataclasses import dataclass
from typing import BinaryIO

from fade.errors import CorruptArchiveError, FadeError, FormatError
from fade.format.archive import PREFIX, method_of
from fade.format.binary import U32, layout, read_exactly, seal_last, sealed
from fade.format.headers import FRAMES, MAGIC, METHODS, VERSION

MIN_FRAME_SIZE = 4 << 10  # small frames only make sense in tests
MAX_FRAME_SIZE = 1 << 40

# The parts of the container, (field, struct code) in file order, each
# sealed by the CRC-32 in its last field; docs/format.md has the same tables.
HEAD_FIELDS = [("magic", "8s"), ("version", "H"), ("method", "B"), ("flags", "H"),
               ("frame_size", "Q"), ("archive_id", "8s"), ("head_crc32", "I")]
RECORD_FIELDS = [("tag", "1s"), ("number", "Q"), ("original_offset", "Q"),
                 ("original_size", "Q"), ("archive_size", "Q"), ("archive_id", "8s"),
                 ("record_crc32", "I")]
INDEX_FIELDS = [("tag", "1s"), ("frame_count", "Q")]
INDEX_ROW_FIELDS = [("original_offset", "Q"), ("original_size", "Q"), ("archive_offset", "Q"),
                    ("archive_size", "Q"), ("method", "B")]
INDEX_END_FIELDS = [("total_size", "Q"), ("original_sha256", "32s"), ("archive_id", "8s"),
                    ("index_crc32", "I")]
FOOTER_FIELDS = [("index_size", "Q"), ("end_magic", "8s")]

HEAD, RECORD = layout(HEAD_FIELDS), layout(RECORD_FIELDS)
INDEX, ROW = layout(INDEX_FIELDS), layout(INDEX_ROW_FIELDS)
INDEX_END, FOOTER = layout(INDEX_END_FIELDS), layout(FOOTER_FIELDS)
FRAME_TAG, INDEX_TAG = b"F", b"I"
END_MAGIC = b"FADEIDX\x1a"
_METHOD_CODES = {name: code for code, name in METHODS.items()}


@dataclass(frozen=True)
class Frame:
    """One frame's place in the original and in the archive."""

    number: int
    original_offset: int
    original_size: int
    archive_offset: int  # where the frame's own archive starts
    archive_size: int
    method: str


@dataclass(frozen=True)
class FramesHeader:
    """A frames archive, as `read_index` finds it."""

    frame_size: int
    archive_id: bytes
    frames: tuple[Frame, ...]
    original_size: int
    original_sha256: bytes
    version: int = VERSION
    method: str = FRAMES

    def fields(self) -> dict[str, object]:
        methods = collections.Counter(frame.method for frame in self.frames)
        return {"version": self.version, "method": self.method,
                "original_size": self.original_size,
                "original_sha256": self.original_sha256.hex(), "frame_size": self.frame_size,
                "archive_id": self.archive_id.hex(), "frames": len(self.frames),
                "frame_methods": ", ".join(f"{name} {count}" for name, count in methods.items())}


def max_archive_size(original_size: int) -> int:
    """The largest archive of a frame of `original_size` bytes: no method
    codes a byte in more than 24 bits (the range coder's floor is 2^-24),
    plus headers."""
    return 3 * original_size + 65_536


def check_frame_size(frame_size: int) -> int:
    if not MIN_FRAME_SIZE <= frame_size <= MAX_FRAME_SIZE:
        raise FadeError(f"frame size must be between {MIN_FRAME_SIZE} and {MAX_FRAME_SIZE} "
                        f"bytes, not {frame_size}")
    return frame_size


def pack_head(frame_size: int, archive_id: bytes) -> bytes:
    head = HEAD.pack(MAGIC, VERSION, _METHOD_CODES[FRAMES], 0, frame_size, archive_id, 0)
    return seal_last(head)


def pack_record(frame: Frame, archive_id: bytes) -> bytes:
    record = RECORD.pack(FRAME_TAG, frame.number, frame.original_offset, frame.original_size,
                         frame.archive_size, archive_id, 0)
    return seal_last(record)


def pack_index(frames: list[Frame], total: int, digest: bytes, archive_id: bytes) -> bytes:
    index = INDEX.pack(INDEX_TAG, len(frames))
    index += b"".join(ROW.pack(f.original_offset, f.original_size, f.archive_offset,
                               f.archive_size, _METHOD_CODES[f.method]) for f in frames)
    index = seal_last(index + INDEX_END.pack(total, digest, archive_id, 0))
    return index + FOOTER.pack(len(index), END_MAGIC)


def unpack_head(head: bytes) -> tuple[int, bytes]:
    if len(head) < HEAD.size:
        raise CorruptArchiveError("archive is truncated (incomplete frames header)")
    _, _, _, flags, frame_size, archive_id, _ = HEAD.unpack_from(head)
    if not sealed(head, HEAD.size - U32.size):
        raise CorruptArchiveError("header checksum mismatch (the archive is damaged)")
    if flags:
        raise FormatError(f"header field flags = {flags} is outside its domain (0)")
    if not MIN_FRAME_SIZE <= frame_size <= MAX_FRAME_SIZE:
        raise FormatError(f"header field frame_size = {frame_size} is outside its domain "
                          f"({MIN_FRAME_SIZE} to {MAX_FRAME_SIZE})")
    return frame_size, archive_id


def check_record(record: bytes, expected: Frame, frame_size: int, archive_id: bytes) -> Frame:
    """The record of frame `expected.number`, checked against what the frames
    before it imply (its place) and the archive's id."""
    if len(record) < RECORD.size:
        raise CorruptArchiveError(f"archive is truncated (in the record of frame "
                                  f"{expected.number})")
    _, number, offset, size, archive_size, record_id, _ = RECORD.unpack(record)
    if not sealed(record, RECORD.size - U32.size):
        raise CorruptArchiveError(f"frame {expected.number}: record checksum mismatch (the "
                                  "archive is damaged)")
    if record_id != archive_id:
        raise CorruptArchiveError(f"frame {expected.number} comes from another archive")
    if number != expected.number or offset != expected.original_offset:
        raise CorruptArchiveError(f"frame {number} (original offset {offset}) is out of place: "
                                  f"expected frame {expected.number} at {expected.original_offset}")
    if not 1 <= size <= frame_size:
        raise FormatError(f"frame {number}: original_size = {size} is outside its domain "
                          f"(1 to the frame size {frame_size})")
    if not 1 <= archive_size <= max_archive_size(size):
        raise FormatError(f"frame {number}: archive_size = {archive_size} is outside its domain "
                          f"(1 to {max_archive_size(size)} for {size} bytes)")
    return Frame(number, offset, size, expected.archive_offset, archive_size, "")


def check_index(index: bytes, frames: list[Frame], archive_id: bytes,
                digest: bytes | None) -> tuple[int, bytes]:
    """The index (from its tag to its CRC) against the frames read before it;
    returns the total size and the SHA-256 it records."""
    if len(index) < INDEX.size + INDEX_END.size:
        raise CorruptArchiveError("archive is truncated (in the frame index)")
    if not sealed(index, len(index) - U32.size):
        raise CorruptArchiveError("frame index checksum mismatch (the archive is damaged)")
    _, count = INDEX.unpack_from(index)
    if len(index) != INDEX.size + count * ROW.size + INDEX_END.size:
        raise CorruptArchiveError(f"the frame index's size does not match its {count} frames")
    total, recorded, index_id, _ = INDEX_END.unpack_from(index, len(index) - INDEX_END.size)
    if index_id != archive_id:
        raise CorruptArchiveError("the frame index comes from another archive")
    if count != len(frames):
        raise CorruptArchiveError(f"the frame index lists {count} frames; the archive has "
                                  f"{len(frames)}")
    for frame, row in zip(frames, ROW.iter_unpack(index[INDEX.size:INDEX.size
                                                        + count * ROW.size])):
        if row != (frame.original_offset, frame.original_size, frame.archive_offset,
                   frame.archive_size, _METHOD_CODES[frame.method]):
            raise CorruptArchiveError(f"frame {frame.number} disagrees with the frame index")
    if total != sum(frame.original_size for frame in frames):
        raise CorruptArchiveError("the frame index's total size disagrees with its frames")
    if digest is not None and digest != recorded:
        raise CorruptArchiveError("the decoded frames do not match the archive's SHA-256")
    return total, recorded


def is_frames(prefix: bytes) -> bool:
    """Whether an archive starting with `prefix` (at least 11 bytes) is a frames archive."""
    if len(prefix) <= PREFIX.size or prefix[:len(MAGIC)] != MAGIC:
        return False
    try:
        return method_of(prefix) == FRAMES
    except FadeError:  # an unknown method or version: reported by whoever reads it
        return False


def archive_length(file: BinaryIO, start: int = 0) -> int:
    """The size of the frames archive that begins at `start` in a seekable
    `file`, found by walking its records from its head to its index (each
    record checked, no frame read), so the file may hold more after it."""
    file.seek(start)
    frame_size, archive_id = unpack_head(read_exactly(file, HEAD.size))
    position, offset, number = HEAD.size, 0, 0
    while True:
        tag = read_exactly(file, 1)
        if tag == INDEX_TAG:
            break
        if tag != FRAME_TAG:
            raise CorruptArchiveError("archive is truncated (no frame index)" if not tag
                                      else f"a frame record or index was expected at "
                                           f"byte {position}")
        expected = Frame(number, offset, 0, position + RECORD.size, 0, "")
        record = check_record(tag + read_exactly(file, RECORD.size - 1), expected,
                              frame_size, archive_id)
        position += RECORD.size + record.archive_size
        offset += record.original_size
        number += 1
        file.seek(start + position)
    body = read_exactly(file, INDEX.size - 1)
    if len(body) != INDEX.size - 1:
        raise CorruptArchiveError("archive is truncated (in the frame index)")
    count = INDEX.unpack(INDEX_TAG + body)[1]
    if count != number:
        raise CorruptArchiveError(f"the frame index lists {count} frames; the archive has "
                                  f"{number}")
    length = position + INDEX.size + count * ROW.size + INDEX_END.size + FOOTER.size
    if file.seek(0, os.SEEK_END) < start + length:
        raise CorruptArchiveError("archive is truncated (in the frame index or footer)")
    return length


def read_index(file: BinaryIO, start: int | None = None) -> FramesHeader:
    """The frames of a frames archive in a seekable `file`, from its index,
    without reading the frames themselves. By default the archive fills the
    file; with `start`, it begins there and its end is found by
    `archive_length` (the file may hold other archives before and after it).
    Offsets in the result are from the archive's start."""
    base = 0 if start is None else start
    file.seek(base)
    frame_size, archive_id = unpack_head(read_exactly(file, HEAD.size))
    end = file.seek(0, os.SEEK_END) if start is None else archive_length(file, start)
    if end < HEAD.size + FOOTER.size:
        raise CorruptArchiveError("archive is truncated (no frame index)")
    file.seek(base + end - FOOTER.size)
    index_size, end_magic = FOOTER.unpack(read_exactly(file, FOOTER.size))
    if end_magic != END_MAGIC or not INDEX.size + INDEX_END.size <= index_size <= \
            end - HEAD.size - FOOTER.size:
        raise CorruptArchiveError("archive is truncated or damaged (no frame index at its end)")
    file.seek(base + end - FOOTER.size - index_size)
    index = read_exactly(file, index_size)
    if index[:1] != INDEX_TAG:
        raise CorruptArchiveError("archive is damaged (no frame index where its footer says)")
    count = INDEX.unpack_from(index)[1]
    rows = index[INDEX.size:len(index) - INDEX_END.size]
    if len(rows) != count * ROW.size:
        raise CorruptArchiveError(f"the frame index's size does not match its {count} frames")
    frames, offset, position = [], 0, HEAD.size
    for number, row in enumerate(ROW.iter_unpack(rows)):
        original_offset, size, archive_offset, archive_size, method = row
        if original_offset != offset or archive_offset != position + RECORD.size or \
                not 1 <= size <= frame_size or method not in METHODS or \
                METHODS[method] == FRAMES:
            raise CorruptArchiveError(f"the frame index's row {number} is inconsistent")
        frames.append(Frame(number, original_offset, size, archive_offset, archive_size,
                            METHODS[method]))
        offset += size
        position = archive_offset + archive_size
    if position != end - FOOTER.size - index_size:
        raise CorruptArchiveError("the frame index does not match the archive's size")
    total, digest = check_index(index, frames, archive_id, None)
    return FramesHeader(frame_size, archive_id, tuple(frames), total, digest)
