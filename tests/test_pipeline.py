"""Groups and coder workers (fade.pipeline): every group count and every
coder-thread count the CLI accepts round-trips, decoded in fresh processes;
the archive depends on the groups, never on the coder threads; damage and
interrupts with several coder processes end cleanly."""

import dataclasses
import os
import signal
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

import fade
import fade.pipeline
from fade.format import archive
from fade.config import MAX_CODER_THREADS, MAX_GROUPS

from conftest import REPO, corpus_file, fade_command, fade_env, one_error_line, run_fade

BATCH = 16  # one sub-stream per group at the most groups
# 8 full steps and a last step with 5 active sub-streams, so that on the
# last step the later groups have nothing to code.
LENGTH = BATCH * 8 + 5
TINY = dict(preset_name="tiny", batch_size=BATCH, threads=1, seed=0, device="cpu", method="fade")


@pytest.fixture(scope="module")
def text() -> bytes:
    return corpus_file("alice29.txt").read_bytes()[:LENGTH]


@pytest.fixture(scope="module")
def by_groups(text) -> dict[int, bytes]:
    """One archive per group count, each coded by as many workers as groups."""
    return {groups: fade.compress(text, groups=groups, coder_threads=groups, **TINY)
            for groups in range(1, MAX_GROUPS + 1)}


def test_header_records_the_groups_and_their_payloads(by_groups):
    for groups, blob in by_groups.items():
        header, payload = archive.unpack(blob)
        assert (header.groups, header.schedule) == (groups, "lockstep")
        assert len(header.group_payload_sizes) == groups
        assert sum(header.group_payload_sizes) == len(payload)
        assert all(size > 0 for size in header.group_payload_sizes)


