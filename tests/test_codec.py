"""The coding loop: every byte coded, every length and batch size round-trips,
and the output is reproducible."""

import dataclasses
import zlib

import numpy as np
import pytest

import fade
from fade.format import archive
from fade.lockstep import Layout
from fade.statistics.models import LEVEL_MODELS

from conftest import corpus_file

TEXT = corpus_file("alice29.txt").read_bytes()


def learned(data: bytes, **settings) -> bytes:
    """A learned archive with the tiny preset, whatever the size floor would pick."""
    return fade.compress(data, preset_name="tiny", method="fade", **settings)


@pytest.mark.parametrize("length,batch", [(1, 1), (5, 8), (16, 4), (17, 4), (100, 7),
                                          (4096, 512), (4097, 512), (1000, 1000), (999, 10)])
def test_layout_covers_every_byte_once(length, batch):
    layout = Layout(length, min(batch, length))
    seen = np.zeros(length, dtype=int)
    for step in range(layout.steps):
        active = layout.active(step)
        positions = layout.starts[:active] + step
        seen[positions] += 1
        if step + 1 < layout.steps:
            assert active == layout.batch_size  # only the last step may be partial
    assert (seen == 1).all()
    # sub-streams are contiguous and in order
    assert (np.diff(layout.starts) >= 0).all()


# Lengths around T=16 and around exact multiples of the batch (k*B and k*B+1):
# the paper's code crashes under 17 bytes and fails when B divides the length.
@pytest.mark.parametrize("length,batch", [(0, None), (1, None), (2, None), (15, None),
                                          (16, None), (17, None), (64, 8), (65, 8), (96, 32),
                                          (97, 32), (40, 64), (400, None), (700, 1)])
def test_roundtrip_lengths_and_batches(length, batch):
    data = TEXT[:length]
    packed = learned(data, batch_size=batch)
    header = fade.read_header(packed)
    assert header.original_size == length
    if length:
        assert header.batch_size == min(batch or fade.default_batch_size(length, "tiny"), length)
    assert fade.decompress(packed) == data


def test_compressing_twice_gives_identical_archives():
    data = TEXT[:3000]
    first = learned(data, batch_size=8)
    assert first == learned(data, batch_size=8)


def test_model_coded_start_beats_uniform_start():
    # The first T bytes of each sub-stream are coded by the model, not as 8 bits each.
    data = TEXT[:4096]
    packed = learned(data, batch_size=64)
    _, payload = archive.unpack(packed)
    assert len(payload) < 0.8 * len(data)


def _repack(packed: bytes, **changes) -> bytes:
    header, payload = archive.unpack(packed)
    return archive.pack(dataclasses.replace(header, **changes), payload)


def test_decoding_with_other_thread_count_diverges_so_header_pins_it():
    # Measured trap (torch 2.13, CPU): LayerNorm gradients differ between 1 and
    # 2 threads. An archive made with 2 threads decodes because the header
    # pins 2; the same archive claiming 1 thread diverges: the decode fails
    # its checksum, or stops earlier, once it has decoded more information
    # than the payload holds.
    data = TEXT[:3000]
    packed = learned(data, batch_size=8, threads=2)
    assert fade.read_header(packed).threads == 2
    assert fade.decompress(packed) == data
    with pytest.raises(fade.CorruptArchiveError, match="SHA-256|the payload holds"):
        fade.decompress(_repack(packed, threads=1))


def test_checksum_failure_is_reported_not_returned():
    data = TEXT[:2000]
    packed = learned(data, batch_size=4)
    # valid archive, wrong model init: the SHA-256, or the payload overrun
    with pytest.raises(fade.CorruptArchiveError, match="SHA-256|the payload holds"):
        fade.decompress(_repack(packed, seed=1))


def test_damage_is_detected_before_decoding():
    packed = bytearray(learned(TEXT[:500], batch_size=4))
    packed[-3] ^= 0x10
    with pytest.raises(fade.CorruptArchiveError, match="payload checksum"):
        fade.read_header(bytes(packed))
    header_size = int.from_bytes(packed[13:17], "little")
    assert header_size < len(packed)
    assert zlib.crc32(packed[:header_size - 4]) == int.from_bytes(
        packed[header_size - 4:header_size], "little")


@pytest.mark.parametrize("settings", [dict(preset_name="tiny", method="fade"),
                                      dict(level="default", method="fade", batch_size=16,
                                           groups=2)])
def test_the_plan_is_what_compress_records(settings):
    """The Plan (what the CLI prints under -vv) is the one compress runs:
    its choices are the ones the archive's header records."""
    data = TEXT[:600]  # the default batch of 600 bytes is 1: 600 steps
    plan = fade.single.plan(len(data), **settings)
    header = fade.read_header(fade.compress(data, **settings))
    assert (header.batch_size, header.groups, header.threads, header.preset, header.profile,
            header.statistics, header.model) == \
        (plan.batch, plan.groups, plan.threads, plan.preset, plan.profile, plan.statistics,
         plan.model)
    assert f"batch {plan.batch}, {plan.groups} groups" in str(plan)


def test_settings_object_is_equivalent_to_keyword_arguments():
    data = TEXT[:2000]
    settings = fade.single.Settings(preset="tiny", method="fade", batch_size=8)
    assert fade.single.compress_with(settings, data) == \
        fade.compress(data, preset_name="tiny", method="fade", batch_size=8)
    alone = fade.single.plan(len(data), level="fast")
    assert alone.model is None and alone.alone is not None
    fast = LEVEL_MODELS[("fast", "text")]
    assert f"statistics alone, model {fast} (level fast)" in str(alone)
