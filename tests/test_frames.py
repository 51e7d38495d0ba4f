"""Frames (fade/frames.py): inputs cut into independent frames, streamed
through pipes, coded by several processes into the same archive, decoded
in part with --range, and refused cleanly when frames are damaged, moved
or foreign. Frames of 4 KiB and level fast (or the tiny network) keep it cheap."""

import io
import struct
import subprocess
import zlib

import numpy as np
import pytest

import fade
from fade.cli.main import main
from fade import frames
from fade.format import container

from conftest import corpus_file, fade_command, fade_env, one_error_line, run_fade

FRAME = 4096


def _mixed(length: int) -> bytes:
    """Real text with a stretch of random bytes in it (stored by the size floor)."""
    text = corpus_file("lcet10.txt").read_bytes()
    noise = np.random.default_rng(5).bytes(3 * FRAME)
    return (text[:length // 2] + noise + text[length // 2:])[:length]


def _framed(data: bytes, **options) -> bytes:
    out = io.BytesIO()
    frames.compress_stream(io.BytesIO(data), out.write, frame_size=FRAME, **options)
    return out.getvalue()


def test_a_frames_archive_round_trips_and_lists_its_frames():
    data = _mixed(10 * FRAME + 123)
    blob = _framed(data, level="fast")
    header = fade.read_header(blob)
    assert header.method == "frames" and len(header.frames) == 11
    assert [f.original_size for f in header.frames] == [FRAME] * 10 + [123]
    methods = {f.method for f in header.frames}  # text; noise; the edges between: deflate
    assert {"statistics", "stored"} <= methods <= {"statistics", "stored", "deflate"}
    assert fade.decompress(blob) == data
    # At most one frame: a plain archive, exactly what fade.compress writes,
    # which decompress_stream decodes too.
    single = _framed(data[:FRAME], level="fast")
    assert single == fade.compress(data[:FRAME], level="fast")
    parts = []
    assert frames.decompress_stream(io.BytesIO(single), parts.append) == FRAME
    assert b"".join(parts) == data[:FRAME]
    # Independent frames cost some ratio, but not much at these sizes.
    whole = fade.compress(data, level="fast")
    assert len(whole) < len(blob) < 1.6 * len(whole)


def test_the_archive_is_the_same_for_any_number_of_jobs(hybrid_frames):
    """Each frame is coded on one thread whatever -T is, so worker processes
    (spawned, one frame each at a time) write the same bytes as one process;
    here with the hybrid (the tiny network and the statistics)."""
    data, settings, one = hybrid_frames
    assert _framed(data, jobs=2, **settings) == one
    header = fade.read_header(one)
    assert len(header.frames) == 3
    for frame in header.frames:
        inner = fade.read_header(one[frame.archive_offset:][:frame.archive_size])
        assert inner.coding == "hybrid" and inner.threads == 1
    parts = []
    frames.decompress_stream(io.BytesIO(one), parts.append, jobs=2)
    assert b"".join(parts) == data


def test_pipes_and_tar_through_the_cli(tmp_path):
    """`tar c DIR | fade compress -c | fade decompress -c | tar t`, each fade
    a fresh process reading a pipe, two jobs."""
    fade_cmd = " ".join(fade_command())
    edge = corpus_file("edge")
    script = (f"set -o pipefail; tar c -C {edge.parent} edge | {fade_cmd} compress -c "
              f"--level fast --frame-size 64K -T 2 | tee {tmp_path}/edge.tar.fade | "
              f"{fade_cmd} decompress -c -T 2 | tar t")
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=fade_env(),
                            capture_output=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "edge/zeros" in result.stdout.decode().split()
    header = fade.read_header((tmp_path / "edge.tar.fade").read_bytes())
    assert header.method == "frames" and len(header.frames) >= 7


def test_range_decodes_only_the_frames_it_needs(tmp_path):
    data = _mixed(10 * FRAME)
    (tmp_path / "d.fade").write_bytes(_framed(data, level="fast"))
    with open(tmp_path / "d.fade", "rb") as file:
        part, decoded = frames.decompress_range(file, 2 * FRAME + 5, 4 * FRAME - 1)
        assert part == data[2 * FRAME + 5:4 * FRAME - 1] and decoded == [2, 3]
        assert frames.decompress_range(file, 9 * FRAME, None) == (data[9 * FRAME:], [9])
    result = run_fade("decompress", "-c", "-vv", "--range", "8K:12K", "d.fade", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == data[8192:12288]
    assert "decoded 1 of 10 frames (2)" in result.stderr.decode()
    one_error_line(run_fade("decompress", "--range", "1:2", "d.fade", cwd=tmp_path),
                   "--range needs -c or -o")


def test_info_lists_the_frames(tmp_path):
    (tmp_path / "d.fade").write_bytes(_framed(_mixed(3 * FRAME), level="fast"))
    result = run_fade("info", "d.fade", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert "method: frames" in text and "frames: 3" in text
    assert f"frame 2: original {2 * FRAME}+{FRAME}" in text


def _record_at(blob: bytes, frame: container.Frame) -> int:
    return frame.archive_offset - container.RECORD.size


def _recrc(blob: bytearray, start: int, size: int) -> None:
    """Recompute the CRC-32 in the last 4 bytes of blob[start:start + size]."""
    struct.pack_into("<I", blob, start + size - 4,
                     zlib.crc32(bytes(blob[start:start + size - 4])))


def _damaged(blob: bytes, other: bytes) -> dict[str, bytes]:
    header = fade.read_header(blob)
    f0, f1, f2 = header.frames[:3]
    index_size = struct.unpack_from("<Q", blob, len(blob) - 16)[0]
    cases = {"truncated index": blob[:len(blob) - 16 - index_size // 2]}
    # frame 1's record says it holds one byte fewer, CRC recomputed
    bad = bytearray(blob)
    struct.pack_into("<Q", bad, _record_at(blob, f1) + 17, FRAME - 1)
    _recrc(bad, _record_at(blob, f1), container.RECORD.size)
    cases["size disagrees"] = bytes(bad)
    # frame 1's record and the index say it starts one byte later
    bad = bytearray(blob)
    struct.pack_into("<Q", bad, _record_at(blob, f1) + 9, FRAME + 1)
    _recrc(bad, _record_at(blob, f1), container.RECORD.size)
    cases["offset disagrees"] = bytes(bad)
    # frames 0 and 1 swapped, records and all (both are 4 KiB of text)
    start, middle, end = _record_at(blob, f0), _record_at(blob, f1), _record_at(blob, f2)
    cases["swapped"] = blob[:start] + blob[middle:end] + blob[start:middle] + blob[end:]
    # frame 1 taken from another archive of the same sizes
    theirs = fade.read_header(other).frames[1]
    cases["foreign"] = (blob[:middle] + other[_record_at(other, theirs):
                                              theirs.archive_offset + theirs.archive_size]
                        + blob[end:])
    # the same, with the record's id rewritten to ours (CRC recomputed): only
    # the whole original's SHA-256 can tell, after the last frame
    bad = bytearray(cases["foreign"])
    bad[middle + 33:middle + 41] = header.archive_id
    _recrc(bad, middle, container.RECORD.size)
    cases["foreign, id forged"] = bytes(bad)
    return cases


# What the error line names: read from a file, the index is checked first.
# (From a file the index is found by walking the records from the archive's
# head, which may meet a moved frame before its archive: "out of place".)
REASONS = {"truncated index": ("index",),
           "size disagrees": ("frame 1: its archive holds", "out of place"),
           "offset disagrees": ("out of place",), "swapped": ("out of place",),
           "foreign": ("another archive", "index"),
           "foreign, id forged": ("index", "SHA-256")}


def test_damaged_moved_or_foreign_frames_are_refused(tmp_path, capsys):
    data = _mixed(4 * FRAME)
    blob = _framed(data, level="fast")
    other = _framed(corpus_file("plrabn12.txt").read_bytes()[:4 * FRAME], level="fast")
    for case, damaged in _damaged(blob, other).items():
        name = case.replace(" ", "_").replace(",", "")
        (tmp_path / f"{name}.fade").write_bytes(damaged)
        # to a file (the CLI's main() here, two jobs): one line, nothing left behind
        capsys.readouterr()
        assert main(["decompress", "-T", "2", str(tmp_path / f"{name}.fade")]) == 1, case
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("fade: "), (case, lines)
        assert any(reason in lines[0] for reason in REASONS[case]), (case, lines)
        assert [p.name for p in tmp_path.iterdir() if not p.name.endswith(".fade")] == []
        # through a pipe: one line, after the frames before the damage at most
        result = run_fade("decompress", "-c", "-", cwd=tmp_path, stdin=damaged)
        line = one_error_line(result)
        assert any(reason in line for reason in REASONS[case]), (case, line)
        if "forged" not in case:  # there the foreign frame decodes: the end says so
            assert data.startswith(result.stdout)
        with pytest.raises(fade.FadeError):
            fade.decompress(damaged)


def test_frames_are_sized_to_the_input_and_the_jobs(tmp_path):
    """By default the input is cut into one frame per job (no smaller than
    MIN_AUTO_FRAME, no larger than AUTO_FRAME_LIMIT): two jobs, two equal
    frames; one job, one frame; a pipe with no size known is read ahead to
    learn it. The fresh process decodes what the sized frames wrote."""
    for total, jobs in ((0, 2), (1, 4), (frames.MIN_AUTO_FRAME, 2), (33_000_000, 2),
                        (33_000_000, 3), (1 << 30, 2), (1 << 30, 1), (None, 4)):
        size = frames.frame_size_for(total, jobs)
        assert container.MIN_FRAME_SIZE <= size <= frames.AUTO_FRAME_LIMIT
        if total is None:
            continue
        count = -(-total // size)
        if total >= 2 * frames.MIN_AUTO_FRAME:
            assert size >= frames.MIN_AUTO_FRAME and count % jobs == 0
            # more frames than jobs only where jobs fewer would break the limit
            assert count == jobs or -(-total // (count - jobs)) > frames.AUTO_FRAME_LIMIT
        else:
            assert count <= 1  # too small to share: one frame
    text = corpus_file("enwik6").read_bytes()
    data = (text * (2 * frames.MIN_AUTO_FRAME // len(text) + 1))[:2 * frames.MIN_AUTO_FRAME + 99]
    blobs = {}
    for jobs in (1, 2):
        out = io.BytesIO()
        frames.compress_stream(io.BytesIO(data), out.write, jobs=jobs, method="stored")
        blobs[jobs] = out.getvalue()
    assert fade.read_header(blobs[1]).method == "stored"  # one frame: a plain archive
    sized = fade.read_header(blobs[2])
    assert [f.original_size for f in sized.frames] == [len(data) - len(data) // 2, len(data) // 2]
    path = tmp_path / "sized.fade"
    path.write_bytes(blobs[2])
    result = run_fade("-d", "-c", "sized.fade", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == data
