"""Frames: an input of any size in bounded memory, coded in parallel.

Above the frame size an input is cut into independent frames, each a
complete archive of its range (its own model, seed, batch, size floor and
checksums: `fade.compress` of those bytes), and written into a *frames
archive* (format v7, method "frames", docs/format.md):

    head | record 0 | archive 0 | record 1 | archive 1 | ... | index | footer

A record names its frame's number, its place in the original and the size
of the archive after it, and carries the archive's id (from its first
frame), so swapped, repeated or foreign frames are refused before they are
decoded. The index repeats every frame's place (for random access: the
footer says where it starts) and ends with the SHA-256 of the whole
original. An input of at most one frame is written as a plain archive.

Compression reads one frame at a time and writes each as it completes, in
order; decompression writes each frame as it is decoded. Memory depends on
the frame size and the number of jobs, never on the input's size. With
`jobs` > 1, frames are coded by that many worker processes, one thread
each; the thread count is recorded in each frame, so the archive does not
depend on `jobs`.
"""

from __future__ import annotations

import collections
import concurrent.futures
import concurrent.futures.process
import hashlib
import multiprocessing
import os
import queue
import signal
import struct
import time
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterable, Iterator

from fade.archive import FRAMES, MAGIC, METHODS, VERSION, _PREFIX, method_of
from fade.errors import CorruptArchiveError, FadeError, FormatError

# The default frame size: see README, "Frames" (ratio lost against work made parallel).
DEFAULT_FRAME_SIZE = 4 << 20
MIN_FRAME_SIZE = 4 << 10  # small frames only make sense in tests
MAX_FRAME_SIZE = 1 << 40
# Frames one worker may have waiting beside the one it codes.
QUEUE_PER_JOB = 1
FRAME_THREADS = 1  # each frame of a frames archive codes on one thread (any `jobs`)

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


def _struct(fields) -> struct.Struct:
    return struct.Struct("<" + "".join(code for _, code in fields))


_HEAD, _RECORD = _struct(HEAD_FIELDS), _struct(RECORD_FIELDS)
_INDEX, _ROW = _struct(INDEX_FIELDS), _struct(INDEX_ROW_FIELDS)
_INDEX_END, _FOOTER = _struct(INDEX_END_FIELDS), _struct(FOOTER_FIELDS)
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


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


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


# -- writing -----------------------------------------------------------------

def _pack_head(frame_size: int, archive_id: bytes) -> bytes:
    head = _HEAD.pack(MAGIC, VERSION, _METHOD_CODES[FRAMES], 0, frame_size, archive_id, 0)
    return head[:-4] + struct.pack("<I", zlib.crc32(head[:-4]))


def _pack_record(frame: Frame, archive_id: bytes) -> bytes:
    record = _RECORD.pack(FRAME_TAG, frame.number, frame.original_offset, frame.original_size,
                          frame.archive_size, archive_id, 0)
    return record[:-4] + struct.pack("<I", zlib.crc32(record[:-4]))


def _pack_index(frames: list[Frame], total: int, digest: bytes, archive_id: bytes) -> bytes:
    index = _INDEX.pack(INDEX_TAG, len(frames))
    index += b"".join(_ROW.pack(f.original_offset, f.original_size, f.archive_offset,
                                f.archive_size, _METHOD_CODES[f.method]) for f in frames)
    index += _INDEX_END.pack(total, digest, archive_id, 0)[:-4]
    index += struct.pack("<I", zlib.crc32(index))
    return index + _FOOTER.pack(len(index), END_MAGIC)


