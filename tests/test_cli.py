"""The command line, in fresh processes: round trips of real files and every
way a user can get it wrong."""

import os
import pty
import re
import shutil
import signal
import subprocess
import time

import pytest

from fade.config import batch_size_for
from fade.format.headers import VERSION

from conftest import corpus_file, corpus_files, fade_command, fade_env, one_error_line, run_fade

TINY = ("--preset", "tiny", "-q")
LEARNED = TINY + ("--method", "fade")  # the model even where the size floor would not use it


def _leftovers(directory):
    """Files a failed run must not leave: outputs and temporaries."""
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


# The hybrid (forced, so every file is coded by it, random ones too) on each
# file's first 2 KiB at 64 sub-streams (at most 32 steps; the default
# batch, size // 2048, would take 2048 on every slice): every kind of content
# at CI cost, the network's computation included. The statistics alone
# (level fast, method auto: the size floor where it wins) on each file's
# first 32 KiB. Default batches are tested below, whole files are the
# benchmarks' job (scripts/bench.py).
@pytest.mark.parametrize("args, slice_bytes", [
    (TINY + ("--level", "default", "--method", "fade", "--batch-size", "64"), 2 * 1024),
    (("--level", "fast", "-q"), 32 * 1024)], ids=["hybrid", "fast"])
