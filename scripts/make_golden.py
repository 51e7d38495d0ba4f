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
_CHELSEA = (Path(__file__).resolve().parent.parent / "tests" / "corpus" /
            "chelsea.ppm").read_bytes()
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
SETTINGS = dict(preset_name="tiny", batch_size=4, threads=1, seed=0, device="cpu")
FRAMED = (TEXT * 10)[:4096] + np.random.default_rng(7).bytes(4096) + TEXT * 4
ARCHIVES = {
    "tiny": (TEXT, dict(SETTINGS, method="fade", groups=1)),
    # Three groups of 3, 3 and 2 sub-streams: one payload each (format v4).
    "groups": (TEXT, dict(SETTINGS, method="fade", batch_size=8, groups=3)),
    # torch's own kernels: refused up front on machines unlike this one.
    "native": (TEXT, dict(SETTINGS, method="fade", groups=1, native=True)),
    "stored": (TEXT, dict(method="stored")),
    # The statistics alone (level fast, format v6; model 0) and mixed with the
    # network (the hybrid coding, two groups with their own statistics); model 1
    # of the statistics from format v8, alone in file order as the default level
    # writes them where the network cannot help.
    "statistics": (TEXT, dict(level="fast", method="statistics")),
    # (the default's text model until model 37, asked for by number since)
    "statistics-default": (TEXT, dict(level="default", method="statistics",
                                      statistics_model=1)),
    "hybrid": (TEXT, dict(SETTINGS, level="default", method="fade", batch_size=8, groups=2)),
    # Level max from fade 0.10 (still format v8): statistics model 3, alone in
    # file order and in the hybrid. (v8-statistics-max and v8-max-hybrid are
    # fade 0.9.0's level max, model 2: kept as written, never regenerated.)
    "statistics-max3": (TEXT, dict(level="max", method="statistics")),
    "max3-hybrid": (TEXT, dict(SETTINGS, level="max", method="fade", batch_size=8, groups=2)),
    # (v8-statistics-binary and -default-binary are RECORDS in models 4 and 5,
    # fade 0.11's first models for bytes that are not text: kept as written.)
    "statistics-records": (RECORDS, dict(level="fast", method="statistics")),
    "statistics-default-records": (RECORDS, dict(level="default", method="statistics",
                                                 statistics_model=20)),
    # Level max's bytes of no other kind since model 106 (model 6 with the
    # bytes at fixed distances back and a second final mixer; fade 0.11, v8),
    # asked for by number since model 139 (106 with max's text parts).
    "statistics-max-records106": (RECORDS, dict(level="max", method="statistics",
                                                statistics_model=106)),
    "statistics-max-records139": (RECORDS, dict(level="max", method="statistics")),
    # The default's since model 107 (model 20 with the same; fade 0.11, v8).
    "statistics-default-records107": (RECORDS, dict(level="default", method="statistics")),
    # Max's and the default's tables, markup, log lines and x86 code with a second
    # final mixer since models 108 to 115 (fade 0.11, still format v8).
    "statistics-max-table108": (TABLE, dict(level="max", method="statistics")),
    "statistics-max-markup109": (MARKUP, dict(level="max", method="statistics",
                                              statistics_model=109)),
    # Max's markup with the text's quieter inputs, finer run maps and text
    # contexts (109 asked for by number since): model 135 (asked for by number
    # since model 137, which adds model 136's groups and brackets).
    "statistics-max-markup135": (MARKUP, dict(level="max", method="statistics",
                                              statistics_model=135)),
    "statistics-max-markup137": (MARKUP, dict(level="max", method="statistics")),
    "statistics-max-log110": (LOG, dict(level="max", method="statistics")),
    "statistics-max-x86-111": (INSTRUCTIONS, dict(level="max", method="statistics")),
    "statistics-default-table112": (TABLE, dict(level="default", method="statistics")),
    "statistics-default-markup113": (MARKUP, dict(level="default", method="statistics")),
    "statistics-default-log114": (LOG, dict(level="default", method="statistics")),
    "statistics-default-x86-115": (INSTRUCTIONS, dict(level="default", method="statistics")),
    # Level max from fade 0.11 (still format v8): statistics model 6.
    # (level max's text model until model 36, asked for by number since)
    "statistics-max6": (TEXT, dict(level="max", method="statistics", statistics_model=6)),
    # Level max's text in a development build of fade 0.11 (still format v8):
    # model 36 (asked for by number since model 38).
    "statistics-max36": (TEXT, dict(level="max", method="statistics", statistics_model=36)),
    # The default's and max's text from fade 0.11 (still format v8): models 37
    # and 38 (model 1's golden above asked for by number since; model 38 since
    # model 65).
    "statistics-default37": (TEXT, dict(level="default", method="statistics",
                                        statistics_model=37)),
    "statistics-max38": (TEXT, dict(level="max", method="statistics", statistics_model=38)),
    # Max's text with the line-length context: model 65.
    "statistics-max65": (TEXT, dict(level="max", method="statistics", statistics_model=65)),
    # With the letter that last followed the word so far (model 65 asked for by
    # number since): model 73 (asked for by number since model 104).
    "statistics-max73": (TEXT, dict(level="max", method="statistics", statistics_model=73)),
    # With a second final mixer, by the text around the bit: model 104 (asked
    # for by number since model 131).
    "statistics-max104": (TEXT, dict(level="max", method="statistics", statistics_model=104)),
    # With its contexts' inputs quieter and its runs' maps finer: model 131
    # (asked for by number since model 132).
    "statistics-max131": (TEXT, dict(level="max", method="statistics", statistics_model=131)),
    # With thirteen more contexts of the text around the byte: model 132
    # (asked for by number since model 133).
    "statistics-max132": (TEXT, dict(level="max", method="statistics", statistics_model=132)),
    # With thirteen more again: model 133 (asked for by number since model 136,
    # which adds twelve of groups and brackets, two weight sets and slots).
    "statistics-max133": (TEXT, dict(level="max", method="statistics", statistics_model=133)),
    # Model 136 (asked for by number since model 138, which adds an input per
    # context where its bit history has seen one value only).
    "statistics-max136": (TEXT, dict(level="max", method="statistics", statistics_model=136)),
    "statistics-max138": (TEXT, dict(level="max", method="statistics")),
    "max6-hybrid": (TEXT, dict(SETTINGS, level="max", method="fade", batch_size=8, groups=2)),
    # (The three levels' tables and log lines before models 59 to 64, asked for by number since.)
    "statistics-table": (TABLE, dict(level="fast", method="statistics", statistics_model=7)),
    "statistics-default-table": (TABLE, dict(level="default", method="statistics",
                                             statistics_model=8)),
    "statistics-max-table": (TABLE, dict(level="max", method="statistics", statistics_model=9)),
    # The same with a field's length against the field above's: models 59 to 64.
    "statistics-table59": (TABLE, dict(level="fast", method="statistics")),
    "statistics-default-table60": (TABLE, dict(level="default", method="statistics",
                                               statistics_model=60)),
    "statistics-max-table61": (TABLE, dict(level="max", method="statistics",
                                           statistics_model=61)),
    "statistics-log62": (LOG, dict(level="fast", method="statistics")),
    "statistics-default-log63": (LOG, dict(level="default", method="statistics",
                                           statistics_model=63)),
    "statistics-max-log64": (LOG, dict(level="max", method="statistics",
                                       statistics_model=64)),
    # (The three levels' markup before models 56 to 58, asked for by number since.)
    "statistics-markup": (MARKUP, dict(level="fast", method="statistics", statistics_model=30)),
    "statistics-default-markup": (MARKUP, dict(level="default", method="statistics",
                                               statistics_model=31)),
    "statistics-max-markup": (MARKUP, dict(level="max", method="statistics",
                                           statistics_model=32)),
    # The same with a field's length against the field above's: models 56 to 58.
    "statistics-markup56": (MARKUP, dict(level="fast", method="statistics")),
    "statistics-default-markup57": (MARKUP, dict(level="default", method="statistics",
                                                 statistics_model=57)),
    "statistics-max-markup58": (MARKUP, dict(level="max", method="statistics",
                                             statistics_model=58)),
    # The default's and max's with two low orders keyed by the field or the text's
    # language (models 57 and 58 asked for by number since): models 68 and 69.
    "statistics-default-markup68": (MARKUP, dict(level="default", method="statistics",
                                                 statistics_model=68)),
    "statistics-max-markup69": (MARKUP, dict(level="max", method="statistics",
                                             statistics_model=69)),
    # With order 1 keyed the same way, at the default with max's runs and expected
    # byte (models 68 and 69 asked for by number since): models 70 and 71.
    "statistics-default-markup70": (MARKUP, dict(level="default", method="statistics",
                                                 statistics_model=70)),
    "statistics-max-markup71": (MARKUP, dict(level="max", method="statistics",
                                             statistics_model=71)),
    # The default's with the letter that last followed the word so far (model 70
    # asked for by number since; itself since model 75): model 72.
    "statistics-default-markup72": (MARKUP, dict(level="default", method="statistics",
                                                 statistics_model=72)),
    # Max's with it, without the two record contexts (model 71 asked for by number
    # since; itself since model 76): model 74.
    "statistics-max-markup74": (MARKUP, dict(level="max", method="statistics",
                                             statistics_model=74)),
    # The default's with a translation's words by its original's last word, and
    # weight sets that skip their tiny errors (model 72 asked for by number
    # since): model 75.
    "statistics-default-markup75": (MARKUP, dict(level="default", method="statistics",
                                                 statistics_model=75)),
    # Max's with the same, without the field's length against the field above's
    # (model 74 asked for by number since): model 76.
    "statistics-max-markup76": (MARKUP, dict(level="max", method="statistics",
                                             statistics_model=76)),
    # The default's text with the recalled letter, the line's length, the indirect
    # contexts and lazy weight sets (model 37 asked for by number since): model 77
    # (asked for by number since model 105).
    "statistics-default77": (TEXT, dict(level="default", method="statistics",
                                        statistics_model=77)),
    # With a second final mixer, by the text around the bit: model 105 (asked
    # for by number since model 134).
    "statistics-default105": (TEXT, dict(level="default", method="statistics",
                                         statistics_model=105)),
    # The default's text with model 132's contexts and quieter inputs (105 asked
    # for by number since): model 134.
    "statistics-default134": (TEXT, dict(level="default", method="statistics")),
    "statistics-log": (LOG, dict(level="fast", method="statistics", statistics_model=33)),
    "statistics-default-log": (LOG, dict(level="default", method="statistics",
                                         statistics_model=34)),
    "statistics-max-log": (LOG, dict(level="max", method="statistics", statistics_model=35)),
    "statistics-dna": (DNA, dict(level="fast", method="statistics")),
    "statistics-default-dna": (DNA, dict(level="default", method="statistics")),
    "statistics-max-dna": (DNA, dict(level="max", method="statistics")),
    # (v8-statistics-x86, -default-x86 and -max-x86 are CODE in models 13, 14
    # and 15, fade 0.11's first x86 models: kept as written, never regenerated.)
    "statistics-x86-instructions": (INSTRUCTIONS, dict(level="fast", method="statistics")),
    # (the default's and max's x86 models 17 and 18 asked for by number since 66 and 67)
    "statistics-default-x86-instructions": (INSTRUCTIONS, dict(level="default",
                                                               method="statistics",
                                                               statistics_model=17)),
    "statistics-max-x86-instructions": (INSTRUCTIONS, dict(level="max", method="statistics",
                                                           statistics_model=18)),
    # The same with five more instruction contexts: models 66 and 67.
    "statistics-default-x86-66": (INSTRUCTIONS, dict(level="default", method="statistics",
                                                     statistics_model=66)),
    "statistics-max-x86-67": (INSTRUCTIONS, dict(level="max", method="statistics",
                                                 statistics_model=67)),
    # (The three levels' audio before models 53 to 55, asked for by number since.)
    "statistics-audio": (AUDIO, dict(level="fast", method="statistics", statistics_model=21)),
    "statistics-default-audio": (AUDIO, dict(level="default", method="statistics",
                                             statistics_model=22)),
    "statistics-max-audio": (AUDIO, dict(level="max", method="statistics", statistics_model=23)),
    "statistics-default-audio24": (AUDIO24, dict(level="default", method="statistics",
                                                 statistics_model=22)),
    "statistics-default-audio-apart": (AUDIO_APART, dict(level="default", method="statistics",
                                                         statistics_model=22)),
    # The same with least squares of order 64: models 53 to 55 (54 and 55 asked
    # for by number since models 128 and 129).
    "statistics-audio53": (AUDIO, dict(level="fast", method="statistics")),
    "statistics-default-audio54": (AUDIO, dict(level="default", method="statistics",
                                               statistics_model=54)),
    "statistics-max-audio55": (AUDIO, dict(level="max", method="statistics",
                                           statistics_model=55)),
    "statistics-default-audio24-54": (AUDIO24, dict(level="default", method="statistics",
                                                    statistics_model=54)),
    "statistics-default-audio-apart54": (AUDIO_APART, dict(level="default",
                                                           method="statistics",
                                                           statistics_model=54)),
    "statistics-image": (IMAGE, dict(level="fast", method="statistics")),
    # (The default's and max's images before models 45 to 52, asked for by number since.)
    "statistics-default-image": (IMAGE, dict(level="default", method="statistics",
                                             statistics_model=25)),
    "statistics-max-image": (IMAGE, dict(level="max", method="statistics", statistics_model=26)),
    "statistics-default-image-bmp": (IMAGE_BMP, dict(level="default", method="statistics",
                                                     statistics_model=25)),
    "statistics-default-image16": (IMAGE16, dict(level="default", method="statistics",
                                                 statistics_model=25)),
    "statistics-image-green": (IMAGE_GREEN, dict(level="fast", method="statistics",
                                                 statistics_model=39)),
    "statistics-default-image-green": (IMAGE_GREEN, dict(level="default", method="statistics",
                                                         statistics_model=40)),
    "statistics-max-image-green": (IMAGE_GREEN, dict(level="max", method="statistics",
                                                     statistics_model=41)),
    # The colour image's pixels alone (raw, 4,608 bytes): models 27 to 29.
    "statistics-default-pixels": (IMAGE[13:], dict(level="default", method="statistics",
                                                   statistics_model=28)),
    # The same with the weight sets by the pixel's place: models 45 to 52
    # (asked for by number since models 78 to 85).
    "statistics-default-image45": (IMAGE, dict(level="default", method="statistics",
                                               statistics_model=45)),
    "statistics-max-image46": (IMAGE, dict(level="max", method="statistics",
                                           statistics_model=46)),
    "statistics-default-image16-45": (IMAGE16, dict(level="default", method="statistics",
                                                    statistics_model=45)),
    "statistics-default-pixels47": (IMAGE[13:], dict(level="default", method="statistics",
                                                     statistics_model=47)),
    "statistics-default-image-green49": (IMAGE_GREEN, dict(level="default", method="statistics",
                                                           statistics_model=49)),
    # The same with least squares per place in an 8x8 block: models 78 to 85
    # (asked for by number since models 116 to 127).
    "statistics-default-image78": (IMAGE, dict(level="default", method="statistics",
                                               statistics_model=78)),
    "statistics-max-image79": (IMAGE, dict(level="max", method="statistics",
                                           statistics_model=79)),
    "statistics-default-image16-78": (IMAGE16, dict(level="default", method="statistics",
                                                    statistics_model=78)),
    "statistics-default-pixels80": (IMAGE[13:], dict(level="default", method="statistics",
                                                     statistics_model=80)),
    "statistics-default-image-green82": (IMAGE_GREEN, dict(level="default",
                                                           method="statistics",
                                                           statistics_model=82)),
    # The same with the differences swapped, as its band chooses: models 86 to 91
    # (asked for by number since models 92 to 103).
    "statistics-image-green-swap86": (IMAGE_GREEN, dict(level="fast", method="statistics",
                                                        statistics_model=86)),
    "statistics-default-image-green-swap88": (IMAGE_GREEN, dict(level="default",
                                                                method="statistics",
                                                                statistics_model=88)),
    # The same with the differences' contexts by the differences: models 92 to
    # 103 (94, the differences in their first order, asked for by number; and
    # 100 since model 124).
    "statistics-image-green-swap98": (IMAGE_GREEN, dict(level="fast", method="statistics")),
    "statistics-default-image-green-swap100": (IMAGE_GREEN, dict(level="default",
                                                                 method="statistics",
                                                                 statistics_model=100)),
    "statistics-default-image-green94": (IMAGE_GREEN, dict(level="default",
                                                           method="statistics",
                                                           statistics_model=94)),
    # The default's and max's images and raw pixels with a second final mixer
    # since models 116 to 127 (fade 0.11, still format v8).
    "statistics-default-image116": (IMAGE, dict(level="default", method="statistics")),
    "statistics-max-image117": (IMAGE, dict(level="max", method="statistics")),
    "statistics-default-image16-116": (IMAGE16, dict(level="default", method="statistics")),
    "statistics-default-pixels118": (IMAGE[13:], dict(level="default", method="statistics")),
    "statistics-default-image-green-swap124": (IMAGE_GREEN, dict(level="default",
                                                                 method="statistics")),
    # The default's and max's audio with a second final mixer since models 128
    # and 129 (fade 0.11, still format v8; 129 asked for by number since 130).
    "statistics-default-audio128": (AUDIO, dict(level="default", method="statistics")),
    "statistics-max-audio129": (AUDIO, dict(level="max", method="statistics",
                                            statistics_model=129)),
    "statistics-default-audio24-128": (AUDIO24, dict(level="default", method="statistics")),
    "statistics-default-audio-apart128": (AUDIO_APART, dict(level="default",
                                                            method="statistics")),
    # Max's audio as the default's since model 130 (fade 0.11, still format v8).
    "statistics-max-audio130": (AUDIO, dict(level="max", method="statistics")),
    "floats-fast": (BF16, dict(method="floats", dtype="bf16", float_mode="fast",
                               float_codec="huffman")),
    "floats-strong": (NPY.getvalue(), dict(SETTINGS, method="floats", float_mode="strong")),
    # Three frames of at most 4 KiB (format v7): text, random bytes (stored by
    # the size floor), text; level fast, so the same bytes on every machine.
    "frames": (FRAMED, dict(level="fast", frame_size=4096)),
}


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
