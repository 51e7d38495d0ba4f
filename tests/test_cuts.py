"""Cuts where the data changes kind (fade/cuts.py): compress_stream codes
each kind of a file by its own statistics model, in frames cut where the
screen's model changes; a file of one kind is not cut."""

import io
from pathlib import Path

import numpy as np

import fade
from fade import cuts, frames, single
from fade.cuts import BLOCK, MIN_WINDOWS, WINDOW, Run, placed, smoothed

from conftest import corpus_file, decode_in_a_fresh_process, run_fade, tar_of


def _text() -> bytes:
    return corpus_file("lcet10.txt").read_bytes()


def _code() -> bytes:
    """384 KiB of numpy's compiled core module, 1 MiB in (x86 machine code
    on an x86-64 install, other bytes elsewhere: either way not text)."""
    import numpy
    module = sorted(Path(numpy.__file__).parent.glob("_core/_multiarray_umath*"))[0]
    return module.read_bytes()[1 << 20:(1 << 20) + 6 * WINDOW]


def _frame_models(archive: bytes) -> list[int]:
    """The statistics model of each frame of a frames archive."""
    header = fade.read_header(archive)
    assert header.method == "frames"
    return [single.read_header(archive[f.archive_offset:f.archive_offset + f.archive_size])
            .statistics.model for f in header.frames]


def test_short_runs_join_a_neighbour_on_their_side_of_text_or_not():
    assert MIN_WINDOWS == 4
    text, table, code, data = (1, True), (7, True), (16, False), (19, False)
    # a stray window inside a run takes the run's label; the runs after it stay
    assert smoothed([text] * 3 + [table] + [text] * 4 + [code] * 4) == \
        [Run(text, 0, 8), Run(code, 8, 4)]
    # a short run joins the neighbour on its side of text or not, however short
    assert smoothed([text] * 6 + [data] + [code] * 5) == [Run(text, 0, 6), Run(code, 6, 6)]
    assert smoothed([code] * 6 + [table] * 2 + [text] * 4) == [Run(code, 0, 6), Run(text, 6, 6)]
    # where both neighbours are on its side (or neither), the longer; the one before on a tie
    assert smoothed([text] * 5 + [table] * 2 + [text] * 6) == [Run(text, 0, 13)]
    assert smoothed([code] * 5 + [data] * 2 + [code] * 6) == [Run(code, 0, 13)]
    assert smoothed([table] * 5 + [code] * 2 + [text] * 6) == \
        [Run(table, 0, 5), Run(text, 5, 8)]
    assert smoothed([table] * 4 + [code] * 2 + [text] * 4) == \
        [Run(table, 0, 6), Run(text, 6, 4)]
    # nothing holds long enough: one run; a lone short run stays
    assert len(smoothed([text, code] * 3)) == 1
    assert smoothed([data]) == [Run(data, 0, 1)]
    assert smoothed([text] * 4 + [code] * 4) == [Run(text, 0, 4), Run(code, 4, 4)]


def test_a_cut_goes_where_the_most_blocks_agree():
    a, b, other = 1, 16, 19
    assert placed([a, a, a, b, b, b], a, b, 0) == 3
    # stray blocks either side: the edge most blocks agree with
    assert placed([a, b, a, a, b, b, a, b, b], a, b, 8) == 4
    # blocks of neither model count for neither; of equals, the nearest to the old edge
    assert placed([a, other, other, b], a, b, 3) == 3
    assert placed([other] * 6, a, b, 2) == 2
    # all of one side's model: as far into the other side as the blocks go
    assert placed([a] * 6, a, b, 3) == 5 and placed([b] * 6, a, b, 3) == 1


