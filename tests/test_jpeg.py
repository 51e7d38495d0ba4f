"""The JPEG parser a JPEG model will read (fade/statistics/jpeg.py), on
real JPEGs: the blocks it decodes as it follows the bytes, bit by bit, are
the file's. The check: this test's own encoder, from those blocks and the
file's Huffman tables, writes the scan's entropy-coded bytes again, and
they must be the file's exactly (a block decoded wrong, or at a wrong
place, comes out as other bytes); a progressive copy's blocks, kept whole
after its last scan, must be the sequential photo's."""

import importlib.util
import sys

import numpy as np
import pytest

from conftest import REPO, corpus_file
from fade.statistics import jpeg
from fade.statistics.layouts import jpeg as fields


def _load_script():
    spec = importlib.util.spec_from_file_location("jpeg_follow",
                                                  REPO / "scripts" / "jpeg_follow.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["jpeg_follow"] = module
    spec.loader.exec_module(module)
    return module


follow = _load_script()  # the parser's check: its encoder writes the scans again


@pytest.mark.parametrize("name", ["testorig.jpg", "testimgint.jpg"])
def test_the_blocks_followed_are_the_files(name):
    data = corpus_file(name).read_bytes()
    state, blocks = follow.followed(data)
    assert state[fields.J_STATE] == jpeg.J_NONE  # after the end of image
    # 227x149 at 4:2:0: 15x10 MCUs of four luma and two chroma blocks
    assert (state[fields.J_MCUS_X], state[fields.J_MCUS_Y],
            state[fields.J_MCU_BLOCKS]) == (15, 10, 6)
    assert len(blocks) == 15 * 10 * 6
    assert follow.scan_check(data, blocks) == 1


def test_restart_markers_are_followed():
    """The photo's blocks written again with a restart marker every 7 MCUs
    (a DRI segment before the scan): the same blocks come back."""
    data = corpus_file("testorig.jpg").read_bytes()
    _, blocks = follow.followed(data)
    segments = list(follow.segments(data))
    tables = {}
    for marker, payload, _ in segments:
        if marker == 0xC4:
            tables.update(follow.codes(payload))
    scan = next(payload for marker, payload, _ in segments if marker == 0xDA)
    layout = [(c, tables[(0, scan[2 + 2 * c] >> 4)], tables[(1, scan[2 + 2 * c] & 15)])
              for c, count in ((0, 4), (1, 1), (2, 1)) for _ in range(count)]
    start = data.index(b"\xff\xda")
    restarted = (data[:start] + b"\xff\xdd\x00\x04\x00\x07" + data[start:start + 2 + len(scan) + 2]
                 + follow.encode(blocks, layout, 7) + b"\xff\xd9")
    assert restarted.count(b"\xff\xd0") >= 3
    state, again = follow.followed(restarted)
    assert np.array_equal(again, blocks)
    assert state[fields.J_RESTARTS] == (150 - 1) // 7  # the markers after MCUs 7, 14, ... 147


@pytest.mark.parametrize("name", ["testprog.jpg", "testproggray.jpg"])
def test_a_progressive_jpegs_blocks_are_the_photos(name):
    """The photo written again as progressive JPEGs (jpegtran's scans; and
    its luma alone, each value in three or four scans of its bits, with
    restart markers): after their last scan, the store holds the blocks of
    the sequential photo, whose scan the check above writes again."""
    photo = corpus_file("testorig.jpg").read_bytes()
    progressive = corpus_file(name).read_bytes()
    state, blocks = follow.followed(photo)
    assert follow.scan_check(photo, blocks) == 1
    kept = follow.stored(progressive)
    assert [component.shape for component in kept] == \
        [(19, 29, 64), (10, 15, 64), (10, 15, 64)][:len(kept)]
    assert follow.same_blocks(progressive, photo)
    assert not follow.same_blocks(progressive, corpus_file("testimgint.jpg").read_bytes())
    # nor is it the same as a JPEG the parser does not follow (its blocks none)
    assert not follow.same_blocks(progressive, corpus_file("testimgari.jpg").read_bytes())


def test_a_progressive_jpeg_is_followed_where_the_store_has_room():
    """With no store (or too small a one) a progressive frame is not
    followed; with one, its scans are, and its DC scan's blocks are the
    photo's DC, shifted."""
    progressive = corpus_file("testprog.jpg").read_bytes()
    data = np.frombuffer(progressive, dtype=np.uint8)
    for blocks in (0, 899):
        state = jpeg.new_state(4, blocks)
        jpeg.follow(state, data)
        assert state[fields.J_STORE_BLOCKS] == 0 and state[fields.J_DECODED] == 0
    state = jpeg.new_state(4, 900)
    jpeg.follow(state, data)
    assert state[fields.J_STORE_BLOCKS] == 900 and state[fields.J_STATE] == jpeg.J_NONE
    assert follow.stored(progressive, 900)[0][0, 0, 0] == \
        follow.stored(corpus_file("testorig.jpg").read_bytes())[0][0, 0, 0]


def _damaged(photo: bytes, seed: int, count: int = 300):
    """(where, copy) of `photo` with a byte set to a random value or a run of
    up to 63 bytes cut out there, by turns."""
    rng = np.random.default_rng(seed)
    for trial in range(count):
        damaged = bytearray(photo)
        at = int(rng.integers(0, len(photo)))
        if trial % 2:
            damaged[at] = int(rng.integers(0, 256))
        else:
            del damaged[at:at + int(rng.integers(1, 64))]
        yield at, bytes(damaged)


def test_damaged_progressive_jpegs_are_followed_safely():
    """A progressive photo's bytes changed anywhere: the parser never fails
    and keeps no more blocks than its store has."""
    photo = corpus_file("testproggray.jpg").read_bytes()
    for _, damaged in _damaged(photo, 78):
        state = jpeg.new_state(4, 1000)
        jpeg.follow(state, np.frombuffer(damaged, dtype=np.uint8))
        assert state[fields.J_STORE_BLOCKS] <= 1000 and state[fields.J_STATE] in range(5)


def test_an_arithmetic_coded_jpeg_is_not_followed():
    _, blocks = follow.followed(corpus_file("testimgari.jpg").read_bytes())
    assert len(blocks) == 0


def test_a_jpeg_inside_other_bytes_is_found():
    """A JPEG after other bytes (as in a tar or a PDF), other bytes after it:
    the same blocks, and nothing followed past its end."""
    photo = corpus_file("testorig.jpg").read_bytes()
    _, alone = follow.followed(photo)
    noise = np.random.default_rng(7).integers(0, 256, 3000, dtype=np.uint8).tobytes()
    state, inside = follow.followed(noise + photo + noise + b"\xff\xd8")
    assert np.array_equal(inside, alone)
    assert state[fields.J_STATE] == jpeg.J_HEADERS  # the last two bytes start another


def test_damaged_jpegs_are_followed_safely():
    """Bytes changed anywhere (a byte set to a random value, runs cut out):
    the parser never fails, decodes no more blocks than the frame can have,
    and the blocks before the damage are the photo's."""
    photo = corpus_file("testorig.jpg").read_bytes()
    _, alone = follow.followed(photo)
    for at, damaged in _damaged(photo, 77):
        state, blocks = follow.followed(damaged)
        assert len(blocks) <= 4096 and state[fields.J_STATE] in range(5)
        if at > photo.index(b"\xff\xda") + 100:  # the damage in the scan, well after its start
            assert np.array_equal(blocks[:5], alone[:5])


@pytest.mark.parametrize("level", ["fast", "default"])
def test_the_jpeg_models_code_a_photo_smaller_and_back(level):
    """The candidate JPEG models (F_JPEG, measured, not yet archived) code
    the photo, sequential and progressive (colour; gray, with restart
    markers), smaller than the level's model for its bytes, and decode it;
    so too damaged copies, and bytes that are no JPEG at all."""
    import dataclasses

    from fade import statistics
    from fade.config import LEVELS
    from fade.kinds import Screen
    from fade.statistics.models import CANDIDATE_MODELS
    settings = LEVELS[level].statistics
    config = dataclasses.replace(settings, model=CANDIDATE_MODELS[f"jpeg-{level}-next"])

    def coded(data, model):
        stream = statistics.encode_file(data, model.sized(len(data)))
        assert statistics.decode_file(stream, len(data), model.sized(len(data))) == data
        return len(stream)
    for name, share in (("testorig.jpg", 0.97), ("testprog.jpg", 0.98),
                        ("testproggray.jpg", 0.95)):
        photo = corpus_file(name).read_bytes()
        general = coded(photo, settings.for_kind(Screen.of(photo).kind))
        assert coded(photo, config) < share * general
        damaged = photo[:3000] + bytes(range(256)) + photo[3000:]
        coded(damaged, config)
    coded(np.random.default_rng(5).integers(0, 256, 4000, dtype=np.uint8).tobytes(), config)
