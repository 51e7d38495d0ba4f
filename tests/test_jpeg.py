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

from conftest import REPO, corpus_file, decode_in_a_fresh_process, run_fade, tar_of
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


def _restarted(data: bytes, blocks: np.ndarray, interval: int) -> bytes:
    """The photo `data` (its blocks `blocks`) written again with a restart
    marker every `interval` MCUs (a DRI segment before the scan)."""
    segments = list(follow.segments(data))
    tables = {}
    for marker, payload, _ in segments:
        if marker == 0xC4:
            tables.update(follow.codes(payload))
    scan = next(payload for marker, payload, _ in segments if marker == 0xDA)
    layout = [(c, tables[(0, scan[2 + 2 * c] >> 4)], tables[(1, scan[2 + 2 * c] & 15)])
              for c, count in ((0, 4), (1, 1), (2, 1)) for _ in range(count)]
    start = data.index(b"\xff\xda")
    return (data[:start] + b"\xff\xdd\x00\x04" + interval.to_bytes(2, "big")
            + data[start:start + 2 + len(scan) + 2] + follow.encode(blocks, layout, interval)
            + b"\xff\xd9")


def test_restart_markers_are_followed():
    """The photo's blocks written again with a restart marker every 7 MCUs:
    the same blocks come back."""
    data = corpus_file("testorig.jpg").read_bytes()
    _, blocks = follow.followed(data)
    restarted = _restarted(data, blocks, 7)
    assert restarted.count(b"\xff\xd0") >= 3
    state, again = follow.followed(restarted)
    assert np.array_equal(again, blocks)
    assert state[fields.J_RESTARTS] == (150 - 1) // 7  # the markers after MCUs 7, 14, ... 147
    # once an interval's MCUs are done, the bits up to its marker are padding
    state = jpeg.new_state(12)
    jpeg.follow(state, np.frombuffer(restarted[:restarted.index(b"\xff\xd0")], dtype=np.uint8))
    assert state[fields.J_STATE] == fields.J_DONE and state[fields.J_MCU] == 7


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


def test_a_thumbnail_and_a_few_bytes_of_junk_are_followed_through():
    """An Exif thumbnail (a JPEG inside an APP1 segment) is followed, then
    the photo that holds it, whose restart interval the thumbnail's does not
    take; a few bytes that are no marker between two segments are let by,
    as libjpeg lets them by, and more are not."""
    photo = corpus_file("testorig.jpg").read_bytes()
    _, alone = follow.followed(photo)
    thumbnail = _restarted(photo, alone, 7)  # (the photo's restart interval: none)
    _, small = follow.followed(thumbnail)
    assert np.array_equal(small, alone)
    exif = b"Exif\0\0" + thumbnail + b"\0" * 7
    held = photo[:2] + b"\xff\xe1" + (len(exif) + 2).to_bytes(2, "big") + exif + photo[2:]
    state, both = follow.followed(held)
    assert np.array_equal(both[:len(small)], small) and np.array_equal(both[len(small):], alone)
    assert state[fields.J_STATE] == jpeg.J_NONE and state[fields.J_OUTER_END] == 0
    segment = photo.index(b"\xff\xdb")
    for junk, same in ((b"hello", True), (b"x" * (fields.JUNK + 1), False)):
        _, found = follow.followed(photo[:segment] + junk + photo[segment:])
        assert np.array_equal(found, alone) == same


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
    """The level's JPEG model (F_JPEG) codes the photo, sequential and
    progressive (colour; gray, with restart markers), smaller than the
    level's model for other bytes, and decodes it; so too damaged copies,
    and bytes that are no JPEG at all."""
    from fade import statistics
    from fade.config import LEVELS
    settings = LEVELS[level].statistics
    config = settings.for_kind("jpeg")
    assert config.model != settings.for_kind("binary").model

    def coded(data, model):
        stream = statistics.encode_file(data, model.sized(len(data)))
        assert statistics.decode_file(stream, len(data), model.sized(len(data))) == data
        return len(stream)
    for name, share in (("testorig.jpg", 0.97), ("testprog.jpg", 0.98),
                        ("testproggray.jpg", 0.95)):
        photo = corpus_file(name).read_bytes()
        general = coded(photo, settings.for_kind("binary"))
        assert coded(photo, config) < share * general
        damaged = photo[:3000] + bytes(range(256)) + photo[3000:]
        coded(damaged, config)
    coded(np.random.default_rng(5).integers(0, 256, 4000, dtype=np.uint8).tobytes(), config)


