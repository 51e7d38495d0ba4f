"""The size floor: compact archives where the learned model cannot win."""

import os

import numpy as np
import pytest

import fade
from fade import floor
from fade.format.archive import COMPACT_OVERHEAD, method_of

from conftest import corpus_file

EDGE = sorted(corpus_file("edge").iterdir())


@pytest.mark.parametrize("method", floor.COMPACT_METHODS + ("xz",))
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
    packed = fade.compress(data, preset_name="tiny", batch_size=16)
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
    # frames is a container (--frame-size, -T), not a method one archive is made
    # with: asked for by name, it was an internal KeyError
    with pytest.raises(fade.FadeError, match="unknown method 'frames'"):
        fade.compress(b"data" * 100, method="frames")


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


def test_lzma_is_xz_in_a_smaller_container():
    """Method lzma holds xz -9e's coder without the .xz container's index,
    check and padding: the same data in fewer bytes, which a crafted header
    (a dictionary over what fade writes) cannot turn into a huge allocation."""
    data = corpus_file("mapsdatazrh").read_bytes()[:40_000]
    packed, xz = fade.compress(data, method="lzma"), fade.compress(data, method="xz")
    assert len(packed) < len(xz) - 30
    assert fade.decompress(packed) == data
    crafted = bytearray(packed)
    crafted[COMPACT_OVERHEAD + 1:COMPACT_OVERHEAD + 5] = (0xFFFFFFFF).to_bytes(4, "little")
    with pytest.raises(fade.CorruptArchiveError, match="lzma stream is damaged"):
        fade.decompress(bytes(crafted))


def test_bytes_that_are_not_text_get_the_floor_where_it_is_smaller(monkeypatch):
    """Numbers whose digits repeat at any offset favour LZ matching: there a
    level's statistics lose to the floor's lzma, and method auto writes the
    floor's archive; on text (iso-8859 prose here) the contest is not run.
    The contest runs in a thread beside the statistics where no guard codes
    beside them and the memory limit holds the floor's coders with their
    tables, else after them on the caller's thread: the same archive."""
    import threading
    from fade import single

    threads = []
    compress = floor.compress
    monkeypatch.setattr(floor, "compress", lambda data, method=None: (
        threads.append(threading.current_thread().name), compress(data, method))[1])
    rng = np.random.default_rng(3)
    values = rng.standard_normal(600)
    scaled = np.concatenate([values * 2.0 ** rng.integers(-20, 20, 600) for _ in range(4)])
    data = scaled.tobytes()  # 19,200 bytes: each mantissa four times, exponents apart
    packed = fade.compress(data, level="fast")
    assert method_of(packed) == "lzma" and threads == ["fade-floor"]
    assert len(packed) < len(fade.compress(data, level="fast", method="statistics"))
    assert fade.decompress(packed) == data
    plan = single.plan(len(data), data, level="fast")
    assert plan.guard is None
    threads.clear()
    tight = plan.alone.memory_bytes(len(data)) + floor.memory_bytes(len(data)) - 1
    assert fade.compress(data, level="fast", memory_limit=tight) == packed
    assert threads == [threading.main_thread().name]
    text = corpus_file("alice29.txt").read_bytes()[:20_000]
    assert method_of(fade.compress(text, level="fast")) == "statistics"


def test_a_compact_method_asked_for_does_not_screen_the_bytes(monkeypatch):
    """--level max --method xz writes xz's archive: nothing screens the bytes
    (a colour image's band would be coded both ways) for a race or a model."""
    from fade import kinds

    screened = []
    monkeypatch.setattr(kinds.Screen, "of", classmethod(lambda cls, *a, **k: screened.append(a)))
    data = corpus_file("alice29.txt").read_bytes()[:20_000]
    for method in floor.DECODED_METHODS:
        packed = fade.compress(data, level="max", method=method)
        assert packed == floor.compress(data, method)
    assert screened == []