def test_every_corpus_file_roundtrips_through_the_cli(tmp_path, args, slice_bytes):
    sources = corpus_files()
    assert len(sources) >= 24
    names = []
    for source in sources:
        name = ("edge-" if source.parent.name == "edge" else "") + source.name
        with open(source, "rb") as file:
            (tmp_path / name).write_bytes(file.read(slice_bytes))
        names.append(name)
    result = run_fade("compress", *args, *names, cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    if "auto" in args or "--method" not in args:
        # The size floor: no archive is more than 32 bytes larger than its input.
        growth = {n: (tmp_path / (n + ".fade")).stat().st_size - (tmp_path / n).stat().st_size
                  for n in names}
        assert max(growth.values()) <= 32, growth
    for name in names:
        (tmp_path / name).rename(tmp_path / (name + ".orig"))
    result = run_fade("decompress", "-q", *(n + ".fade" for n in names), cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    differing = [n for n in names
                 if (tmp_path / n).read_bytes() != (tmp_path / (n + ".orig")).read_bytes()]
    assert differing == []


# 0, 1, T=16, T+1, exactly k*B and k*B+1 (default batch and explicit batch):
# one compressing process per batch option, its files' archives decoded
# together by one fresh process. (The default batch of 8192 bytes, 8192 //
# 2048 = 4, is asserted without coding: at the default rule every length
# takes ~2048 steps each way.)
def test_generated_lengths_roundtrip(tmp_path):
    text = corpus_file("lcet10.txt").read_bytes()
    names = []
    for batch, lengths in ((None, (0, 1, 16, 17)), (64, (4096, 4097)), (32, (96, 97))):
        for length in lengths:
            (tmp_path / f"f{length}").write_bytes(text[:length])
        files = [f"f{length}" for length in lengths]
        args = LEARNED + (("--batch-size", str(batch)) if batch else ())
        result = run_fade("compress", *args, *files, cwd=tmp_path)
        assert result.returncode == 0, result.stderr.decode()
        names += files
    info = run_fade("info", "f4096.fade", cwd=tmp_path).stdout.decode()
    assert "batch_size: 64\n" in info  # an exact multiple of B
    assert batch_size_for(8192, None, "tiny", "cpu") == 4  # the default: 8192 // 2048
    for name in names:
        os.remove(tmp_path / name)
    result = run_fade("decompress", "-q", *(name + ".fade" for name in names), cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    for name in names:
        assert (tmp_path / name).read_bytes() == text[:int(name[1:])], name


def test_every_method_roundtrips_through_the_cli(tmp_path):
    # Every way of writing an archive, one compressing process each; the
    # archives read by one `fade info` and decoded by one fresh process
    # without flags.
    data = corpus_file("asyoulik.txt").read_bytes()[:1000]
    methods = ("fade", "stored", "deflate", "bzip2", "xz", "lzma", "statistics")
    for method in methods:
        (tmp_path / method).write_bytes(data)
        batch = ("--batch-size", "8") if method == "fade" else ()  # 125 steps, not 1000
        model = ("-q",) if method == "statistics" else TINY  # the statistics take no preset
        result = run_fade("compress", *model, *batch, "--method", method, method, cwd=tmp_path)
        assert result.returncode == 0, result.stderr.decode()
        os.remove(tmp_path / method)
    archives = [method + ".fade" for method in methods]
    info = run_fade("info", *archives, cwd=tmp_path).stdout.decode()
    fields = dict(re.findall(r"^(\S+)\.fade:\n((?:  .*\n)*)", info, re.M))
    unnamed = [m for m in methods if f"  method: {m}\n" not in fields.get(m, "")]
    assert unnamed == [], info
    assert "  model_for: text at fast\n" in fields["statistics"]  # (level fast: method statistics)
    result = run_fade("decompress", "-q", *archives, cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    differing = [m for m in methods if (tmp_path / m).read_bytes() != data]
    assert differing == []


def test_size_floor_picks_compact_archives_where_the_model_cannot_win(tmp_path):
    shutil.copyfile(corpus_file("edge/random_org_10k.bin"), tmp_path / "random")
    (tmp_path / "short").write_bytes(corpus_file("alice29.txt").read_bytes()[:200])
    result = run_fade("compress", "--preset", "tiny", "random", "short", cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    summary = result.stderr.decode()
    assert "random: 10000 -> 10023 bytes" in summary and ", stored," in summary
    assert "short: 200 ->" in summary
    info = run_fade("info", "short.fade", cwd=tmp_path).stdout.decode()
    assert "method: fade" not in info and "original_crc32: " in info


def test_stdin_to_stdout_roundtrip(tmp_path):
    data = corpus_file("alice29.txt").read_bytes()[:900]
    packed = run_fade("compress", *TINY, "--batch-size", "30", "-", cwd=tmp_path, stdin=data)
    assert packed.returncode == 0 and packed.stdout[:5] == b"\x89FADE"
    unpacked = run_fade("decompress", "-q", "-c", "-", cwd=tmp_path, stdin=packed.stdout)
    assert unpacked.returncode == 0
    assert unpacked.stdout == data


def test_summary_and_options(tmp_path):
    (tmp_path / "a.txt").write_bytes(corpus_file("asyoulik.txt").read_bytes()[:700])
    result = run_fade("compress", "a.txt", "-o", "x.fade", cwd=tmp_path)
    assert result.returncode == 0
    summary = result.stderr.decode()
    assert "a.txt: 700 ->" in summary and "bits/byte" in summary and "KB/s" in summary
    # decompressing needs no flag that compress was given
    result = run_fade("decompress", "x.fade", "-o", "b.txt", cwd=tmp_path)
    assert result.returncode == 0
    assert (tmp_path / "b.txt").read_bytes() == (tmp_path / "a.txt").read_bytes()
    # --rm removes the input only after success; -k (default) keeps it
    result = run_fade("compress", "-q", "--rm", "b.txt", cwd=tmp_path)
    assert result.returncode == 0
    assert not (tmp_path / "b.txt").exists() and (tmp_path / "b.txt.fade").exists()


def test_info_shows_every_header_field(tmp_path):
    from fade.format.headers import FIXED_FIELDS, STRING_FIELDS

    (tmp_path / "a").write_bytes(b"abracadabra" * 20)
    assert run_fade("compress", *LEARNED, "--threads", "1", "a", cwd=tmp_path).returncode == 0
    result = run_fade("info", "a.fade", cwd=tmp_path)
    assert result.returncode == 0
    shown = dict(line.strip().split(": ", 1) for line in result.stdout.decode().splitlines()[1:])
    structural = {"magic", "flags", "header_size", "payload_size", "payload_crc32"}
    for name, _ in FIXED_FIELDS:
        if name not in structural:
            assert name in shown, name
    for name in STRING_FIELDS:
        assert name in shown, name
    assert shown["original_size"] == "220" and shown["threads"] == "1"
    assert shown["preset"] == "tiny" and shown["dtype"] == "float32"
    assert shown["method"] == "fade" and shown["version"] == str(VERSION)
    assert shown["profile"] == "portable" and shown["cuda_version"] == "none"


def test_decode_restores_the_encoders_thread_count(tmp_path):
    # Encode with 2 threads, decode in a process whose torch defaults to 1:
    # without the pinned count the LayerNorm gradients differ and
    # the checksum fails (see test_codec for that failure).
    data = corpus_file("plrabn12.txt").read_bytes()[:2500]
    (tmp_path / "p").write_bytes(data)
    assert run_fade("compress", *LEARNED, "--threads", "2", "--batch-size", "25", "p",
                    cwd=tmp_path).returncode == 0
    os.remove(tmp_path / "p")
    result = run_fade("decompress", "-q", "p.fade", cwd=tmp_path, env={"OMP_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr.decode()
    assert (tmp_path / "p").read_bytes() == data


@pytest.fixture(scope="module")
def archive_bytes(tmp_path_factory):
    directory = tmp_path_factory.mktemp("archive")
    (directory / "m").write_bytes(corpus_file("edge/monkey").read_bytes()[:400])
    assert run_fade("compress", *LEARNED, "--batch-size", "4", "m",
                    cwd=directory).returncode == 0
    return (directory / "m.fade").read_bytes()


def _damaged(blob, kind):
    blob = bytearray(blob)
    header_size = int.from_bytes(blob[13:17], "little")
    if kind.startswith("truncate-"):
        return bytes(blob[:int(kind.split("-")[1]) if kind != "truncate-payload"
                          else len(blob) - 5])
    if kind == "payload-byte":
        blob[header_size + 10] ^= 0x01
    elif kind == "header-byte":
        blob[100] ^= 0x40  # inside the model parameters
    elif kind == "magic":
        blob[1:5] = b"GZIP"
    elif kind == "version":
        blob[8:10] = (VERSION + 1).to_bytes(2, "little")  # a future version
    elif kind == "trailing":
        blob += b"\x00"
    return bytes(blob)


@pytest.mark.parametrize("kind,reason", [
    ("truncate-0", "not a fade archive"), ("truncate-5", "not a fade archive"),
    ("truncate-40", "truncated"), ("truncate-160", "truncated"),
    ("truncate-payload", "truncated"), ("payload-byte", "payload checksum"),
    ("header-byte", "header checksum"), ("magic", "not a fade archive"),
    ("version", f"unsupported format version {VERSION + 1}"), ("trailing", "unexpected bytes"),
])
def test_damaged_archives_fail_cleanly(tmp_path, archive_bytes, kind, reason):
    (tmp_path / "d.fade").write_bytes(_damaged(archive_bytes, kind))
    result = run_fade("decompress", "d.fade", cwd=tmp_path)
    one_error_line(result, "d.fade", reason)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.fade"]


@pytest.fixture(scope="module")
def compact_bytes():
    from fade import floor

    return floor.compress(corpus_file("lcet10.txt").read_bytes()[:3000], "xz")


@pytest.mark.parametrize("change,reason", [
    (lambda b: b[:15], "truncated"), (lambda b: b[:-9], "xz stream is damaged"),
    (lambda b: b[:10] + b"\x09" + b[11:], "unsupported method code 9"),
    (lambda b: b[:11] + (2999).to_bytes(8, "little") + b[19:], "more than the 2999 bytes"),
    (lambda b: b[:11] + (3001).to_bytes(8, "little") + b[19:], "decoded 3000 of 3001"),
    (lambda b: b + b"\x00", "unexpected bytes after archive 1"),
    (lambda b: b[:19] + bytes(4) + b[23:], "CRC-32"),
])
def test_damaged_compact_archives_fail_cleanly(tmp_path, compact_bytes, change, reason):
    (tmp_path / "c.fade").write_bytes(change(compact_bytes))
    one_error_line(run_fade("decompress", "c.fade", cwd=tmp_path), "c.fade", reason)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.fade"]


@pytest.mark.parametrize("size", [10, 11, 15])
def test_listing_an_archive_cut_in_its_prefix_fails_cleanly(tmp_path, compact_bytes, size):
    """`fade -l` of an archive cut inside its first bytes (the magic and
    version only, and a little more): one line naming the truncation, as
    decompressing it says, not an internal error."""
    (tmp_path / "c.fade").write_bytes(compact_bytes[:size])
    result = run_fade("-l", "c.fade", cwd=tmp_path)
    assert result.returncode == 1
    one_error_line(result, "c.fade", "truncated")


def test_checksum_mismatch_removes_output(tmp_path, archive_bytes):
    # A well-formed archive whose decode is wrong: the seed is changed and the
    # header CRC recomputed, so only decoding can catch it: the SHA-256 check,
    # or earlier, the payload overrun (more information decoded than it holds).
    import dataclasses

    from fade.format import archive

    header, payload = archive.unpack(archive_bytes)
    (tmp_path / "s.fade").write_bytes(archive.pack(dataclasses.replace(header, seed=5), payload))
    line = one_error_line(run_fade("decompress", "s.fade", cwd=tmp_path), "s.fade")
    assert ("SHA-256" in line and "likely cause" in line) or "the payload holds" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.fade"]


def test_warns_before_decoding_on_a_different_machine(tmp_path, archive_bytes):
    # A native archive that says it was made on another model of CPU (what
    # the up-front check compares is alike): the warning names what differs,
    # comes before decoding, and the decode itself is still verified.
    import dataclasses

    from fade.format import archive

    (tmp_path / "m").write_bytes(corpus_file("edge/monkey").read_bytes()[:400])
    assert run_fade("compress", *LEARNED, "--native", "--batch-size", "4", "m",
                    cwd=tmp_path).returncode == 0
    header, payload = archive.unpack((tmp_path / "m.fade").read_bytes())
    elsewhere = dataclasses.replace(header, device_name="Other CPU 9000")
    (tmp_path / "m.fade").write_bytes(archive.pack(elsewhere, payload))
    result = run_fade("decompress", "-f", "m.fade", cwd=tmp_path)
    assert result.returncode == 0
    lines = result.stderr.decode().splitlines()
    assert lines[0].startswith("fade: m.fade: warning: device name 'Other CPU 9000' (archive)")
    assert "-> m" in lines[-1] and len(lines) == 2  # the summary line follows
    quiet = run_fade("decompress", "-q", "-f", "m.fade", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == b""
    # a portable archive is checked to replay exactly: nothing to warn about
    header, payload = archive.unpack(archive_bytes)
    assert header.profile == "portable"
    moved = dataclasses.replace(header, device_name="Other CPU 9000", cpu_vendor="Intel")
    (tmp_path / "p.fade").write_bytes(archive.pack(moved, payload))
    result = run_fade("decompress", "-f", "p.fade", cwd=tmp_path)
    assert result.returncode == 0 and "warning" not in result.stderr.decode()


def test_bad_inputs_fail_with_one_line(tmp_path):
    (tmp_path / "notes.txt.fade").write_bytes(b"just some text, not an archive\n")
    one_error_line(run_fade("decompress", "notes.txt.fade", cwd=tmp_path), "not a fade archive")
    one_error_line(run_fade("compress", "missing.bin", cwd=tmp_path),
                   "missing.bin", "No such file")
    one_error_line(run_fade("decompress", "missing.fade", cwd=tmp_path), "No such file")
    (tmp_path / "dir").mkdir()
    one_error_line(run_fade("compress", "dir", cwd=tmp_path), "dir: is a directory")
    one_error_line(run_fade("decompress", "notes.txt", cwd=tmp_path), "unknown suffix")
    one_error_line(run_fade("compress", "--preset", "huge", "x", cwd=tmp_path), "huge")
    one_error_line(run_fade("info", "notes.txt.fade", cwd=tmp_path), "not a fade archive")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "notes.txt.fade"]


def test_refuses_to_overwrite_without_force(tmp_path):
    (tmp_path / "a").write_bytes(b"hello hello hello")
    (tmp_path / "a.fade").write_bytes(b"precious")
    one_error_line(run_fade("compress", "-q", "a", cwd=tmp_path), "a.fade", "already exists", "-f")
    assert (tmp_path / "a.fade").read_bytes() == b"precious"
    assert run_fade("compress", "-q", "-f", "a", cwd=tmp_path).returncode == 0
    assert (tmp_path / "a.fade").read_bytes()[:5] == b"\x89FADE"
    one_error_line(run_fade("compress", "-q", "a", "-o", "a", cwd=tmp_path), "overwrite the input")
    one_error_line(run_fade("decompress", "a.fade", cwd=tmp_path), "a: already exists")
    assert _leftovers(tmp_path) == []


def test_refuses_compressed_output_to_a_terminal(tmp_path):
    (tmp_path / "a").write_bytes(b"terminal test")
    leader, follower = pty.openpty()
    try:
        result = subprocess.run(fade_command("compress", "-q", "-c", "a"),
                                cwd=tmp_path, stdout=follower, stderr=subprocess.PIPE,
                                env=fade_env(), timeout=120)
    finally:
        os.close(follower)
        os.close(leader)
    one_error_line(result, "stdout", "terminal")


def test_full_disk_is_one_line(tmp_path):
    (tmp_path / "a").write_bytes(b"full disk test " * 10)
    with open("/dev/full", "wb") as full:
        result = subprocess.run(fade_command("compress", "-q", "-c", "a"),
                                cwd=tmp_path, stdout=full, stderr=subprocess.PIPE,
                                env=fade_env(), timeout=120)
    one_error_line(result, "No space left on device")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_leaves_nothing_behind(tmp_path, signum):
    shutil.copyfile(corpus_file("lcet10.txt"), tmp_path / "big")
    process = subprocess.Popen(fade_command("compress", *TINY, "big"),
                               cwd=tmp_path, stderr=subprocess.PIPE,
                               env=fade_env())
    deadline = time.time() + 60
    while not _leftovers(tmp_path) and time.time() < deadline:  # wait for the temp file
        time.sleep(0.2)
    assert _leftovers(tmp_path), "compression never started"
    time.sleep(1.0)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    # After cleaning up, fade dies of the signal it got (the shell shows
    # 128 + signum, 130 for Ctrl-C), so a calling script stops as well.
    assert process.returncode == -signum, stderr.decode()
    assert stderr.decode().strip() == "fade: interrupted"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big"]


def test_internal_error_is_one_line_and_leaves_nothing(tmp_path, monkeypatch, capsys):
    # A bug deep in the library still ends in one line and no partial output.
    import fade
    from fade.cli.main import EXIT_INTERNAL, main

    def broken(*args, **kwargs):
        raise RuntimeError("simulated failure\nwith a second line")

    monkeypatch.setattr(fade.single, "compress_with", broken)  # what frames calls for one frame
    monkeypatch.delenv("FADE_DEBUG", raising=False)
    (tmp_path / "a").write_bytes(b"data")
    assert main(["compress", "-q", str(tmp_path / "a")]) == EXIT_INTERNAL
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["fade: internal error: RuntimeError: simulated failure (please report it; "
                   "FADE_DEBUG=1 shows the traceback)"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


def test_an_interrupt_that_a_library_wraps_is_still_an_interrupt(tmp_path, monkeypatch, capsys):
    """Ctrl-C while a module is being imported can land in a descriptor's
    __set_name__, which Python 3.11 reports as a RuntimeError caused by the
    KeyboardInterrupt (a run of test_interrupt_leaves_nothing_behind met it
    in torch's lazy import of torch._dynamo): still "interrupted", and nothing
    left behind, not an internal error."""
    import fade
    from fade.cli.main import EXIT_INTERRUPTED, main

    def interrupted_while_importing(*args, **kwargs):
        class Field:
            def __set_name__(self, owner, name):
                os.kill(os.getpid(), signal.SIGINT)  # fade's handler raises KeyboardInterrupt
                time.sleep(5)

        class Element:  # noqa: F841 (created for its __set_name__)
            by_key = Field()

    monkeypatch.setattr(fade.single, "compress_with", interrupted_while_importing)
    monkeypatch.delenv("FADE_DEBUG", raising=False)
    (tmp_path / "a").write_bytes(b"data")
    assert main(["compress", "-q", str(tmp_path / "a")]) == EXIT_INTERRUPTED
    assert capsys.readouterr().err.strip().splitlines() == ["fade: interrupted"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


def _stderr_on_a_terminal(args, cwd):
    """Run fade with stderr on a 100-column pseudo-terminal; return what it showed."""
    import fcntl
    import select
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    process = subprocess.Popen(fade_command(*args), cwd=cwd, stderr=follower,
                               env=fade_env())
    os.close(follower)
    shown = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            shown += chunk
        elif process.poll() is not None:
            break
    os.close(leader)
    assert process.wait(timeout=60) == 0
    return shown.decode(errors="replace").replace("\r", "\n")


def test_progress_bar_only_on_a_terminal(tmp_path):
    (tmp_path / "t").write_bytes(corpus_file("alice29.txt").read_bytes()[:12000])
    shown = _stderr_on_a_terminal(["compress", "--preset", "tiny", "--batch-size", "48", "t"],
                                  tmp_path)
    bars = [line for line in shown.splitlines() if line.startswith("compressing t:")]
    assert bars, shown
    assert "bits/B" in bars[-1] and "B/s" in bars[-1]  # speed and bits per byte so far
    assert "t: 12000 ->" in shown  # then the summary
    quiet = _stderr_on_a_terminal(["compress", "-q", "-f", "--preset", "tiny", "--batch-size",
                                   "48", "t"], tmp_path)
    assert quiet.strip() == ""
    piped = run_fade("compress", "-f", "--preset", "tiny", "--batch-size", "48", "t",
                     cwd=tmp_path)
    assert b"compressing" not in piped.stderr and b"t: 12000 ->" in piped.stderr


def test_progress_bar_shows_bits_per_byte_at_level_fast(tmp_path):
    """The statistics report the bits put out so far, so the bar's bits per
    byte is real at level fast too, both ways (it read 0.000 before)."""
    (tmp_path / "t").write_bytes(corpus_file("lcet10.txt").read_bytes()[:200_000])
    for args, action in ((["--level", "fast", "t"], "compressing t:"),
                         (["-d", "-f", "t.fade"], "decompressing t.fade:")):
        shown = _stderr_on_a_terminal(args, tmp_path)
        rates = [float(line.split(" bits/B")[0].rsplit(" ", 1)[-1].strip(",["))
                 for line in shown.splitlines() if line.startswith(action) and "bits/B" in line]
        assert rates and all(1.0 < rate < 3.5 for rate in rates), shown
