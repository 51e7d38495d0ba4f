"""fade where data is read and stored: the numcodecs codec and zarr (v3 and
v2 arrays), fsspec with pandas reading through it, and shutil's "fadetar".
Each is written here and read back in a fresh process, on real arrays, a
real CSV and real files. The libraries come with the test extra; a test is
skipped only where its library is not installed."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest

import fade
from fade.errors import FadeError

from conftest import REPO, corpus_file

LEVEL = "fast"  # the statistics alone, as fast as they go: these tests are of the glue


def _real_arrays() -> dict[str, np.ndarray]:
    """Real arrays of four types: numpy's cosine validation set (umath-cos.csv:
    its float32 and float64 inputs and outputs, written there as hex words), a
    recording's 16-bit samples (pydub-test4.wav) and a photo's gray rows
    (coins.pgm, 384 pixels a row)."""
    rows = [line.split(",") for line in corpus_file("umath-cos.csv").read_text().splitlines()
            if line.startswith("np.float")]
    words = {kind: [[int(row[1], 16), int(row[2], 16)] for row in rows if row[0] == kind]
             for kind in ("np.float32", "np.float64")}
    wav = corpus_file("pydub-test4.wav").read_bytes()
    pgm = corpus_file("coins.pgm").read_bytes()
    header = b"P5\n384 303\n255\n"
    assert wav[36:40] == b"data" and pgm.startswith(header)
    pixels = pgm[len(header):]
    return {
        "float32": np.array(words["np.float32"], np.uint32).view(np.float32),
        "float64": np.array(words["np.float64"], np.uint64).view(np.float64),
        "int16": np.frombuffer(wav[44:44 + (len(wav) - 44) // 2 * 2], "<i2"),
        "uint8": np.frombuffer(pixels[:len(pixels) // 384 * 384], np.uint8).reshape(-1, 384),
    }


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def _fresh(code: str, cwd: Path) -> str:
    """The standard output of `code` run by a new Python process (fade as installed)."""
    result = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                            text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr
    return result.stdout


def _registered(group: str) -> None:
    names = {entry.name: entry.value for entry in entry_points(group=group)}
    assert names.get("fade", "").startswith("fade."), \
        f"fade's {group} entry point is missing: install fade (pip install -e .)"


# -- numcodecs


def test_the_numcodecs_codec_codes_real_arrays_as_fade_archives():
    numcodecs = pytest.importorskip("numcodecs")
    from fade.numcodecs import Fade

    _registered("numcodecs.codecs")
    codec = numcodecs.get_codec({"id": "fade", "level": LEVEL})
    assert isinstance(codec, Fade) and codec == Fade(level=LEVEL)
    config = json.loads(json.dumps(codec.get_config()))  # what an array's metadata keeps
    assert config == {"id": "fade", "level": LEVEL, "network": False}
    assert numcodecs.get_codec(config) == codec
    for name, array in _real_arrays().items():
        chunk = codec.encode(array)
        assert len(chunk) < array.nbytes, name
        assert fade.decompress(bytes(chunk)) == array.tobytes(), name  # a plain fade archive
        out = np.empty_like(array)
        assert codec.decode(chunk, out=out) is not None
        assert np.array_equal(out.view(np.uint8), array.view(np.uint8)), name  # NaNs too
        assert bytes(codec.decode(chunk)) == array.tobytes(), name
        with pytest.raises(FadeError, match="holds"):
            codec.decode(chunk, out=np.empty(array.nbytes + 1, np.uint8))
    with pytest.raises(FadeError, match="unknown level"):
        Fade(level="fastest")
    with pytest.raises(FadeError, match="network"):
        Fade(network="yes")


# -- zarr

_READ_ZARR = """
import hashlib, sys, zarr, numpy as np
for path in sys.argv[1:]:
    array = zarr.open_array(path, mode="r")
    print(path, hashlib.sha256(np.ascontiguousarray(array[:]).tobytes()).hexdigest())