def test_a_tar_of_text_files_is_text_and_not_cut():
    """A tar of source files (fade's own, about 8 KiB each: a 512-byte header
    and zero padding for each) is text: the runs of zeros are padding, not
    content (fade.kinds.PADDING_RUN), so each window screens as text and the
    tar is one piece. Counted as bytes, the padding made its windows less
    than 97% text, other bytes."""
    import tarfile
    from fade import kinds
    sources = sorted(Path(fade.__file__).parent.rglob("*.py"))
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for path in sources:
            tar.add(path, arcname=str(path.relative_to(Path(fade.__file__).parent)))
    data = out.getvalue()
    assert len(data) > 2 * MIN_WINDOWS * WINDOW
    windows = [data[start:start + WINDOW] for start in range(0, len(data), WINDOW)]
    padded = [window for window in windows if kinds.padding(
        np.frombuffer(window, dtype=np.uint8)) > 0.03 * len(window)]
    assert len(padded) > len(windows) // 2  # the padding is there ...
    assert all(kinds.Screen.of(window).kind == "text" for window in windows)  # ... and aside
    assert cuts.kind_pieces(data, fade.Settings(level="fast").kind_model) == [len(data)]


def test_an_input_of_one_kind_is_not_cut():
    """Text at every level, and a table and nucleotides whose screens say so:
    one piece, and compress_stream writes what fade.compress does."""
    text = (_text() + corpus_file("alice29.txt").read_bytes()
            + corpus_file("plrabn12.txt").read_bytes())
    assert len(text) > 2 * MIN_WINDOWS * WINDOW
    for level in ("fast", "default", "max"):
        assert cuts.kind_pieces(text, fade.Settings(level=level).kind_model) == [len(text)]
    out = io.BytesIO()
    frames.compress_stream(io.BytesIO(text), out.write, level="fast")
    assert out.getvalue() == fade.compress(text, level="fast")


def test_kinds_are_cut_where_they_change_and_each_is_coded_by_its_model(tmp_path):
    """Text then compiled code: cut within a block of where the code starts
    (the windows' labels put it at a window's edge, 33 KB of text or 32 KB
    of code away), the text coded by level fast's model for text and the
    code by its model for code, smaller than both coded by one model, and
    decoded by a fresh process byte for byte."""
    text, code = _text(), _code()
    data = text + code
    settings = fade.Settings(level="fast")
    pieces = cuts.kind_pieces(data, settings.kind_model)
    assert len(pieces) == 2 and abs(pieces[0] - len(text)) < BLOCK, pieces
    (tmp_path / "mixed").write_bytes(data)
    assert run_fade("--level", "fast", "mixed", cwd=tmp_path).returncode == 0
    archive = (tmp_path / "mixed.fade").read_bytes()
    assert _frame_models(archive) == [settings.kind_model("text"),
                                      settings.kind_model(fade.kinds.Screen.of(code).kind)]
    assert settings.kind_model("text") != settings.kind_model(fade.kinds.Screen.of(code).kind)
    for kind in ("text", "binary"):  # smaller than the whole coded by either one model
        whole = fade.compress(data, level="fast", method="statistics",
                              statistics_model=settings.kind_model(kind))
        assert len(archive) < len(whole), kind
    (tmp_path / "mixed").unlink()
    assert run_fade("-d", "mixed.fade", cwd=tmp_path).returncode == 0
    assert (tmp_path / "mixed").read_bytes() == data


def test_settings_that_pick_no_model_by_kind_do_not_cut():
    """A model given, a network asked for or alone: no model by kind, so
    text then code is one archive."""
    assert fade.Settings(level="fast", statistics_model=0).kind_model("text") is None
    assert fade.Settings(preset="tiny").kind_model("text") is None
    assert fade.Settings(method="fade").kind_model("x86") is None
    assert fade.Settings(float_mode="fast").kind_model("binary") is None
    assert fade.Settings(method="statistics").kind_model("table") == \
        fade.Settings(level="fast").kind_model("table")
    data = _text() + _code()
    out = io.BytesIO()
    frames.compress_stream(io.BytesIO(data), out.write, level="fast", statistics_model=0)
    assert fade.read_header(out.getvalue()).method == "statistics"