def test_every_group_count_roundtrips_in_a_fresh_process(tmp_path, text, by_groups):
    names = []
    for groups, blob in by_groups.items():
        names.append(f"g{groups:02d}")
        (tmp_path / f"{names[-1]}.fade").write_bytes(blob)
    # With the default coder threads (one on a CPU); with others in the test below.
    result = run_fade("decompress", "-q", *(f"{n}.fade" for n in names), cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    for name in names:
        assert (tmp_path / name).read_bytes() == text, name


def test_archive_does_not_depend_on_coder_threads(text, by_groups):
    # Which worker codes which group changes no bit, with threads (one
    # worker) or forked processes (several, taking the groups evenly or not,
    # one each) alike; two runs are identical. (Every count decodes: below.)
    most = by_groups[MAX_GROUPS]
    for threads in (1, 2, 3, 7, MAX_CODER_THREADS):
        assert fade.compress(text, groups=MAX_GROUPS, coder_threads=threads, **TINY) == most, \
            threads
    assert fade.compress(text, groups=3, coder_threads=2, **TINY) == by_groups[3]


def test_gpu_hand_off_through_the_dispatcher_thread_changes_nothing(text, by_groups, monkeypatch):
    # Beside a GPU, steps reach the workers through a dispatcher thread
    # (after the copy's CUDA event); the same path on a CPU, with a thread
    # worker and with coder processes, gives the same archive and bytes.
    monkeypatch.setattr(fade.pipeline.CoderPool, "always_dispatch", True)
    for groups, workers in ((3, 1), (3, 2)):
        blob = fade.compress(text, groups=groups, coder_threads=workers, **TINY)
        assert blob == by_groups[groups]
        assert fade.decompress(blob, coder_threads=workers) == text


def test_every_coder_thread_count_decodes_in_a_fresh_process(tmp_path, text, by_groups):
    """Every coder-thread count, each with another group count: the most
    groups on one worker (a thread), groups shared unevenly among forked
    workers (15 on 2 to 9 on 8), fewer groups than workers (8 on 9 to one
    group on 16)."""
    assert MAX_GROUPS == MAX_CODER_THREADS  # (the pairs below cover both ranges)
    for groups, blob in by_groups.items():
        (tmp_path / f"g{groups}.fade").write_bytes(blob)
    (tmp_path / "a").write_bytes(text)
    script = ("import sys, fade\n"
              "text = open('a', 'rb').read()\n"
              f"for groups in range(1, {MAX_GROUPS} + 1):\n"
              f"    threads = {MAX_CODER_THREADS} + 1 - groups\n"
              "    blob = open(f'g{groups}.fade', 'rb').read()\n"
              "    assert fade.decompress(blob, coder_threads=threads) == text, groups\n"
              "print('decoded', groups)\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=fade_env(),
                            capture_output=True, timeout=600)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().strip() == f"decoded {MAX_GROUPS}"


def test_cli_groups_and_coder_threads_need_no_flags_to_decode(tmp_path, text):
    (tmp_path / "a").write_bytes(text)
    assert run_fade("compress", "-q", "--preset", "tiny", "--method", "fade", "--batch-size",
                    str(BATCH), "--groups", "5", "--coder-threads", "3", "-o", "a.fade", "a",
                    cwd=tmp_path).returncode == 0
    info = run_fade("info", "a.fade", cwd=tmp_path).stdout.decode()
    assert "groups: 5" in info and "schedule: lockstep" in info
    result = run_fade("decompress", "-q", "-o", "back", "a.fade", cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    assert (tmp_path / "back").read_bytes() == text
    for flag, value in (("--groups", "0"), ("--groups", str(MAX_GROUPS + 1)),
                        ("--coder-threads", "0"), ("--coder-threads", str(MAX_CODER_THREADS + 1))):
        result = run_fade("compress", "--preset", "tiny", flag, value, "a", cwd=tmp_path)
        assert result.returncode == 2 and flag in result.stderr.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "a.fade", "back"]


def _with_header_crc(blob: bytearray) -> bytes:
    header_size = int.from_bytes(blob[13:17], "little")
    blob[header_size - 4:header_size] = struct.pack("<I", zlib.crc32(blob[:header_size - 4]))
    return bytes(blob)


def test_damaged_group_table_is_caught_before_decoding(by_groups):
    blob = bytearray(by_groups[3])
    header_size = int.from_bytes(blob[13:17], "little")
    first = header_size - 4 - 3 * 8  # the group table: 3 u64 sizes before the header CRC
    blob[first:first + 8] = struct.pack("<Q", struct.unpack_from("<Q", blob, first)[0] + 1)
    with pytest.raises(fade.CorruptArchiveError, match="do not add up"):
        fade.decompress(_with_header_crc(blob))


@pytest.mark.parametrize("change", ["shifted-boundary", "flipped-byte"])
def test_wrong_group_payload_fails_cleanly_and_leaves_nothing(tmp_path, by_groups, change):
    # CRC-valid archives with a wrong group payload: a boundary moved by one
    # byte between groups 1 and 2 (no longer whole 32-bit words: refused by
    # the header's field checks), or a bit flipped in group 2 with the
    # payload CRC recomputed, which only decoding can tell: the range coder,
    # the payload overrun check or the SHA-256.
    header, payload = archive.unpack(by_groups[4])
    sizes = list(header.group_payload_sizes)
    if change == "shifted-boundary":
        sizes[1] -= 1
        sizes[2] += 1
        header = dataclasses.replace(header, group_payload_sizes=tuple(sizes))
    else:
        at = sizes[0] + sizes[1] + sizes[2] // 2
        payload = payload[:at] + bytes([payload[at] ^ 0x10]) + payload[at + 1:]
    (tmp_path / "g.fade").write_bytes(archive.pack(header, payload))
    result = run_fade("decompress", "--coder-threads", "4", "g.fade", cwd=tmp_path)
    line = one_error_line(result, "g.fade")
    expected = ["group_payload_size[1] = 31 is outside its domain"] \
        if change == "shifted-boundary" else ["SHA-256", "damaged", "the payload holds"]
    assert any(text in line for text in expected), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.fade"]


def _children(pid: int) -> list[int]:
    """The child processes of `pid`'s threads; a thread that ends between the
    listing and the read (the process starting up or stopping) has none."""
    found = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except FileNotFoundError:  # the process has ended
        return found
    for task in tasks:
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except FileNotFoundError:
            continue
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.parametrize("direction", ["compress", "decompress"])
def test_interrupt_stops_the_coder_processes_and_leaves_nothing(tmp_path, direction):
    # Ctrl-C (SIGINT to the whole process group, as a terminal sends it)
    # while two coder processes work: one line, no files, no stray workers.
    data = corpus_file("lcet10.txt").read_bytes()
    args = ("--groups", "2", "--coder-threads", "2", "--preset", "tiny", "--method", "fade", "-q")
    if direction == "decompress":
        (tmp_path / "src").write_bytes(data[:20_000])  # 625 steps to decode: seconds
        assert run_fade("compress", *args, "--batch-size", "32", "-o", "big.fade", "src",
                        cwd=tmp_path).returncode == 0
        (tmp_path / "src").unlink()
        command, expected = fade_command("decompress", "--coder-threads", "2", "big.fade"), \
            ["big.fade"]
    else:
        (tmp_path / "big").write_bytes(data)
        command, expected = fade_command("compress", *args, "big"), ["big"]
    process = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, env=fade_env(),
                               start_new_session=True)
    workers, deadline = [], time.time() + 120
    while len(workers) < 2 and time.time() < deadline and process.poll() is None:
        time.sleep(0.1)
        workers = _children(process.pid)
    assert len(workers) == 2, "the coder processes never started"
    time.sleep(0.5)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGINT, stderr.decode()
    assert stderr.decode().strip() == "fade: interrupted"
    assert sorted(p.name for p in tmp_path.iterdir()) == expected
    deadline = time.time() + 10
    while any(map(_running, workers)) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(map(_running, workers)), workers


