"""fade.open, the incremental coders (fade.api) and archives one after
another (fade.members), on real text: every kind of archive in every pairing,
damage and trailing bytes, the golden archives of each format version."""

from __future__ import annotations

import io
import itertools
import struct
import time
from pathlib import Path

import pytest

import fade
from fade import frames, members
from fade.format import container
from fade.errors import CorruptArchiveError, FadeError, FormatError
from fade.statistics.models import LEVEL_MODELS

from conftest import corpus_file

GOLDEN = Path(__file__).parent / "golden"
FRAME = 4096  # the smallest frame size: frames archives of a few KiB
# The statistics alone: the same bytes on every machine, ~200 KB/s.
FAST = dict(level="fast")


def text(size: int, offset: int = 0) -> bytes:
    return corpus_file("alice29.txt").read_bytes()[offset:offset + size]


def frames_archive(data: bytes, **settings) -> bytes:
    out = io.BytesIO()
    frames.compress_stream(io.BytesIO(data), out.write, **settings)
    return out.getvalue()


@pytest.fixture(scope="module")
def kinds() -> dict[str, tuple[bytes, bytes]]:
    """name -> (original, archive): one archive of each way of ending."""
    made = {
        "stored": (text(700, 9000), dict(method="stored")),
        "xz": (text(3000, 20000), dict(method="xz")),
        "statistics": (text(3000), dict(FAST)),
        # The hybrid: the tiny network with the statistics, 8 sub-streams.
        "hybrid": (text(300, 5000), dict(level="default", preset_name="tiny", method="fade",
                                         batch_size=8)),
    }
    result = {name: (data, fade.compress(data, **settings))
              for name, (data, settings) in made.items()}
    data = text(3 * FRAME - 100, 40000)
    result["frames"] = (data, frames_archive(data, frame_size=FRAME, **FAST))
    return result


def test_the_kinds_are_what_they_say(kinds):
    methods = {name: fade.read_header(blob).method for name, (_, blob) in kinds.items()}
    assert methods == {"stored": "stored", "xz": "xz", "statistics": "statistics",
                       "hybrid": "fade", "frames": "frames"}
    assert fade.read_header(kinds["hybrid"][1]).coding == "hybrid"


def test_each_archive_alone_decodes_as_before(kinds):
    from fade import single

    for name, (original, blob) in kinds.items():
        assert fade.decompress(blob) == original, name
        if name != "frames":  # one archive: as fade.single decodes it
            assert single.decompress(blob) == original, name
        length, decoded = members.archive_extent(blob + b"\x89FADE\r\n\x1a")
        assert length == len(blob), name
        # Decoded while its end was found: the deflate family and the statistics.
        assert (decoded is not None) == (name in ("xz", "statistics")), name
        if decoded is not None:
            assert decoded == original


class Unseekable(io.RawIOBase):
    """A pipe: reads of at most 1000 bytes, no seek."""

    def __init__(self, data: bytes):
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._data.read(min(len(buffer), 1000))
        buffer[:len(chunk)] = chunk
        return len(chunk)


def decoded_by_incremental(blob: bytes, chunk: int) -> bytes:
    """Every archive in `blob` through FadeDecompressors, fed `chunk` bytes at a time."""
    out, rest = [], blob
    while rest:
        decompressor = fade.FadeDecompressor()
        for start in range(0, len(rest), chunk):
            out.append(decompressor.decompress(rest[start:start + chunk]))
            if decompressor.eof:
                break
        else:
            out.append(decompressor.end_input())  # raises if the archive is incomplete
        assert decompressor.eof
        assert not decompressor.needs_input
        rest = decompressor.unused_data + rest[start + chunk:]
    return b"".join(out)


def decoded_by_stream_loop(blob: bytes) -> bytes:
    """fade.decompress_stream (fade.members) into a list."""
    out: list[bytes] = []
    fade.decompress_stream(io.BytesIO(blob), out.append)
    return b"".join(out)


KINDS = ["stored", "xz", "statistics", "hybrid", "frames"]


def every_pair_once(count: int) -> list[int]:
    """0..count-1 in an order where each ordered pair (loops too) follows
    once: a de Bruijn sequence of order 2, by Martin's prefer-largest rule."""
    order, seen = [0], set()
    while True:
        following = [j for j in range(count - 1, -1, -1) if (order[-1], j) not in seen]
        if not following:
            return order
        seen.add((order[-1], following[0]))
        order.append(following[0])


