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
thread each; the thread count is recorded in each frame. By default the
frame size follows the input's size and `jobs` (`frame_size_for`: one frame
per job, within a memory bound); a frame size given makes the archive the
same for any `jobs`.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import io
import itertools
import os
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator

from fade import cuts, floats, single

from fade.config import format_bytes
from fade.errors import CorruptArchiveError, FadeError, FormatError
from fade.format.archive import PREFIX, method_of
from fade.format.binary import read_exactly
from fade.format.container import (FRAME_TAG, HEAD, INDEX, INDEX_END, INDEX_TAG, FOOTER, RECORD,
                                   MIN_FRAME_SIZE,
                                   ROW, END_MAGIC, Frame, FramesHeader, check_frame_size,
                                   check_index, check_record, is_frames, max_archive_size,
                                   pack_head, pack_index, pack_record, read_index, unpack_head,
                                   archive_length)  # noqa: F401 (readers of the container, for callers)
from fade.format.headers import FRAMES, MAGIC, AnyHeader, Header
from fade.pool import FramePool, Whole
from fade.single import Plan
from fade.lockstep import StepTimings

# Frames sized to the job (`frame_size_for`): an input is cut into one frame
# per job, as large as keeps every worker busy, so that one core codes one
# frame and the fewest frames cost the least ratio; no frame sized so is
# larger than AUTO_FRAME_LIMIT (what one job holds: its frame, the archive
# and the statistics' per-byte state grow with it), and none is made
# smaller than MIN_AUTO_FRAME to share work (a smaller input is one frame).
AUTO_FRAME_LIMIT = 64 << 20
MIN_AUTO_FRAME = 4 << 20
DEFAULT_FRAME_SIZE = MIN_AUTO_FRAME  # fade 0.10's fixed size; on a Ray cluster, the default
FRAME_THREADS = 1  # each frame of a frames archive codes on one thread (any `jobs`)


