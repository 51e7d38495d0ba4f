"""What the command line prints about archives: `fade -l`, `fade info`, and
the per-step timings of --profile."""

from __future__ import annotations

import contextlib
import io
import os
import sys

import click

import fade
from fade import frames
from fade.format.archive import method_of, unpack
from fade.format.container import FramesHeader
from fade.format.headers import (FLOATS, LEARNED, MAGIC, STATISTICS, FloatHeader, Header,
                                 StatisticsHeader)
from fade.errors import FadeError
from fade.members import PREFIX_SIZE, Source, read_archive, trailing_bytes
from fade.config import LEVELS
from fade.profile import decoded_by
from fade.single import model_header
from fade.statistics.models import model_level

# Up to this many bytes at the end of a file are read whole to check
# whether they are one archive (the usual case: no decoding to list it).
LAST_MEMBER_READ = 256 << 20

from .files import EXIT_ERROR, EXIT_OK, STDIO, Options, UserError, os_reason, say


def level_of(header) -> str:
    """The level or method an archive's header says it was made with: a
    level's name where the header matches what that level writes."""
    if isinstance(header, StatisticsHeader):
        level = model_level(header.statistics.model)
        return f"{level}/statistics" if level else f"statistics model {header.statistics.model}"
    if isinstance(header, Header):
        if header.statistics is None:
            return f"network/{header.preset or 'custom'}"
        level = model_level(header.statistics.model)
        if level and LEVELS[level].preset == header.preset:  # the level's network and model
            return f"{level}/hybrid"
        return f"hybrid/{header.preset or 'custom'}"
    if isinstance(header, FloatHeader):
        return f"floats/{header.mode}"
    if isinstance(header, FramesHeader):
        methods = sorted({frame.method for frame in header.frames})
        return "frames/" + "+".join(methods)
    return header.method  # a compact archive (fade.floor: stored, deflate, ...)


def _members(path: str) -> list[tuple[object, int]]:
    """(header, archive size) of each archive in the file at `path` ('-':
    stdin), one after another (`members`)."""
    try:
        if path == STDIO:
            if sys.stdin.isatty():
                raise UserError("stdin", "is a terminal; refusing to read compressed data")
            return members(io.BytesIO(sys.stdin.buffer.read()))
        if os.path.isdir(path):
            raise UserError(path, "is a directory")
        with open(path, "rb") as file:
            return members(file)
    except OSError as error:
        raise UserError(path, os_reason(error)) from None


def members(file) -> list[tuple[object, int, str | None]]:
    """(header, size, what decodes it) of each archive in a seekable `file`,
    without decoding them where their headers say where they end; what
    decodes it is None where fade alone does (no learned model). A
    statistics archive's header does not say where it ends: the last one is
    recognised by its stream's checksum over the rest of the file; one
    followed by another archive is decoded to find its end (and a compact
    archive's deflate, bzip2, xz or lzma stream to find its own)."""
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
            header, size, learned = _plain_member(file, end - offset)
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
            learned = model_header(file.read(frame.archive_size))
            if learned is not None:
                return learned
    return None


def _method(prefix: bytes) -> str | None:
    try:
        return method_of(prefix)
    except FadeError:  # read_archive says what is wrong
        return None


def _plain_member(file, left: int) -> tuple[object, int, Header | None]:
    """The header and size of the archive (not frames) at `file`'s position,
    and the learned header its model runs with (None: none runs)."""
    start = file.tell()
    prefix = file.read(PREFIX_SIZE)
    if left <= LAST_MEMBER_READ and prefix.startswith(MAGIC) and _method(prefix) == STATISTICS:
        file.seek(start)
        rest = file.read()
        with contextlib.suppress(FadeError):  # its stream's CRC-32 holds: the last archive
            return unpack(rest)[0], len(rest), None
    file.seek(start)
    archive, _ = read_archive(Source(file))
    return unpack(archive)[0], len(archive), model_header(archive)


def _archives_of(files: tuple[str, ...]) -> tuple[int, list[tuple[str, list]]]:
    """(name, [(header, size), ...]) of each file that reads, and the exit
    status: an error for each that does not (said in one line)."""
    status, found = EXIT_OK, []
    for path in files:
        name = "stdin" if path == STDIO else path
        try:
            found.append((name, _members(path)))
        except UserError as error:
            say(str(error))
            status = EXIT_ERROR
        except fade.FadeError as error:
            say(f"{name}: {error}")
            status = EXIT_ERROR
    return status, found