def test_every_pair_of_kinds_decodes_to_both_originals(kinds):
    """All 25 ordered pairs of the kinds in one stream of 26 archives, read
    by every reader: one pass each instead of one per pair."""
    order = every_pair_once(len(KINDS))
    assert len({pair for pair in zip(order, order[1:])}) == len(KINDS) ** 2 == len(order) - 1
    blob = b"".join(kinds[KINDS[k]][1] for k in order)
    expected = b"".join(kinds[KINDS[k]][0] for k in order)
    assert fade.decompress(blob) == expected
    assert decoded_by_incremental(blob, 997) == expected
    assert decoded_by_stream_loop(blob) == expected
    with fade.open(io.BytesIO(blob)) as file:
        assert file.read() == expected
    with fade.open(Unseekable(blob)) as file:
        assert file.read() == expected
    for name in KINDS:  # one archive per decompressor object, as lzma's
        (a, blob_a), blob_b = kinds[name], kinds["stored"][1]
        decompressor = fade.FadeDecompressor()
        assert decompressor.decompress(blob_a + blob_b) == a
        assert decompressor.eof and decompressor.unused_data == blob_b


def test_three_archives_and_the_frames_between(kinds):
    names = ["frames", "statistics", "frames", "stored"]
    blob = b"".join(kinds[name][1] for name in names)
    expected = b"".join(kinds[name][0] for name in names)
    assert fade.decompress(blob) == expected
    with fade.open(io.BytesIO(blob)) as file:
        assert file.read() == expected
        assert file.frames_decoded == 6


