"""Write the golden archives that pin the current format version.

    python scripts/make_golden.py [KIND ...]

Writes tests/golden/v<VERSION>-<kind>.fade for each kind below (or those
named), each beside the input it encodes. Run once per format version and never regenerate an
older version's files: old archives must keep decoding. Learned archives in
the portable profile (the default) decode on any x86-64 machine with AVX2
and the same torch; the native one only on machines like the one that made
it, and elsewhere it must be refused by name (tests/conftest.py,
`decodes_here`).
"""

import io
import struct
import sys
from pathlib import Path

import numpy as np

import fade
from fade.format.headers import VERSION
from fade.statistics.models import LEVEL_MODELS

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
# Made up here (not corpus data): text with repeats, so the model has something to learn.
TEXT = b"".join(b"fade golden archive, line %d: the quick brown fox jumps over the lazy dog\n"
                % i for i in range(6))
# A damped sine as bf16 words (float32 truncated to its high half), and as an
# fp32 .npy file, with a NaN, an infinity, -0.0 and a subnormal.
WAVE = (np.sin(np.arange(300) * 0.07) * np.exp(-np.arange(300) / 200)).astype(np.float32)
WAVE[[3, 50, 100, 150]] = [np.nan, np.inf, -0.0, 1e-40]
BF16 = (WAVE.view(np.uint32) >> 16).astype("<u2").tobytes()
NPY = io.BytesIO()
np.save(NPY, WAVE)
# Fixed-width binary records (an id, a count, a signed value, a float): bytes
# that are not text, which levels fast and default code with statistics
# models 4 and 5, then 19 and 20 (fade 0.11, still format v8).
RECORDS = b"".join(struct.pack("<IHhd", 1000 + 3 * i, i * i % 97, -7 * i, i / 8)
                   for i in range(64))
# A delimited table (comma-separated: an id, a count, a signed value, a
# label): text that levels fast, default and max code with statistics models
# 7, 8 and 9 (fade 0.11, still format v8).
TABLE = b"id,count,value,label\n" + b"".join(
    b"%d,%d,%d,%s\n" % (1000 + 3 * i, i * i % 97, -7 * i, (b"north", b"south", b"east")[i % 3])
    for i in range(48))
# Nucleotides as FASTA (made up here: random bases, a stretch of them again
# and its reverse complement, a soft-masked run and unknown bases, 60 to a
# line): text that levels fast, default and max code with statistics models
# 10, 11 and 12 (fade 0.11, still format v8).
_BASES = bytes(np.frombuffer(b"ACGT", dtype=np.uint8)[
    np.random.default_rng(11).integers(0, 4, 1500)])
_STRAND = (_BASES + _BASES[200:500] + _BASES[600:900][::-1].translate(
    bytes.maketrans(b"ACGT", b"TGCA")) + _BASES[:120].lower() + b"N" * 40)
DNA = b">golden sequence, made up\n" + b"".join(
    _STRAND[i:i + 60] + b"\n" for i in range(0, len(_STRAND), 60))
# x86-64 code as bytes (made up here: a function's prologue, calls to three
# targets and jumps back, between them register moves), which levels fast
# and default code with statistics models 13 and 14, the calls' distances as
# addresses (fade 0.11, still format v8).
CODE = b"".join(b"\x55\x48\x89\xe5" + struct.pack("<Bi", 0xE8, (4096, 8192, -2048)[i % 3] - 5 * i)
                + b"\x48\x89\xc7" + struct.pack("<Bi", 0xE9, -16 * i) + b"\x90" * (i % 4)
                for i in range(160))
