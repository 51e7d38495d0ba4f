"""The size floor: compact archives where the learned model cannot win."""

import os

import numpy as np
import pytest

import fade
from fade import floor
from fade.format.archive import COMPACT_OVERHEAD, method_of

from conftest import corpus_file

EDGE = sorted(corpus_file("edge").iterdir())


@pytest.mark.parametrize("method", floor.COMPACT_METHODS)
@pytest.mark.parametrize("path", EDGE, ids=lambda p: p.name)
def test_every_compact_method_roundtrips_every_edge_file(method, path):
    data = path.read_bytes()
    packed = fade.compress(data, method=method)
    assert method_of(packed) == method
    assert fade.decompress(packed) == data
    if method == "stored":
        assert len(packed) == len(data) + COMPACT_OVERHEAD


def test_auto_stores_tiny_and_random_input():
    for data in (b"", b"x", corpus_file("alice29.txt").read_bytes()[:floor.MIN_LEARNED_SIZE - 1],
                 corpus_file("edge/random_org_10k.bin").read_bytes(),
                 corpus_file("edge/compressed_file").read_bytes()):
        assert not floor.model_worthwhile(data)
        packed = fade.compress(data, preset_name="tiny")
        assert method_of(packed) != "fade"
        assert len(packed) <= len(data) + COMPACT_OVERHEAD
        assert fade.decompress(packed) == data


def test_auto_falls_back_when_the_model_archive_is_larger():
    # 300 bytes of text: worth trying, but header + payload exceed the stored size.
    data = corpus_file("asyoulik.txt").read_bytes()[:300]
    assert floor.model_worthwhile(data)
    learned = fade.compress(data, preset_name="tiny", method="fade")
    assert len(learned) > len(data) + COMPACT_OVERHEAD
    packed = fade.compress(data, preset_name="tiny")
    assert method_of(packed) != "fade" and len(packed) <= len(data) + COMPACT_OVERHEAD
    assert fade.decompress(packed) == data


def test_auto_keeps_the_model_where_it_wins():
    data = corpus_file("alice29.txt").read_bytes()[:6000]
    packed = fade.compress(data, preset_name="tiny", batch_size=4)
    assert method_of(packed) == "fade" and len(packed) < len(data)
    assert fade.decompress(packed) == data


def test_incompressible_detection_on_real_files():
    assert floor.incompressible(corpus_file("edge/random_org_10k.bin").read_bytes())
    assert floor.incompressible(corpus_file("edge/compressed_file").read_bytes())
    for name in ("enwik6", "mapsdatazrh", "edge/zeros", "edge/random_chunks"):
        assert not floor.incompressible(corpus_file(name).read_bytes()[:65536]), name
    assert floor.order0_entropy(b"") == 0.0
    assert floor.order0_entropy(bytes(range(256)) * 4) == pytest.approx(8.0)
    assert floor.order0_entropy(os.urandom(1 << 16)) > 7.99
    assert np.isclose(floor.order0_entropy(b"ab" * 100), 1.0)


def test_unknown_method_is_a_fade_error():
    with pytest.raises(fade.FadeError, match="unknown method 'gzip'"):
        fade.compress(b"data", method="gzip")


@pytest.mark.parametrize("method", ["deflate", "bzip2", "xz"])
def test_declared_size_bounds_decompression(method):
    # A compact archive that declares fewer bytes than its stream holds (a
    # bomb, or damage) fails without inflating the rest; an impossible size too.
    data = bytes(1 << 20)  # 1 MiB of zeros: a stream of a few hundred bytes
    packed = fade.compress(data, method=method)
    for size in (10, 2**64 - 1):
        lying = packed[:11] + size.to_bytes(8, "little") + packed[19:]
        with pytest.raises(fade.CorruptArchiveError):
            fade.decompress(lying)
