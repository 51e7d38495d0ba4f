"""Float data: bit splits, exponent codecs, containers, float archives end to end."""

import io
import json
import struct

import numpy as np
import pytest
import torch

import fade
from fade import floats, profile
from fade.format.archive import unpack
from fade.format.headers import Segment
from fade.single import model_header
from fade.floats.codecs import (CODEC_NAMES, DECODERS, ENCODERS, WINDOW, huffman_lengths,
                                window_base)
from fade.floats.formats import NotAContainer, detect
from fade.floats.layout import FLOAT_TYPES, pack_bits, split, unpack_bits

from conftest import corpus_file, one_error_line, run_fade

CODECS = ("auto",) + CODEC_NAMES


def bf16_words(values: np.ndarray) -> np.ndarray:
    """Round float32 to bf16 (nearest even), as torch does."""
    return torch.from_numpy(values.astype(np.float32)).to(torch.bfloat16).view(
        torch.int16).numpy().view(np.uint16)


SPECIAL = {  # NaN with payloads and sign, +-Inf, +-0, subnormals, extremes, 1.0
    "bf16": [0x7FC0, 0x7FC1, 0xFF81, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001, 0x807F, 0x7F7F,
             0x3F80],
    "fp16": [0x7E00, 0x7E01, 0xFC01, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001, 0x83FF, 0x7BFF,
             0x3C00],
    "fp32": [0x7FC00000, 0x7FC00001, 0xFF800001, 0x7F800000, 0xFF800000, 0, 0x80000000, 1,
             0x807FFFFF, 0x7F7FFFFF, 0x3F800000],
}


def tensor_bytes(name: str, count: int, sigma: float, seed: int = 0) -> bytes:
    """`count` N(0, sigma) values of type `name` with every special value mixed in."""
    values = np.random.default_rng(seed).standard_normal(count) * sigma
    if name == "bf16":
        words = bf16_words(values)
    else:
        with np.errstate(over="ignore"):
            words = values.astype(np.float16 if name == "fp16" else np.float32).view(
                FLOAT_TYPES[name].uint())
    words = words.copy()
    special = np.array(SPECIAL[name], FLOAT_TYPES[name].uint())
    words[7::97][:special.size] = special[:words[7::97].size]
    return words.tobytes()


@pytest.fixture(scope="module")
def trained() -> dict:
    """The tiny model's parameters after Adam steps on Canterbury text."""
    from fade.network import Predictor
    from fade.config import preset

    predictor = Predictor(preset("tiny"), 8, 0, torch.device("cpu"))
    text = np.frombuffer(corpus_file("alice29.txt").read_bytes()[:8 * 200], np.uint8)
    steps = torch.from_numpy(text.reshape(8, -1).astype(np.int64))
    for t in range(steps.shape[1]):
        predictor.probabilities()
        predictor.learn(0, steps[:, t])
        predictor.update()
    return {name: value.detach().float() for name, value in predictor.model.state_dict().items()}


@pytest.fixture(scope="module")
def checkpoint(trained) -> bytes:
    """A real checkpoint: `trained` as .safetensors with every tensor in fp32
    and again in bf16 and fp16, plus an int64 step counter (plain bytes)."""
    tensors = {}
    for name, value in trained.items():
        value = value.detach().float()
        tensors[name] = ("F32", value)
        tensors[name + ".bf16"] = ("BF16", value.to(torch.bfloat16))
        tensors[name + ".fp16"] = ("F16", value.to(torch.float16))
    tensors["step"] = ("I64", torch.tensor([200], dtype=torch.int64))
    return safetensors_bytes(tensors)