def test_frames_shorter_than_the_frame_size_anywhere_decode(tmp_path):
    """What the cuts write, made small: a frames archive whose middle frame
    is shorter than the frame size (records, index and SHA-256 as
    compress_stream packs them) decodes whole in a fresh process, in part
    with --range across the short frame, and through fade.open's seeks."""
    import hashlib
    from fade.format import container
    from fade.format.archive import method_of
    text = _text()
    sizes = [4096, 1000, 4096, 777]
    data = text[:sum(sizes)]
    archive_id = hashlib.sha256(data[:sizes[0]]).digest()[:8]
    blob, records, offset = container.pack_head(4096, archive_id), [], 0
    for number, size in enumerate(sizes):
        archive = fade.compress(data[offset:offset + size], level="fast")
        frame = container.Frame(number, offset, size, len(blob) + container.RECORD.size,
                                len(archive), method_of(archive))
        blob += container.pack_record(frame, archive_id) + archive
        records.append(frame)
        offset += size
    blob += container.pack_index(records, offset, hashlib.sha256(data).digest(), archive_id)
    (tmp_path / "short.fade").write_bytes(blob)
    assert [f.original_size for f in fade.read_header(blob).frames] == sizes
    assert run_fade("-d", "short.fade", cwd=tmp_path).returncode == 0
    assert (tmp_path / "short").read_bytes() == data
    ranged = run_fade("-dc", "--range", "4000:5200", "short.fade", cwd=tmp_path)
    assert ranged.returncode == 0 and ranged.stdout == data[4000:5200]
    with fade.open(tmp_path / "short.fade") as file:
        file.seek(5000)
        assert file.read(200) == data[5000:5200]


def _long_jpeg(times: int = 60) -> bytes:
    """A JPEG of 330 KB (5.5 KB a time): libjpeg-turbo's test photo's
    headers, its scan's data `times` over (codes the parser loses its way in
    after the first image's, still no marker), its end of image."""
    photo = corpus_file("testorig.jpg").read_bytes()
    scan = photo.index(b"\xff\xda")
    data = scan + 2 + int.from_bytes(photo[scan + 2:scan + 4], "big")
    return photo[:data] + photo[data:-2] * times + photo[-2:]


def test_a_jpeg_inside_other_bytes_is_cut_where_it_starts_and_ends():
    """A JPEG of 256 KiB or more between text is a piece of its own, cut
    within a block of where it starts and ends (its middle, screened alone,
    is no JPEG); text that is mostly JPEGs is one piece."""
    text, photo = _text(), _long_jpeg()
    assert len(photo) > MIN_WINDOWS * WINDOW
    settings = fade.Settings(level="fast")
    pieces = cuts.kind_pieces(text + photo + text, settings.kind_model)
    assert len(pieces) == 3, pieces
    assert 0 <= len(text) - pieces[0] < BLOCK and 0 <= pieces[1] - len(photo) < 2 * BLOCK
    assert cuts.kind_pieces(text[:200_000] + photo + photo, settings.kind_model) == \
        [200_000 + 2 * len(photo)]


def test_frames_cut_by_size_end_where_a_photo_starts(tmp_path, monkeypatch):
    """A tar of photos cut into frames of 8 KiB (as `-T` or `-F` cut one):
    no frame ends inside a photo, each that would ends where the photo
    starts, so every photo is followed by its frame's JPEG model whole; the
    archive is smaller than the frames cut by size alone, and a fresh
    process decodes it."""
    names = ("testorig.jpg", "testprog.jpg", "testproggray.jpg", "testimgint.jpg")
    members = {name: corpus_file(name).read_bytes() for name in names}
    data = tar_of(members)
    photos = [(data.index(photo), len(photo)) for photo in members.values()]

    def archive() -> bytes:
        blob = io.BytesIO()
        frames.compress_stream(io.BytesIO(data), blob.write, level="fast", frame_size=8192)
        return blob.getvalue()
    aligned = archive()
    ends = np.cumsum([frame.original_size for frame in fade.read_header(aligned).frames])
    assert max(np.diff(ends, prepend=0)) <= 8192 and ends[-1] == len(data)
    assert not [(end, start) for end in ends for start, size in photos if start < end < start + size]
    assert any(end in {start for start, _ in photos} for end in ends)
    monkeypatch.setattr(cuts, "at_photos", lambda sized, size: sized)
    assert len(aligned) < 0.95 * len(archive())
    (tmp_path / "photos.tar.fade").write_bytes(aligned)
    assert run_fade("-d", "photos.tar.fade", cwd=tmp_path).returncode == 0
    assert (tmp_path / "photos.tar").read_bytes() == data