def compress_stream(source: BinaryIO, sink: Callable[[bytes], None], *,
                    frame_size: int = DEFAULT_FRAME_SIZE, jobs: int = 1,
                    ray: str | None = None,
                    progress: Callable[[int, float | None], None] | None = None,
                    announce: Callable[[bytes, bool], None] | None = None, **options) -> int:
    """Compress `source` into `sink`, frame by frame; returns the input's size.

    `options` go to `fade.compress` for each frame (its `threads` default to
    one per frame where there is more than one frame). Frames are coded by
    `jobs` local processes, or with `ray` (a cluster address) as Ray tasks
    (`fade.cluster`); the archive is the same. `progress(bytes_done,
    bits)` is called as frames advance (bits: the code length so far, where
    known, else None); `announce(first_frame, framed)` once before
    any coding. Nothing is written before the first frame has been read, and
    a single frame is a plain archive."""
    import fade

    check_frame_size(frame_size)
    first = read_exactly(source, frame_size)
    second = read_exactly(source, frame_size) if len(first) == frame_size else b""
    if announce is not None:
        announce(first, bool(second))
    if not second:
        def report(done: int, total: int, bits: float) -> None:
            if progress is not None:
                progress(done, bits)
        sink(fade.compress(first, progress=report, **options))
        return len(first)
    options.setdefault("threads", None)
    if options["threads"] is None:
        options["threads"] = FRAME_THREADS
    archive_id = hashlib.sha256(first).digest()[:8]
    sink(_pack_head(frame_size, archive_id))
    written = _HEAD.size
    digest = hashlib.sha256()
    frames: list[Frame] = []

    def inputs() -> Iterator[bytes]:
        yield first
        yield second
        while chunk := read_exactly(source, frame_size):
            yield chunk

    offset = 0
    with frame_pool("compress", options, jobs, ray) as pool:
        for data, archive in pool.run(inputs(), progress):
            if len(archive) > max_archive_size(len(data)):  # never: no method costs so much
                raise FadeError(f"frame {len(frames)}: its archive is larger than the format "
                                "allows")
            digest.update(data)
            frame = Frame(len(frames), offset, len(data), written + _RECORD.size, len(archive),
                          method_of(archive))
            sink(_pack_record(frame, archive_id))
            sink(archive)
            frames.append(frame)
            offset += len(data)
            written += _RECORD.size + len(archive)
    sink(_pack_index(frames, offset, digest.digest(), archive_id))
    return offset


# -- reading -----------------------------------------------------------------

def _unpack_head(head: bytes) -> tuple[int, bytes]:
    if len(head) < _HEAD.size:
        raise CorruptArchiveError("archive is truncated (incomplete frames header)")
    magic, version, method, flags, frame_size, archive_id, crc = _HEAD.unpack_from(head)
    if zlib.crc32(head[:_HEAD.size - 4]) != crc:
        raise CorruptArchiveError("header checksum mismatch (the archive is damaged)")
    if flags:
        raise FormatError(f"header field flags = {flags} is outside its domain (0)")
    if not MIN_FRAME_SIZE <= frame_size <= MAX_FRAME_SIZE:
        raise FormatError(f"header field frame_size = {frame_size} is outside its domain "
                          f"({MIN_FRAME_SIZE} to {MAX_FRAME_SIZE})")
    return frame_size, archive_id


def _check_record(record: bytes, expected: Frame, frame_size: int, archive_id: bytes) -> Frame:
    """The record of frame `expected.number`, checked against what the frames
    before it imply (its place) and the archive's id."""
    if len(record) < _RECORD.size:
        raise CorruptArchiveError(f"archive is truncated (in the record of frame "
                                  f"{expected.number})")
    tag, number, offset, size, archive_size, record_id, crc = _RECORD.unpack(record)
    if zlib.crc32(record[:-4]) != crc:
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


def _check_frame_archive(frame: Frame, archive: bytes) -> Frame:
    import fade

    if len(archive) < frame.archive_size:
        raise CorruptArchiveError(f"archive is truncated (in frame {frame.number})")
    if len(archive) <= _PREFIX.size or archive[:len(MAGIC)] != MAGIC:
        raise CorruptArchiveError(f"frame {frame.number} is not an archive (the archive is "
                                  "damaged)")
    method = method_of(archive)
    if method == FRAMES:
        raise FormatError(f"frame {frame.number} is itself a frames archive")
    size = fade.read_header(archive).original_size
    if size != frame.original_size:
        raise CorruptArchiveError(f"frame {frame.number}: its archive holds {size} bytes, its "
                                  f"record says {frame.original_size}")
    return Frame(frame.number, frame.original_offset, frame.original_size, frame.archive_offset,
                 frame.archive_size, method)


