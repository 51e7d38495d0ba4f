"""The `fade` command line: xz's and zstd's habits over the `fade` library.

`fade [OPTIONS] [FILE...]` compresses each FILE to FILE.fade; -d
decompresses, -t tests, -l lists; no FILE or '-' reads stdin and writes
stdout. `unfade` is `fade -d`, `fadecat` is `fade -dc`; the subcommands of
earlier versions (`fade compress`, `fade decompress`, `fade info`) still
work. Options are also read from the FADE_OPT environment variable, before
the command line (as xz reads XZ_OPT), so that `tar -I fade` and
`FADE_OPT='--level fast' tar -I fade ...` work. The file handling is
cli.files; compressing cli.encode; decoding cli.decode; listing cli.report.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys

import click

import fade  # first: it sets what torch reads when it loads (fade.environment)
from fade import floats, frames
from fade.floor import COMPACT_METHODS
from fade.device import DEVICES
from fade.single import METHOD_CHOICES
from fade.config import (DEFAULT_LEVEL, DEFAULT_MEMORY_LIMIT, DEFAULT_PRESET,
                         MAX_CODER_THREADS, MAX_GROUPS, MAX_THREADS, LEVELS, PRESETS,
                         format_bytes)

from .decode import decode_files
from .encode import compress_files
from .files import (EXIT_ERROR, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE,
                    ByteRange, ByteSize, Options, UserError, say)
from .report import info_files, list_files

MAX_JOBS = 1024
OPTIONS_VARIABLE = "FADE_OPT"
# The subcommands of fade 0.10 and before, as the flags they now are.
SUBCOMMANDS = {"compress": "-z", "decompress": "-d"}


def _mode_flag(*names: str, mode: str, help: str):
    """One of -z, -d, -t, -l: they set one value, the last given wins (as in xz)."""
    return click.option(*names, "mode", flag_value=mode, help=help)


@click.command(context_settings={"help_option_names": ["-h", "--help"],
                                 "max_content_width": 100})
@click.version_option(fade.__version__, "-V", "--version", prog_name="fade")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=True, allow_dash=True))
@_mode_flag("-z", "--compress", mode="compress",
            help="Compress (the default): FILE to FILE.fade.")
@_mode_flag("-d", "--decompress", "--uncompress", mode="decompress",
            help="Decompress: FILE.fade to FILE; archives one after another decode to the "
                 "concatenation of their contents.")
@_mode_flag("-t", "--test", mode="test", help="Decode and verify; write nothing.")
@_mode_flag("-l", "--list", mode="list",
            help="List each archive: sizes, ratio, level/method, frames; and a total.")
@click.option("-c", "--stdout", "to_stdout", is_flag=True,
              help="Write to standard output (keeps the input).")
@click.option("-o", "--output", metavar="OUT", help="Write to OUT (one input file only).")
@click.option("-f", "--force", is_flag=True, help="Overwrite existing output files.")
@click.option("-k", "--keep/--rm", "keep", default=True,
              help="Keep (default) or remove the input after success.")
@click.option("-q", "--quiet", count=True, help="No progress, summary or warnings.")
@click.option("-v", "--verbose", count=True, help="Say more (the settings chosen, the device).")
@click.option("-T", "--jobs", type=click.IntRange(0, MAX_JOBS), default=0,
              help="Frames coded at once, each by its own process on one thread (0: one per "
                   "core); the frames' size follows it (so the archive does) unless "
                   "--frame-size is given [default: 0].")
@click.option("--level", type=click.Choice(list(LEVELS)), default=None,
              help="fast: the context-mixing statistics alone (hundreds of KB/s); default: "
                   "stronger statistics alone (archives that decode anywhere); max: the "
                   "network and the strongest statistics mixed bit by bit, or those "
                   "statistics alone where they are smaller (the archive decodes only with "
                   "the same torch build) "
                   f"[default: {DEFAULT_LEVEL}, or with --preset the network alone].")
@click.option("--frame-size", type=ByteSize(), default=None,
              help="Inputs larger than this are cut into independent frames of this size, "
                   "coded in parallel (-T) and in bounded memory [default: one frame per job "
                   f"(-T), of {format_bytes(frames.MIN_AUTO_FRAME)} to "
                   f"{format_bytes(frames.AUTO_FRAME_LIMIT)}; -v says which].")
@click.option("--preset", type=click.Choice(list(PRESETS)), default=None,
              help=f"The network's size; without --level the network codes alone "
                   f"[default: {DEFAULT_PRESET}].")
@click.option("--batch-size", type=click.IntRange(min=1), default=None,
              help="Sub-streams coded as one batch [default: by input size and preset].")
@click.option("--threads", type=click.IntRange(1, MAX_THREADS), default=None,
              help="CPU threads for the model, recorded so the decoder uses the same "
                   "[default: one per core, at most 8; 1 for a step too small to share].")
@click.option("--method", type=click.Choice(METHOD_CHOICES), default="auto", show_default=True,
              help=f"auto: the model, or a compact archive ({'/'.join(COMPACT_METHODS)}) "
                   "where it cannot win; fade: always the model; floats: require float data; "
                   "others: force that method.")
@click.option("--dtype", type=click.Choice(floats.DTYPE_CHOICES), default="auto",
              show_default=True,
              help="auto: find tensors in .npy/.safetensors files; bf16/fp16/fp32: a raw "
                   "little-endian array; none: plain bytes.")
@click.option("--floats", "float_mode", type=click.Choice(floats.MODES), default="off",
              show_default=True,
              help="Float data: off codes it as bytes; fast codes exponents only; strong feeds "
                   "byte planes to the model.")
@click.option("--float-codec", type=click.Choice(floats.CODEC_CHOICES), default="auto",
              show_default=True, help="Exponent codec of --floats fast.")
@click.option("--groups", type=click.IntRange(1, MAX_GROUPS), default=None,
              help="Groups of sub-streams with a coder each (decoded in parallel); recorded "
                   "[default: 1].")
@click.option("--native", is_flag=True,
              help="torch's fastest kernels instead of the portable profile: the archive "
                   "decodes only on machines like this one.")
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
              help="Where the model runs.")
@click.option("--coder-threads", type=click.IntRange(1, MAX_CODER_THREADS), default=None,
              help="Range-coder workers beside the model; changes speed, never the archive.")
@click.option("--ray", "ray_address", metavar="ADDRESS", default=None,
              help="Code frames as tasks of the Ray cluster at ADDRESS ('auto', 'local', or "
                   "HOST:PORT) instead of -T local processes (needs fade[ray]).",
              callback=lambda ctx, param, value: value or None)
@click.option("--memory-limit", type=ByteSize(), default=None,
              help="Most memory a model may need; a larger one is refused before it is built "
                   f"[default: {format_bytes(DEFAULT_MEMORY_LIMIT)}].")
@click.option("--max-threads", type=click.IntRange(1, MAX_THREADS), default=None,
              help="Decoding: most threads to replay (an archive coded with more is refused) "
                   "[default: 4 per core, at least 8].")
@click.option("--range", "byte_range", type=ByteRange(), default=None,
              help="Decoding: only bytes START:END of the original, reading only the frames "
                   "that hold them; needs -c or -o.")
@click.option("--profile", "timings", metavar="FILE", default=None,
              help="Write per-step timings to FILE as tab-separated values ('-': stderr).")
@click.option("--as-name", "display_name", hidden=True, default=None,
              help="The name messages give stdin (used by fade's own replay process).")
def fade_cli(files, mode, to_stdout, output, force, keep, quiet, verbose, jobs, level,
             frame_size, preset, batch_size, threads, method, dtype, float_mode, float_codec,
             groups, native, device, coder_threads, ray_address, memory_limit, max_threads,
             byte_range, timings, display_name):
    """Compress or decompress FILEs with fade (learned lossless compression).

    With no FILE, or when FILE is -, read standard input and write standard
    output. Options are also taken from the FADE_OPT environment variable."""
    mode = mode or "compress"
    if mode == "list":
        return list_files(files, max(0, 1 + verbose - quiet))
    opts = Options(mode=mode, output=output, stdout=to_stdout, force=force,
                   remove_input=not keep, verbosity=max(0, 1 + verbose - quiet), device=device,
                   coder_threads=coder_threads, timings=timings, memory_limit=memory_limit,
                   jobs=1 if timings else (jobs or frames.default_jobs()),
                   ray=None if timings else ray_address, stdin_name=display_name or "stdin")
    _show_library_log(opts.verbosity > 1)
    if mode == "compress":
        if byte_range is not None:
            raise click.UsageError("--range is for decompressing (-d)")
        try:
            if frame_size is not None:
                frames.check_frame_size(frame_size)
        except fade.FadeError as error:
            raise click.BadParameter(str(error), param_hint="--frame-size") from None
        settings = fade.Settings(
            level=level, preset=preset, batch_size=batch_size, threads=threads, method=method,
            dtype=dtype, float_mode=float_mode, float_codec=float_codec, groups=groups,
            native=native, frame_size=frame_size, jobs=opts.jobs, ray=opts.ray, device=device,
            coder_threads=coder_threads, memory_limit=memory_limit)
        return compress_files(files, opts, settings)
    if byte_range is not None and not (to_stdout or output or mode == "test"):
        raise click.UsageError("--range needs -c or -o (the output is part of the original)")
    return decode_files(files, opts, max_threads, byte_range)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
def info_cli(files):
    """Print every header field of FILES.fade."""
    return info_files(files)


def arguments(argv: list[str], program: str = "fade") -> tuple[click.Command, list[str]]:
    """The command to run and its arguments: FADE_OPT's options first, the
    old subcommands as flags, `unfade` and `fadecat` as -d and -dc."""
    argv = list(argv)
    if argv[:1] == ["info"]:
        return info_cli, argv[1:]
    if argv[:1] and argv[0] in SUBCOMMANDS:
        argv[0] = SUBCOMMANDS[argv[0]]
    implied = {"unfade": ["-d"], "fadecat": ["-d", "-c"]}.get(program, [])
    try:
        from_environment = shlex.split(os.environ.get(OPTIONS_VARIABLE, ""))
    except ValueError as error:
        raise click.UsageError(f"{OPTIONS_VARIABLE}: {error}") from None
    return fade_cli, implied + from_environment + argv


_received_signal: int | None = None  # the signal that stopped the last main() call


_SAY = None  # the handler of the library's log lines, made when first shown


def _show_library_log(shown: bool) -> None:
    """The library's log lines (the evidence for its choices, fade.race: all
    at level info) on the current standard error as the command line's own
    notes, or (`shown` false) none. logging loads only once they are shown:
    until then the library's lines go nowhere anyway."""
    global _SAY
    if not shown and "logging" not in sys.modules:
        return
    import logging

    if _SAY is None:
        class Say(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                click.echo(f"fade: {record.getMessage()}", err=True)

        _SAY = Say()
    library_log = logging.getLogger("fade")
    if _SAY not in library_log.handlers:
        library_log.addHandler(_SAY)
    library_log.setLevel(logging.INFO if shown else logging.WARNING)


def _interrupt(signum, frame):
    global _received_signal
    _received_signal = signum
    raise KeyboardInterrupt


def _caused_by_interrupt(error: BaseException) -> bool:
    """Whether a KeyboardInterrupt is among the causes and contexts of `error`."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def main(argv: list[str] | None = None, program: str = "fade") -> int:
    """Run the command line on argv and return the exit code (never raises).

    Tests call this directly; the commands go through `entry` and friends."""
    global _received_signal
    _received_signal = None
    previous = {signum: signal.signal(signum, _interrupt)
                for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        command, args = arguments(sys.argv[1:] if argv is None else argv, program)
        result = command.main(args=args, prog_name=program, standalone_mode=False)
        return result if isinstance(result, int) else EXIT_OK
    except click.exceptions.Exit as done:  # --help, --version
        return done.exit_code
    except click.UsageError as error:
        say(f"{error.format_message()} (see fade --help)")
        return EXIT_USAGE
    except click.ClickException as error:
        say(error.format_message())
        return error.exit_code
    except (KeyboardInterrupt, click.exceptions.Abort):
        say("interrupted")
        return EXIT_INTERRUPTED
    except UserError as error:
        say(str(error))
        return EXIT_ERROR
    except MemoryError:
        say("out of memory (try a smaller --batch-size or preset)")
        return EXIT_ERROR
    except Exception as error:
        if _received_signal is not None or _caused_by_interrupt(error):
            # Ctrl-C or SIGTERM that a library turned into another error (one
            # raised in a descriptor's __set_name__ while a module is imported
            # becomes a RuntimeError): still an interrupt.
            say("interrupted")
            return EXIT_INTERRUPTED
        # A bug: still one line, and no partial output.
        if os.environ.get("FADE_DEBUG"):
            raise
        first_line = (str(error).splitlines() or [""])[0]
        say(f"internal error: {type(error).__name__}: {first_line} "
            "(please report it; FADE_DEBUG=1 shows the traceback)")
        return EXIT_INTERNAL
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _exit(status: int) -> None:
    """Exit with `status`. After Ctrl-C or SIGTERM (output already cleaned
    up), die of that signal as Unix tools do, so the shell sees 128 + signal
    (130 for Ctrl-C) and a calling script stops too."""
    if status == EXIT_INTERRUPTED and _received_signal is not None:
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(_received_signal, signal.SIG_DFL)
        os.kill(os.getpid(), _received_signal)
    sys.exit(status)


def entry(argv: list[str] | None = None) -> None:
    """The `fade` command (`argv`: instead of the process's arguments)."""
    _exit(main(argv))


def unfade_entry() -> None:
    """The `unfade` command: `fade -d`."""
    _exit(main(program="unfade"))


def fadecat_entry() -> None:
    """The `fadecat` command: `fade -dc`."""
    _exit(main(program="fadecat"))


if __name__ == "__main__":
    entry()