def _with_profile(photo: bytes, profile: bytes) -> bytes:
    """`photo` with the ICC profile `profile` after its start of image, as
    APP2 segments of at most 65,519 of its bytes (as a camera or an editor
    embeds one)."""
    chunks = [profile[i:i + 65519] for i in range(0, len(profile), 65519)]
    segments = b"".join(b"\xff\xe2" + (len(chunk) + 16).to_bytes(2, "big") + b"ICC_PROFILE\0"
                        + bytes([k + 1, len(chunks)]) + chunk for k, chunk in enumerate(chunks))
    return photo[:2] + segments + photo[2:]


def test_the_default_codes_an_icc_profiles_tables_as_numbers():
    """A photo holding a real ICC profile (Little CMS's test profile: an RGB
    to Lab transform and back, each a table of 17^3 points of 16-bit
    numbers) is a JPEG to the screen; the default's model codes it and
    back, 3% smaller at least than fade 0.12's default model (the same but
    F_NUMBERS): the tables' numbers predicted from the rows before them."""
    import fade
    from fade import kinds
    from fade.statistics.models import LEVEL_MODELS, MODELS
    from fade.statistics.parts import F_NUMBERS
    data = _with_profile(corpus_file("testorig.jpg").read_bytes(),
                         corpus_file("lcms-test4.icc").read_bytes())
    assert kinds.Screen.of(data).kind == "jpeg"
    model = LEVEL_MODELS[("default", "jpeg")]
    assert MODELS[model].parts & F_NUMBERS and MODELS[46].parts == MODELS[model].parts & ~F_NUMBERS
    archive = fade.compress(data, level="default")
    assert fade.read_header(archive).statistics.model == model
    assert fade.decompress(archive) == data
    before = fade.compress(data, level="default", method="statistics", statistics_model=46)
    assert len(archive) < 0.97 * len(before)


