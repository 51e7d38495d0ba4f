"""Images (fade.statistics.pixels, .image and .colour; each level's models
for the kinds "image" and "pixels", plain, "-green" and "-green-swap", and
the band's, fade.statistics.models.BAND): the layout from a PNM or BMP
header, found from exactly the bytes before the pixels, and the image models
on real photos, decoded in fresh processes."""

import dataclasses
import struct

import numpy as np
import pytest

import fade
from fade import kinds, statistics
from fade.config import LEVELS
from fade.statistics.colour import from_green, to_green
from fade.statistics.models import BAND_MODELS, LEVEL_MODELS, MODEL_PARTS
from fade.statistics.parts import (F_BLOCK, F_CHROMA, F_FINAL2, F_GREEN, F_SETS, F_SWAP,
                                   part_names)
from fade.statistics.pixels import HEAD_LIMIT, Layout, image_layout, raw_layout

from conftest import corpus_file, decode_in_a_fresh_process, run_fade


def _gray_bmp(pixels: bytes, width: int, height: int) -> bytes:
    """An 8-bit BMP with a gray palette of `pixels` (rows top-down in
    `pixels`, written bottom-up and padded to 4 bytes as the format has it)."""
    stride = (width + 3) & ~3
    rows = [pixels[y * width:(y + 1) * width] + bytes(stride - width)
            for y in range(height - 1, -1, -1)]
    palette = bytes(b for v in range(256) for b in (v, v, v, 0))
    offset = 14 + 40 + len(palette)
    body = b"".join(rows)
    return (b"BM" + struct.pack("<IHHI", offset + len(body), 0, 0, offset)
            + struct.pack("<IiiHHIIiiII", 40, width, height, 1, 8, 0, len(body), 2835, 2835,
                          256, 0) + palette + body)


def _coins_bmp(rows: int = 100) -> bytes:
    """The first rows of coins.pgm (384 wide) as an 8-bit BMP."""
    coins = corpus_file("coins.pgm").read_bytes()
    return _gray_bmp(coins[15:15 + 384 * rows], 384, rows)


def test_layouts_from_headers():
    """PGM and PPM (with a comment, 8 and 16 bits) and BMP (8 bits with a
    palette; 24 bits padded) give where their pixels lie; other bytes,
    compressed BMPs and broken headers give none."""
    assert image_layout(corpus_file("coins.pgm").read_bytes()) == Layout(15, 384, 384, 1, 303)
    assert image_layout(corpus_file("chelsea.ppm").read_bytes()) == \
        Layout(15, 1353, 1353, 3, 300)
    assert image_layout(b"P6 # made\n# here\n3 2\n65535\n" + bytes(36)) == Layout(27, 18, 18, 6, 2)
    assert image_layout(_coins_bmp()) == Layout(1078, 384, 384, 1, 100)
    wide = bytearray(_gray_bmp(bytes(30), 10, 3)[:54] + bytes(3 * 12 * 3))
    struct.pack_into("<I", wide, 10, 54)
    struct.pack_into("<H", wide, 28, 24)
    assert image_layout(bytes(wide)) == Layout(54, 32, 30, 3, 3)
    compressed = bytearray(wide)
    struct.pack_into("<I", compressed, 30, 1)  # RLE8
    for data in (b"", b"P5", b"P5\n3 2\n", b"P5\n3 x\n255\n" + bytes(6), b"P4\n3 2\n" + bytes(2),
                 b"P5\n0 2\n255\n", bytes(compressed), corpus_file("alice29.txt").read_bytes(),
                 b"P5\n3 2\n255" + bytes(6)):
        assert image_layout(data) is None, data[:12]


