"""What the command line prints about archives: `fade -l`, `fade info`, and
the per-step timings of --profile."""

from __future__ import annotations

import io
import os
import sys

import click

import fade
from fade import methods
from fade.format.container import FramesHeader
from fade.members import list_archives
from fade.statistics.choice import model_use

from .files import EXIT_ERROR, EXIT_OK, STDIO, Options, UserError, os_reason, say


def level_of(header) -> str:
    """The level or method an archive's header says it was made with
    (fade.methods: each method's `listing`)."""
    return methods.listing(header)


def _members(path: str) -> list[tuple[object, int]]:
    """(header, archive size) of each archive in the file at `path` ('-':
    stdin), one after another (fade.members.list_archives)."""
    try:
        if path == STDIO:
            if sys.stdin.isatty():
                raise UserError("stdin", "is a terminal; refusing to read compressed data")
            return list_archives(io.BytesIO(sys.stdin.buffer.read()))
        if os.path.isdir(path):
            raise UserError(path, "is a directory")
        with open(path, "rb") as file:
            return list_archives(file)
    except OSError as error:
        raise UserError(path, os_reason(error)) from None


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
            fields = header.fields()
            for key, value in fields.items():
                click.echo(f"  {key}: {value}")
            if fields["method"] == "statistics":  # the model by what it is for
                click.echo(f"  model_for: {model_use(fields['model'])}")
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