def _check_index(index: bytes, frames: list[Frame], archive_id: bytes,
                 digest: bytes | None) -> tuple[int, bytes]:
    """The index (from its tag to its CRC) against the frames read before it;
    returns the total size and the SHA-256 it records."""
    if len(index) < _INDEX.size + _INDEX_END.size:
        raise CorruptArchiveError("archive is truncated (in the frame index)")
    if zlib.crc32(index[:-4]) != struct.unpack_from("<I", index, len(index) - 4)[0]:
        raise CorruptArchiveError("frame index checksum mismatch (the archive is damaged)")
    _, count = _INDEX.unpack_from(index)
    if len(index) != _INDEX.size + count * _ROW.size + _INDEX_END.size:
        raise CorruptArchiveError(f"the frame index's size does not match its {count} frames")
    total, recorded, index_id, _ = _INDEX_END.unpack_from(index, len(index) - _INDEX_END.size)
    if index_id != archive_id:
        raise CorruptArchiveError("the frame index comes from another archive")
    if count != len(frames):
        raise CorruptArchiveError(f"the frame index lists {count} frames; the archive has "
                                  f"{len(frames)}")
    for frame, row in zip(frames, _ROW.iter_unpack(index[_INDEX.size:_INDEX.size
                                                         + count * _ROW.size])):
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
    if len(prefix) <= _PREFIX.size or prefix[:len(MAGIC)] != MAGIC:
        return False
    try:
        return method_of(prefix) == FRAMES
    except FadeError:  # an unknown method or version: reported by whoever reads it
        return False


def decompress_stream(source: BinaryIO, sink: Callable[[bytes], None], *, jobs: int = 1,
                      ray: str | None = None,
                      progress: Callable[[int, float | None], None] | None = None,
                      check: Callable[[bytes], object] | None = None, **options) -> int:
    """Decode a frames archive from `source` into `sink`, frame by frame,
    each checked against its record before it is decoded and verified after;
    the index and the whole original's SHA-256 are checked at the end (an
    error there comes after the frames before it were written). `check(archive)`
    runs on each frame's archive before it is decoded; `jobs` and `ray` as
    for `compress_stream`; `options` go to
    `fade.decompress`. Returns the original's size. A frames archive is
    read exactly: `source` is left just after its footer, where another
    archive may follow (fade.members reads such concatenations). Any other
    archive (what `compress_stream` writes for at most one frame) is decoded
    whole, with whatever follows it in `source` (`fade.decompress`)."""
    import fade

    head = read_exactly(source, _HEAD.size)
    if not is_frames(head):
        archive = head + source.read()
        if check is not None:
            check(archive)
        data = fade.decompress(archive, progress=None if progress is None else (
            lambda done, total, bits: progress(done, bits)), **options)
        sink(data)
        return len(data)
    frame_size, archive_id = _unpack_head(head)
    frames: list[Frame] = []
    digest = hashlib.sha256()
    state = {"offset": 0, "position": _HEAD.size, "index": None}

    def inputs() -> Iterator[bytes]:
        while True:
            tag = read_exactly(source, 1)
            if tag == INDEX_TAG:
                state["index"] = tag
                return
            if tag != FRAME_TAG:
                raise CorruptArchiveError("archive is truncated (no frame index)" if not tag
                                          else f"a frame record or index was expected at "
                                               f"byte {state['position']}")
            expected = Frame(len(frames), state["offset"], 0,
                             state["position"] + _RECORD.size, 0, "")
            record = _check_record(tag + read_exactly(source, _RECORD.size - 1), expected,
                                   frame_size, archive_id)
            archive = read_exactly(source, record.archive_size)
            frame = _check_frame_archive(record, archive)
            if check is not None:
                check(archive)
            frames.append(frame)
            state["offset"] += frame.original_size
            state["position"] += _RECORD.size + frame.archive_size
            yield archive

    with frame_pool("decompress", options, jobs, ray) as pool:
        for archive, data in pool.run(inputs(), progress):
            digest.update(data)
            sink(data)
    if state["index"] is None:
        raise CorruptArchiveError("archive is truncated (no frame index)")
    body = read_exactly(source, _INDEX.size - 1)
    count = _INDEX.unpack(INDEX_TAG + body)[1] if len(body) == _INDEX.size - 1 else 0
    rest = read_exactly(source, min(count, len(frames) + 1) * _ROW.size + _INDEX_END.size)
    _check_index(INDEX_TAG + body + rest, frames, archive_id, digest.digest())
    # Exactly the footer: what follows it (another archive) stays in `source`.
    footer = read_exactly(source, _FOOTER.size)
    if len(footer) != _FOOTER.size or footer[8:] != END_MAGIC or \
            _FOOTER.unpack(footer)[0] != 1 + len(body) + len(rest):
        raise CorruptArchiveError("the archive's footer is damaged or missing")
    return state["offset"]


