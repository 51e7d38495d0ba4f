"""The table of archive methods: one entry each, read by every dispatcher.

An archive's method byte (its code: fade.format.headers.METHODS) says how
the rest is laid out and coded. Each method has one entry here and one
module beside this one that holds what is particular to it: where an
archive of it ends in a stream (`read`: fade.members reads archives one
after another), how its payload decodes (`decode`: fade.single), and its
name in `fade -l` (`listing`: fade.cli.report). Its header's bytes (pack
and unpack) are the format's (fade.format.archive, docs/format.md).

Adding a method: its code and name in fade.format.headers.METHODS (with the
version it appears in), its header's layout in fade.format (the spec), one
module here with `read`, `decode` and `listing`, and its entry in METHODS
below; encoding it is the caller's (the size floor's methods: fade.floor).

A frames archive is a container of archives of the others, read and
decoded frame by frame by fade.frames: its entry names it in listings only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from fade.floor import DECODED_METHODS
from fade.format.container import FramesHeader
from fade.format.headers import (FLOATS, FRAMES, LEARNED, STATISTICS, CompactHeader, FloatHeader,
                                 Header, StatisticsHeader)
from fade.methods import compact, floats, learned, statistics


@dataclass(frozen=True)
class Decoding:
    """What decoding a payload may use: `device` ("auto", "cpu", "cuda"),
    `progress(done, total, bits)`, coder threads, step `timings`; and
    `nested(header, payload, decoding)`, which decodes an archive nested in
    another (a strong floats archive's), set by `decode`."""

    device: str = "auto"
    progress: Callable | None = None
    coder_threads: int | None = None
    timings: object | None = None
    nested: Callable | None = None


@dataclass(frozen=True)
class Reading:
    """What finding where an archive ends may use: the memory limit of what
    it decodes on the way, `progress(done, total, bits)`, and
    `nested(source)`, which reads the archive nested in another (a strong
    floats archive's), set by fade.members."""

    memory_limit: int | None = None
    progress: Callable | None = None
    nested: Callable | None = None


@dataclass(frozen=True)
class Method:
    """One archive method: the header fade.format.archive.unpack gives for
    it, and its module's functions."""

    header: type
    # (source, prefix, version, method, Reading) -> (archive bytes, original
    # where finding the end decoded it, else None)
    read: Callable | None
    decode: Callable | None  # (header, payload, Decoding) -> original
    listing: Callable  # header -> its name in `fade -l`


_COMPACT = Method(CompactHeader, compact.read, compact.decode, compact.listing)


def _frames_listing(header: FramesHeader) -> str:
    return "frames/" + "+".join(sorted({frame.method for frame in header.frames}))


METHODS: dict[str, Method] = {
    LEARNED: Method(Header, learned.read, learned.decode, learned.listing),
    STATISTICS: Method(StatisticsHeader, statistics.read, statistics.decode, statistics.listing),
    FLOATS: Method(FloatHeader, floats.read, floats.decode, floats.listing),
    FRAMES: Method(FramesHeader, None, None, _frames_listing),
    **dict.fromkeys(DECODED_METHODS, _COMPACT),
}


def decode(header, payload: bytes, decoding: Decoding) -> bytes:
    """The original of an unpacked single archive (not frames), by its
    method's `decode`; checked against the archive's own checksum."""
    return METHODS[header.method].decode(header, payload,
                                         dataclasses.replace(decoding, nested=decode))


def listing(header) -> str:
    """How `fade -l` names the method (or level) of an archive's header."""
    return METHODS[header.method].listing(header)
