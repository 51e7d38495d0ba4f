"""What the bytes are: the kind of data that picks each level's statistics
model, decided once per archive (or frame) before any coding.

`Screen.of` reads the bytes: their share of text, and what the detectors
below find in them (a delimited table, markup, log lines, nucleotides, x86
machine code, a WAV file, an image or raw pixels, JPEG photos);
`Screen.kind` names the kind, which the level's table maps to its model
(fade.statistics.models.LEVEL_MODELS, through StatisticsConfig.for_kind),
and `Screen.network_may_pay` says whether a hybrid may run at all. A colour
image is also coded in part both ways, to find whether its colours pay as
green and differences (`colour_choice`).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter
from dataclasses import dataclass

from fade.lazy import numpy as np

from fade import statistics
from fade.config import LEVELS
from fade.statistics.wav import wav_layout
from fade.statistics.colour import (GREEN_GAIN, SWAP_GAIN, TRIAL_BYTES, TRIAL_ROWS,
                                    TRIAL_SHARE, green_layout)
from fade.statistics.models import BAND_MODELS
from fade.statistics.parts import DELIMITERS
from fade.statistics.photos import jpeg_share
from fade.statistics.pixels import Layout as Pixels, image_layout, made_header, raw_layout

# Inputs the network cannot pay on go to the statistics alone before any of
# its steps (`Screen`): shorter than MIN_NETWORK_INPUT, too few steps for it
# to learn; or text (at least TEXT_SHARE of the bytes printable ASCII,
# whitespace or valid UTF-8), where the statistics already model the
# structure the network finds and the network saves less than the lockstep
# order costs them (docs/results.md, "Deciding early").
MIN_NETWORK_INPUT = 16 << 10
TEXT_SHARE = 0.97
# Runs of this many zero bytes or more are padding, not content: the share of
# text is of the other bytes, so that text in a container that pads with
# zeros (a tar's headers and 512-byte blocks; a table of fixed-width
# records) is text. A tar of the Python standard library's .py files read
# 0.92-0.96 text in 224 of its 503 windows of 64 KiB with the padding
# counted, so level fast cut it into 36 frames, text and other bytes, 12%
# larger than as one frame (docs/results.md, "Padding is not content").
PADDING_RUN = 32
# Bytes at least this share of which lie in JPEG files (a photo, a tar of
# photos, a document that is mostly its photos) are coded by the JPEG model,
# whose parser finds each JPEG in them and codes the rest as other bytes.
JPEG_SHARE = 0.5
_TEXT_BYTES = bytes(range(32, 127)) + b"\t\n\r"


@functools.cache
def _byte_table(members: bytes) -> np.ndarray:
    """256 booleans, True at the values of `members` (made on first use:
    numpy loads where bytes are screened)."""
    table = np.zeros(256, dtype=bool)
    table[list(members)] = True
    return table


# Text is a delimited table (a CSV or TSV file) where, of its first
# TABLE_ROWS rows (at least MIN_TABLE_ROWS), at least TABLE_SHARE hold the
# same number of one delimiter, at least once (a tab) or twice (a comma,
# semicolon or vertical bar: prose and code use those singly). The
# statistics' model for tables then codes it (fade.statistics.tables).
# delimiter (fade.statistics.parts.DELIMITERS) -> the fewest a row
TABLE_DELIMITERS = dict(zip(DELIMITERS, (1, 2, 2, 2)))
TABLE_ROWS, MIN_TABLE_ROWS, TABLE_SHARE = 4096, 8, 0.8


def padding(symbols: np.ndarray) -> int:
    """How many of `symbols` lie in runs of at least PADDING_RUN zeros."""
    zeros = symbols == 0
    if np.count_nonzero(zeros) < PADDING_RUN:  # (the commonest case, found at once)
        return 0
    zero = np.concatenate(([False], zeros, [False]))
    edges = np.flatnonzero(zero[1:] != zero[:-1])  # starts and ends of the runs of zeros
    runs = edges[1::2] - edges[::2]
    return int(runs[runs >= PADDING_RUN].sum())


def per_row(marked: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """How many of the bytes `marked` lie in each row: the first up to
    ends[0], each next after the one before up to its end (inclusive). (A
    running sum of `marked` takes 8 bytes a byte, and fresh memory here
    costs its page faults: 10x the time of a search of the marks' places.)"""
    return np.diff(np.searchsorted(np.flatnonzero(marked), ends, side="right"), prepend=0)


def indentation(head: np.ndarray) -> np.ndarray:
    """Which bytes of `head` indent a row: tabs and spaces before its first
    other byte."""
    blank = (head == 9) | (head == 32)
    last = np.maximum.accumulate(np.where(blank, -1, np.arange(len(head))))
    return blank & ((last < 0) | (head[np.maximum(last, 0)] == 10))


def delimited(symbols: np.ndarray) -> bool:
    """Whether the bytes `symbols` are rows of delimited fields (see above)."""
    ends = np.flatnonzero(symbols == 10)[:TABLE_ROWS]
    if len(ends) < MIN_TABLE_ROWS:
        return False
    head = symbols[:ends[-1] + 1]
    for delimiter, fewest in TABLE_DELIMITERS.items():
        marked = head == delimiter
        if not marked.any():  # (each row holds none: fewer than the fewest)
            continue
        if delimiter in (9, 32):  # a row's indentation is no field
            marked &= ~indentation(head)
        counts = per_row(marked, ends)
        values, times = np.unique(counts, return_counts=True)
        common = values[np.argmax(times)]
        if common >= fewest and times.max() >= TABLE_SHARE * len(counts):
            return True
    return False


# Text is nucleotides (DNA, with or without FASTA headers and line breaks)
# where, outside its header lines (> or ; first), at least BASE_SHARE of the
# bytes other than line breaks are A, C, G or T (either case; N and the other
# IUPAC letters make up the rest; RNA's U is not a base to the model), and
# those bases are at least half the bytes, in its first BASE_SAMPLE bytes (a
# line's index per byte takes 8 bytes each). The statistics' model for
# nucleotides then codes it (fade.statistics.dna).
BASE_SHARE, BASE_SAMPLE = 0.9, 1 << 20
_BASES = b"ACGTacgt"


def nucleotides(symbols: np.ndarray) -> bool:
    """Whether the bytes `symbols` are nucleotides (see above)."""
    symbols = symbols[:BASE_SAMPLE]
    found = _byte_table(_BASES)[symbols]
    if 2 * np.count_nonzero(found) < len(symbols) or len(symbols) == 0:
        return False  # (not half of them bases, even with the headers' counted)
    newline = symbols == 10
    line = np.concatenate(([0], np.cumsum(newline, dtype=np.int32)[:-1]))  # each byte's line
    starts = np.concatenate(([0], np.flatnonzero(newline) + 1))[:line[-1] + 1]
    first = symbols[np.minimum(starts, len(symbols) - 1)]
    header = ((first == 62) | (first == 59))[line]
    sequence = ~header & ~newline & (symbols != 13)
    bases = int(np.count_nonzero(found & sequence))
    return bases >= BASE_SHARE * max(int(sequence.sum()), 1) and 2 * bases >= len(symbols)


# Bytes that are not text are x86 machine code where calls and jumps (E8 or
# E9, then a 32-bit distance whose top byte is 00 or FF: within 16 MiB either
# way) make up at least CALL_SHARE of the bytes, and at least CALL_FIT of
# the E8 and E9 bytes start one (in other bytes, one in 128 would); or, for
# x86-64 code with few calls (vector loops), where at least REX_SHARE of the
# bytes are a REX prefix (40-4F) before one of the commonest opcodes that
# are not printable ASCII (MOV, LEA, ADD, TEST, the 0F escape...): 7-14% of
# x86-64 code, under 2% of fonts, images, sound, compressed or random
# bytes. The statistics' model for machine code then parses the
# instructions and codes the distances as addresses (fade.statistics.x86).
CALL_SHARE, CALL_FIT, REX_SHARE = 0.01, 0.75, 0.04
_AFTER_REX = bytes([0x01, 0x03, 0x09, 0x0B, 0x0F, 0x81, 0x83, 0x84, 0x85, 0x88, 0x89, 0x8A, 0x8B,
                    0x8D, 0x98, 0x99, 0xC1, 0xC6, 0xC7, 0xD1, 0xD3, 0xF7, 0xFF])


def machine_code(symbols: np.ndarray) -> bool:
    """Whether the bytes `symbols` are x86 machine code (see above)."""
    calls = np.flatnonzero((symbols[:-4] & 0xFE) == 0xE8)
    near = int(np.isin(symbols[calls + 4], (0, 0xFF)).sum())
    if near >= CALL_SHARE * len(symbols) and near >= CALL_FIT * max(len(calls), 1):
        return True
    rex = int((((symbols[:-1] & 0xF0) == 0x40) & _byte_table(_AFTER_REX)[symbols[1:]]).sum())
    return rex >= REX_SHARE * len(symbols)


# Text is markup (XML, HTML, SVG) where at least MARKUP_SHARE of its first
# MARKUP_SAMPLE bytes lie inside tags: from a < that a letter, /, ! or ?
# follows to the next > (at most MARKUP_TAG bytes), in at least
# MIN_MARKUP_TAGS tags. A wiki dump's text between a few tags (enwik) is not.
# The statistics' model for markup then codes it (fade.statistics.markup).
MARKUP_SHARE, MARKUP_SAMPLE, MARKUP_TAG, MIN_MARKUP_TAGS = 0.2, 1 << 20, 4096, 16


def markup(symbols: np.ndarray) -> bool:
    """Whether the bytes `symbols` are markup (see above)."""
    symbols = symbols[:MARKUP_SAMPLE]
    opens = np.flatnonzero(symbols[:-1] == 60)
    after = symbols[opens + 1]
    opens = opens[((after | 32) >= 97) & ((after | 32) <= 122) | (after == 47) | (after == 33)
                  | (after == 63)]
    closes = np.flatnonzero(symbols == 62)
    following = np.searchsorted(closes, opens)
    ended = following < len(closes)
    if int(ended.sum()) < MIN_MARKUP_TAGS:
        return False
    spans = np.minimum(closes[following[ended]] - opens[ended] + 1, MARKUP_TAG)
    return int(spans.sum()) >= MARKUP_SHARE * len(symbols)


# Text is log lines where, of its first LOG_ROWS lines (at least
# MIN_TABLE_ROWS), at least LOG_SPACED hold three spaces or more and at least
# LOG_SHARE begin alike: their first three space-separated tokens of one
# shape (digits as 9, letters as a, the rest as they are) that holds a digit
# (a timestamp, an address, a process id). Prose begins with words. The
# statistics' model for log lines then codes it, its fields the tokens.
LOG_ROWS, LOG_SPACED, LOG_SHARE = 4096, 0.8, 0.6
_DIGITS = re.compile(rb"[0-9]+")
_LETTERS = re.compile(rb"[A-Za-z]+")


def log_lines(data: bytes) -> bool:
    """Whether the bytes `data` are log lines (see above)."""
    symbols = np.frombuffer(data, dtype=np.uint8, count=min(len(data), MARKUP_SAMPLE))
    ends = np.flatnonzero(symbols == 10)[:LOG_ROWS]  # the lines' ends
    if len(ends) < MIN_TABLE_ROWS:
        return False
    head = symbols[:ends[-1] + 1]
    if np.count_nonzero(per_row(head == 32, ends) >= 3) < LOG_SPACED * len(ends):
        return False
    digits = (head >= 48) & (head <= 57)  # a line whose first tokens hold a digit holds one
    if np.count_nonzero(per_row(digits, ends)) < LOG_SHARE * len(ends):
        return False
    lines = data[:ends[-1]].split(b"\n")
    # each line's first three tokens, shaped in one pass over them all (no
    # run of digits or letters crosses a line's end)
    heads = b"\n".join(b" ".join(line.split(b" ", 3)[:3]) for line in lines)
    shapes = Counter(_LETTERS.sub(b"a", _DIGITS.sub(b"9", heads)).split(b"\n"))
    shape, count = shapes.most_common(1)[0]
    return b"9" in shape and count >= LOG_SHARE * len(lines)


def colour_choice(data: bytes, layout: Pixels | None) -> tuple[bool, bool]:
    """Whether the colour image whose pixels `layout` places in `data`
    (a header's, or raw pixels') codes smaller as green and differences: a
    band of its rows from the middle, coded both ways with the band's models
    (fade.statistics.models.BAND_MODELS), is
    at least GREEN_GAIN smaller so
    (fade.statistics.colour); and if so, whether with the two differences
    swapped (F_SWAP) the band is SWAP_GAIN of that or less."""
    sizes = band_sizes(data, layout)
    if sizes is None or sizes[1] > GREEN_GAIN * sizes[0]:
        return False, False
    return True, sizes[2] <= SWAP_GAIN * sizes[1]




def band_sizes(data: bytes, layout: Pixels | None) -> tuple[int, int, int] | None:
    """The bytes `colour_choice` measures: its band coded as it is, as
    green and differences, and (where that is GREEN_GAIN of the first or
    less; else 0) with the differences swapped; None where there is no
    colour image (or fewer than two rows of it)."""
    if layout is None or layout.pixel != 3:
        return None
    available = min(layout.height, (len(data) - layout.start) // layout.stride)
    rows = min(max(TRIAL_ROWS, available // TRIAL_SHARE), TRIAL_BYTES // layout.stride,
               available)
    if rows < 2:
        return None
    top = layout.start + (available - rows) // 2 * layout.stride
    band = np.frombuffer(data, dtype=np.uint8, count=rows * layout.stride, offset=top)
    pixels = band.reshape(rows, layout.stride)[:, :layout.row].tobytes()
    image = made_header(Pixels(0, layout.row, layout.row, 3, rows)) + pixels
    default = LEVELS["default"].statistics.sized(len(image))

    def size(kind: str) -> int:
        coded = statistics.encode_file(image, dataclasses.replace(default,
                                                                  model=BAND_MODELS[kind]))
        return 2 * len(image) if coded is None else len(coded)

    # the band as it is in a thread of its own beside the green band (the
    # compiled loop releases the GIL): a second core takes a third of the
    # measure, and the sizes are the same as one after the other
    from fade.race import Background

    beside = Background("colour-band", lambda check: size("image"))
    green = size("image-green")
    plain = beside.result()
    return plain, green, size("image-green-swap") if green <= GREEN_GAIN * plain else 0


@dataclass(frozen=True)
class Screen:
    """What the bytes say before any coding: their size and the share of
    them that is text, and so whether the hybrid may run at all."""

    length: int
    text: float  # share of printable ASCII, tab, CR, LF and valid UTF-8 sequences, padding aside
    table: bool = False  # text in rows of delimited fields (`delimited`)
    dna: bool = False  # text of nucleotides (`nucleotides`)
    x86: bool = False  # bytes that are not text: x86 machine code (`machine_code`)
    audio: bool = False  # not text: a WAV file of 16- or 24-bit PCM (wav_layout)
    image: bool = False  # a binary PNM or uncompressed BMP image (image_layout)
    pixels: bool = False  # not text: raw pixels of an image without a header (raw_layout)
    green: bool = False  # an image or pixels whose colours code smaller as green and differences
    swap: bool = False  # ... and smaller still with the two differences swapped
    markup: bool = False  # text: XML, HTML (`markup`)
    log: bool = False  # text: log lines (`log_lines`)
    jpeg: bool = False  # JPEG files: at least JPEG_SHARE of the bytes (photos.jpeg_share)

    @classmethod
    def of(cls, data: bytes, measure: bool = False) -> "Screen":
        """What `data` is. With `measure`, a colour image (or raw colour
        pixels) is also coded in part both ways, to find whether its colours
        pay as green and differences, and in which order (`colour_choice`:
        0.4-0.7 s a megabyte of image, docs/statistics.md; what picks the
        model a whole input is coded with measures, not a screen of a window
        of it)."""
        symbols = np.frombuffer(data, dtype=np.uint8)
        text = int(np.count_nonzero(_byte_table(_TEXT_BYTES)[symbols]))
        high = int(np.count_nonzero(symbols >= 128))
        if high:  # bytes >= 128 count as text, less four for each invalid UTF-8 sequence
            bad = data.decode("utf-8", errors="replace").count("\ufffd")
            text += max(0, high - 4 * bad)
        share = text / max(len(data) - padding(symbols), 1)
        if jpeg_share(data) >= JPEG_SHARE:
            return cls(len(data), share, jpeg=True)
        layout = image_layout(symbols)  # (whatever share of its pixels reads as text)
        if layout is not None and layout.start < len(data):
            green, swap = colour_choice(data, green_layout(symbols)) if measure else (False, False)
            return cls(len(data), share, image=True, green=green, swap=swap)
        if share < TEXT_SHARE:
            if wav_layout(symbols) is not None:
                return cls(len(data), share, audio=True)
            raw = raw_layout(symbols)
            if raw is not None:
                green, swap = colour_choice(data, raw) if measure else (False, False)
                return cls(len(data), share, pixels=True, green=green, swap=swap)
            return cls(len(data), share, x86=len(symbols) > 4 and machine_code(symbols))
        dna = nucleotides(symbols)
        table = not dna and delimited(symbols)
        tags = not dna and not table and markup(symbols)
        return cls(len(data), share, table, dna, markup=tags,
                   log=not dna and not table and not tags and log_lines(data))

    @property
    def is_text(self) -> bool:
        return self.text >= TEXT_SHARE

    @property
    def kind(self) -> str:
        """"text", "table", "markup", "log", "dna", "x86", "audio", "image",
        "pixels" (each of those two with "-green" where `of` measured that
        its colours pay as green and differences, and then "-swap" where
        they pay more with the differences swapped), "jpeg" or "binary": what
        picks a level's statistics model (StatisticsConfig.for_kind)."""
        if self.image or self.pixels:
            return ("image" if self.image else "pixels") + ("-green" if self.green else "") + \
                ("-swap" if self.swap else "")
        if self.jpeg:
            return "jpeg"
        if not self.is_text:
            return "audio" if self.audio else "x86" if self.x86 else "binary"
        return "dna" if self.dna else "table" if self.table else "markup" if self.markup \
            else "log" if self.log else "text"

    @property
    def general(self) -> str | None:
        """The kind whose model guards this kind's ("text" or "binary", a
        level's general models), where the screen guessed the kind from the
        bytes' statistics (a table, markup, log lines, nucleotides, x86 code,
        raw pixels) and not from a header (WAV, PNM, BMP, JPEG): a kind's model
        must pay for itself, so the general model codes the bytes beside it
        and the smaller archive is written (fade.race.guarded_archive).
        None: no guard (text, other bytes, a header's kind)."""
        if self.image or self.audio or self.jpeg or self.kind in ("text", "binary"):
            return None
        return "text" if self.is_text else "binary"

    @property
    def network_may_pay(self) -> bool:
        return self.length >= MIN_NETWORK_INPUT and not self.is_text and not self.jpeg

    @property
    def content(self) -> str:
        """What the bytes are, in words."""
        if self.image or self.pixels:
            what = "an image" if self.image else "raw pixels"
            colours = ", its colours as green and differences" if self.green else ""
            colours += " (the last byte's first)" if self.swap else ""
            return f"{what} ({self.text:.1%} of the bytes text{colours})"
        if self.jpeg:
            return f"JPEG photos ({self.text:.1%} of the bytes text)"
        if self.is_text:
            what = ("nucleotides" if self.dna else "a delimited table" if self.table
                    else "markup" if self.markup else "log lines" if self.log else "text")
            return f"{what} ({self.text:.1%} of the bytes text)"
        what = "PCM audio" if self.audio else "x86 machine code" if self.x86 \
            else "not text"
        return f"{what} ({self.text:.1%} of the bytes text)"

    def __str__(self) -> str:
        """What the bytes are, and whether the network may pay on them."""
        if self.length < MIN_NETWORK_INPUT:
            return (f"{self.length:,} bytes, too few for the network to learn from (under "
                    f"{MIN_NETWORK_INPUT:,})")
        if self.is_text or self.jpeg:
            return f"{self.content}, where the network cannot pay"
        return self.content
