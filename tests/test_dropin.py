"""fade as a drop-in for xz and zstd, in fresh processes: the flags (-z -d -t
-l -c -k --rm -f), stdin and stdout, unfade and fadecat, FADE_OPT, tar -I,
concatenated archives, kept mtimes, and compressed data never to or from a
terminal."""

import functools
import os
import pty
import shutil
import subprocess
from pathlib import Path

import pytest

import fade
from conftest import corpus_file, fade_command, fade_env, one_error_line, run_fade
from fade import profile

FAST = ("--level", "fast", "-q")
# The hybrid at CI cost: the tiny network, forced, few steps.
HYBRID = ("--level", "default", "--preset", "tiny", "--method", "fade", "--batch-size", "16",
          "-q")


def _text(name: str, size: int) -> bytes:
    return corpus_file(name).read_bytes()[:size]


def _commands(folder: Path) -> dict[str, str]:
    """An environment whose PATH finds `fade`, `unfade` and `fadecat` of this
    checkout first (as the installed entry points would), for tar and shells."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    for name, flags in (("fade", ""), ("unfade", " -d"), ("fadecat", " -dc")):
        script = bin_dir / name
        script.write_text(f"#!/bin/sh\nexec {' '.join(fade_command())}{flags} \"$@\"\n")
        script.chmod(0o755)
    return fade_env({"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True,
                          timeout=600)


def test_xz_habits(tmp_path):
    data = _text("alice29.txt", 30_000)
    (tmp_path / "a").write_bytes(data)
    os.utime(tmp_path / "a", ns=(1_600_000_000_000_000_000, 1_500_000_000_123_456_789))
    os.chmod(tmp_path / "a", 0o640)
    env = _commands(tmp_path)
    # fade FILE compresses (-k is the default), keeping mode and mtime as zstd does
    assert _run("fade --level fast -q a", tmp_path, env).returncode == 0
    packed = (tmp_path / "a.fade").stat()
    assert packed.st_mtime_ns == 1_500_000_000_123_456_789 and packed.st_mode & 0o777 == 0o640
    assert (tmp_path / "a").exists()
    # -t verifies and writes nothing; -l lists
    assert _run("fade -t a.fade", tmp_path, env).returncode == 0
    listing = _run("fade -l a.fade", tmp_path, env)
    assert listing.returncode == 0, listing.stderr
    row = listing.stdout.decode().splitlines()[1].split()
    assert row[:2] == [f"{packed.st_size:,}", f"{len(data):,}"] and "fast/statistics" in row
    # -d with --rm, and the restored file keeps the archive's mtime
    os.unlink(tmp_path / "a")
    assert _run("fade -d --rm a.fade", tmp_path, env).returncode == 0
    assert (tmp_path / "a").read_bytes() == data and not (tmp_path / "a.fade").exists()
    assert (tmp_path / "a").stat().st_mtime_ns == 1_500_000_000_123_456_789
    # no FILE: stdin to stdout, both ways; unfade and fadecat; -z explicit; -dc combined
    assert _run("fade -q --level fast < a > s.fade && unfade -c < s.fade > s1 && "
                "fadecat s.fade > s2 && fade -dc s.fade > s3 && fade -z -f --level fast -q "
                "-o s4.fade a && fade -dc - < s4.fade > s5", tmp_path, env).returncode == 0
    for name in ("s1", "s2", "s3", "s5"):
        assert (tmp_path / name).read_bytes() == data, name
    # never overwrite without -f; the old subcommands still work
    one_error_line(_run("fade --level fast -o s4.fade a", tmp_path, env), "s4.fade",
                   "already exists")
    assert _run("fade compress -f --level fast -q a && fade decompress -c a.fade > s6",
                tmp_path, env).returncode == 0
    assert (tmp_path / "s6").read_bytes() == data
    # the help is a real help, on stdout
    helped = _run("fade --help", tmp_path, env)
    assert helped.returncode == 0 and b"--decompress" in helped.stdout \
        and len(helped.stdout.splitlines()) > 20


def test_compressed_data_never_from_or_to_a_terminal(tmp_path):
    (tmp_path / "a").write_bytes(b"terminal test")
    for args, stdout_is_terminal in ((("-d",), False), (("-t",), False), (("-l",), False),
                                     (("--level", "fast"), True)):
        leader, follower = pty.openpty()
        try:
            result = subprocess.run(fade_command(*args), cwd=tmp_path, stdin=follower,
                                    stdout=follower if stdout_is_terminal else subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=fade_env(), timeout=120)
        finally:
            os.close(follower)
            os.close(leader)
        one_error_line(result, "terminal")


@pytest.mark.skipif(shutil.which("tar") is None, reason="tar is not installed")
def test_tar_uses_fade_both_ways(tmp_path):
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "alice.txt").write_bytes(_text("alice29.txt", 40_000))
    (tree / "sub" / "zeros").write_bytes(bytes(5000))
    (tree / "sub" / "empty").write_bytes(b"")
    env = _commands(tmp_path)
    for number, (create, fade_opt) in enumerate((
            ("tar -I 'fade --level fast' -cf t.tar.fade tree", ""),
            ("tar -I fade -cf t.tar.fade tree", "--level fast"),
            ("tar --use-compress-program=fade -cf t.tar.fade tree", "--level fast -q"))):
        run_env = {**env, "FADE_OPT": fade_opt}
        out = tmp_path / f"o{number}"
        out.mkdir()
        made = _run(create, tmp_path, run_env)
        assert made.returncode == 0, made.stderr
        assert (tmp_path / "t.tar.fade").read_bytes()[:5] == b"\x89FADE"
        extracted = _run(f"tar -I fade -xf t.tar.fade -C {out}", tmp_path, run_env)
        assert extracted.returncode == 0, extracted.stderr
        for path in tree.rglob("*"):
            twin = out / path.relative_to(tmp_path)
            assert twin.is_dir() if path.is_dir() else twin.read_bytes() == path.read_bytes()
        os.unlink(tmp_path / "t.tar.fade")
    # a failing compressor: tar reports it, and fade itself wrote nothing partial
    failed = _run("tar -I 'fade --level nonsense' -cf bad.tar.fade tree", tmp_path, env)
    assert failed.returncode != 0 and b"nonsense" in failed.stderr


@functools.lru_cache(maxsize=1)
def _archives() -> dict[str, tuple[bytes, bytes]]:
    """(original, archive) of each kind: compact, statistics, hybrid, frames."""
    from fade import frames
    import io
    import fade

    made = {}
    random = corpus_file("edge/random_org_10k.bin").read_bytes()[:3000]
    made["compact"] = (random, fade.compress(random, level="fast"))
    text = _text("asyoulik.txt", 6_000)
    made["statistics"] = (text, fade.compress(text, level="fast"))
    small = _text("lcet10.txt", 500)  # 32 steps of 16 bytes: each decode runs the network
    made["hybrid"] = (small, fade.compress(small, level="default", preset_name="tiny",
                                           method="fade", batch_size=16))
    framed = _text("plrabn12.txt", 3 * 4096 + 100)
    sink = io.BytesIO()
    frames.compress_stream(io.BytesIO(framed), sink.write, frame_size=4096, level="fast")
    made["frames"] = (framed, sink.getvalue())
    assert fade.read_header(made["compact"][1]).method in ("stored", "deflate", "bzip2", "xz")
    assert fade.read_header(made["statistics"][1]).method == "statistics"
    assert fade.read_header(made["hybrid"][1]).coding == "hybrid"
    assert fade.read_header(made["frames"][1]).method == "frames"
    return made


def test_concatenated_archives_decode_to_the_concatenation(tmp_path):
    made = _archives()
    kinds = list(made)
    # every ordered pair of kinds once, in one stream of 17 archives, through
    # a pipe and from a file
    order = [0, 0, 1, 0, 2, 0, 3, 1, 1, 2, 1, 3, 2, 2, 3, 3, 0]
    assert len({(a, b) for a, b in zip(order, order[1:])}) == len(kinds) ** 2
    stream = b"".join(made[kinds[k]][1] for k in order)
    expected = b"".join(made[kinds[k]][0] for k in order)
    (tmp_path / "all.fade").write_bytes(stream)
    piped = run_fade("-dc", cwd=tmp_path, stdin=stream)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == expected
    assert run_fade("-d", "-q", "all.fade", cwd=tmp_path).returncode == 0
    assert (tmp_path / "all").read_bytes() == expected
    listed = run_fade("-l", "all.fade", cwd=tmp_path).stdout.decode().splitlines()
    # the table (a header, a row per archive, the total), then a line for
    # each learned (hybrid) archive saying what decodes it
    hybrids = [number for number, k in enumerate(order, 1) if kinds[k] == "hybrid"]
    table, notes = listed[:len(order) + 2], listed[len(order) + 2:]
    assert "(17 archives)" in table[-1]
    assert table[-1].split()[:2] == [f"{len(stream):,}", f"{len(expected):,}"]
    assert [line.split()[-1] for line in table[1:-1]] == [
        f"[{number}/17]" for number in range(1, 18)]
    assert notes == [f"all.fade [{number}/17]: a learned archive: it decodes only with "
                     f"{profile.decoded_by(fade.read_header(made['hybrid'][1]).machine())}"
                     for number in hybrids]
    # fade -c a b writes such a stream
    for name in kinds:
        (tmp_path / name).write_bytes(made[name][0])
    both = run_fade("-c", "--level", "fast", "-q", *kinds, cwd=tmp_path)
    assert both.returncode == 0
    again = run_fade("-dc", cwd=tmp_path, stdin=both.stdout)
    assert again.stdout == b"".join(made[name][0] for name in kinds)


@pytest.mark.parametrize("kind", ["statistics", "frames"])
def test_damage_after_the_first_archive_fails_and_leaves_nothing(tmp_path, kind):
    made = _archives()
    first, second = made["compact"][1], made[kind][1]
    damaged = bytearray(second)
    damaged[len(damaged) // 2] ^= 0x10
    for name, blob in (("damaged.fade", first + bytes(damaged)),
                       ("trailing.fade", first + second + b"not an archive\n"),
                       ("cut.fade", first + second[:-7])):
        (tmp_path / name).write_bytes(blob)
        result = run_fade("-d", name, cwd=tmp_path)
        line = one_error_line(result, name)
        if name == "trailing.fade":
            assert "after archive 2" in line
        assert not (tmp_path / name[:-5]).exists()
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_options_from_the_environment_and_their_errors(tmp_path):
    (tmp_path / "a").write_bytes(_text("lcet10.txt", 5000))
    result = run_fade("-c", "a", cwd=tmp_path, env={"FADE_OPT": "--level fast -q"})
    assert result.returncode == 0
    import fade
    assert fade.read_header(result.stdout).method == "statistics"
    one_error_line(run_fade("-c", "a", cwd=tmp_path, env={"FADE_OPT": "--level 'fast"}),
                   "FADE_OPT")
    one_error_line(run_fade("-c", "a", cwd=tmp_path, env={"FADE_OPT": "--no-such-option"}),
                   "no-such-option")


def _stderr_on_a_terminal(args: tuple[str, ...], cwd: Path) -> tuple[int, str]:
    """fade's exit status and what it wrote to a terminal as its stderr."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(fade_command(*args), cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=follower, env=fade_env())
    os.close(follower)
    chunks = []
    while True:  # read as it comes: a full terminal would block fade's progress bar
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: fade has exited and closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=300), b"".join(chunks).decode(errors="replace")


def test_a_learned_archive_made_at_a_terminal_says_once_what_decodes_it(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).write_bytes(_text("lcet10.txt", 3000))
    learned = ("--level", "max", "--preset", "tiny", "--method", "fade", "--batch-size", "16")
    status, said = _stderr_on_a_terminal(learned + ("a", "b"), tmp_path)
    assert status == 0, said
    header = fade.read_header((tmp_path / "a.fade").read_bytes())
    assert said.count("is a learned archive: it decodes only with") == 1
    assert f"a.fade is a learned archive: it decodes only with " \
        f"{profile.decoded_by(header.machine())}" in said
    info = run_fade("info", "a.fade", cwd=tmp_path).stdout.decode()
    assert f"  decodes_with: {profile.decoded_by(header.machine())}\n" in info
    status, said = _stderr_on_a_terminal(learned + ("-q", "-f", "a"), tmp_path)
    assert status == 0 and "learned archive" not in said
    status, said = _stderr_on_a_terminal(("-f", "a"), tmp_path)  # the default: statistics
    assert status == 0 and "learned archive" not in said and "a.fade" in said
    info = run_fade("info", "a.fade", cwd=tmp_path).stdout.decode()
    assert "  decodes_with: fade alone, on any machine\n" in info