# More of it (made up here too): loads and stores RIP-relative (one with an
# immediate after the displacement), a SIB form, two-byte opcodes, a VEX
# instruction and 16-bit operands, which models 16, 17 and 18 parse, the
# RIP-relative displacements coded as addresses (fade 0.11, format v8).
INSTRUCTIONS = CODE[:400] + b"".join(
    b"\x48\x8b\x05" + struct.pack("<i", 65536 - 7 * i)  # mov rax, [rip + d]
    + b"\x48\x8d\x3d" + struct.pack("<i", 4096 - 7 * i)  # lea rdi, [rip + d]
    + b"\xc7\x05" + struct.pack("<iI", 512 - 10 * i, i)  # mov dword [rip + d], imm32
    + b"\x8b\x44\x24" + bytes([8 * (i % 4)])  # mov eax, [rsp + disp8]
    + b"\x0f\xb6\xc0\x0f\x84" + struct.pack("<i", 32 * i)  # movzx eax, al; je rel32
    + b"\xc5\xf8\x77\x66\x81\xc1" + struct.pack("<H", i)  # vzeroupper; add cx, imm16
    + b"\xe8" + struct.pack("<i", -100 * i) + b"\xc3"
    for i in range(48))
# A WAV file of 16-bit PCM, stereo (made up here: a falling tone with a
# little noise, the right channel an echo of the left with an offset), which
# levels fast, default and max code with statistics models 21, 22 and 23 (53,
# 54 and 55 since),
# the samples as a predictor's residuals (fade 0.11, format v8).
_TIME = np.arange(1200)
_LEFT = (9000 * np.sin(_TIME * (0.05 - _TIME * 1e-5)) +
         np.random.default_rng(13).normal(0, 40, len(_TIME))).astype(np.int16)