@dataclass(frozen=True)
class Framing:
    """How an input is cut: frames of `frame_size`, for `jobs` workers, the
    input's `total` size where it was known before coding (None: more than
    `jobs` frames of the limit); `sized` where frame_size_for chose it."""

    frame_size: int
    jobs: int
    total: int | None
    sized: bool
    by_kind: bool = False  # frames cut again where the data changes kind (fade.cuts)

    def __str__(self) -> str:
        kinds = ", cut again where the data changes kind" if self.by_kind else ""
        if not self.sized:
            return f"frames of {format_bytes(self.frame_size)}{kinds}"
        frames = 0 if self.total is None else -(-self.total // self.frame_size)
        count = "" if self.total is None else \
            f"{frames} frame{'s' if frames > 1 else ''} of {format_bytes(self.total)}, "
        return (f"frames of {format_bytes(self.frame_size)} ({count}sized for {self.jobs} "
                f"job{'s' if self.jobs > 1 else ''}; at most {format_bytes(AUTO_FRAME_LIMIT)} "
                f"a frame, each job holding one){kinds}")


def frame_size_for(total: int | None, jobs: int) -> int:
    """The frame size for `total` bytes (None: an input too large to hold,
    above `jobs` frames of AUTO_FRAME_LIMIT) coded by `jobs` workers: the
    fewest frames, a multiple of `jobs` where there is more than one, that
    keep every worker busy and each frame within AUTO_FRAME_LIMIT and at
    least MIN_AUTO_FRAME."""
    if total is None:
        return AUTO_FRAME_LIMIT
    jobs = max(1, jobs)
    count = max(1, min(jobs, total // MIN_AUTO_FRAME), -(-total // AUTO_FRAME_LIMIT))
    if count > jobs:
        count = -(-count // jobs) * jobs
    return max(MIN_FRAME_SIZE, -(-total // count))


def _frames(head: bytes, source: BinaryIO, size: int) -> Iterator[bytes]:
    """The input in frames of `size` (the last shorter): `head`, the bytes
    already read, then the rest of `source`."""
    view, pos = memoryview(head), 0
    del head
    while True:
        piece = bytes(view[pos:pos + size])
        pos += len(piece)
        if pos >= len(view):
            view, pos = memoryview(b""), 0  # the head is let go once it is cut up
        if len(piece) < size:
            piece += read_exactly(source, size - len(piece))
        if not piece:
            return
        yield piece


def _cut_by_kind(frames: Iterator[bytes], model_of: Callable[[str], int | None] | None,
                 size: int) -> Iterator[tuple[bytes, list[int]]]:
    """Each of `frames` (of `size`) with the sizes of the pieces
    fade.cuts.kind_pieces cuts it into (`model_of`: Settings.kind_model),
    each frame first ended where a photo starts that it would cut
    (fade.cuts.at_photos); or whole where `model_of` is None (the settings
    pick no model by kind)."""
    if model_of is not None:
        frames = cuts.at_photos(frames, size)
    for frame in frames:
        yield frame, [len(frame)] if model_of is None else cuts.kind_pieces(frame, model_of)


def default_jobs() -> int:
    """One job per core this process may run on."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


def compress_stream(source: BinaryIO, sink: Callable[[bytes], None],
                    settings: single.Settings | None = None, *,
                    progress: Callable[[int, float | None], None] | None = None,
                    announce: Callable[[bytes, Framing | None], None] | None = None,
                    show_plan: Callable[[Plan], None] | None = None,
                    profile: StepTimings | None = None, **keywords) -> int:
    """Compress `source` into `sink`, frame by frame, with `settings` (a
    `fade.Settings`, its fields replaced by the keyword arguments of the
    same names); returns the input's size.

    Each frame is one archive of `fade.single.compress` with the settings
    (its `threads` default to FRAME_THREADS where there is more than one
    frame, and its `race_beside` to False where they are coded in
    parallel). Frames are coded by `settings.jobs` local processes, or with
    `settings.ray` (a cluster address) as Ray tasks (fade.pool); the archive
    is the same. `progress(bytes_done, bits)` is called as frames advance
    (bits: the code length so far, where known, else None);
    `announce(first_frame, framing)` once before any coding (framing None: a
    single archive), then `show_plan(plan)` with the first frame's Plan;
    `profile`: a StepTimings each frame coded in this process fills.
    Nothing is written before the first frame has been read, and a single
    frame is a plain archive. Where the settings pick the statistics' model
    by what the bytes are (Settings.kind_model), each frame is cut again
    where its data changes kind (fade.cuts), so that each kind is coded by
    its own model; an input of one kind is not cut. A frame whose pieces
    share bytes (fade.cuts.shared) is coded whole too, beside them, and
    the smaller is written (`_smaller`; an input of one frame written
    whole is a plain archive, as if never cut).

    `settings.frame_size` None (the default) sizes the frames to the input
    and to the jobs (frame_size_for): the input is read ahead up to `jobs`
    frames of AUTO_FRAME_LIMIT to learn its size, so the archive depends on
    `jobs`; a frame size given makes it independent of `jobs`. With `ray`
    the default is DEFAULT_FRAME_SIZE, many frames for the cluster's workers."""
    settings = single.Settings.of(settings, **keywords)
    frame_size, jobs, ray = settings.frame_size, settings.jobs, settings.ray
    settings = dataclasses.replace(settings, frame_size=None, jobs=1, ray=None)
    if frame_size is None and ray is not None:
        frame_size = DEFAULT_FRAME_SIZE  # a cluster's workers are not counted here
    if frame_size is None:
        limit = max(1, jobs) * AUTO_FRAME_LIMIT
        head = read_exactly(source, limit)
        total = len(head) if len(head) < limit else None
        framing = Framing(frame_size_for(total, jobs), max(1, jobs), total, True)
        if settings.seeks_floats and floats.whole(head, settings.dtype):  # one frame
            head += source.read()
            framing = Framing(max(MIN_FRAME_SIZE, len(head)), 1, len(head), True)
    else:
        head, framing = b"", Framing(check_frame_size(frame_size), max(1, jobs), None, False)
    frame_size = framing.frame_size
    fixed = _frames(head, source, frame_size)
    del head
    leading = next(fixed, b"")
    following = next(fixed, b"") if len(leading) == frame_size else b""
    if following and settings.threads is None:
        settings = dataclasses.replace(settings, threads=FRAME_THREADS)
    # The frames of frame_size (two read), each with the pieces it is cut
    # into where its kind changes
    model_of = settings.kind_model if settings.kind_model("text") is not None else None
    groups = _cut_by_kind(itertools.chain([leading], [following] if following else [], fixed),
                          model_of, frame_size)
    first, first_sizes = next(groups, (b"", [0]))
    second = next(groups, None)
    several = second is not None or len(first_sizes) > 1  # archives coded: more than one
    if several and (jobs > 1 or ray is not None) and "race_beside" not in keywords:
        # the cores are busy with frames: the race's passes one at a time
        settings = dataclasses.replace(settings, race_beside=False)
    if announce is not None:
        announce(leading, dataclasses.replace(framing, by_kind=model_of is not None)
                 if several else None)
    del leading, following
    if show_plan is not None:
        show_plan(settings.plan(first_sizes[0], first[:first_sizes[0]]))
    if not several:
        def report(done: int, total: int, bits: float) -> None:
            if progress is not None:
                progress(done, bits)
        sink(single.compress_with(settings, first, report, profile))
        return len(first)
    options = {"settings": settings} if profile is None else {"settings": settings,
                                                               "profile": profile}
    return _write_frames(itertools.chain([(first, first_sizes)],
                                         [] if second is None else [second], groups),
                         sink, FramePool("compress", options, jobs, ray), progress,
                         frame_size, hashlib.sha256(first[:first_sizes[0]]).digest()[:8],
                         alone=second is None)


def _handed_over(groups: Iterator[tuple[bytes, list[int]]],
                 plan: collections.deque[tuple[int, bool]]) -> Iterator[bytes | Whole]:
    """What the pool codes of `groups` ((a frame, the sizes of its pieces)
    each): each frame's pieces, after the frame Whole where they share bytes
    (fade.cuts.shared); `plan` gets, as each frame is handed over, its
    number of pieces and whether it is coded whole beside them."""
    for frame, sizes in groups:
        view, start, pieces = memoryview(frame), 0, []
        for size in sizes:
            pieces.append(frame if size == len(frame) else bytes(view[start:start + size]))
            start += size
        whole = len(sizes) > 1 and cuts.shared(frame, sizes)
        plan.append((len(sizes), whole))
        if whole:
            yield Whole(frame, sizes)
        del view, frame
        yield from pieces


def _write_frames(groups: Iterator[tuple[bytes, list[int]]], sink: Callable[[bytes], None],
                  pool: FramePool, progress: Callable[[int, float | None], None] | None,
                  frame_size: int, archive_id: bytes, alone: bool) -> int:
    """`groups` ((a frame, the sizes of its pieces) each) coded by `pool`
    into `sink`: a frames archive of each frame's pieces or of the frame
    whole, the smaller (`_smaller`); or, where the input is `alone` (one
    frame) and written whole, its plain archive. Returns the input's size."""
    written, offset = 0, 0
    digest = hashlib.sha256()
    frames: list[Frame] = []
    plan: collections.deque[tuple[int, bool]] = collections.deque()
    with pool:
        coded = pool.run(_handed_over(groups, plan), progress)
        for data, archive in coded:
            count, whole = plan.popleft()
            pieces = [] if whole else [(data, archive)]
            pieces += [next(coded) for _ in range(count - len(pieces))]
            chosen = pieces if count == 1 else \
                _smaller((data, archive) if whole and archive else None, pieces)
            if alone and chosen is not pieces:  # the input whole: a plain archive
                sink(archive)
                return len(data)
            if not written:
                sink(pack_head(frame_size, archive_id))
                written = HEAD.size
            for data, archive in chosen:
                if len(archive) > max_archive_size(len(data)):  # never: no method costs so much
                    raise FadeError(f"frame {len(frames)}: its archive is larger than the "
                                    "format allows")
                digest.update(data)
                frame = Frame(len(frames), offset, len(data), written + RECORD.size,
                              len(archive), method_of(archive))
                sink(pack_record(frame, archive_id))
                sink(archive)
                frames.append(frame)
                offset += len(data)
                written += RECORD.size + len(archive)
    sink(pack_index(frames, offset, digest.digest(), archive_id))
    return offset


def _smaller(whole: tuple[bytes, bytes] | None,
             pieces: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """A frame cut where its kind changes, as it is written: its `pieces`
    ((bytes, archive) each), or the frame `whole` (its bytes and archive;
    None where it was not coded whole: its pieces share no bytes,
    fade.cuts.shared, or its tables are above the memory limit) where that
    takes no more bytes, records and all."""
    import logging  # (-v's notes: loaded only here)

    cut = sum(RECORD.size + len(archive) for _, archive in pieces)
    one = None if whole is None else RECORD.size + len(whole[1])
    kept = one is None or cut < one
    logging.getLogger("fade").info(
        "a frame cut where its kind changes: its %d pieces take %s bytes, %s: %s written",
        len(pieces), f"{cut:,}", "the frame not coded whole" if one is None
        else f"coded whole {one:,}", "they are" if kept else "the whole is")
    return pieces if kept else [whole]


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
