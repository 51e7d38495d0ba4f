"""Where an input changes kind: the places `compress_stream` cuts it so that
each kind of data is coded by its own statistics model.

The screen (fade.kinds.Screen) says once per archive what its bytes are
(text, a delimited table, markup, log lines, nucleotides, x86 code, other
bytes), and that picks the level's statistics model, so a file of several
kinds (an executable's code between its tables and strings; a tar of a
table, a document and a library) was coded whole by one model. `kind_pieces`
screens the input in windows of WINDOW bytes, names each window by the
model the settings pick for it (and whether it is text), and cuts where
that name changes and holds for at least MIN_WINDOWS windows: a shorter run
of windows joins a neighbour (`smoothed`: the one on its own side of text
or not where only one is, else the longer), since a frame starts its
statistics afresh and a short one cannot earn back what that costs. Each
frame's model is then what its own screen says of it whole, as for any
archive, and neighbours whose screens pick one model join where the screen
of the two together still picks it.

A cut between two pieces of different models then moves to where the
kind changes within a window either side of it: to the edge of BLOCK-byte
blocks that the most of those blocks' screens agree with (`placed`), since a
window's edge may leave up to a window of one kind in the other's piece
(text then code, cut at a window's edge: 2.3% larger than cut where the code
starts).

JPEG files are found in the whole input first (fade.statistics.photos):
a window or block that holds any of one of LEAST_PIECE bytes or more is
named by the JPEG model, since the middle of a photo, screened alone, has
no header to say what it is; an input mostly of JPEGs (a tar of photos)
is one piece, whose model's parser finds each photo in it. An input too
short to hold MIN_WINDOWS windows either side (under 512 KiB) is cut only
where such a JPEG starts and ends (a small document holding a photo).

A frame cut by size (for the cores, or the memory) that would end inside
a JPEG ends where that JPEG starts instead, the rest carried into the next
frame (`at_photos`): the next frame's parser could not follow a photo
whose headers lie in the frame before (a tar of photos at `-T 2` was 1.7%
larger for it).

A cut pays for itself. A frame's pieces start their statistics afresh,
and a piece cannot use the bytes of the pieces before it: a text, a
library and the same text again is 30% larger cut than coded whole, its
second copy no longer found by the match model. So where LZMA (preset 0,
with a window as long as the frame) codes the frame whole in more than
SHARED of its bytes fewer than its pieces one by one (`shared`: the pieces
share bytes), fade.frames codes the frame whole too, beside its pieces,
and writes the smaller. Elsewhere the pieces are written, the frame not
coded twice: on every input measured a cut then pays, 3-5% (docs/results.md,
"A cut against its frame coded whole").

The cuts are the frames' sizes in the frames archive, and each frame's
archive names its model: the decoder needs nothing more, and fade 0.11's
readers decode such archives (frames of any size up to the frame size).
An input of one kind is one piece: its archive is the same as without cuts.
"""

from __future__ import annotations

from typing import Callable, Iterator, NamedTuple

from fade.kinds import JPEG_SHARE, Screen
from fade.statistics.photos import LEAST_PIECE, jpeg_spans

WINDOW = 64 << 10  # bytes screened at a time
MIN_WINDOWS = 4  # the fewest windows a run needs to be a piece of its own (256 KiB)
BLOCK = 4 << 10  # bytes screened at a time where a cut is placed
SHARED = 1 / 128  # what coding a cut frame whole must save (`shared`), a share of its bytes


class Run(NamedTuple):
    """`count` windows from window `first` on, named `label`: the model the
    settings pick for them and whether they are text."""

    label: tuple[int, bool]
    first: int
    count: int