_RIGHT = (np.roll(_LEFT, 3) // 2 + 1500).astype(np.int16)
_PCM = np.stack([_LEFT, _RIGHT], axis=1).astype("<i2").tobytes()
_FMT = struct.pack("<HHIIHH", 1, 2, 16000, 64000, 4, 16)
AUDIO = b"RIFF" + struct.pack("<I", 36 + len(_PCM)) + b"WAVEfmt " + struct.pack("<I", 16) + \
    _FMT + b"data" + struct.pack("<I", len(_PCM)) + _PCM
# Stereo whose channels move apart (the left as above, the right a tone of
# its own): a channel coded as it is, not as its side, after a few samples.
_APART = np.stack([_LEFT, (3000 * np.sin(_TIME * 0.02)).astype(np.int16)], axis=1)
_PCM_APART = _APART.astype("<i2").tobytes()
AUDIO_APART = b"RIFF" + struct.pack("<I", 36 + len(_PCM_APART)) + b"WAVEfmt " + \
    struct.pack("<I", 16) + _FMT + b"data" + struct.pack("<I", len(_PCM_APART)) + _PCM_APART
# The same as 24-bit samples, their low byte 0 but in the last (wasted bits,
# then not): what models 21 to 23 do with 24 bits.
_WIDE = np.stack([_LEFT, _RIGHT], axis=1).astype(np.int64).reshape(-1) << 8
_WIDE[-1] += 1
_PCM24 = _WIDE.astype("<i4").view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
AUDIO24 = b"RIFF" + struct.pack("<I", 36 + len(_PCM24)) + b"WAVEfmt " + \
    struct.pack("<IHHIIHH", 16, 1, 2, 16000, 96000, 6, 24) + b"data" + \
    struct.pack("<I", len(_PCM24)) + _PCM24
# Made up here too: a 48x32 colour image (smooth planes that move together,
# some noise) as binary PPM, and a 40x24 gray one as an 8-bit BMP with a gray
# palette (the pixels start after 1,078 bytes): what models 24 to 26 code.
_Y, _X = np.mgrid[0:32, 0:48]
_SMOOTH = 90 + 40 * np.sin(_X / 7.0) + 30 * np.cos(_Y / 5.0) + \
    np.random.default_rng(17).normal(0, 3, (32, 48))
_RGB = np.stack([_SMOOTH, _SMOOTH * 0.8 + 20, 200 - _SMOOTH * 0.5], axis=2)
IMAGE = b"P6\n48 32\n255\n" + np.clip(_RGB, 0, 255).astype(np.uint8).tobytes()
_GRAY = np.clip(_SMOOTH[:24, :40] * 1.2, 0, 255).astype(np.uint8)
IMAGE_BMP = b"BM" + struct.pack("<IHHI", 1078 + 40 * 24, 0, 0, 1078) + \
    struct.pack("<IiiHHIIiiII", 40, 40, 24, 1, 8, 0, 40 * 24, 2835, 2835, 256, 0) + \
    bytes(b for v in range(256) for b in (v, v, v, 0)) + _GRAY[::-1].tobytes()
# And a photo that went through JPEG (its colours stored at half the width):
# 160x24 pixels of tests/corpus/chelsea.ppm (from its 10th row and 100th
# column), which models 39 to 41 code as green and differences.
_CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"
_CHELSEA = (_CORPUS / "chelsea.ppm").read_bytes()
IMAGE_GREEN = b"P6\n160 24\n255\n" + b"".join(
    _CHELSEA[15 + y * 1353 + 300:15 + y * 1353 + 780] for y in range(10, 34))
# And a 40x24 16-bit gray one as PGM (the same planes, 60 times as deep, so
# the samples cross multiples of 256: a high byte's carries): model 25's
# 16-bit views (the low byte of whole samples less its high byte's; the
# high byte's predictions from whole samples).
IMAGE16 = b"P5\n40 24\n65535\n" + np.clip(_SMOOTH[:24, :40] * 60, 0, 65535).astype(
    ">u2").tobytes()
# Markup (made up here: an XML declaration, a comment, records of elements
# with quoted attributes, text by language, self-closing and nested tags, an
# HTML-style value without quotes): text that levels fast, default and max
# code with statistics models 30, 31 and 32 (fade 0.11, format v8).
_LANGUAGES = (b"en", b"de", b"fr")
_WORDS = (b"north", b"south", b"east", b"west")
MARKUP = b'<?xml version="1.0"?>\n<!-- made up for the golden archives -->\n<places>\n' + \
    b"".join(b'  <place id="p%d" kind=\'%s\' size="%d">\n' % (1000 + 3 * i, _WORDS[i % 4], i * i)
             + b"".join(b'    <name lang="%s">%s %d</name>\n' % (lang, _WORDS[(i + k) % 4], i)
                        for k, lang in enumerate(_LANGUAGES))
             + b'    <link href=#p%d rel=next/>\n  </place>\n' % (1003 + 3 * i)
             for i in range(24)) + b"</places>\n"
# Log lines (made up here: a timestamp, a level, a component and a message
# whose numbers and words change from line to line): text that levels fast,
# default and max code with statistics models 33, 34 and 35 (fade 0.11,
# format v8).
_LEVELS = (b"INFO", b"INFO", b"WARN", b"INFO", b"ERROR")
LOG = b"".join(
    b"2026-11-27 %02d:%02d:%02d,%03d %s [worker-%d] block blk_%d served to 10.0.%d.%d in %d ms\n"
    % (6 + i // 600, i // 10 % 60, i * 7 % 60, i * 37 % 1000, _LEVELS[i % 5], i % 4,
       9000 + 13 * i, i % 7, 20 + i % 50, 3 + i * i % 90) for i in range(64))
# JPEG photos (fade 0.12's model 45, 0.13's 48 and 49): libjpeg-turbo's test photo,
# baseline, and the same coefficients as a progressive JPEG (tests/corpus).
JPEG = (_CORPUS / "testorig.jpg").read_bytes()
JPEG_PROGRESSIVE = (_CORPUS / "testprog.jpg").read_bytes()
SETTINGS = dict(preset_name="tiny", batch_size=4, threads=1, seed=0, device="cpu")
FRAMED = (TEXT * 10)[:4096] + np.random.default_rng(7).bytes(4096) + TEXT * 4
ARCHIVES = {
    "tiny": (TEXT, dict(SETTINGS, method="fade", groups=1)),
    # Three groups of 3, 3 and 2 sub-streams: one payload each (format v4).
    "groups": (TEXT, dict(SETTINGS, method="fade", batch_size=8, groups=3)),
    # torch's own kernels: refused up front on machines unlike this one.
    "native": (TEXT, dict(SETTINGS, method="fade", groups=1, native=True)),
    "stored": (TEXT, dict(method="stored")),
    # The statistics alone (level fast, format v6; model 0, fast's text model
    # of fade 0.6 to 0.13) and mixed with the network (the hybrid coding, two
    # groups with their own statistics).
    "statistics": (TEXT, dict(level="fast", method="statistics", statistics_model=0)),
    # Each level's hybrid, with the level's text model (fade 0.11).
    "hybrid-default-text": (TEXT, dict(SETTINGS, level="default", method="fade", batch_size=8,
                                       groups=2)),
    "hybrid-max-text": (TEXT, dict(SETTINGS, level="max", method="fade", batch_size=8,
                                   groups=2)),
    # (v8-statistics-default, -max and -max3, v8-hybrid, v8-max-hybrid and
    # v8-max3-hybrid are fade 0.8 to 0.10's models 1 to 3, and
    # v8-statistics-*-jpeg*-0.12 fade 0.12's models 46 and 47: kept as
    # written, never regenerated.)
    "floats-fast": (BF16, dict(method="floats", dtype="bf16", float_mode="fast",
                               float_codec="huffman")),
    "floats-strong": (NPY.getvalue(), dict(SETTINGS, method="floats", float_mode="strong")),
    # Three frames of at most 4 KiB (format v7): text, random bytes (stored by
    # the size floor), text; level fast, so the same bytes on every machine
    # (its texts by model 0, fast's until fade 0.13).
    "frames": (FRAMED, dict(level="fast", frame_size=4096, statistics_model=0)),
}

# The statistics alone in file order, as each level writes them for each kind
# of bytes (fade.statistics.models.LEVEL_MODELS): v8-statistics-<level>-<kind>,
# and a variant of the kind's layout after it; each asks for its model by
# number (what the level itself writes for the input, tests/test_format.py
# checks: where the level's general model codes a tiny input smaller, that).
KIND_INPUTS = {"text": TEXT, "table": TABLE, "markup": MARKUP, "log": LOG, "dna": DNA,
               "x86": INSTRUCTIONS, "audio": AUDIO, "image": IMAGE, "image-green": IMAGE_GREEN,
               "image-green-swap": IMAGE_GREEN, "pixels": IMAGE[13:],
               "pixels-green": IMAGE_GREEN[15:], "pixels-green-swap": IMAGE_GREEN[15:],
               "jpeg": JPEG, "binary": RECORDS}
VARIANTS = {("default", "image"): {"16": IMAGE16},
            ("default", "audio"): {"24": AUDIO24, "-apart": AUDIO_APART},
            ("default", "jpeg"): {"-progressive": JPEG_PROGRESSIVE}}
for (_level, _kind), _number in LEVEL_MODELS.items():
    for _variant, _data in {"": KIND_INPUTS[_kind], **VARIANTS.get((_level, _kind), {})}.items():
        ARCHIVES[f"statistics-{_level}-{_kind}{_variant}"] = (_data, dict(
            level=_level, method="statistics", statistics_model=_number))


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, (data, settings) in ARCHIVES.items():
        if sys.argv[1:] and name not in sys.argv[1:]:
            continue
        stem = GOLDEN / f"v{VERSION}-{name}"
        stem.with_suffix(".input").write_bytes(data)
        if "frame_size" in settings:
            out = io.BytesIO()
            fade.compress_stream(io.BytesIO(data), out.write, **settings)
            stem.with_suffix(".fade").write_bytes(out.getvalue())
        else:
            stem.with_suffix(".fade").write_bytes(fade.compress(data, **settings))


if __name__ == "__main__":
    main()
