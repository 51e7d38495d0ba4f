"""Frames: an input of any size in bounded memory, coded in parallel.

Above the frame size an input is cut into independent frames, each a
complete single archive of its range (its own model, seed, batch, size
floor and checksums: `fade.single.compress` of those bytes), written into a
frames archive (the container: fade.format.container). An input of at most
one frame is written as a plain archive. This module holds the drivers:
`compress_stream`, `decompress_stream`, `decompress_range`, and the
whole-archive `decompress`, `read_header` and `check_archive` that accept
either kind of archive.

Compression reads one frame at a time and writes each as it completes, in
order; decompression writes each frame as it is decoded. Memory depends on
the frame size and the number of jobs, never on the input's size. With
`jobs` > 1, frames are coded by that many worker processes (fade.pool), one
thread each; the thread count is recorded in each frame, so the archive
does not depend on `jobs`.
"""

from __future__ import annotations

import hashlib
import io
import os
from typing import BinaryIO, Callable, Iterator

from fade import single

from fade.errors import CorruptArchiveError, FadeError, FormatError
from fade.format.archive import PREFIX, method_of
from fade.format.binary import read_exactly
from fade.format.container import (FRAME_TAG, HEAD, INDEX, INDEX_END, INDEX_TAG, FOOTER, RECORD,
                                   ROW, END_MAGIC, Frame, FramesHeader, check_frame_size,
                                   check_index, check_record, is_frames, max_archive_size,
                                   pack_head, pack_index, pack_record, read_index, unpack_head,
                                   archive_length)  # noqa: F401 (readers of the container, for callers)
from fade.format.headers import FRAMES, MAGIC, AnyHeader, Header
from fade.pool import FramePool
from fade.single import Plan

# The default frame size: the ratio lost to smaller frames against the work
# made parallel (docs/results.md).
DEFAULT_FRAME_SIZE = 4 << 20
FRAME_THREADS = 1  # each frame of a frames archive codes on one thread (any `jobs`)


