"""fade's command line against xz's and zstd's, habit by habit.

Runs the same shell command for each tool (TOOL and EXT stand for the tool
and its suffix) in a scratch folder holding a small real file, and prints a
Markdown table: what each tool did (exit status and what the check saw).
fade runs at level fast through FADE_OPT (the default level trains a
network: minutes per file, and the habits do not depend on the level).

    python scripts/habits.py [FILE]       # default: tests/corpus/alice29.txt
"""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOLS = {"fade": ".fade", "xz": ".xz", "zstd": ".zst"}

# (habit, shell command, check run after it: prints what it found)
HABITS = [
    ("compress FILE to FILE.EXT", "TOOL -q a", "ls a a.EXT 2>&1 | tr '\\n' ' '"),
    ("keep the input (-k)", "TOOL -q -k a", "ls a a.EXT 2>&1 | tr '\\n' ' '"),
    ("decompress (-d)", "TOOL -q -k a && rm a && TOOL -d -q a.EXT", "cmp a orig && echo same"),
    ("test (-t)", "TOOL -q -k a && TOOL -t a.EXT", "echo tested"),
    ("list (-l)", "TOOL -q -k a && TOOL -l a.EXT | tail -1", ""),
    ("to stdout (-c)", "TOOL -c a > x", "TOOL -dc x | cmp - orig && echo same"),
    ("stdin to stdout", "TOOL < a > x", "TOOL -d < x | cmp - orig && echo same"),
    ("concatenation: cat a.EXT b.EXT | TOOL -dc",
     "TOOL -c a > p && TOOL -c b > q && cat p q | TOOL -dc > out",
     "cat a b | cmp - out && echo 'a then b'"),
    ("TOOL -c a b writes one stream", "TOOL -c a b > ab", "TOOL -dc ab | cmp - <(cat a b) && echo same"),
    ("bytes after the last archive", "TOOL -c a > x && echo junk >> x && TOOL -dc x > /dev/null",
     ""),
    ("never overwrite without -f", "TOOL -q -k a && TOOL -q -k a", ""),
    ("-f overwrites", "TOOL -q -k a && TOOL -q -k -f a", ""),
    ("keep the mtime", "touch -d 2001-02-03 a && TOOL -q -k a",
     "date -r a.EXT +%F"),
    ("options from the environment", "ENV TOOL -q -k a", "ls a.EXT"),
    ("tar -I TOOL, both ways", "mkdir -p d && cp a b d/ && tar -I TOOL -cf t.tar d && mkdir o && "
     "tar -I TOOL -xf t.tar -C o", "diff -r d o/d && echo same"),
    ("compressed data to a terminal", "PTY_STDOUT TOOL -c a", ""),
    ("compressed data from a terminal", "PTY_STDIN TOOL -d", ""),
]
ENVIRONMENT = {"fade": "FADE_OPT='--level fast -T 1'", "xz": "XZ_OPT=-T1", "zstd": "ZSTD_CLEVEL=19"}


def run(tool: str, command: str, check: str, folder: Path, sample: bytes) -> str:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / "orig").write_bytes(sample)
    (folder / "a").write_bytes(sample)
    (folder / "b").write_bytes(sample[::-1])
    ext = TOOLS[tool]
    script = command.replace("TOOL", tool).replace("EXT", ext[1:]).replace(
        "ENV", ENVIRONMENT[tool])
    env = {**os.environ, "FADE_OPT": "--level fast"}
    if script.startswith(("PTY_STDOUT", "PTY_STDIN")):
        return _on_a_terminal(script, folder, env)
    done = subprocess.run(["bash", "-c", script], cwd=folder, env=env, capture_output=True)
    seen = done.stdout.decode().strip() or done.stderr.decode().strip()
    if check and done.returncode == 0:
        checked = subprocess.run(["bash", "-c", check.replace("TOOL", tool).replace(
            "EXT", ext[1:])], cwd=folder, env=env, capture_output=True)
        seen = (checked.stdout.decode().strip() or checked.stderr.decode().strip())
    return f"exit {done.returncode}: {_short(seen)}"


def _on_a_terminal(script: str, folder: Path, env: dict) -> str:
    which, command = script.split(" ", 1)
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, timeout=60,
                              stdin=follower if which == "PTY_STDIN" else subprocess.DEVNULL,
                              stdout=follower if which == "PTY_STDOUT" else subprocess.PIPE,
                              stderr=subprocess.PIPE)
    except subprocess.TimeoutExpired:
        return "waits for input"
    finally:
        os.close(follower)
        os.close(leader)
    return f"exit {done.returncode}: {_short(done.stderr.decode().strip())}"


def _short(text: str) -> str:
    line = " ".join(text.split())
    return (line[:70] + "...") if len(line) > 73 else line


def main() -> None:
    sample_path = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "tests/corpus/alice29.txt"
    sample = sample_path.read_bytes()[:20_000]
    bin_dir = Path(tempfile.mkdtemp())
    fade = bin_dir / "fade"  # this checkout's command line, as the installed one
    fade.write_text(f"#!/bin/sh\nPYTHONPATH={REPO} exec {sys.executable} -m fade \"$@\"\n")
    fade.chmod(0o755)
    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    print(f"{len(sample)} bytes of {sample_path.name}; fade at level fast (FADE_OPT)\n")
    print("| habit | command | fade | xz | zstd |")
    print("|---|---|---|---|---|")
    for habit, command, check in HABITS:
        cells = [run(tool, command, check, bin_dir / "work", sample) for tool in TOOLS]
        shown = command.replace("PTY_STDOUT ", "").replace("PTY_STDIN ", "").replace(
            "|", "\\|")
        print(f"| {habit.replace('|', chr(92) + '|')} | `{shown}` | " + " | ".join(cells) + " |")
    shutil.rmtree(bin_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