def archive_length(file: BinaryIO, start: int = 0) -> int:
    """The size of the frames archive that begins at `start` in a seekable
    `file`, found by walking its records from its head to its index (each
    record checked, no frame read), so the file may hold more after it."""
    file.seek(start)
    frame_size, archive_id = _unpack_head(read_exactly(file, _HEAD.size))
    position, offset, number = _HEAD.size, 0, 0
    while True:
        tag = read_exactly(file, 1)
        if tag == INDEX_TAG:
            break
        if tag != FRAME_TAG:
            raise CorruptArchiveError("archive is truncated (no frame index)" if not tag
                                      else f"a frame record or index was expected at "
                                           f"byte {position}")
        expected = Frame(number, offset, 0, position + _RECORD.size, 0, "")
        record = _check_record(tag + read_exactly(file, _RECORD.size - 1), expected,
                               frame_size, archive_id)
        position += _RECORD.size + record.archive_size
        offset += record.original_size
        number += 1
        file.seek(start + position)
    body = read_exactly(file, _INDEX.size - 1)
    if len(body) != _INDEX.size - 1:
        raise CorruptArchiveError("archive is truncated (in the frame index)")
    count = _INDEX.unpack(INDEX_TAG + body)[1]
    if count != number:
        raise CorruptArchiveError(f"the frame index lists {count} frames; the archive has "
                                  f"{number}")
    length = position + _INDEX.size + count * _ROW.size + _INDEX_END.size + _FOOTER.size
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
    frame_size, archive_id = _unpack_head(read_exactly(file, _HEAD.size))
    end = file.seek(0, os.SEEK_END) if start is None else archive_length(file, start)
    if end < _HEAD.size + _FOOTER.size:
        raise CorruptArchiveError("archive is truncated (no frame index)")
    file.seek(base + end - _FOOTER.size)
    index_size, end_magic = _FOOTER.unpack(read_exactly(file, _FOOTER.size))
    if end_magic != END_MAGIC or not _INDEX.size + _INDEX_END.size <= index_size <= \
            end - _HEAD.size - _FOOTER.size:
        raise CorruptArchiveError("archive is truncated or damaged (no frame index at its end)")
    file.seek(base + end - _FOOTER.size - index_size)
    index = read_exactly(file, index_size)
    if index[:1] != INDEX_TAG:
        raise CorruptArchiveError("archive is damaged (no frame index where its footer says)")
    count = _INDEX.unpack_from(index)[1]
    rows = index[_INDEX.size:len(index) - _INDEX_END.size]
    if len(rows) != count * _ROW.size:
        raise CorruptArchiveError(f"the frame index's size does not match its {count} frames")
    frames, offset, position = [], 0, _HEAD.size
    for number, row in enumerate(_ROW.iter_unpack(rows)):
        original_offset, size, archive_offset, archive_size, method = row
        if original_offset != offset or archive_offset != position + _RECORD.size or \
                not 1 <= size <= frame_size or method not in METHODS or \
                METHODS[method] == FRAMES:
            raise CorruptArchiveError(f"the frame index's row {number} is inconsistent")
        frames.append(Frame(number, original_offset, size, archive_offset, archive_size,
                            METHODS[method]))
        offset += size
        position = archive_offset + archive_size
    if position != end - _FOOTER.size - index_size:
        raise CorruptArchiveError("the frame index does not match the archive's size")
    total, digest = _check_index(index, frames, archive_id, None)
    return FramesHeader(frame_size, archive_id, tuple(frames), total, digest)