print("fade imported:", "fade" in sys.modules)
"""


def test_zarr_arrays_with_the_fade_codec_read_back_in_a_fresh_process(tmp_path):
    zarr = pytest.importorskip("zarr", minversion="3")
    import numcodecs
    from fade.zarr import FadeCodec

    _registered("zarr.codecs")
    arrays = _real_arrays()
    paths = {}
    for name, array in arrays.items():
        chunks = tuple(max(1, size // 3) for size in array.shape)  # several chunks, some cut
        v3 = zarr.create_array(tmp_path / f"{name}.v3.zarr", shape=array.shape,
                               dtype=array.dtype, chunks=chunks,
                               compressors=FadeCodec(level=LEVEL))
        v3[:] = array
        v2 = zarr.open_array(tmp_path / f"{name}.v2.zarr", mode="w", shape=array.shape,
                             dtype=array.dtype, chunks=chunks, zarr_format=2,
                             compressor=numcodecs.get_codec({"id": "fade", "level": LEVEL}))
        v2[:] = array
        paths[f"{name}.v3.zarr"] = paths[f"{name}.v2.zarr"] = _digest(array)
        stored = sum(file.stat().st_size for file in (tmp_path / f"{name}.v3.zarr").rglob("*")
                     if file.is_file() and file.name != "zarr.json")
        assert stored < array.nbytes, name
    metadata = json.loads((tmp_path / "int16.v3.zarr" / "zarr.json").read_text())
    assert metadata["codecs"][-1] == {"name": "fade",
                                      "configuration": {"level": LEVEL, "network": False}}
    script = tmp_path / "read.py"
    script.write_text(_READ_ZARR)
    lines = subprocess.run([sys.executable, str(script), *paths], cwd=tmp_path, text=True,
                           capture_output=True, timeout=600, check=True).stdout.splitlines()
    assert dict(line.split() for line in lines[:-1]) == paths
    # Found through the entry points: the reading process never named fade
    # (zarr imported it to decode).
    assert lines[-1] == "fade imported: True"
    with pytest.raises(FadeError, match="unknown level"):
        FadeCodec(level="fastest")


# -- fsspec and pandas


def test_fsspec_and_pandas_read_a_fade_csv_in_a_fresh_process(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    pandas = pytest.importorskip("pandas")
    import fade.fsspec  # noqa: F401  (registers "fade")

    csv = corpus_file("umath-cos.csv").read_bytes()
    with fsspec.open(str(tmp_path / "cos.csv.fade"), "wb", compression="infer") as file:
        file.write(csv)
    assert fade.decompress((tmp_path / "cos.csv.fade").read_bytes()) == csv
    expected = pandas.read_csv(io.BytesIO(csv), comment="#")
    # A new process: fsspec imported before fade registers it, with no
    # import of fade.fsspec; pandas reads through the file object.
    out = _fresh(
        "import hashlib, fsspec, fade, pandas\n"
        "with fsspec.open('cos.csv.fade', 'rt', compression='infer') as file:\n"
        "    table = pandas.read_csv(file, comment='#')\n"
        "print(table.shape, hashlib.sha256(table.to_csv().encode()).hexdigest())\n", tmp_path)
    assert expected.shape == (1370, 4)
    assert out.strip() == f"{expected.shape} {hashlib.sha256(expected.to_csv().encode()).hexdigest()}"


def test_a_seek_through_fsspec_decodes_only_the_frames_it_needs(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    import fade.fsspec  # noqa: F401

    data = corpus_file("alice29.txt").read_bytes()[:40_000]
    with fade.open(tmp_path / "alice.txt.fade", "wb", level=LEVEL, frame_size=4096) as file:
        file.write(data)
    with fsspec.open(str(tmp_path / "alice.txt.fade"), "rb", compression="infer") as file:
        assert file.seek(30_000) == 30_000
        assert file.read(5000) == data[30_000:35_000]
        assert file.frames_decoded == 2  # 28672-32767 and 32768-36863, of ten
        file.seek(0)
        assert file.read() == data


# -- shutil


def _a_real_folder(root: Path) -> Path:
    """A folder of real files: the corpus' small edge cases (an empty file, a
    1-byte one, text in other code pages, random bytes) and fade's own
    archive-format sources in a subfolder."""
    folder = root / "tree"
    (folder / "format").mkdir(parents=True)
    for file in corpus_file("edge").iterdir():
        if file.stat().st_size <= 11_000:
            shutil.copyfile(file, folder / file.name)
    for file in (REPO / "fade" / "format").glob("*.py"):
        shutil.copyfile(file, folder / "format" / file.name)
    return folder


def _files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_shutil_makes_and_unpacks_a_fadetar_of_a_real_folder(tmp_path):
    folder = _a_real_folder(tmp_path)
    assert ("fadetar", "tar file coded by fade") in shutil.get_archive_formats()
    name = shutil.make_archive(str(tmp_path / "out" / "backup"), "fadetar", tmp_path, "tree")
    assert name == str(tmp_path / "out" / "backup.tar.fade")
    assert sorted(os.listdir(tmp_path / "out")) == ["backup.tar.fade"]  # no partial left
    # The archive is a tar through fade: fade decodes it to a plain tar.
    with tarfile.open(fileobj=io.BytesIO(fade.decompress(Path(name).read_bytes()))) as tar:
        assert "tree/format/headers.py" in tar.getnames()
    # Unpacked by the suffix in a new process, after `import fade` alone.
    _fresh(f"import fade, shutil; shutil.unpack_archive({name!r}, 'restored')", tmp_path)
    assert _files(tmp_path / "restored" / "tree") == _files(folder)
    assert (tmp_path / "restored" / "tree" / "empty").stat().st_size == 0


def test_a_fadetar_cannot_write_outside_its_folder_nor_leave_a_partial_archive(tmp_path):
    payload = corpus_file("edge/quickfox").read_bytes()
    with fade.open(tmp_path / "evil.tar.fade", "wb", level=LEVEL) as file, \
            tarfile.open(fileobj=file, mode="w|") as tar:
        member = tarfile.TarInfo("../escaped.txt")
        member.size = len(payload)
        tar.addfile(member, io.BytesIO(payload))
    (tmp_path / "into").mkdir()
    if hasattr(tarfile, "data_filter"):
        with pytest.raises(tarfile.FilterError):
            shutil.unpack_archive(tmp_path / "evil.tar.fade", tmp_path / "into")
        assert not (tmp_path / "escaped.txt").exists()
    with pytest.raises(shutil.ReadError, match="no tar archive"):
        (tmp_path / "text.tar.fade").write_bytes(fade.compress(payload, level=LEVEL))
        shutil.unpack_archive(tmp_path / "text.tar.fade", tmp_path / "into")
    (tmp_path / "out").mkdir()
    with pytest.raises(FileNotFoundError):
        shutil.make_archive(str(tmp_path / "out" / "none"), "fadetar", tmp_path, "no such folder")
    assert os.listdir(tmp_path / "out") == []