def default_jobs() -> int:
    """One job per core this process may run on."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


def compress_stream(source: BinaryIO, sink: Callable[[bytes], None], *,
                    frame_size: int = DEFAULT_FRAME_SIZE, jobs: int = 1,
                    ray: str | None = None,
                    progress: Callable[[int, float | None], None] | None = None,
                    announce: Callable[[bytes, bool], None] | None = None,
                    show_plan: Callable[[Plan], None] | None = None, **options) -> int:
    """Compress `source` into `sink`, frame by frame; returns the input's size.

    `options` go to `fade.single.compress` for each frame (its `threads`
    default to FRAME_THREADS where there is more than one frame). Frames
    are coded by `jobs` local processes, or with `ray` (a cluster address)
    as Ray tasks (fade.pool); the archive is the same. `progress(bytes_done,
    bits)` is called as frames advance (bits: the code length so far, where
    known, else None); `announce(first_frame, framed)` once before any
    coding, then `show_plan(plan)` with the first frame's Plan. Nothing is
    written before the first frame has been read, and a single frame is a
    plain archive."""
    check_frame_size(frame_size)
    first = read_exactly(source, frame_size)
    second = read_exactly(source, frame_size) if len(first) == frame_size else b""
    if second and options.get("threads") is None:
        options["threads"] = FRAME_THREADS
    if announce is not None:
        announce(first, bool(second))
    if show_plan is not None:
        show_plan(single.plan(len(first), **options))
    if not second:
        def report(done: int, total: int, bits: float) -> None:
            if progress is not None:
                progress(done, bits)
        sink(single.compress(first, progress=report, **options))
        return len(first)
    archive_id = hashlib.sha256(first).digest()[:8]
    sink(pack_head(frame_size, archive_id))
    written = HEAD.size
    digest = hashlib.sha256()
    frames: list[Frame] = []

    def inputs() -> Iterator[bytes]:
        yield first
        yield second
        while chunk := read_exactly(source, frame_size):
            yield chunk

    offset = 0
    with FramePool("compress", options, jobs, ray) as pool:
        for data, archive in pool.run(inputs(), progress):
            if len(archive) > max_archive_size(len(data)):  # never: no method costs so much
                raise FadeError(f"frame {len(frames)}: its archive is larger than the format "
                                "allows")
            digest.update(data)
            frame = Frame(len(frames), offset, len(data), written + RECORD.size, len(archive),
                          method_of(archive))
            sink(pack_record(frame, archive_id))
            sink(archive)
            frames.append(frame)
            offset += len(data)
            written += RECORD.size + len(archive)
    sink(pack_index(frames, offset, digest.digest(), archive_id))
    return offset


def _check_frame_archive(frame: Frame, archive: bytes) -> Frame:
    """A frame's archive against its record, before it is decoded: a whole
    single archive of the recorded size; returns the frame with its method."""
    if len(archive) < frame.archive_size:
        raise CorruptArchiveError(f"archive is truncated (in frame {frame.number})")
    if len(archive) <= PREFIX.size or archive[:len(MAGIC)] != MAGIC:
        raise CorruptArchiveError(f"frame {frame.number} is not an archive (the archive is "
                                  "damaged)")
    method = method_of(archive)
    if method == FRAMES:
        raise FormatError(f"frame {frame.number} is itself a frames archive")
    size = single.read_header(archive).original_size
    if size != frame.original_size:
        raise CorruptArchiveError(f"frame {frame.number}: its archive holds {size} bytes, its "
                                  f"record says {frame.original_size}")
    return Frame(frame.number, frame.original_offset, frame.original_size, frame.archive_offset,
                 frame.archive_size, method)


def decompress_stream(source: BinaryIO, sink: Callable[[bytes], None], *, jobs: int = 1,
                      ray: str | None = None,
                      progress: Callable[[int, float | None], None] | None = None,
                      check: Callable[[bytes], object] | None = None, **options) -> int:
    """Decode a frames archive from `source` into `sink`, frame by frame,
    each checked against its record before it is decoded and verified after;
    the index and the whole original's SHA-256 are checked at the end (an
    error there comes after the frames before it were written). `check(archive)`
    runs on each frame's archive before it is decoded; `jobs` and `ray` as
    for `compress_stream`; `options` go to `fade.single.decompress`. Returns
    the original's size. Any other archive (what `compress_stream` writes
    for at most one frame) is decoded whole."""
    head = read_exactly(source, HEAD.size)
    if not is_frames(head):
        archive = head + source.read()
        if check is not None:
            check(archive)
        data = single.decompress(archive, progress=None if progress is None else (
            lambda done, total, bits: progress(done, bits)), **options)
        sink(data)
        return len(data)
    frame_size, archive_id = unpack_head(head)
    frames: list[Frame] = []
    digest = hashlib.sha256()
    state = {"offset": 0, "position": HEAD.size, "index": None}

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
                             state["position"] + RECORD.size, 0, "")
            record = check_record(tag + read_exactly(source, RECORD.size - 1), expected,
                                  frame_size, archive_id)
            archive = read_exactly(source, record.archive_size)
            frame = _check_frame_archive(record, archive)
            if check is not None:
                check(archive)
            frames.append(frame)
            state["offset"] += frame.original_size
            state["position"] += RECORD.size + frame.archive_size
            yield archive

    with FramePool("decompress", options, jobs, ray) as pool:
        for archive, data in pool.run(inputs(), progress):
            digest.update(data)
            sink(data)
    if state["index"] is None:
        raise CorruptArchiveError("archive is truncated (no frame index)")
    body = read_exactly(source, INDEX.size - 1)
    count = INDEX.unpack(INDEX_TAG + body)[1] if len(body) == INDEX.size - 1 else 0
    rest = read_exactly(source, min(count, len(frames) + 1) * ROW.size + INDEX_END.size)
    check_index(INDEX_TAG + body + rest, frames, archive_id, digest.digest())
    # Exactly the footer: what follows it (another archive) stays in `source`.
    footer = read_exactly(source, FOOTER.size)
    if len(footer) != FOOTER.size or footer[8:] != END_MAGIC or \
            FOOTER.unpack(footer)[0] != 1 + len(body) + len(rest):
        raise CorruptArchiveError("the archive's footer is damaged or missing")
    return state["offset"]


def decompress_range(file: BinaryIO, start: int, stop: int | None, *,
                     archive_start: int | None = None, header: FramesHeader | None = None,
                     **options) -> tuple[bytes, list[int]]:
    """Bytes [start, stop) of the original of a frames archive in `file`,
    decoding only the frames that hold them (each checked and verified);
    returns them and the numbers of the frames decoded. `archive_start` as
    `read_index`'s `start`; `header`: that archive's `read_index`, if the
    caller has it (then the index is not read again)."""
    if header is None:
        header = read_index(file, archive_start)
    base = archive_start or 0
    stop = header.original_size if stop is None else min(stop, header.original_size)
    pieces, decoded = [], []
    for frame in header.frames:
        end = frame.original_offset + frame.original_size
        if end <= start or frame.original_offset >= stop:
            continue
        file.seek(base + frame.archive_offset - RECORD.size)
        record = check_record(read_exactly(file, RECORD.size), frame, header.frame_size,
                              header.archive_id)
        archive = read_exactly(file, record.archive_size)
        _check_frame_archive(record, archive)
        data = single.decompress(archive, **options)
        decoded.append(frame.number)
        pieces.append(data[max(start - frame.original_offset, 0):stop - frame.original_offset])
    return b"".join(pieces), decoded


def read_header(archive: bytes) -> AnyHeader | FramesHeader:
    """Parse and check an archive's header (and a learned one's payload
    checksum); a frames archive's index."""
    if is_frames(archive):
        return read_index(io.BytesIO(archive))
    return single.read_header(archive)


def check_archive(archive: bytes, memory_limit: int | None = None,
                  max_threads: int | None = None, device: str = "auto") -> Header | None:
    """`fade.single.check_archive` for a single archive; a frames archive:
    its index (each frame is checked as it is decoded), and None."""
    if is_frames(archive):
        read_index(io.BytesIO(archive))
        return None
    return single.check_archive(archive, memory_limit, max_threads, device)