def decompress_range(file: BinaryIO, start: int, stop: int | None, *,
                     archive_start: int | None = None, header: FramesHeader | None = None,
                     **options) -> tuple[bytes, list[int]]:
    """Bytes [start, stop) of the original of a frames archive in `file`,
    decoding only the frames that hold them (each checked and verified);
    returns them and the numbers of the frames decoded. `archive_start` as
    `read_index`'s `start`; `header`: that archive's `read_index`, if the
    caller has it (then the index is not read again)."""
    import fade

    if header is None:
        header = read_index(file, archive_start)
    base = archive_start or 0
    stop = header.original_size if stop is None else min(stop, header.original_size)
    pieces, decoded = [], []
    for frame in header.frames:
        end = frame.original_offset + frame.original_size
        if end <= start or frame.original_offset >= stop:
            continue
        file.seek(base + frame.archive_offset - _RECORD.size)
        record = _check_record(read_exactly(file, _RECORD.size), frame, header.frame_size,
                               header.archive_id)
        archive = read_exactly(file, record.archive_size)
        _check_frame_archive(record, archive)
        data = fade.decompress(archive, **options)
        decoded.append(frame.number)
        pieces.append(data[max(start - frame.original_offset, 0):stop - frame.original_offset])
    return b"".join(pieces), decoded


# -- the worker pool -----------------------------------------------------------

_progress_queue = None  # in a worker: where its frames' progress goes


def _worker_start(progress_queue) -> None:
    global _progress_queue
    _progress_queue = progress_queue
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process stops the pool


def _code_frame(kind: str, number: int, payload: bytes, options: dict,
                report: Callable[[int, int, float], None] | None = None) -> tuple:
    """Compress or decompress one frame; errors come back as values (some
    of fade's errors do not survive pickling). In a worker, progress goes to
    the main process through its queue, at most twice a second."""
    import fade

    last = [0.0]

    def queued(done: int, total: int, bits: float) -> None:
        now = time.monotonic()
        if _progress_queue is not None and (now - last[0] > 0.5 or done == total):
            last[0] = now
            _progress_queue.put((number, done))

    try:
        coder = fade.compress if kind == "compress" else fade.decompress
        return "ok", coder(payload, progress=report or queued, **options)
    except CorruptArchiveError as error:
        return "corrupt", str(error)
    except FadeError as error:
        return "error", str(error)
    except MemoryError:
        return "error", "out of memory"


