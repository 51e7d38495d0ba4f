"""The hybrid and the race (fade/race.py): the statistics alone against
the network mixed in, which inputs run a network at all, and the race that
stops a hybrid losing to the statistics alone."""


import subprocess
import sys

import numpy as np
import pytest

import fade
from fade import floor, kinds, race
from fade.format import archive
from fade.config import LEVELS, batch_size_for
from fade.lockstep import Layout
from fade.statistics.models import LEVEL_MODELS

from conftest import (corpus_file, fade_env)

def test_a_hybrid_archive_beats_the_network_alone():
    text = corpus_file("alice29.txt").read_bytes()[:4_000]
    settings = dict(preset_name="tiny", batch_size=16, threads=1, groups=2, method="fade")
    hybrid = fade.compress(text, level="default", **settings)
    network = fade.compress(text, **settings)
    assert fade.read_header(hybrid).coding == "hybrid"
    assert fade.decompress(hybrid) == text
    assert len(hybrid) < 0.92 * len(network)
    # 4 KB is too little for a network: the statistics alone do better here,
    # and with method auto the default level writes theirs (the encoder tries
    # both): its own statistics (its text model) alone, in file order.
    alone = fade.compress(text, level="default", method="statistics")
    assert fade.read_header(alone).statistics == race.file_order(
        LEVELS["default"].statistics, len(text))
    assert fade.read_header(alone).statistics.model == LEVELS["default"].statistics.model == \
        LEVEL_MODELS[("default", "text")]
    assert len(archive.unpack(hybrid)[1]) < 1.2 * len(archive.unpack(alone)[1])
    assert fade.compress(text, level="default", **dict(settings, method="auto")) == alone
    assert fade.decompress(alone) == text


def test_race_stops_where_the_network_saves_too_little():
    alone = race.Background("alone", lambda check: (b"archive", 45_000))
    lockstep = race.Background("lockstep", lambda check: ({100: 10_000}, 50_000))
    referee = race.Race(alone, lockstep, {100: 0.5}, 1_000)
    assert referee.need() == pytest.approx(0.1)  # the network must save 10% to win
    assert referee.lost(100, 9_600)  # 4% saved so far: under half the need
    assert not referee.lost(100, 9_400)  # 6%
    assert not referee.lost(99, 20_000)  # not a checkpoint


def test_race_passes_run_beside_the_hybrid_and_stop_when_told():
    """The race's two passes of the statistics alone run in threads of their
    own: in file order, the archive method statistics writes; in the
    hybrid's lockstep order, their bits before each checkpoint, growing to
    their stream's. Cancelled, a pass stops within a chunk of its work."""
    data = corpus_file("alice29.txt").read_bytes()[:40_000]
    config = race.file_order(LEVELS["default"].statistics, len(data))
    mixing = LEVELS["default"].statistics.sized(len(data))
    layout = Layout(len(data), 24)
    referee = race.Race.start(race.alone_pass(data, config, None), data, layout, mixing,
                              ((0.25, 0.1), (0.5, 0.2)))
    assert referee.alone() == race.statistics_archive(data, config)
    at, total = referee.lockstep_pass.result()
    quarter, half = sorted(referee.checkpoints)
    assert (quarter, half) == (layout.steps // 4, layout.steps // 2)
    assert 0 < at[quarter] < at[half] < total
    assert 0.005 < referee.need() < 0.5  # 24 sub-streams of 1.7 KB cost the statistics
    big = corpus_file("alice29.txt").read_bytes()[:150_000]
    stopped = race.alone_pass(big, race.file_order(LEVELS["fast"].statistics, len(big)), None)
    stopped.cancel()  # checked between chunks of 64 KiB: it stops after the first
    assert stopped.result() is None


def test_the_default_stops_a_losing_hybrid_at_its_checkpoint():
    """Text with one byte in 20, at random, given its high bit is no longer
    text (the screen lets the hybrid run), but a tiny network saves its statistics
    almost nothing while coding in lockstep costs them more: the race stops
    the hybrid at its first checkpoint, a sixteenth of the way through, and
    the default writes its statistics' archive, or the size floor's where
    that is smaller (bytes that are not text: bzip2 here, smaller than
    the default's model for other bytes, its sorted contexts unhurt by the
    flipped bits)."""
    text = np.frombuffer(corpus_file("lcet10.txt").read_bytes()[:30_000], dtype=np.uint8)
    text = (text | (np.random.default_rng(0).random(len(text)) < 0.05) * 0x80).tobytes()
    assert kinds.Screen.of(text).network_may_pay
    done = []
    blob = fade.compress(text, level="default", preset_name="tiny", threads=1,
                         progress=lambda count, total, bits: done.append(count))
    alone = fade.compress(text, level="default", method="statistics")
    assert fade.read_header(alone).statistics.model == LEVEL_MODELS[("default", "binary")]
    assert blob == min(alone, floor.compress(text), key=len)
    # the race's passes one after the other (frames in parallel jobs): the same decision
    assert fade.compress(text, level="default", preset_name="tiny", threads=1,
                         race_beside=False) == blob
    batch = batch_size_for(len(text), None, "tiny", "cpu")
    assert done[-1] == len(text) and 0 < max(done[:-1]) <= len(text) // 16 + batch


def test_the_default_codes_every_input_with_the_statistics_alone(tmp_path):
    """The default level runs no network unasked: text, small inputs and
    bytes that are not text get its statistics alone in file order (its
    model for text, or for other bytes), the same archive as method
    statistics (or the size floor's, where smaller), the content in the plan,
    and torch never loaded. Level max on the same bytes runs its network."""
    text = corpus_file("lcet10.txt").read_bytes()[:60_000]
    small = corpus_file("mapsdatazrh").read_bytes()[:kinds.MIN_NETWORK_INPUT - 1]
    binary = corpus_file("mapsdatazrh").read_bytes()[:kinds.MIN_NETWORK_INPUT]
    assert kinds.Screen.of(binary).text < kinds.TEXT_SHARE
    text_model, binary_model = (LEVEL_MODELS[("default", kind)] for kind in ("text", "binary"))
    for data, model, content in ((text, text_model, "text"), (small, binary_model, "not text"),
                                 (binary, binary_model, "not text")):
        plan = fade.single.plan(len(data), data, level="default")
        assert plan.alone is not None and plan.alone.model == model
        assert f"(level default: {content}" in str(plan)
        assert fade.compress(data) == fade.compress(data, method="statistics", level="default")
    assert fade.single.plan(len(binary), binary, level="max").alone is None
    for name, data in (("t", text), ("b", binary)):
        (tmp_path / name).write_bytes(data)
        script = (f"import sys, fade; data = open({name!r}, 'rb').read(); "
                  "assert fade.decompress(fade.compress(data)) == data; "
                  "print('torch' in sys.modules)")
        result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=fade_env(),
                                capture_output=True, text=True)
        assert result.returncode == 0 and result.stdout.strip() == "False", result.stderr