def test_a_short_input_is_cut_where_its_photo_starts_and_ends(tmp_path):
    """Under 512 KiB (too short for runs of windows), text holding a JPEG of
    32 KiB or more, less than half of its bytes, is cut exactly where the
    photo starts and ends: the text coded by the text model, the photo by
    the JPEG model, and a fresh process decodes it; a smaller photo, or
    text without one, is not cut."""
    photo = _long_jpeg(7)  # 40 KB
    text = _text()
    head, tail = text[:60_000], text[60_000:120_000]
    settings = fade.Settings(level="fast")
    assert cuts.kind_pieces(head + photo + tail, settings.kind_model) == \
        [len(head), len(photo), len(tail)]
    small = corpus_file("testprog.jpg").read_bytes()
    assert cuts.kind_pieces(head + small + tail, settings.kind_model) == \
        [len(head) + len(small) + len(tail)]
    assert cuts.kind_pieces(head + tail, settings.kind_model) == [len(head) + len(tail)]
    (tmp_path / "doc").write_bytes(head + photo + tail)
    assert run_fade("--level", "fast", "doc", cwd=tmp_path).returncode == 0
    archive = (tmp_path / "doc.fade").read_bytes()
    assert _frame_models(archive) == [settings.kind_model("text"), settings.kind_model("jpeg"),
                                      settings.kind_model("text")]
    (tmp_path / "doc").unlink()
    assert run_fade("-d", "doc.fade", cwd=tmp_path).returncode == 0
    assert (tmp_path / "doc").read_bytes() == head + photo + tail


def test_a_frame_whose_pieces_share_bytes_is_written_whole_where_smaller(tmp_path, monkeypatch):
    """Cuts made small (windows of 16 KiB): text, compiled code and the
    same text again share the text, which the pieces cannot use: the frame
    is coded whole beside its pieces and, smaller, written as the plain
    archive of the input uncut; text, code and other text share too little
    to code whole (cuts.shared), and their pieces are written as before,
    as are those of a frame whose whole coding would need more memory than
    the limit. The progress moves with the work, to the input's size; a
    fresh process decodes each archive."""
    monkeypatch.setattr(cuts, "WINDOW", 16 << 10)
    monkeypatch.setattr(cuts, "BLOCK", 1 << 10)
    text, code = _text(), _code()[:96 << 10]
    twice, other = text[:80_000] + code + text[:80_000], \
        text[:80_000] + code + text[80_000:160_000]
    settings = fade.Settings(level="fast")
    archives = {}
    for name, data in (("twice", twice), ("other", other)):
        sizes = cuts.kind_pieces(data, settings.kind_model)
        assert len(sizes) == 3, (name, sizes)
        assert cuts.shared(data, sizes) == (name == "twice")
        out, done = io.BytesIO(), []
        frames.compress_stream(io.BytesIO(data), out.write, settings,
                               progress=lambda bytes_done, bits: done.append(bytes_done))
        archives[name] = out.getvalue(), data
        assert done == sorted(done) and done[-1] == len(data)  # the work of both, as bytes
    # Within 84 MiB the pieces' tables fit (at most 78 MB) and the whole's not (94 MB)
    limit = 84 << 20
    with monkeypatch.context() as never:  # the pieces alone, as without the guard
        never.setattr(cuts, "shared", lambda data, sizes: False)
        cut = io.BytesIO()
        frames.compress_stream(io.BytesIO(twice), cut.write, settings, memory_limit=limit)
    assert len(_frame_models(cut.getvalue())) == 3
    assert archives["twice"][0] == fade.compress(twice, settings)
    assert len(archives["twice"][0]) < 0.8 * len(cut.getvalue())
    limited = io.BytesIO()
    frames.compress_stream(io.BytesIO(twice), limited.write, settings, memory_limit=limit)
    assert limited.getvalue() == cut.getvalue()
    assert len(_frame_models(archives["other"][0])) == 3
    decode_in_a_fresh_process(tmp_path, archives)