class FramePool:
    """Codes frames in order: in this process (`jobs` 1) or in `jobs` worker
    processes (spawned: no state shared with this one), with at most
    QUEUE_PER_JOB frames waiting per worker, so memory stays bounded.
    `fade.cluster.RayPool` runs the same frames as Ray tasks."""

    def __init__(self, jobs: int, kind: str, options: dict):
        self.jobs, self.kind, self.options = max(1, jobs), kind, options
        self._pool = self._queue = None
        self._finished = 0  # bytes of the frames done (input for compress, output for decompress)
        self._partial: dict[int, int] = {}
        self._completed = 0  # frames done (they complete in order)
        self._progress: Callable[[int, float | None], None] | None = None
        if self.jobs > 1:
            context = multiprocessing.get_context("spawn")
            self._queue = context.Queue()
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.jobs, mp_context=context, initializer=_worker_start,
                initargs=(self._queue,))

    @property
    def window(self) -> int:
        """Frames submitted and not yet given out, at most."""
        return self.jobs * (1 + QUEUE_PER_JOB)

    def run(self, payloads: Iterable[bytes],
            progress: Callable[[int, float | None], None] | None) -> Iterator[tuple[bytes, bytes]]:
        """(payload, result) for each payload, in order. If `payloads` fails,
        the frames before the failure are still coded and given out first."""
        self._progress = progress
        source = enumerate(payloads)
        if not self._parallel():
            for number, payload in source:
                status, *result = _code_frame(
                    self.kind, number, payload, self.options,
                    lambda done, total, bits, n=number: self._report(n, done))
                yield payload, self._complete(number, payload, status, result)
            return
        waiting: collections.deque = collections.deque()
        while True:
            try:
                number, payload = next(source)
            except StopIteration:
                break
            except Exception:
                while waiting:
                    yield self._wait(*waiting.popleft())
                raise
            waiting.append((number, payload, self._submit(number, payload)))
            while waiting and (len(waiting) >= self.window or self._ready(waiting[0][2])):
                yield self._wait(*waiting.popleft())
        while waiting:
            yield self._wait(*waiting.popleft())

    def _parallel(self) -> bool:
        return self._pool is not None

    def _submit(self, number: int, payload: bytes):
        return self._pool.submit(_code_frame, self.kind, number, payload, self.options)

    def _ready(self, pending) -> bool:
        return pending.done()

    def _report(self, number: int, done: int) -> None:
        if number < self._completed:  # a late report of a frame already counted
            return
        self._partial[number] = done
        if self._progress is not None:
            self._progress(self._finished + sum(self._partial.values()), None)

    def _complete(self, number: int, payload: bytes, status: str, result: list) -> bytes:
        if status == "corrupt":
            raise CorruptArchiveError(f"frame {number}: {result[0]}")
        if status != "ok":
            raise FadeError(f"frame {number}: {result[0]}")
        self._partial.pop(number, None)
        self._completed = number + 1
        self._finished += len(payload if self.kind == "compress" else result[0])
        if self._progress is not None:
            self._progress(self._finished + sum(self._partial.values()), None)
        return result[0]

    def _wait(self, number: int, payload: bytes, pending) -> tuple[bytes, bytes]:
        while True:
            try:
                status, *result = pending.result(timeout=0.2)
                break
            except concurrent.futures.TimeoutError:
                self._drain()
            except concurrent.futures.process.BrokenProcessPool:
                raise FadeError(f"frame {number}: a worker process died (out of memory? "
                                "try fewer jobs, -T)") from None
        self._drain()
        return payload, self._complete(number, payload, status, result)

    def _drain(self) -> None:
        while True:
            try:
                number, done = self._queue.get_nowait()
            except queue.Empty:
                return
            self._report(number, done)

    def close(self) -> None:
        """Stop the workers, also in the middle of a frame (an error, Ctrl-C)."""
        if self._pool is not None:
            # The executor has no public way to stop a running call before
            # Python 3.14 (terminate_workers); its process table has been
            # there since 3.2.
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.terminate()
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> "FramePool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def frame_pool(kind: str, options: dict, jobs: int = 1, ray: str | None = None) -> FramePool:
    """The local pool of `jobs` processes, or with `ray` (a cluster address,
    "auto" for the one this machine belongs to) one of Ray tasks."""
    if ray is None:
        return FramePool(jobs, kind, options)
    from fade.cluster import RayPool

    return RayPool(ray, kind, options)