def kind_pieces(data: bytes, model_of: Callable[[str], int]) -> list[int]:
    """The sizes of the pieces `data` is cut into (see above), in order,
    summing to len(data); `model_of(kind)`: the statistics model the
    settings pick for bytes of that kind (kinds.Screen.kind)."""
    photos = jpeg_spans(data, LEAST_PIECE)
    if sum(end - start for start, end in photos) >= JPEG_SHARE * len(data):
        return [len(data)]
    if len(data) < 2 * MIN_WINDOWS * WINDOW:  # too short for runs of windows: its photos alone
        edges = sorted({0, len(data)} | {edge for span in photos for edge in span})
        return [stop - start for start, stop in zip(edges, edges[1:])]
    view = memoryview(data)

    def screen(start: int, stop: int) -> tuple[int, bool]:
        if any(first < stop and start < end for first, end in photos):
            return model_of("jpeg"), False
        found = Screen.of(bytes(view[start:stop]))
        return model_of(found.kind), found.is_text

    labels = [screen(start, start + WINDOW) for start in range(0, len(data), WINDOW)]
    pieces: list[list[int]] = []  # [model its screen picks, start, stop]
    for run in smoothed(labels):
        start, stop = run.first * WINDOW, min((run.first + run.count) * WINDOW, len(data))
        model = screen(start, stop)[0]
        if pieces and model == pieces[-1][0] and screen(pieces[-1][1], stop)[0] == model:
            pieces[-1][2] = stop
        else:
            pieces.append([model, start, stop])
    for k in range(1, len(pieces)):
        (before, first, cut), (after, _, last) = pieces[k - 1], pieces[k]
        if before != after:  # (the cut stays inside both pieces: each keeps a block)
            low = max(cut - WINDOW, first)
            labels = [screen(start, start + BLOCK)[0]
                      for start in range(low, min(cut + WINDOW, last), BLOCK)]
            pieces[k - 1][2] = pieces[k][1] = \
                low + BLOCK * placed(labels, before, after, (cut - low) // BLOCK)
    return [stop - start for _, start, stop in pieces]


def saving(data: bytes, sizes: list[int]) -> int:
    """The bytes LZMA (preset 0, a dictionary as long as its input) saves
    coding `data` whole rather than its pieces (of `sizes`) one by one."""
    import lzma

    def coded(piece: bytes) -> int:
        filters = [{"id": lzma.FILTER_LZMA2, "preset": 0, "dict_size": max(len(piece), 4096)}]
        return len(lzma.compress(piece, format=lzma.FORMAT_RAW, filters=filters))

    view, start, apart = memoryview(data), 0, 0
    for size in sizes:
        apart += coded(view[start:start + size])
        start += size
    return apart - coded(data)


def shared(data: bytes, sizes: list[int]) -> bool:
    """Whether the pieces of `data` (of `sizes`) share bytes that coding it
    whole could use: LZMA saves more than SHARED of its bytes (`saving`)."""
    return saving(data, sizes) > SHARED * len(data)


def at_photos(frames: Iterator[bytes], size: int) -> Iterator[bytes]:
    """`frames` (of `size` bytes, the last shorter) again, each that would
    end inside a JPEG (jpeg_spans of the bytes it and the next hold: one
    that starts in it, not at its start, and runs on past it) ended where
    that JPEG starts, the rest carried into the next; none longer than
    `size`."""
    held = b""
    for frame in frames:
        held += frame
        while len(held) > size:
            cut = next((start for start, end in jpeg_spans(held) if 0 < start < size < end), size)
            yield held[:cut]
            held = held[cut:]
    if held:
        yield held


def placed(labels: list[int], before: int, after: int, at: int) -> int:
    """Where between the blocks of `labels` (the models their screens pick)
    a piece of model `before` gives way to one of model `after`: the number
    of blocks before the cut, from 1 to len(labels) - 1, such that the most
    blocks before it are `before`'s and after it `after`'s; of equals, the
    nearest to `at` (the window's edge it was)."""
    agree = [0] * (len(labels) + 1)  # agree[k]: blocks before k that are before's...
    for k, label in enumerate(labels):
        agree[k + 1] = agree[k] + (label == before)
    behind = 0  # ... and, running backwards, blocks from k on that are after's
    best, best_score = at, -1
    for k in range(len(labels) - 1, 0, -1):
        behind += labels[k] == after
        score = agree[k] + behind
        if score > best_score or (score == best_score and abs(k - at) < abs(best - at)):
            best, best_score = k, score
    return best


def smoothed(labels: list[tuple[int, bool]]) -> list[Run]:
    """The windows' labels (model, text or not) as runs, where the shortest
    run under MIN_WINDOWS joins a neighbour and takes its label: the one of
    its own side of text or not where only one is, else the longer (the one
    before it on a tie); and neighbours of one label join, until every run
    but a lone one holds at least MIN_WINDOWS windows."""
    runs: list[Run] = []
    for window, label in enumerate(labels):
        if runs and runs[-1].label == label:
            runs[-1] = runs[-1]._replace(count=runs[-1].count + 1)
        else:
            runs.append(Run(label, window, 1))
    while len(runs) > 1:
        short = min(range(len(runs)), key=lambda k: runs[k].count)
        if runs[short].count >= MIN_WINDOWS:
            break
        text = runs[short].label[1]
        # (same side of text or not, windows) of each neighbour; none: below all
        before = (runs[short - 1].label[1] == text, runs[short - 1].count) if short else (-1, 0)
        after = (runs[short + 1].label[1] == text, runs[short + 1].count) \
            if short + 1 < len(runs) else (-1, 0)
        into = short - 1 if before >= after else short + 1
        first = min(short, into)
        runs[first:first + 2] = [Run(runs[into].label, runs[first].first,
                                     runs[first].count + runs[first + 1].count)]
        for k in range(len(runs) - 1, 0, -1):
            if runs[k].label == runs[k - 1].label:
                runs[k - 1:k + 1] = [runs[k - 1]._replace(count=runs[k - 1].count + runs[k].count)]
    return runs