def test_profile_has_one_row_per_step(tmp_path, text):
    (tmp_path / "a").write_bytes(text)
    result = run_fade("compress", "-v", "--preset", "tiny", "--method", "fade", "--batch-size",
                      str(BATCH), "--groups", "2", "--profile", "steps.tsv", "a", cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    steps = -(-LENGTH // BATCH)
    assert f"profile: {steps} steps" in result.stderr.decode()
    rows = (tmp_path / "steps.tsv").read_text().splitlines()
    assert rows[0].split("\t") == ["step", "wall_ms", "device_ms", "wait_ms", "coder_ms",
                                   "blocked_ms"]
    assert [int(row.split("\t")[0]) for row in rows[1:]] == list(range(steps))
    for row in rows[1:]:
        wall, device, wait, coder, blocked = map(float, row.split("\t")[1:])
        assert wall > 0 and device > 0 and wait >= 0 and coder > 0 and blocked >= 0
        assert device + wait <= wall * 1.01 + 0.01
    # Decompression's table goes to stderr with "-".
    result = run_fade("decompress", "--profile", "-", "-o", "back", "a.fade", cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    table = [line for line in result.stderr.decode().splitlines() if "\t" in line]
    assert len(table) == steps + 1
    assert (tmp_path / "back").read_bytes() == text


def test_pipeline_bench_reports_the_three_runs(tmp_path):
    # scripts/pipeline_bench.py on a small slice: exit 0, the round trip
    # checked, one row per run with the ratios it is read for.
    (tmp_path / "a").write_bytes(corpus_file("alice29.txt").read_bytes()[:2000])
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "pipeline_bench.py"), "a", "--preset", "tiny",
         "--batch", "16", "--groups", "2", "--coder-threads", "2", "--device", "cpu"],
        cwd=tmp_path, env=fade_env(), capture_output=True, timeout=600)
    assert result.returncode == 0, result.stderr.decode()
    out = result.stdout.decode()
    assert "batch 16, 2 groups, 2 coder workers" in out and "round trip exact" in out
    rows = {line.split("|")[1].strip(): line.split("|")[2:-1]
            for line in out.splitlines() if line.startswith("| ") and "---" not in line}
    assert set(rows) == {"run", "model only", "compress", "decompress"}
    assert float(rows["compress"][2]) > 0 and float(rows["decompress"][3]) > 0