@pytest.mark.parametrize("name", ["coins.pgm", "chelsea.ppm", "bmp"])
def test_layout_found_from_exactly_the_header(name):
    """What lets the decoder find the layout where the encoder did: no
    prefix shorter than the header gives a layout, the header alone gives
    the whole file's."""
    data = _coins_bmp() if name == "bmp" else corpus_file(name).read_bytes()
    layout = image_layout(data)
    assert layout is not None and layout.start < HEAD_LIMIT
    for end in range(layout.start):
        assert image_layout(data[:end]) is None, end
    assert image_layout(data[:layout.start]) == layout


def test_images_get_the_image_models_and_they_pay(tmp_path):
    """kinds.Screen finds a gray and a colour photo (and the gray one as a
    BMP) to be images, whatever share of their bytes reads as text, and
    other data not; levels fast, default and max code them with their
    models for images (for "image-green-swap" where their colours pay as
    green and differences, the last byte's first: the colour photo's band
    says so), smaller than with the level's model for other bytes
    ("binary"; at the default and max by at least 8%), and they decode in a
    fresh process."""
    for name in ("alice29.txt", "mapsdatazrh", "pydub-test4.wav"):
        assert kinds.Screen.of(corpus_file(name).read_bytes()[:60_000]).kind != "image"
    photos = {"coins.pgm": corpus_file("coins.pgm").read_bytes()[:24_000],
              "chelsea.ppm": corpus_file("chelsea.ppm").read_bytes()[:24_000],
              "coins.bmp": _coins_bmp(60)}
    for name, photo in photos.items():
        assert kinds.Screen.of(photo).kind == "image", name
    archives = {}
    for level, margin in (("fast", 1.0), ("default", 0.92), ("max", 0.92)):
        plain, green = LEVEL_MODELS[(level, "image")], LEVEL_MODELS[(level, "image-green-swap")]
        other = LEVEL_MODELS[(level, "binary")]
        for name, photo in photos.items():
            archive = fade.compress(photo, level=level, method="statistics")
            # (the colour photo went through JPEG: its colours pay as green and
            # differences)
            assert fade.read_header(archive).statistics.model == \
                (green if name == "chelsea.ppm" else plain), (level, name)
            against = fade.compress(photo, level=level, method="statistics",
                                    statistics_model=other)
            assert len(archive) < margin * len(against), (level, name)
            if level == "default" or name == "chelsea.ppm":
                archives[f"{level}-{name}"] = (archive, photo)
    decode_in_a_fresh_process(tmp_path, archives)


def test_a_colour_image_is_screened_once(monkeypatch):
    """Compressing a colour image codes its band both ways (kinds.band_sizes)
    once, at the default and at max: the race's choice and the plan share
    one screen (Settings.screen_of)."""
    calls = []
    measure = kinds.band_sizes
    monkeypatch.setattr(kinds, "band_sizes", lambda *args: calls.append(1) or measure(*args))
    photo = corpus_file("chelsea.ppm").read_bytes()[:30_000]
    for level in ("default", "max"):
        calls.clear()
        archive = fade.compress(photo, level=level)
        assert len(calls) == 1, level
        assert fade.read_header(archive).statistics.model == \
            LEVEL_MODELS[(level, "image-green-swap")]
        assert fade.decompress(archive) == photo


def test_image_whose_header_promises_more_than_there_is():
    """A header whose pixels run past the end (a cut file), or stop before
    it (bytes after the image), decodes exactly: the contexts follow the
    pixels there are, and the bytes after as other bytes."""
    coins = corpus_file("coins.pgm").read_bytes()
    for data in (coins[:5000], coins[:15] + coins[15:15 + 384 * 4] + b"trailer" * 300,
                 b"P5\n384 4\n255\n" + coins[15:15 + 384 * 4] + coins[:3000]):
        archive = fade.compress(data, level="default", method="statistics")
        assert fade.read_header(archive).statistics.model == LEVEL_MODELS[("default", "image")]
        assert fade.decompress(archive) == data


