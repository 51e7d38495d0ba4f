"""fade.environment: the OpenMP wait fade sets before torch loads (issue 16)
and OpenBLAS's before numpy loads,
checked in fresh processes, and the load benchmark that watches it."""

import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import fade

from conftest import REPO, corpus_file, fade_env

# What a fresh process sees: the variable, and the wait libgomp really uses
# (torch's OpenMP reports its spin count with OMP_DISPLAY_ENV=verbose).
PROBE = """
import os, sys
{first}
import fade, torch
torch.set_num_threads(2)
torch.ones(1 << 20).sum()  # starts the OpenMP team, which prints its settings
print("GOMP_SPINCOUNT=" + os.environ.get("GOMP_SPINCOUNT", "unset"), file=sys.stderr)
"""


def _probe(first: str = "", **env: str) -> str:
    base = {key: value for key, value in fade_env().items()
            if key not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    result = subprocess.run([sys.executable, "-c", PROBE.format(first=first)], cwd=REPO,
                            env={**base, "OMP_DISPLAY_ENV": "verbose", **env},
                            capture_output=True, timeout=120, check=True)
    return result.stderr.decode()


def _line(report: str, name: str) -> str:
    return next(line.strip() for line in report.splitlines() if line.strip().startswith(name))


def test_fade_sets_a_short_spin_before_torch_loads():
    report = _probe()
    assert _line(report, "GOMP_SPINCOUNT=") == "GOMP_SPINCOUNT=300"
    assert "GOMP_SPINCOUNT = '300'" in report  # libgomp itself took it


def test_a_users_own_wait_policy_wins():
    report = _probe(OMP_WAIT_POLICY="ACTIVE")
    assert _line(report, "GOMP_SPINCOUNT=") == "GOMP_SPINCOUNT=unset"
    assert "OMP_WAIT_POLICY = 'ACTIVE'" in report
    report = _probe(GOMP_SPINCOUNT="5000")
    assert "GOMP_SPINCOUNT = '5000'" in report


def test_torch_loaded_first_is_left_alone():
    report = _probe(first="import torch")
    assert _line(report, "GOMP_SPINCOUNT=") == "GOMP_SPINCOUNT=unset"
    assert "GOMP_SPINCOUNT = '300'" not in report


def test_load_bench_runs_alone_and_loaded_and_checks_every_round_trip(capsys):
    spec = importlib.util.spec_from_file_location("load_bench", REPO / "scripts" / "load_bench.py")
    load_bench = importlib.util.module_from_spec(spec)
    sys.modules["load_bench"] = load_bench  # dataclasses look their module up there
    spec.loader.exec_module(load_bench)
    case = f"slice:tiny:{corpus_file('alice29.txt')}:600"
    assert load_bench.main(["--busy", "1", "--case", case, "--fade-arg=--batch-size=6",
                            "--variant", "new", "--variant", "old=GOMP_SPINCOUNT=300000"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| slice")]
    assert [row.split(" | ")[1:3] for row in rows] == [
        ["new", "compress"], ["new", "decompress"], ["old", "compress"], ["old", "decompress"]]
    for row in rows:
        cells = row.strip("| ").split(" | ")
        assert cells[3] == "0.6"  # KB
        assert all(float(cell) > 0 for cell in (cells[4], cells[5], cells[7], cells[8]))
        for ratio, limit in ((cells[6], "3.0"), (cells[9], "1.3")):
            assert re.fullmatch(rf"\d+\.\d\dx( \(> {limit}x\))?", ratio), ratio


def test_steps_too_small_to_share_default_to_one_thread():
    import fade
    from fade.config import PRESETS, default_threads

    assert default_threads(PRESETS["tiny"], 1, 2) == 1
    assert default_threads(PRESETS["tiny"], 64, 2) == 1
    assert default_threads(PRESETS["tiny"], 488, 2) == 2
    assert default_threads(PRESETS["balanced"], 74, 8) == 8
    # the hybrid on a CPU: one thread, the statistics' coder on another core
    assert default_threads(PRESETS["balanced"], 128, 8, hybrid_on_cpu=True) == 1
    data = corpus_file("alice29.txt").read_bytes()[:300]
    header = fade.read_header(fade.compress(data, preset_name="tiny", method="fade"))
    assert (header.batch_size, header.threads) == (1, 1)
    assert fade.read_header(fade.compress(data, preset_name="tiny", method="fade",
                                          threads=2)).threads == 2


# Runs fade's command line in one fresh process, then says whether `module` loaded.
CLI_IN_PROCESS = """
import sys
from fade.cli.main import entry
for args in {runs!r}:
    sys.argv = ["fade", *args]
    try:
        entry()
    except SystemExit as stop:
        assert not stop.code, (args, stop.code)
print({module!r} in sys.modules)
"""


def _loads(tmp_path, *runs: list[str], module: str = "torch") -> bool:
    code = CLI_IN_PROCESS.format(runs=list(runs), module=module)
    result = subprocess.run([sys.executable, "-c", code],
                            cwd=tmp_path, env=fade_env({"PYTHONPATH": str(REPO)}),
                            capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode().split()[-1] == "True"


def test_torch_loads_only_where_a_network_runs(tmp_path):
    """torch takes 1-3 s of a fresh process's start (fade.lazy): level fast,
    a forced compact method, float data in fast mode (at any level), `info`
    and decoding statistics, compact or floats archives never load it; a
    network does."""
    (tmp_path / "t").write_bytes(corpus_file("alice29.txt").read_bytes()[:20_000])
    samples = np.frombuffer(corpus_file("pydub-test1.wav").read_bytes()[44:20_044], "<i2")
    np.save(tmp_path / "w.npy", samples.astype(np.float32) / 32768)
    assert not _loads(tmp_path, ["compress", "-q", "--level", "fast", "t"],
                      ["info", "t.fade"], ["decompress", "-q", "-c", "t.fade"],
                      ["compress", "-q", "--floats", "fast", "w.npy"],
                      ["compress", "-q", "--method", "xz", "-o", "x.fade", "t"],
                      ["decompress", "-q", "-f", "w.npy.fade"])
    assert fade.read_header((tmp_path / "w.npy.fade").read_bytes()).method == "floats"
    assert not _loads(tmp_path, ["compress", "-q", "-f", "--level", "fast", "t"],
                      ["decompress", "-q", "-f", "t.fade"])
    (tmp_path / "t.fade").write_bytes(fade.compress(b"stored " * 100, method="xz"))
    assert not _loads(tmp_path, ["decompress", "-q", "-f", "t.fade"])
    assert _loads(tmp_path, ["compress", "-q", "-f", "--preset", "tiny", "--batch-size",
                             "64", "--method", "fade", "t"],
                  ["decompress", "-q", "-f", "t.fade"])


def test_numpy_loads_only_where_bytes_are_modelled(tmp_path):
    """numpy takes about 65 ms of a process's start (fade.lazy): the
    command line compresses, lists and decompresses a file too small for
    any model (under fade.floor.MIN_LEARNED_SIZE bytes) at every level
    without it; a file the statistics code loads it."""
    (tmp_path / "one").write_bytes(b"x")
    (tmp_path / "t").write_bytes(corpus_file("alice29.txt").read_bytes()[:2_000])
    for level in ("fast", "default", "max"):
        assert not _loads(tmp_path, ["compress", "-q", "-f", "--level", level, "one"],
                          ["info", "one.fade"], ["decompress", "-q", "-c", "one.fade"],
                          module="numpy"), level
    assert _loads(tmp_path, ["compress", "-q", "-f", "t"], module="numpy")


def test_import_fade_loads_a_name_only_where_it_is_used(tmp_path):
    """`import fade` loads none of numpy, numba and torch (it costs a third
    of numpy's import); each library name loads its module on first use,
    fade's modules are its attributes as before, and a name it lacks is an
    AttributeError."""
    code = """
import sys
import fade
heavy = [name for name in ("numpy", "numba", "torch") if name in sys.modules]
assert heavy == [], heavy
assert "fade.single" not in sys.modules
assert fade.compress.__module__ == "fade.single" and "numpy" not in sys.modules
assert fade.kinds.Screen is sys.modules["fade.kinds"].Screen
assert set(fade.__all__) <= set(dir(fade))
for missing in ("no_such_name", "no.such.module"):
    try:
        getattr(fade, missing)
    except AttributeError as error:
        assert missing in str(error)
    else:
        raise AssertionError(f"fade.{missing} did not fail")
from fade import decompress, FadeFile
assert decompress(fade.compress(b"abc" * 50, method="xz")) == b"abc" * 50
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                            env=fade_env({"PYTHONPATH": str(REPO)}), capture_output=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().split()[-1] == "ok"


# A fresh process that loads numpy after `first`, waits, and prints the
# variable and the processor seconds its threads besides the main one used.
BLAS_PROBE = """
import os, sys, threading, time
{first}
import numpy
time.sleep(0.3)
others = [t for t in os.listdir("/proc/self/task") if int(t) != threading.get_native_id()]
ticks = 0
for tid in others:
    fields = open(f"/proc/self/task/{{tid}}/stat").read().rsplit(")", 1)[1].split()
    ticks += int(fields[11]) + int(fields[12])
print(os.environ.get("OPENBLAS_THREAD_TIMEOUT", "unset"), ticks / os.sysconf("SC_CLK_TCK"))
"""


def _blas_probe(first: str, **env: str) -> tuple[str, float]:
    base = {key: value for key, value in fade_env().items() if key != "OPENBLAS_THREAD_TIMEOUT"}
    result = subprocess.run([sys.executable, "-c", BLAS_PROBE.format(first=first)], cwd=REPO,
                            env={**base, **env}, capture_output=True, timeout=120, check=True)
    setting, seconds = result.stdout.decode().split()
    return setting, float(seconds)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads Linux's thread times")
def test_numpys_blas_threads_do_not_spin_after_fade_loads():
    """numpy's OpenBLAS threads spin 0.1 s as numpy loads, taking a core from
    the coding threads; after `import fade` they sleep at once (a user's
    setting wins, and numpy loaded before fade is left alone)."""
    setting, seconds = _blas_probe("import fade")
    assert setting == "16"
    assert seconds < 0.03  # (its 2^28 cycles of spinning: about 0.1 s)
    assert _blas_probe("import fade", OPENBLAS_THREAD_TIMEOUT="20")[0] == "20"
    assert _blas_probe("import numpy, fade")[0] == "unset"