def test_the_screen_finds_jpeg_photos_and_where_they_lie():
    """A photo the parser follows is the kind "jpeg" (sequential,
    progressive, gray with restart markers, cut short in its scan), so is a
    tar of photos; an arithmetic-coded or 12-bit one is not, nor text that
    holds a photo in less than half its bytes. photos.jpeg_spans finds each
    JPEG where it starts and ends: two in a row (an MPO), one inside
    another's segment (an Exif thumbnail) as part of it."""
    from fade.kinds import Screen
    from fade.statistics.photos import jpeg_spans
    photos = {name: corpus_file(name).read_bytes()
              for name in ("testorig.jpg", "testprog.jpg", "testproggray.jpg", "testimgint.jpg")}
    for name, photo in photos.items():
        assert Screen.of(photo).kind == "jpeg", name
        assert jpeg_spans(photo) == [(0, len(photo))], name
        assert Screen.of(photo[:len(photo) // 2]).kind == "jpeg", name
        assert not Screen.of(photo).network_may_pay
    assert Screen.of(corpus_file("testimgari.jpg").read_bytes()).kind != "jpeg"
    photo = photos["testorig.jpg"]
    frame = photo.index(b"\xff\xc0")
    deeper = photo[:frame + 4] + bytes([12]) + photo[frame + 5:]  # 12 bits a sample
    assert jpeg_spans(deeper) == [] and Screen.of(deeper).kind != "jpeg"
    tar = tar_of(photos)
    assert Screen.of(tar).kind == "jpeg"
    assert [end - start for start, end in jpeg_spans(tar)] == [len(p) for p in photos.values()]
    text = corpus_file("alice29.txt").read_bytes()[:3 * len(photo)]
    assert Screen.of(text[:1000] + photo + text[1000:]).kind != "jpeg"
    assert jpeg_spans(text[:1000] + photo + text[1000:]) == [(1000, 1000 + len(photo))]
    two = photo + photos["testprog.jpg"]
    assert jpeg_spans(two) == [(0, len(photo)), (len(photo), len(two))]
    thumbnail = b"Exif\0\0" + photos["testprog.jpg"]
    outer = photo[:2] + b"\xff\xe1" + (len(thumbnail) + 2).to_bytes(2, "big") + thumbnail + \
        photo[2:]
    assert jpeg_spans(outer) == [(0, len(outer))]
    segment = photo.index(b"\xff\xdb")
    assert jpeg_spans(photo[:segment] + b"hello" + photo[segment:]) == [(0, len(photo) + 5)]
    for tail in (b"\xff\xd8\xff\xc0\x00\x02", b"\xff\xd8\xff\xc0\x00\x06\x08\x00\x10\x00"):
        # a frame's segment that the bytes end in, shorter than any frame's
        assert jpeg_spans(text[:1000] + tail) == [] and Screen.of(text[:1000] + tail).kind != "jpeg"
    noise = np.random.default_rng(9).integers(0, 256, 20_000, dtype=np.uint8).tobytes()
    assert jpeg_spans(noise[:500] + b"\xff\xd8\xff\xe0" + noise[500:]) == []


def test_a_photo_is_coded_by_its_level_jpeg_model_and_back_in_a_fresh_process(tmp_path):
    """The command line codes a photo, and a tar of photos, with the level's
    JPEG model (no option needed) smaller than the level's model for other
    bytes would, and a new process decodes each."""
    import fade
    from fade.statistics.models import LEVEL_MODELS
    photo = corpus_file("testprog.jpg").read_bytes()
    tar = tar_of({"a.jpg": corpus_file("testorig.jpg").read_bytes(), "b.jpg": photo})
    archives = {}
    for name, data in (("photo", photo), ("photos.tar", tar)):
        (tmp_path / name).write_bytes(data)
        for level in ("fast", "default"):
            assert run_fade("-q", "-f", "--level", level, "-o", f"{name}.{level}", name,
                            cwd=tmp_path).returncode == 0
            archive = (tmp_path / f"{name}.{level}").read_bytes()
            assert fade.read_header(archive).statistics.model == LEVEL_MODELS[(level, "jpeg")]
            general = fade.compress(data, level=level, statistics_model=LEVEL_MODELS[
                (level, "binary")], method="statistics")
            assert len(archive) < 0.97 * len(general)
            archives[f"{name}-{level}"] = (archive, data)
    decode_in_a_fresh_process(tmp_path, archives)


def test_a_photo_is_coded_by_its_model_where_deflate_finds_nothing(monkeypatch):
    """A photo's scans look random to the floor's test (a flat histogram,
    nothing for deflate: most photos of a megabyte and more), which sends
    other bytes to the size floor unmodelled; a JPEG goes to its model."""
    import fade
    from fade import floor
    from fade.statistics.models import LEVEL_MODELS
    monkeypatch.setattr(floor, "incompressible", lambda data: True)
    photo = corpus_file("testorig.jpg").read_bytes()
    header = fade.read_header(fade.compress(photo, level="fast"))
    assert header.method == "statistics" and header.statistics.model == LEVEL_MODELS[
        ("fast", "jpeg")]
    assert fade.read_header(fade.compress(corpus_file("alice29.txt").read_bytes()[:5000],
                                          level="fast")).method != "statistics"