def safetensors_bytes(tensors: dict, gap: bytes = b"") -> bytes:
    header, blobs, offset = {"__metadata__": {"source": "fade tests"}}, [], 0
    for name, (dtype, value) in tensors.items():
        raw = value.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() + gap
        header[name] = {"dtype": dtype, "shape": list(value.shape),
                        "data_offsets": [offset, offset + len(raw) - len(gap)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


@pytest.mark.parametrize("width", range(1, 9))
def test_bit_packing_roundtrips(width):
    rng = np.random.default_rng(width)
    for count in (0, 1, 7, 8, 9, 1001):
        values = rng.integers(0, 1 << width, count).astype(np.uint8)
        packed = pack_bits(values, width)
        assert len(packed) == -(-count // 8) * width
        assert np.array_equal(unpack_bits(packed, width, count), values)


@pytest.mark.parametrize("name", list(FLOAT_TYPES))
@pytest.mark.parametrize("codec", CODECS)
def test_every_codec_is_bit_exact_on_special_values(name, codec):
    for sigma in (1e-3, 1.0, 1e4):
        data = b"head" + tensor_bytes(name, 5003, sigma) + b"tail"
        segments = [Segment("bytes", 4), Segment(name, len(data) - 8), Segment("bytes", 4)]
        coded, payload = floats.encode_fast(data, segments, codec)
        assert floats.decode_fast(tuple(coded), payload) == data
        assert floats.from_planes(floats.to_planes(data, segments), tuple(segments)) == data


def test_big_endian_values_roundtrip():
    data = np.frombuffer(tensor_bytes("fp32", 4000, 0.1), "<u4").astype(">u4").tobytes()
    segments = [Segment("fp32", len(data), big_endian=True)]
    for codec in CODECS:
        coded, payload = floats.encode_fast(data, segments, codec)
        assert floats.decode_fast(tuple(coded), payload) == data
    # Read in the right order, the exponents are those of the little-endian original.
    native = np.frombuffer(data, ">u4").astype("<u4")
    assert np.array_equal(split(native, FLOAT_TYPES["fp32"])[0],
                          split(np.frombuffer(tensor_bytes("fp32", 4000, 0.1), "<u4"),
                                FLOAT_TYPES["fp32"])[0])


def test_derived_window_covers_zipccl_share_of_a_gaussian():
    """ZipCCL: the derived 7-exponent window holds about 97.5% of N(0, sigma)
    BF16 values, and the counted top-7 about the same, for any sigma."""
    ftype = FLOAT_TYPES["bf16"]
    for sigma in (0.003, 0.02, 1.0, 50.0):
        words = bf16_words(np.random.default_rng(1).standard_normal(1 << 20) * sigma)
        exponents, _ = split(words, ftype)
        histogram = np.bincount(exponents, minlength=256)
        base = window_base(floats.sigma_of(words, ftype), ftype)
        window = histogram[base:base + WINDOW].sum() / words.size
        top7 = np.sort(histogram)[-7:].sum() / words.size
        assert abs(window - 0.975) < 0.01 and abs(top7 - 0.975) < 0.01, (sigma, window, top7)


def test_huffman_lengths_are_limited_and_complete():
    counts = (2 ** np.arange(30)).astype(np.int64)  # a Fibonacci-like skew: depth 29 unlimited
    lengths = huffman_lengths(counts, 16)
    assert lengths.max() <= 16 and lengths.min() >= 1
    assert np.sum(2.0 ** -lengths.astype(float)) == 1.0


@pytest.mark.parametrize("codec", CODEC_NAMES)
@pytest.mark.parametrize("count", [0, 1, 2, 255, 4097])
def test_every_codec_handles_any_length(codec, count):
    ftype = FLOAT_TYPES["fp16"]
    exponents, _ = split(np.frombuffer(tensor_bytes("fp16", count, 0.5), "<u2"), ftype)
    stream = ENCODERS[codec](exponents, ftype, 0.5)
    assert np.array_equal(DECODERS[codec](stream, count, ftype), exponents)


@pytest.mark.parametrize("codec", CODEC_NAMES)
def test_damaged_exponent_streams_raise_valueerror(codec):
    ftype = FLOAT_TYPES["bf16"]
    exponents, _ = split(bf16_words(np.random.default_rng(2).standard_normal(3000)), ftype)
    stream = ENCODERS[codec](exponents, ftype, 1.0)
    assert np.array_equal(DECODERS[codec](stream, exponents.size, ftype), exponents)
    for broken in (stream[:-1], stream[:len(stream) // 2], stream + b"\0"):
        with pytest.raises(ValueError):
            DECODERS[codec](broken, exponents.size, ftype)


@pytest.mark.parametrize("count", [0, 1, 254, 255, 256, 70001])
def test_torch_top16_gives_the_numpy_bytes(count):
    """The device path (run here on the CPU) writes and reads the same streams."""
    from fade.floats import on_device

    ftype = FLOAT_TYPES["bf16"]
    words = np.frombuffer(tensor_bytes("bf16", count, 0.02, seed=count), "<u2").copy()
    words[::50] = 0x0001  # subnormals: escapes in most blocks
    exponents, rest = split(words, ftype)
    stream, device_rest = on_device.encode_top16(torch.from_numpy(words.astype(np.int32)), ftype)
    assert stream == ENCODERS["top16"](exponents, ftype, 0.0) and device_rest == rest
    back = on_device.decode_top16(stream, rest, count, ftype, torch.device("cpu"))
    assert back.tobytes() == words.tobytes()


def test_rlh_wins_on_sparse_data_and_auto_picks_it():
    words = np.zeros(200000, np.uint16)
    words[::997] = bf16_words(np.ones(words[::997].size))
    coded, payload = floats.encode_fast(words.tobytes(), [Segment("bf16", words.nbytes)], "auto")
    sizes = {c: len(floats.encode_fast(words.tobytes(), [Segment("bf16", words.nbytes)], c)[1])
             for c in CODEC_NAMES}
    assert coded[0].codec == "rlh" == min(sizes, key=sizes.get)


def test_npy_files_are_found_with_their_header_as_bytes():
    for array in (np.arange(1000, dtype=np.float32) / 7, np.ones((30, 20), np.float16).T,
                  np.asfortranarray(np.eye(12, dtype=">f4")), np.float32(3.5)):
        buffer = io.BytesIO()
        np.save(buffer, array)
        data = buffer.getvalue()
        source, segments = detect(data)
        assert source == "npy" and segments[0].type == "bytes"
        assert segments[1].type == {"f4": "fp32", "f2": "fp16"}[array.dtype.str[1:]]
        assert segments[1].big_endian == (array.dtype.str[0] == ">")
        assert sum(s.length for s in segments) == len(data)
    buffer = io.BytesIO()
    np.save(buffer, np.arange(10, dtype=np.int64))
    assert detect(buffer.getvalue()) is None  # nothing to split: plain bytes


def test_safetensors_tensors_keep_their_types(checkpoint):
    source, segments = detect(checkpoint)
    assert source == "safetensors"
    kinds = {s.type for s in segments}
    assert kinds == {"bytes", "fp32", "bf16", "fp16"}
    assert sum(s.length for s in segments) == len(checkpoint)


@pytest.mark.parametrize("damage, reason", [
    (lambda d: d.replace(b'"__metadata__": ', b'"__metadata__"::', 1), "not JSON"),
    (lambda d: d.replace(b'"data_offsets": [0, ', b'"data_offsets": [9, ', 1), "wrong size"),
    (lambda d: d[:-100], "outside the file"),
])
def test_malformed_safetensors_is_reported(checkpoint, damage, reason):
    with pytest.raises(NotAContainer, match=reason):
        detect(damage(checkpoint))


def test_real_checkpoint_roundtrips_in_both_modes(checkpoint, trained):
    for codec in CODECS:
        archive = fade.compress(checkpoint, method="floats", float_mode="fast", float_codec=codec)
        assert len(archive) < len(checkpoint)
        assert fade.decompress(archive) == checkpoint
    # Strong mode runs the model: a few of the tensors, in bf16, keep it quick.
    some = safetensors_bytes({name: ("BF16", value.to(torch.bfloat16))
                              for name, value in list(trained.items())[:6]})
    archive = fade.compress(some, method="floats", float_mode="strong", preset_name="tiny",
                            batch_size=64)
    assert unpack(archive)[0].mode == "strong"
    assert fade.decompress(archive) == some


def test_floats_method_needs_float_data():
    with pytest.raises(fade.FadeError, match="no float data"):
        fade.compress(b"plain text " * 100, method="floats", float_mode="fast")
    with pytest.raises(fade.FadeError, match="needs float mode"):
        fade.compress(b"plain text " * 100, method="floats")
    with pytest.raises(fade.FadeError, match="not a whole number of fp32"):
        fade.compress(b"12345", dtype="fp32", float_mode="fast")


def test_fast_mode_codes_floats_at_every_level_and_strong_needs_a_network(checkpoint):
    """Fast mode runs no network: at level fast too it writes the floats
    archive of the other levels, and other bytes get the archive they get
    with float mode off (not the hybrid). What needs a network (strong
    mode, method fade) is refused at level fast, before any coding."""
    archive = fade.compress(checkpoint, method="floats", float_mode="fast")
    assert unpack(archive)[0].mode == "fast"
    for level in ("fast", "default", "max"):
        assert fade.compress(checkpoint, level=level, float_mode="fast") == archive, level
    text = corpus_file("alice29.txt").read_bytes()[:20_000]
    plain = fade.compress(text, float_mode="fast")
    assert unpack(plain)[0].method == "statistics" and plain == fade.compress(text)
    assert fade.compress(checkpoint, level="fast", method="floats", float_mode="fast") == archive
    for method, mode in (("auto", "strong"), ("floats", "strong"), ("fade", "off")):
        with pytest.raises(fade.FadeError, match="level fast runs no network"):
            fade.compress(checkpoint, level="fast", method=method, float_mode=mode)


def test_a_tensor_file_is_one_frame_whatever_the_jobs(checkpoint, monkeypatch):
    """compress_stream cuts an input into frames sized to it and the jobs
    (fade.frames.frame_size_for; its least frame lowered to 4 KiB here, so
    that two jobs would cut the checkpoint in two), which would leave the
    header describing tensors past the first frame and the floats unfound.
    With float mode on, a tensor file is read whole, one frame: the archive
    is compress's."""
    from fade import frames
    monkeypatch.setattr(frames, "MIN_AUTO_FRAME", 4096)
    assert frames.frame_size_for(len(checkpoint), 2) < len(checkpoint)
    out = io.BytesIO()
    frames.compress_stream(io.BytesIO(checkpoint), out.write, float_mode="fast", jobs=2)
    assert out.getvalue() == fade.compress(checkpoint, float_mode="fast")


# -- the CLI, in fresh processes -----------------------------------------------

def _roundtrip(tmp_path, name, data, *args):
    source = tmp_path / name
    source.write_bytes(data)
    result = run_fade("compress", "-f", *args, str(source), cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    packed = tmp_path / (name + ".fade")
    back = tmp_path / (name + ".out")
    result = run_fade("decompress", "-f", "-o", str(back), str(packed), cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    assert back.read_bytes() == data
    return packed.read_bytes(), result


@pytest.mark.parametrize("codec", CODECS)
def test_cli_fast_mode_roundtrips_every_codec(tmp_path, checkpoint, codec):
    archive, _ = _roundtrip(tmp_path, "model.safetensors", checkpoint,
                            "--floats", "fast", "--float-codec", codec)
    header = unpack(archive)[0]
    assert header.method == "floats" and header.mode == "fast"
    assert {s.codec for s in header.segments if s.type != "bytes"} <= set(CODEC_NAMES)
    if codec != "auto":
        assert {s.codec for s in header.segments if s.type != "bytes"} == {codec}


@pytest.mark.parametrize("dtype", list(FLOAT_TYPES))
def test_cli_raw_arrays_roundtrip_in_both_modes(tmp_path, dtype):
    data = tensor_bytes(dtype, 300, 0.05)
    archive, _ = _roundtrip(tmp_path, "raw.bin", data, "--dtype", dtype, "--floats", "fast",
                            "--method", "floats")
    assert unpack(archive)[0].segments[0].type == dtype
    archive, _ = _roundtrip(tmp_path, "raw.bin", data, "--dtype", dtype, "--preset", "tiny",
                            "--batch-size", "16", "--method", "floats", "--floats", "strong")
    assert unpack(archive)[0].mode == "strong"


def test_cli_npy_is_split_on_request_and_plain_bytes_by_default(tmp_path):
    buffer = io.BytesIO()
    np.save(buffer, np.sin(np.arange(1000, dtype=np.float32) / 50))
    archive, _ = _roundtrip(tmp_path, "wave.npy", buffer.getvalue(), "--preset", "tiny",
                            "--batch-size", "64", "--floats", "strong")
    header = unpack(archive)[0]
    assert (header.method, header.mode, header.source) == ("floats", "strong", "npy")
    # its byte planes are a learned archive: fade -l says what decodes it
    nested = model_header(archive)
    listed = run_fade("-l", "wave.npy.fade", cwd=tmp_path).stdout.decode().splitlines()
    assert listed[-1] == ("wave.npy.fade: a learned archive: it decodes only with "
                          f"{profile.decoded_by(nested.machine())}")
    archive, _ = _roundtrip(tmp_path, "wave.npy", buffer.getvalue(), "--preset", "tiny",
                            "--batch-size", "64")
    assert unpack(archive)[0].method == "fade"


def test_cli_malformed_safetensors_roundtrips_as_bytes(tmp_path):
    small = safetensors_bytes({"w": ("F32", torch.linspace(-1, 1, 300)),
                               "b": ("BF16", torch.linspace(0, 3, 100).to(torch.bfloat16))})
    broken = small[:-100]
    archive, _ = _roundtrip(tmp_path, "broken.safetensors", broken, "--preset", "tiny",
                            "--batch-size", "16", "--floats", "fast")
    assert unpack(archive)[0].method != "floats"
    result = run_fade("compress", "-f", "--preset", "tiny", "--batch-size", "16",
                      "--floats", "fast",
                      "-o", str(tmp_path / "b.fade"),
                      str(tmp_path / "broken.safetensors"), cwd=tmp_path)
    assert result.returncode == 0
    assert "lies outside the file; compressing it as plain bytes" in result.stderr.decode()


def test_cli_reports_bad_float_input_in_one_line(tmp_path):
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"\0" * 1001)
    one_error_line(run_fade("compress", "--dtype", "fp32", "--floats", "fast", str(odd),
                            cwd=tmp_path),
                   "odd.bin", "not a whole number of fp32 values")
    text = tmp_path / "text.txt"
    text.write_bytes(b"no floats here\n" * 40)
    one_error_line(run_fade("compress", "--method", "floats", "--floats", "fast", str(text),
                            cwd=tmp_path),
                   "no float data found")
    assert not (tmp_path / "odd.bin.fade").exists() and not (tmp_path / "text.txt.fade").exists()


@pytest.fixture(scope="module")
def checkpoint_archive(checkpoint, tmp_path_factory) -> bytes:
    """`checkpoint` compressed by the command line in fast mode."""
    source = tmp_path_factory.mktemp("damaged") / "model.safetensors"
    source.write_bytes(checkpoint)
    assert run_fade("compress", "--floats", "fast", str(source), cwd=source.parent).returncode == 0
    return source.with_name("model.safetensors.fade").read_bytes()


@pytest.mark.parametrize("cut", [10, 25, 40, 60, -1, -30])
def test_cli_damaged_float_archives_fail_in_one_line(tmp_path, checkpoint_archive, cut):
    archive = checkpoint_archive
    damaged = tmp_path / "damaged.fade"
    flipped = bytearray(archive)
    flipped[cut] ^= 0x20
    for blob in (archive[:cut], bytes(flipped)):
        damaged.write_bytes(blob)
        one_error_line(run_fade("decompress", "-f", "-o", str(tmp_path / "out"), str(damaged),
                                cwd=tmp_path), "damaged.fade")
        assert not (tmp_path / "out").exists()


def test_cli_suggests_fast_mode_for_large_tensor_files(tmp_path, monkeypatch, capsys):
    from fade.cli import encode, main as cli

    buffer = io.BytesIO()
    np.save(buffer, np.linspace(-1, 1, 400, dtype=np.float32))
    source = tmp_path / "w.npy"
    source.write_bytes(buffer.getvalue())
    monkeypatch.setattr(encode, "LARGE_FLOAT_FILE", 1000)  # instead of 16 MiB
    assert cli.main(["compress", "--preset", "tiny", "--batch-size", "16", str(source)]) == 0
    assert "--floats fast at hundreds of MB/s" in capsys.readouterr().err
    assert unpack((tmp_path / "w.npy.fade").read_bytes())[0].method != "floats"
    monkeypatch.setattr(encode, "LARGE_FLOAT_FILE", 10 ** 6)
    assert cli.main(["compress", "-f", "--preset", "tiny", "--batch-size", "16", str(source)]) == 0
    assert "--floats" not in capsys.readouterr().err


def test_a_floats_archive_nested_in_a_floats_archive_is_refused():
    """Strong mode nests a plain archive; a crafted one nesting a floats
    archive (which could recurse) is damage, reported as such."""
    from fade.format.archive import pack_floats

    inner = fade.compress(tensor_bytes("bf16", 64, 1.0), method="floats", dtype="bf16",
                          float_mode="fast")
    original = fade.decompress(inner)
    outer = pack_floats("strong", "raw", (Segment("bytes", len(original)),), original, inner)
    with pytest.raises(fade.CorruptArchiveError, match="nests another floats archive"):
        fade.decompress(outer)