def damaged(blob: bytes) -> bytes:
    """`blob` with a byte in its second half flipped."""
    changed = bytearray(blob)
    changed[len(blob) * 3 // 4] ^= 0x10
    return bytes(changed)


@pytest.mark.parametrize("second", ["stored", "xz", "statistics", "hybrid", "frames"])
def test_a_damaged_second_archive_fails_and_says_which(kinds, second):
    first_blob = kinds["statistics"][1]
    for bad in (damaged(kinds[second][1]), kinds[second][1][:-7]):
        blob = first_blob + bad
        with pytest.raises(FadeError, match=f"archive 2 \\(at byte {len(first_blob)}\\)"):
            fade.decompress(blob)
        with pytest.raises(FadeError, match="archive 2"):
            fade.open(io.BytesIO(blob)).read()
        with pytest.raises(FadeError, match="archive 2"):
            fade.open(Unseekable(blob)).read()
        with pytest.raises(FadeError):
            decoded_by_incremental(bad, 1000)


@pytest.mark.parametrize("first", ["stored", "xz", "statistics", "frames"])
@pytest.mark.parametrize("trailing", [b"\x00", b"garbage after the archive", b"\x89FAD"])
def test_bytes_after_the_last_archive_are_an_error(kinds, first, trailing):
    blob = kinds[first][1] + kinds["stored"][1]
    bad = blob + trailing
    message = f"unexpected bytes after archive 2 \\(at byte {len(blob)}\\)"
    with pytest.raises(FormatError, match=f"^{len(trailing)} {message}"):
        fade.decompress(bad)
    with pytest.raises(FormatError, match=message):
        members.decompress_stream(io.BytesIO(bad), lambda data: None)
    with pytest.raises(FormatError, match=message):
        fade.open(io.BytesIO(bad)).read()
    with pytest.raises(FormatError, match=message):
        fade.open(Unseekable(bad)).read()


def test_frames_decompress_stream_stops_at_its_footer(kinds):
    data, blob = kinds["frames"]
    source, out = io.BytesIO(blob + b"what follows"), []
    assert frames.decompress_stream(source, out.append) == len(data)
    assert b"".join(out) == data
    assert source.read() == b"what follows"
    for cut in (len(blob) - 1, len(blob) - 16):  # the footer short, or missing
        with pytest.raises(CorruptArchiveError, match="footer"):
            frames.decompress_stream(io.BytesIO(blob[:cut]), lambda data: None)


def test_a_frames_archive_is_found_and_read_where_it_starts(kinds):
    data, blob = kinds["frames"]
    before = kinds["stored"][1]
    file = io.BytesIO(before + blob + kinds["xz"][1])
    assert frames.archive_length(file, len(before)) == len(blob)
    header = frames.read_index(file, len(before))
    assert header == frames.read_index(io.BytesIO(blob))
    part, decoded = frames.decompress_range(file, FRAME + 10, FRAME + 30,
                                            archive_start=len(before))
    assert (part, decoded) == (data[FRAME + 10:FRAME + 30], [1])


def golden(name: str) -> tuple[bytes, bytes]:
    return (GOLDEN / f"{name}.fade").read_bytes(), (GOLDEN / f"{name}.input").read_bytes()


def test_every_golden_archive_ends_where_its_format_says():
    """Versions 1 to 8, every method: found from its header (learned,
    stored, floats) or by decoding it (statistics), with another after it."""
    follower = golden("v8-stored")[0]
    names = sorted(path.stem for path in GOLDEN.glob("*.fade"))
    assert any(name.startswith("v1-") for name in names)
    for name in names:
        blob, original = golden(name)
        length, decoded = members.archive_extent(blob + follower)
        assert length == len(blob), name
        assert decoded is None or decoded == original, name


@pytest.mark.parametrize("first,second", [
    ("v8-frames", "v7-statistics"), ("v6-statistics", "v7-frames"),
    ("v3-floats-fast", "v2-stored"), ("v8-statistics-max3", "v5-floats-fast"),
    ("v8-hybrid", "v8-frames"),
])
def test_golden_archives_one_after_another(first, second):
    (a, original_a), (b, original_b) = golden(first), golden(second)
    assert fade.decompress(a + b) == original_a + original_b
    with fade.open(io.BytesIO(b + a)) as file:
        assert file.read() == original_b + original_a


def test_incremental_compressor_writes_what_compress_stream_writes():
    data = text(5 * FRAME + 333, 60000)
    settings = dict(FAST, frame_size=FRAME)
    expected = frames_archive(data, **settings)
    head = struct.calcsize("<" + "".join(code for _, code in container.HEAD_FIELDS))
    compressor = fade.FadeCompressor(**settings)
    out, sizes, fed = [], [1, 7, 1000, FRAME - 1, 5000, 3], 0
    for size in itertools.cycle(sizes):
        if fed >= len(data):
            break
        out.append(compressor.compress(data[fed:fed + size]))
        fed += size
        if fed >= 3 * FRAME:
            # Frames are given out as they complete: the head and the first
            # frames are out, the input is not all held.
            assert len(b"".join(out)) > head
    out.append(compressor.flush())
    assert b"".join(out) == expected
    with pytest.raises(ValueError):
        compressor.compress(b"more")


def test_incremental_compressor_of_one_frame_writes_a_plain_archive():
    data = text(3000, 70000)
    compressor = fade.FadeCompressor(level="fast")
    out = [compressor.compress(data[i:i + 777]) for i in range(0, len(data), 777)]
    assert not any(out)  # one frame: nothing before the end
    assert b"".join(out) + compressor.flush() == fade.compress(data, level="fast")
    assert fade.FadeCompressor(method="stored").flush() == fade.compress(b"", method="stored")


def test_incremental_decompressor_with_max_length(kinds):
    data, blob = kinds["frames"]
    decompressor = fade.FadeDecompressor()
    assert decompressor.needs_input
    out = [decompressor.decompress(blob[:len(blob) // 2], max_length=100)]
    assert len(out[0]) == 100 and not decompressor.needs_input and not decompressor.eof
    out.append(decompressor.decompress(blob[len(blob) // 2:] + b"next", max_length=5000))
    while not decompressor.eof:
        out.append(decompressor.decompress(b"", max_length=5000))
    assert b"".join(out) == data
    assert decompressor.unused_data == b"next"
    assert decompressor.frames_decoded == 3
    with pytest.raises(EOFError):
        decompressor.decompress(b"x")


def test_a_truncated_archive_fails_at_the_end_of_input(kinds):
    blob = kinds["xz"][1]
    decompressor = fade.FadeDecompressor()
    assert decompressor.decompress(blob[:-5]) == b""
    with pytest.raises(CorruptArchiveError, match="truncated"):
        decompressor.end_input()
    with pytest.raises(FadeError):
        fade.open(io.BytesIO(blob[:-5])).read()


def test_seek_decodes_only_the_frames_it_needs(tmp_path):
    data = text(8 * FRAME, 80000)
    path = tmp_path / "eight.fade"
    with fade.open(path, "wb", frame_size=FRAME, **FAST) as file:
        assert file.write(data) == len(data)
        assert file.tell() == len(data)
    assert path.read_bytes() == frames_archive(data, frame_size=FRAME, **FAST)
    with fade.open(path) as file:
        assert file.seekable()
        assert file.seek(5 * FRAME + 100) == 5 * FRAME + 100
        assert file.read(200) == data[5 * FRAME + 100:5 * FRAME + 300]
        assert file.frames_decoded == 1
        file.seek(3 * FRAME - 50)  # back, across a frame boundary
        assert file.read(100) == data[3 * FRAME - 50:3 * FRAME + 50]
        assert file.frames_decoded == 3
        assert file.seek(-10, io.SEEK_END) == len(data) - 10
        assert file.read() == data[-10:]
        assert file.frames_decoded == 4
        file.seek(-20, io.SEEK_CUR)
        assert file.read(5) == data[-20:-15] and file.frames_decoded == 4
        assert file.tell() == len(data) - 15
        file.seek(0)
        assert file.read1(10) == data[:10]
        assert file.frames_decoded == 5


def test_seek_into_a_later_archive_skips_the_ones_before(tmp_path, kinds):
    path = tmp_path / "two.fade"
    path.write_bytes(kinds["hybrid"][1] + kinds["frames"][1])
    first, second = kinds["hybrid"][0], kinds["frames"][0]
    with fade.open(path) as file:
        file.seek(len(first) + 2 * FRAME + 7)  # the learned archive's size is in its header
        assert file.read(10) == second[2 * FRAME + 7:2 * FRAME + 17]
        assert file.frames_decoded == 1
        file.seek(len(first) - 3)
        assert file.read(6) == first[-3:] + second[:3]
        assert file.frames_decoded == 2


def test_open_appends_an_archive_and_reads_lines(tmp_path):
    data = text(2000, 100000)
    path = tmp_path / "log.fade"
    with fade.open(path, "wb", method="stored") as file:
        file.write(data[:1000])
    with fade.open(path, "ab", **FAST) as file:
        file.write(memoryview(data[1000:]))
    assert fade.decompress(path.read_bytes()) == data
    with fade.open(path) as file:
        lines = file.readlines()
    assert b"".join(lines) == data and len(lines) == data.count(b"\n") + 1
    with fade.open(str(path)) as file:
        buffer = bytearray(1500)
        assert file.readinto(buffer) == 1500 and bytes(buffer) == data[:1500]
        assert file.peek(1)[:3] == data[1500:1503]
    with pytest.raises(FileExistsError):
        fade.open(path, "xb")
    with fade.open(tmp_path / "new.fade", "x", method="xz") as file:
        file.write(b"x")


def test_text_mode(tmp_path):
    words = text(1500, 120000).decode("ascii") + "\ncaf\u00e9\n"
    path = tmp_path / "words.fade"
    with fade.open(path, "wt", encoding="utf-8", newline="", **FAST) as file:
        file.write(words)
    with fade.open(path, "rt", encoding="utf-8", newline="") as file:
        assert isinstance(file, io.TextIOWrapper)
        assert file.read() == words
    with fade.open(path, "at", encoding="utf-8", method="stored") as file:
        file.write("more\n")
    assert fade.open(path, "rt", encoding="utf-8", newline="").readlines()[-2:] == \
        ["caf\u00e9\n", "more\n"]


def test_file_objects_states_and_errors(tmp_path):
    file_object = io.BytesIO()
    with fade.open(file_object, "wb", method="stored") as file:
        assert file.writable() and not file.readable() and not file.seekable()
        file.write(b"spam")
        with pytest.raises(io.UnsupportedOperation):
            file.read()
    assert not file_object.closed  # not ours to close
    assert fade.decompress(file_object.getvalue()) == b"spam"
    with pytest.raises(ValueError, match="closed"):
        file.write(b"more")
    reader = fade.open(io.BytesIO(file_object.getvalue()))
    reader.close()
    with pytest.raises(ValueError, match="closed"):
        reader.read()
    with pytest.raises(ValueError, match="invalid mode"):
        fade.open(file_object, "rw")
    with pytest.raises(ValueError):
        fade.open(file_object, "rb", encoding="utf-8")
    with pytest.raises(FormatError, match="not a fade archive"):
        fade.open(io.BytesIO(b"plain text, not an archive")).read()
    unseekable = fade.open(Unseekable(file_object.getvalue()))
    assert unseekable.read(2) == b"sp"
    with pytest.raises(io.UnsupportedOperation):
        unseekable.seek(0)


def test_a_10_mb_input_round_trips_through_open(tmp_path):
    """10 MB of repeated text in 1 MiB frames with two jobs, coded by xz
    (the statistics' 200 KB/s would take minutes here); the same path with
    level fast on 1 MB in 256 KiB frames (what the writer writes is
    compress_stream's archive: test_incremental_compressor_...)."""
    corpus = corpus_file("alice29.txt").read_bytes()
    data = (corpus * (10_000_000 // len(corpus) + 1))[:10_000_000]
    path = tmp_path / "ten.fade"
    start = time.perf_counter()
    with fade.open(path, "wb", method="xz", frame_size=1 << 20, jobs=2) as file:
        for offset in range(0, len(data), 3_000_000):
            file.write(data[offset:offset + 3_000_000])
    with fade.open(path) as file:
        assert file.read() == data
        assert file.frames_decoded == 10
    seconds_xz = time.perf_counter() - start
    assert len(frames.read_index(io.BytesIO(path.read_bytes())).frames) == 10
    small = data[:1_000_000]
    start = time.perf_counter()
    with fade.open(path, "wb", frame_size=256 << 10, jobs=2, **FAST) as file:
        file.write(small)
    with fade.open(path) as file:
        assert file.read() == small
    seconds_fast = time.perf_counter() - start
    assert len(frames.read_index(io.BytesIO(path.read_bytes())).frames) == 4
    print(f"10 MB xz round trip {seconds_xz:.1f} s; 1 MB fast {seconds_fast:.1f} s")


def test_one_settings_object_reaches_every_way_to_compress(tmp_path):
    """A fade.Settings given whole makes the same archive as the keywords of
    the same names, through compress, compress_stream, FadeCompressor and
    fade.open; keywords change the settings given; compress, one archive,
    refuses the frame settings; and an explicit statistics model replaces
    the level's (what tests and benchmarks use to reach a model)."""
    data = corpus_file("alice29.txt").read_bytes()[:30_000]
    settings = fade.Settings(level="fast", frame_size=10_000)
    by_keywords = io.BytesIO()
    fade.compress_stream(io.BytesIO(data), by_keywords.write, level="fast", frame_size=10_000)
    whole = io.BytesIO()
    fade.compress_stream(io.BytesIO(data), whole.write, settings)
    assert whole.getvalue() == by_keywords.getvalue()
    assert fade.read_header(whole.getvalue()).method == "frames"
    compressor = fade.FadeCompressor(settings)
    assert compressor.compress(data) + compressor.flush() == whole.getvalue()
    with fade.open(tmp_path / "a.fade", "wb", settings=settings) as file:
        file.write(data)
    assert (tmp_path / "a.fade").read_bytes() == whole.getvalue()
    single = fade.Settings.of(settings, frame_size=None)
    assert fade.compress(data, single) == fade.compress(data, level="fast")
    with pytest.raises(fade.FadeError, match="compress_stream"):
        fade.compress(data, settings)
    with pytest.raises(TypeError):
        fade.Settings.of(settings, no_such_setting=1)
    archive = fade.compress(data, single, statistics_model=1)
    assert fade.read_header(archive).statistics.model == 1 and fade.decompress(archive) == data
    assert fade.read_header(fade.compress(data, single)).statistics.model == \
        LEVEL_MODELS[("fast", "text")]
    beyond = len(fade.statistics.MODELS)  # (the first number no model has)
    with pytest.raises(fade.FadeError, match=f"model = {beyond}"):
        fade.compress(data, single, statistics_model=beyond)