def list_files(files: tuple[str, ...], verbosity: int) -> int:
    """`fade -l`: a row per archive (one per member of a concatenation) and,
    for more than one, a total row, like `xz -l` and `zstd -l`."""
    status, found = _archives_of(files or (STDIO,))
    rows, needs = [], []
    for name, archives in found:
        for number, (header, size, decoder) in enumerate(archives):
            label = name if len(archives) == 1 else f"{name} [{number + 1}/{len(archives)}]"
            count = len(header.frames) if isinstance(header, FramesHeader) else 1
            rows.append((size, header.original_size, level_of(header), count, label))
            if decoder is not None:
                needs.append(f"{label}: a learned archive: it decodes only with {decoder}")
    if rows:
        click.echo(f"{'compressed':>12} {'uncompressed':>13} {'ratio':>7} {'bits/B':>7} "
                   f"{'level/method':<22} {'frames':>6}  name")
        for row in rows:
            click.echo(_row(*row))
        if len(rows) > 1:
            click.echo(_row(sum(r[0] for r in rows), sum(r[1] for r in rows), "",
                            sum(r[3] for r in rows), f"({len(rows)} archives)"))
        for line in needs:
            click.echo(line)
    return status


def _row(size: int, original: int, method: str, count: int, name: str) -> str:
    ratio = f"{original / size:.3f}" if size else "-"
    bits = f"{8 * size / original:.3f}" if original else "-"
    return f"{size:>12,} {original:>13,} {ratio:>7} {bits:>7} {method:<22} {count:>6}  {name}"


def info_files(files: tuple[str, ...]) -> int:
    """`fade info`: every header field of each archive (a frames archive's
    index and its frames)."""
    status, found = _archives_of(files)
    for name, archives in found:
        for number, (header, size, decoder) in enumerate(archives):
            click.echo(f"{name}:" if len(archives) == 1 else
                       f"{name} [archive {number + 1} of {len(archives)}]:")
            click.echo(f"  archive_size: {size}")
            click.echo(f"  decodes_with: {decoder or 'fade alone, on any machine'}")
            for key, value in header.fields().items():
                click.echo(f"  {key}: {value}")
            if header.original_size:
                click.echo(f"  ratio: {header.original_size / size:.3f}")
                click.echo(f"  bits_per_byte: {8 * size / header.original_size:.3f}")
            for frame in getattr(header, "frames", ()):
                click.echo(f"  frame {frame.number}: original {frame.original_offset}+"
                           f"{frame.original_size}, archive {frame.archive_offset}+"
                           f"{frame.archive_size}, {frame.method}")
    return status


def write_timings(timings, name: str, opts: Options) -> None:
    """--profile: the per-step table (tab-separated, milliseconds) and a summary line."""
    rows = timings.rows
    if not rows:
        if opts.verbosity > 0:
            say(f"{name}: profile: no model steps (compact archive)")
        return
    lines = ["step\twall_ms\tdevice_ms\twait_ms\tcoder_ms\tblocked_ms"]
    lines += [f"{r['step']}\t{1000 * r['wall']:.3f}\t{1000 * r['device']:.3f}\t"
              f"{1000 * r['wait']:.3f}\t{1000 * r['coder']:.3f}\t{1000 * r['blocked']:.3f}"
              for r in rows]
    table = "\n".join(lines) + "\n"
    if opts.timings == STDIO:
        click.echo(table, err=True, nl=False)
    else:
        try:
            with open(opts.timings, "w") as file:
                file.write(table)
        except OSError as error:
            raise UserError(opts.timings, os_reason(error)) from None
    if opts.verbosity > 0:
        total = {key: sum(r[key] for r in rows) for key in ("wall", "device", "wait", "coder")}
        wall = max(total["wall"], 1e-9)
        say(f"{name}: profile: {len(rows)} steps in {total['wall']:.2f} s; device "
            f"{total['device']:.2f} s ({100 * total['device'] / wall:.1f}%), waiting for "
            f"coders {total['wait']:.2f} s ({100 * total['wait'] / wall:.1f}%), coders "
            f"{total['coder']:.2f} s")