def test_damaged_image_archive_is_refused():
    """A flipped bit in an image archive's stream, or in raw pixels' (whose
    made header the decoder must find), gives a clean error, not wrong
    bytes (the decoder's header search stops where the check fails)."""
    photo = corpus_file("coins.pgm").read_bytes()[:20_000]
    for data, kind in ((photo, "image"), (photo[15:15 + 384 * 50], "pixels")):
        archive = bytearray(fade.compress(data, level="default", method="statistics"))
        assert fade.read_header(bytes(archive)).statistics.model == \
            LEVEL_MODELS[("default", kind)]
        for where in (38, 40, len(archive) // 2):
            damaged = bytearray(archive)
            damaged[where] ^= 0x10
            with pytest.raises(fade.FadeError):
                fade.decompress(bytes(damaged))


def test_random_pixels_cost_little_more_than_stored():
    """Noise under an image header: the image models cannot predict it and
    the size floor keeps the archive near the input's size."""
    noise = b"P5\n200 100\n255\n" + np.random.default_rng(5).bytes(20_000)
    archive = fade.compress(noise, level="default")
    assert len(archive) < len(noise) + 200
    assert fade.decompress(archive) == noise


def _pixels(name: str, rows: int) -> bytes:
    """The first `rows` rows of a corpus image's pixels, without its header."""
    data = corpus_file(name).read_bytes()
    layout = image_layout(data)
    return data[layout.start:layout.start + rows * layout.stride]


def test_raw_pixels_measured():
    """Pixels without a header: the row length and pixel size found from
    the bytes alone; text, code, map tiles, audio, records, zeros and
    noise are no pixels."""
    assert raw_layout(_pixels("coins.pgm", 170)) == Layout(0, 384, 384, 1, 170)
    assert raw_layout(_pixels("chelsea.ppm", 48)) == Layout(0, 1353, 1353, 3, 48)
    records = b"".join(b"%08d" % (i * 7919 % 100000) + bytes([i % 251, 3, 0, 1, i % 7, 9, 0, 2])
                       for i in range(4096))
    others = [corpus_file(name).read_bytes() for name in (
        "alice29.txt", "mapsdatazrh", "pydub-test1.wav", "edge/zeros", "edge/compressed_file")]
    for data in (*others, np.random.default_rng(3).bytes(65536), records):
        assert raw_layout(data) is None


def test_raw_pixels_get_the_pixel_models_and_they_pay(tmp_path):
    """Levels fast, default and max code raw pixels with their models for
    pixels, for "pixels-green-swap" where their colours pay as green and
    differences, the last byte's first (a PNM header of the measured layout
    coded first and dropped by the decoder), smaller than with the level's
    model for other bytes ("binary"; by 8% at the default and max), at most
    0.5% larger than the same image with its header; they decode in a fresh
    process. Forced on other bytes, a pixel model (the default's) codes them
    as other bytes after a one-pixel image."""
    photo = _pixels("chelsea.ppm", 20)
    assert kinds.Screen.of(photo).kind == "pixels"
    headed = b"P6\n451 20\n255\n" + photo
    # (its colours pay as green and differences)
    archives = {}
    for level, margin in (("fast", 1.0), ("default", 0.92), ("max", 0.92)):
        model = LEVEL_MODELS[(level, "pixels-green-swap")]
        other = LEVEL_MODELS[(level, "binary")]
        archive = fade.compress(photo, level=level, method="statistics")
        assert fade.read_header(archive).statistics.model == model
        against = fade.compress(photo, level=level, method="statistics", statistics_model=other)
        assert len(archive) < margin * len(against), level
        with_header = fade.compress(headed, level=level, method="statistics")
        assert len(archive) < 1.005 * len(with_header), level
        archives[level] = (archive, photo)
    decode_in_a_fresh_process(tmp_path, archives)
    text = corpus_file("alice29.txt").read_bytes()[:9000]
    pixels = LEVEL_MODELS[("default", "pixels")]
    forced = fade.compress(text, level="default", method="statistics", statistics_model=pixels)
    assert fade.read_header(forced).statistics.model == pixels
    assert fade.decompress(forced) == text


def test_sixteen_bit_gray_low_bytes_see_whole_samples(tmp_path):
    """A 16-bit gray sample's low byte is predicted from its neighbours'
    whole samples less its own high byte (`_px`; within VIEW past a byte's
    range), not from their low bytes, which wrap where the samples cross a
    multiple of 256. A 12-bit image made from coins.pgm (each sample 16
    times the photo's, plus its top 4 bits: edges cross such multiples)
    gets the default's model for images, at least 8% smaller than with its
    model for other bytes ("binary"), and decodes in a fresh process."""
    from fade.statistics.image import VIEW, _px, _sample
    buffer = np.frombuffer(bytes([0x01, 0xFE, 0x02, 0x03, 0x7F, 0x00]), dtype=np.uint8)
    # (a high byte's contexts read whole samples too, by where their high bytes lie)
    assert _sample(buffer, 4, 4) == 0x01FE and _sample(buffer, 6, 2) == 0x7F00
    assert _px(buffer, 5, -1, 0) == 0x00 and _px(buffer, 5, -1, 2) == 0x03
    assert _px(buffer, 5, 0x02, 2) == 0x03  # the sample 0x0203 less 0x0200
    assert _px(buffer, 5, 0x02, 4) == -2  # 0x01FE less 0x0200
    assert _px(buffer, 5, 0x00, 0) == 255 + VIEW  # 0x7F00 less 0: held within the view
    coins = np.frombuffer(corpus_file("coins.pgm").read_bytes()[15:15 + 384 * 80], np.uint8)
    samples = (coins.astype(np.uint16) * 16 + (coins >> 4)).astype(">u2")
    image = b"P5\n384 80\n65535\n" + samples.tobytes()
    archive = fade.compress(image, level="default", method="statistics")
    assert fade.read_header(archive).statistics.model == LEVEL_MODELS[("default", "image")]
    against = fade.compress(image, level="default", method="statistics",
                            statistics_model=LEVEL_MODELS[("default", "binary")])
    assert len(archive) < 0.92 * len(against)
    (tmp_path / "wide.fade").write_bytes(archive)
    result = run_fade("decompress", "-c", "wide.fade", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == image


def _image_coded(data: bytes, model: int, end: int):
    """Model `model`'s tables after coding the image `data` up to byte
    `end`, the layout taken from the header as coding.py takes it: the image
    contexts, weight sets and predictions of the next byte made."""
    from fade.statistics.coding import Tables
    from fade.statistics.compose import predictor_for
    from fade.statistics.models import MODEL_PARTS
    array = np.frombuffer(data, dtype=np.uint8)
    layout = image_layout(array)
    config = dataclasses.replace(LEVELS["default"].statistics, model=model)
    tables = Tables.build(config, 1, len(array))
    code = predictor_for(MODEL_PARTS[model])
    code.begin_streams(tables, np.zeros(1, np.int64), np.array([len(array)], np.int64))
    out = np.zeros(4 * len(array) + 64, dtype=np.uint8)
    code.encode_range(tables, array, 0, min(end, layout.start), out)
    if end >= layout.start:
        code.begin_image(tables, 0, layout.start, layout.end, layout.stride, layout.row,
                         layout.pixel)
        code.encode_range(tables, array, layout.start, end, out)
    return tables


def _sixteen_bit_coded(samples, left):
    """The default's image model's tables after coding `samples` (big-endian
    16-bit, rows by columns) as a PGM up to its last `left` bytes
    (`_image_coded`)."""
    head = b"P5\n%d %d\n65535\n" % (samples.shape[1], samples.shape[0])
    layout = image_layout(head + samples.tobytes())
    assert layout is not None and layout.pixel == 2 and layout.start == len(head)
    assert layout.stride == 2 * samples.shape[1]
    data = head + samples.tobytes()
    return _image_coded(data, LEVEL_MODELS[("default", "image")], len(data) - left)


def test_weight_sets_by_the_pixels_place():
    """Image models with F_SETS (the default's and max's) weigh the inputs
    with two more weight sets chosen by the plane and where the next byte's
    pixel is: its column and row within an 8x8 block (a JPEG's blocks), and
    its strip of IMAGE_STRIP columns; outside the pixels, the first of
    each."""
    from fade.statistics.layouts.image import IMAGE_STRIP, IMAGE_STRIPS, S_IMAGE_PHASE, S_IMAGE_STRIP
    head = b"P6\n40 12\n255\n"
    image = head + bytes((x * 7 + y * 3) % 256 for y in range(12) for x in range(120))
    assert IMAGE_STRIP == 16 and IMAGE_STRIPS == 128
    model = LEVEL_MODELS[("default", "image")]
    assert MODEL_PARTS[model] & F_SETS
    for (column, row, plane) in ((37, 10, 1), (0, 0, 0), (17, 7, 2), (8, 8, 0)):
        end = len(head) + row * 120 + column * 3 + plane
        streams = _image_coded(image, model, end).streams[0]
        assert streams[S_IMAGE_PHASE] == plane * 64 + (column % 8) * 8 + row % 8, (column, row)
        assert streams[S_IMAGE_STRIP] == plane * 128 + column // 16, (column, row)
    header = _image_coded(image, model, 4).streams[0]
    assert header[S_IMAGE_PHASE] == header[S_IMAGE_STRIP] == 0


def _made_colour_image():
    """A made-up 40x12 colour PPM: its header, its pixels (rows, columns,
    planes) and its bytes."""
    head = b"P6\n40 12\n255\n"
    pixels = np.array([(x * 7 + y * 3 + x * y) % 256 for y in range(12) for x in range(120)],
                      dtype=np.int64).reshape(12, 40, 3)
    return head, pixels, head + pixels.astype(np.uint8).tobytes()


def test_block_predictor_by_the_pixels_place_in_its_block():
    """Image models with F_BLOCK (the default's and max's) predict a pixel
    byte by least squares per plane and place in an 8x8 block (where a
    JPEG's blocks were), over BLOCK_OFFSETS' neighbours in the plane less W
    (the nearest in the picture where it has none), in place of the
    long-memory predictor. Its inputs and cell at a few bytes of a made-up
    colour image are those."""
    from fade.statistics.layouts.image import (BLOCK_INPUTS, BLOCK_OFFSETS, BLOCK_SIZE,
                                               OLS_SHIFTS, OLS_SIZE, S_BLOCK_INPUTS,
                                               S_IMAGE_PHASE)
    from fade.statistics.image import block_cell
    head, pixels, image = _made_colour_image()
    model = LEVEL_MODELS[("default", "image")]
    assert MODEL_PARTS[model] & F_BLOCK
    for (column, row, plane) in ((37, 10, 1), (0, 0, 0), (17, 7, 2), (2, 1, 0)):
        at = len(head) + row * 120 + column * 3 + plane
        streams = _image_coded(image, model, at).streams[0]
        w = pixels[row, column - 1, plane] if column else (
            pixels[row - 1, column, plane] if row else 0)
        expected = []
        for up, left in BLOCK_OFFSETS:
            y, x = max(row - up, 0), min(max(column - left, 0), 39)
            coded = (y, x) < (row, column)  # (else the byte itself or one after it: W)
            expected.append((pixels[y, x, plane] if coded else w) - w)
        assert list(streams[S_BLOCK_INPUTS:S_BLOCK_INPUTS + BLOCK_INPUTS]) == expected + [16]
        place = plane * 64 + (column % 8) * 8 + row % 8
        assert streams[S_IMAGE_PHASE] == place
        assert block_cell(streams[S_IMAGE_PHASE]) == \
            len(OLS_SHIFTS) * 4 * OLS_SIZE + place * BLOCK_SIZE


def test_chroma_contexts_read_the_differences_alone():
    """The colour models (F_CHROMA, with F_GREEN) give a colour pixel's
    differences contexts by the differences alone (fade.statistics.chroma):
    in the first, its W's and N's pairs of differences, and W's, N's and
    NW's alone; in the second, the first with W's two and with N's two. They
    are those at a few bytes of a made-up image (its bytes taken as green
    and differences, the last byte's first: the default's model for
    "image-green-swap"), where the default's plain image model, without
    F_GREEN and F_CHROMA, hashes others."""
    from fade.statistics.kernels import context_hash
    from fade.statistics.parts import IMAGE
    from fade.statistics.state import SCRATCH_HASHES
    head, pixels, image = _made_colour_image()
    chroma = LEVEL_MODELS[("default", "image-green-swap")]
    plain = LEVEL_MODELS[("default", "image")]
    assert MODEL_PARTS[chroma] & F_CHROMA and not MODEL_PARTS[plain] & F_CHROMA
    for (column, row, plane) in ((37, 10, 1), (5, 3, 1), (17, 7, 2), (20, 11, 2)):
        at = len(head) + row * 120 + column * 3 + plane
        hashes = {model: _image_coded(image, model, at).scratch[SCRATCH_HASHES + IMAGE:]
                  for model in (chroma, plain)}
        key = (plane + 1) << 40
        w, n, nw = pixels[row, column - 1], pixels[row - 1, column], pixels[row - 1, column - 1]
        if plane == 1:
            expected = {16: (key | (w[1] << 24) | (w[2] << 16) | (n[1] << 8) | n[2], 160),
                        17: (key | (w[1] << 8) | w[2], 161), 10: (key | (n[1] << 8) | n[2], 162),
                        8: (key | (nw[1] << 8) | nw[2], 163)}
        else:
            first = pixels[row, column, 1]
            expected = {16: (key | (first << 16) | (w[1] << 8) | w[2], 164),
                        17: (key | (first << 16) | (n[1] << 8) | n[2], 165)}
        for k, (context, salt) in expected.items():
            assert hashes[chroma][k] == context_hash(np.int64(context), salt), (column, row, k)
            assert hashes[plain][k] != hashes[chroma][k]


def test_sixteen_bit_high_bytes_predicted_from_whole_samples():
    """A 16-bit gray sample's high byte is predicted by the predictions of
    the neighbours' whole samples, then their high bytes (`_neighbours`
    with WHOLE, `_scaled`), so a carry below is seen: with W = 0x01F0,
    N = 0x0220 and NW = 0x0110 (W + N - NW = 0x0300), the gradient
    predicts a high byte of 3, where the high bytes' own gradient says 2."""
    from fade.statistics.image import WHOLE, _px, _scaled
    from fade.statistics.layouts.image import S_IMAGE_PREDICTIONS
    buffer = np.frombuffer(bytes([0x01, 0xFE, 0x02, 0x03]), dtype=np.uint8)
    assert _px(buffer, 4, WHOLE, 4) == 0x01FE and _px(buffer, 4, WHOLE, 2) == 0x0203
    assert _scaled(0x02FF, 8) == 2 and _scaled(-5, 8) == 0 and _scaled(70000, 8) == 255
    assert _scaled(300, 0) == 255 and _scaled(17, 0) == 17
    samples = np.full((2, 2), 0x0110, dtype=">u2")
    samples[0, 1], samples[1, 0], samples[1, 1] = 0x0220, 0x01F0, 0x0300
    tables = _sixteen_bit_coded(samples, 2)  # up to the last high byte
    predictions = tables.streams[0, S_IMAGE_PREDICTIONS:S_IMAGE_PREDICTIONS + 24] & 255
    assert predictions[0] == 3  # W + N - NW of the samples, not of the high bytes (2)
    assert predictions[2] == 1 and predictions[3] == 2  # W's and N's high bytes


def test_sixteen_bit_low_bytes_see_the_samples_before_as_eight_bit_gray_does():
    """A 16-bit gray sample's low byte takes its neighbours' samples less its
    own high byte (`_px`); "the bytes before" and their neighbours, which
    8-bit gray reads as W, WW and W's neighbours, are those samples too, not
    its own high byte and W's. With a high byte of 1 and W = 0x01F0,
    WW = 0x0105, N = 0x0220, NW = 0x0150 and NWW = 0x00F0 (seen as 240, 5,
    288, 80 and -16), the least-squares inputs are W less its neighbours."""
    from fade.statistics.layouts.image import S_OLS_INPUTS
    samples = np.array([[0x00F0, 0x0150, 0x0220], [0x0105, 0x01F0, 0x0180]], dtype=">u2")
    tables = _sixteen_bit_coded(samples, 1)  # up to the last low byte
    inputs = tables.streams[0, S_OLS_INPUTS + 7:S_OLS_INPUTS + 15]
    # W less WW, NW, NWW and N; WW less WWW (none: WW) and NWW; NW less NWW; N less NW
    assert list(inputs) == [235, 160, 256, -48, 0, 21, 96, 208]


def _unmoved(photo: bytes, start: int, width: int) -> bytes:
    """`photo` (pixels from `start`, rows of `width` pixels) with its green
    taken from 7 rows below and its blue from 13 rows to the right, each
    wrapping: the same planes, which no longer move together."""
    pixels = np.frombuffer(photo[start:], np.uint8)
    pixels = pixels[:len(pixels) // (3 * width) * 3 * width].reshape(-1, width, 3).copy()
    pixels[..., 1] = np.roll(pixels[..., 1], -7, axis=0)
    pixels[..., 2] = np.roll(pixels[..., 2], -13, axis=1)
    return photo[:start] + pixels.tobytes()


def test_colours_as_green_and_differences_where_that_pays(tmp_path):
    """fade.statistics.colour: a colour image's pixels become green, red
    less green and blue less green (modulo 256, plus 128) and back, its
    header, a BMP's row padding, a last row cut short and the bytes after
    the image as they are; gray images and other bytes are not changed. A
    photo that went through JPEG pays so (its colours move together): at the
    default it and its pixels alone get the models for "image-green-swap"
    and "pixels-green-swap" (the differences swapped, F_SWAP: the band's
    choice), smaller than with the plain image and pixel models; the same
    planes moved apart do not, and get the plain image model, smaller than
    with the colour ones; each decodes in a fresh process. At each level
    the colour models (F_GREEN, F_SWAP, F_CHROMA) code other bytes exactly
    as the level's plain image or pixel model (so tests/test_statistics.py
    codes those alone on them)."""
    chelsea = corpus_file("chelsea.ppm").read_bytes()
    bmp = bytearray(_gray_bmp(bytes(30), 10, 3)[:54] + bytes(range(96)))
    struct.pack_into("<I", bmp, 10, 54)
    struct.pack_into("<H", bmp, 28, 24)
    for data in (chelsea[:20_000], chelsea[:20_000] + b"after", bytes(bmp),
                 b"P6\n3 2\n255\n" + bytes(range(100, 118)) + b"tail"):
        array = np.frombuffer(data, np.uint8)
        green = to_green(array, F_GREEN)
        layout = image_layout(data)
        assert green[:layout.start].tobytes() == data[:layout.start]
        assert not np.array_equal(green, array) and from_green(green, F_GREEN).tobytes() == data
    assert to_green(np.frombuffer(bytes(bmp), np.uint8), F_GREEN)[54:57].tolist() == \
        [1, 127, 129]  # (blue, green, red 0, 1, 2: green, blue less green, red less green)
    swapped = to_green(np.frombuffer(bytes(bmp), np.uint8), F_GREEN | F_SWAP)
    assert swapped[54:57].tolist() == [1, 129, 127]  # (the last byte's difference first)
    assert from_green(swapped, F_GREEN | F_SWAP).tobytes() == bytes(bmp)
    assert bytes(bmp)[54 + 30:54 + 32] == to_green(
        np.frombuffer(bytes(bmp), np.uint8), F_GREEN)[54 + 30:54 + 32].tobytes()  # padding
    for data in (corpus_file("coins.pgm").read_bytes(), corpus_file("alice29.txt").read_bytes()):
        array = np.frombuffer(data[:5000], np.uint8)
        assert to_green(array, F_GREEN) is array
    photo = chelsea[:30_000]  # 22 rows: the smallest slice whose raw pixels are still found
    apart = _unmoved(photo, 15, 451)
    assert kinds.Screen.of(photo, measure=True).kind == "image-green-swap"
    assert kinds.Screen.of(apart, measure=True).kind == "image"
    archives = {}
    for name, data, kind, others in (
            ("photo", photo, "image-green-swap", ("image",)),
            ("apart", apart, "image", ("image-green", "image-green-swap")),
            ("pixels", photo[15:15 + 22 * 1353], "pixels-green-swap", ("pixels",))):
        archive = fade.compress(data, level="default", method="statistics")
        assert fade.read_header(archive).statistics.model == LEVEL_MODELS[("default", kind)], name
        for other in others:
            against = fade.compress(data, level="default", method="statistics",
                                    statistics_model=LEVEL_MODELS[("default", other)])
            assert len(archive) < len(against), (name, other)
        archives[name] = (archive, data)
    decode_in_a_fresh_process(tmp_path, archives)
    text = corpus_file("alice29.txt").read_bytes()[:5000]
    colour = F_GREEN | F_SWAP | F_CHROMA
    for level in ("fast", "default", "max"):
        config = LEVELS[level].statistics.sized(len(text))
        for base in ("image", "pixels"):
            plain = LEVEL_MODELS[(level, base)]
            coded = statistics.encode_file(text, dataclasses.replace(config, model=plain))
            for variant in ("-green", "-green-swap"):
                model = LEVEL_MODELS[(level, base + variant)]
                # (the same model but for its colours: else the bytes could differ anyway)
                assert MODEL_PARTS[model] & ~colour == MODEL_PARTS[plain] & ~colour, model
                assert MODEL_PARTS[model] & F_GREEN and not MODEL_PARTS[plain] & colour, model
                assert statistics.encode_file(text, dataclasses.replace(config, model=model)) \
                    == coded, (level, base + variant)


def test_a_second_final_mixer_makes_images_smaller():
    """The default's models for images (plain, and as green and differences
    swapped) are the band's (fade.statistics.models.BAND, which
    fade.kinds.colour_choice codes a band with) and a second final mixer
    (F_FINAL2), and code coins.pgm's first 40 KB and chelsea.ppm's (as
    green and differences) smaller (measured -0.52% and -1.29% when the
    mixer came)."""
    coins = corpus_file("coins.pgm").read_bytes()[:40_000]
    chelsea = corpus_file("chelsea.ppm").read_bytes()[:40_000]
    for data, kind in ((coins, "image"), (chelsea, "image-green-swap")):
        model, band = LEVEL_MODELS[("default", kind)], BAND_MODELS[kind]
        # (the band's model but for F_FINAL2)
        assert part_names(MODEL_PARTS[model] ^ MODEL_PARTS[band]) == ["F_FINAL2"], kind
        assert MODEL_PARTS[model] & F_FINAL2, kind
        config = LEVELS["default"].statistics.sized(len(data))
        sizes = [len(statistics.encode_file(data, dataclasses.replace(config, model=m)))
                 for m in (model, band)]
        assert sizes[0] < 0.997 * sizes[1], (kind, sizes)
