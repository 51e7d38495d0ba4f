"""The table of statistics models: one entry each, read by everything else.

A model is a set of parts (fade.statistics.parts) and its hash table's size
per byte of input, made for one kind of bytes (fade.kinds.Screen.kind) at one
level. An archive records a model by its number, its index in MODELS.
Numbers are handed out by releases, never by experiments (docs/format.md,
"Model numbers"): 0 to 3 are the models fade 0.6 to 0.10 wrote, 4 to 44
those fade 0.11 writes, one for each level and kind, 45 to 47 fade
0.12's for JPEG photos, 48 and 49 fade 0.13's and 50 fade 0.14's for
text at fast; a released number
keeps its parts and table size forever (tests/golden/models.txt freezes
them). A candidate model between releases is named in CANDIDATES, never
numbered: it is measured (`scripts/statistics_sweep.py --model NAME`) but
never archived, and the release commit moves it into MODELS with the next
free number.

From this table come the header's limit on the model field
(fade.config.STATISTICS_LIMITS), each level's model for each kind
(LEVEL_MODELS, read by fade.statistics.choice), the table sizes
(StatisticsConfig.sized), the level in `fade -l` and the table in
docs/statistics.md (`python -m fade.statistics.listing`; a test compares).
"""

from __future__ import annotations

from dataclasses import dataclass

from fade.statistics.parts import (
    F_APM3, F_AUDIO, F_BIGRAM, F_BLOCK, F_CHROMA, F_COLUMNS, F_DISTANT, F_DNA, F_E8E9, F_EXPECTED,
    F_FIELD_ORDER1, F_FIELD_ORDERS, F_FINAL2, F_GREEN, F_IMAGE, F_INDIRECT, F_JPEG, F_JPEG2,
    F_LAYERS, F_LAZY, F_LENGTH, F_LINES, F_LOG, F_MARKUP, F_NUMBERS, F_OLS64, F_ORDER0, F_ORDERS,
    F_PIXELS, F_QUIET, F_RATE, F_RECALL, F_RECORD, F_RECORDS, F_RUNKEYS, F_RUNS, F_SEEN, F_SETS,
    F_SETS4, F_SETS5, F_SKIPGRAM, F_SOURCE, F_SPARSE, F_SPARSE2, F_SSE, F_STATES, F_STRIDE, F_SURE,
    F_SWAP, F_TABLE, F_TEXT, F_TEXT2, F_TEXT3, F_TRIGRAM, F_WORDS, F_WORDSET, F_X86, F_X86MORE)

LEVELS = ("fast", "default", "max")
# What fade.kinds.Screen says the bytes are; each level has a model for each.
KINDS = ("text", "table", "markup", "log", "dna", "x86", "audio", "image", "image-green",
         "image-green-swap", "pixels", "pixels-green", "pixels-green-swap", "jpeg", "binary")


@dataclass(frozen=True)
class Model:
    """One statistics model (StatisticsConfig.model is its index in MODELS)."""

    kind: str | None  # the bytes it is for (fade.kinds.Screen.kind); None: any
    level: str  # the level that writes it (or wrote it, in an earlier release)
    parts: int  # bits of fade.statistics.parts
    slots_per_byte_bits: int = 2  # log2 of hash table slots a byte of input (sized)
    current: bool = True  # whether its level writes it today (else: older archives only)


# Models 1 to 3's parts (fade 0.8 to 0.10): each the one before and more.
_M1 = F_BIGRAM | F_SKIPGRAM | F_SPARSE | F_LAYERS | F_APM3 | F_RATE
_M2 = _M1 | F_ORDERS | F_TRIGRAM | F_COLUMNS | F_SETS | F_INDIRECT | F_WORDSET
_M3 = _M2 | F_RUNS | F_EXPECTED | F_SPARSE2 | F_RECORD
# Models 46 and 47's (fade 0.12: JPEG photos at the default and max).
_JPEG_MORE = F_LAYERS | F_APM3 | F_RATE | F_SPARSE2 | F_RECORD | F_STRIDE | F_RECORDS | F_JPEG | \
    F_JPEG2

MODELS: tuple[Model, ...] = (
    # 0: fade 0.6 to 0.10's `fast`, and fade 0.11 to 0.13's `fast` for text
    Model("text", "fast", 0, 2, current=False),
    # 1: fade 0.8 to 0.10's `default` (its hybrid)
    Model("text", "default", _M1, 2, current=False),
    # 2: fade 0.9's `max`
    Model(None, "max", _M2, 2, current=False),
    # 3: fade 0.10's `max`
    Model(None, "max", _M3, 2, current=False),
    # 4 to 44: fade 0.11, by kind, each at fast, default and max
    # 4
    Model("text", "default", _M1 | F_INDIRECT | F_STATES | F_WORDS | F_SSE | F_LINES | F_RECALL |
          F_LAZY | F_FINAL2 | F_QUIET | F_TEXT, 3),
    # 5
    Model("text", "max", _M3 | F_SETS4 | F_STRIDE | F_STATES | F_WORDS | F_SSE | F_LINES | F_RECALL
          | F_FINAL2 | F_QUIET | F_RUNKEYS | F_TEXT | F_TEXT2 | F_TEXT3 | F_SETS5 | F_SURE, 5),
    # 6
    Model("table", "fast", F_TABLE | F_LENGTH, 2),
    # 7
    Model("table", "default", _M1 | F_TABLE | F_WORDS | F_SSE | F_LENGTH | F_FINAL2, 3),
    # 8
    Model("table", "max", F_BIGRAM | F_SPARSE | F_LAYERS | F_APM3 | F_RATE | F_ORDERS | F_COLUMNS |
          F_SETS | F_INDIRECT | F_WORDSET | F_RUNS | F_EXPECTED | F_SPARSE2 | F_RECORD | F_SETS4 |
          F_STRIDE | F_TABLE | F_WORDS | F_SSE | F_LENGTH | F_FINAL2, 3),
    # 9
    Model("markup", "fast", F_TABLE | F_MARKUP | F_LENGTH, 2),
    # 10
    Model("markup", "default", F_BIGRAM | F_SPARSE | F_LAYERS | F_APM3 | F_RATE | F_ORDERS |
          F_COLUMNS | F_SETS | F_INDIRECT | F_WORDSET | F_RUNS | F_EXPECTED | F_TABLE | F_MARKUP |
          F_WORDS | F_SSE | F_LENGTH | F_FIELD_ORDERS | F_FIELD_ORDER1 | F_RECALL | F_SOURCE |
          F_LAZY | F_FINAL2, 3),
    # 11
    Model("markup", "max", F_BIGRAM | F_SPARSE | F_LAYERS | F_APM3 | F_RATE | F_ORDERS | F_COLUMNS
          | F_SETS | F_INDIRECT | F_WORDSET | F_RUNS | F_EXPECTED | F_SETS4 | F_TABLE | F_MARKUP |
          F_WORDS | F_SSE | F_FIELD_ORDERS | F_FIELD_ORDER1 | F_RECALL | F_SOURCE | F_LAZY |
          F_FINAL2 | F_QUIET | F_RUNKEYS | F_TEXT | F_TEXT3, 3),
    # 12
    Model("log", "fast", F_TABLE | F_LOG | F_LENGTH, 2),
    # 13
    Model("log", "default", F_BIGRAM | F_SPARSE | F_LAYERS | F_APM3 | F_RATE | F_ORDERS | F_COLUMNS
          | F_SETS | F_INDIRECT | F_WORDSET | F_TABLE | F_LOG | F_WORDS | F_SSE | F_LENGTH |
          F_FINAL2, 3),
    # 14
    Model("log", "max", F_BIGRAM | F_SPARSE | F_LAYERS | F_APM3 | F_RATE | F_ORDERS | F_COLUMNS |
          F_SETS | F_INDIRECT | F_WORDSET | F_RUNS | F_EXPECTED | F_SPARSE2 | F_RECORD | F_SETS4 |
          F_STRIDE | F_TABLE | F_LOG | F_WORDS | F_SSE | F_LENGTH | F_FINAL2, 3),
    # 15
    Model("dna", "fast", F_DNA, 2),
    # 16
    Model("dna", "default", _M1 | F_DNA, 2),
    # 17
    Model("dna", "max", _M1 | F_SETS | F_DNA, 2),
    # 18
    Model("x86", "fast", F_SPARSE | F_SPARSE2 | F_RECORD | F_E8E9 | F_X86, 2),
    # 19
    Model("x86", "default", _M1 | F_RUNS | F_SPARSE2 | F_RECORD | F_STRIDE | F_E8E9 | F_X86 |
          F_X86MORE | F_FINAL2, 2),
    # 20
    Model("x86", "max", _M3 | F_SETS4 | F_STRIDE | F_E8E9 | F_X86 | F_X86MORE | F_FINAL2, 3),
    # 21
    Model("audio", "fast", F_SPARSE | F_SPARSE2 | F_RECORD | F_STRIDE | F_RECORDS | F_AUDIO |
          F_OLS64, 2),
    # 22
    Model("audio", "default", _M1 | F_SPARSE2 | F_RECORD | F_STRIDE | F_RECORDS | F_AUDIO | F_OLS64
          | F_FINAL2, 2),
    # 23
    Model("audio", "max", _M1 | F_SPARSE2 | F_RECORD | F_STRIDE | F_RECORDS | F_AUDIO | F_OLS64 |
          F_FINAL2, 2),
    # 24
    Model("image", "fast", F_IMAGE, 2),
    # 25
    Model("image", "default", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_BLOCK | F_FINAL2,
          2),
    # 26
    Model("image", "max", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_BLOCK | F_FINAL2, 3),
    # 27
    Model("image-green", "fast", F_IMAGE | F_GREEN | F_CHROMA, 2),
    # 28
    Model("image-green", "default", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_GREEN |
          F_BLOCK | F_CHROMA | F_FINAL2, 2),
    # 29
    Model("image-green", "max", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_GREEN | F_BLOCK |
          F_CHROMA | F_FINAL2, 3),
    # 30
    Model("image-green-swap", "fast", F_IMAGE | F_GREEN | F_SWAP | F_CHROMA, 2),
    # 31
    Model("image-green-swap", "default", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_GREEN |
          F_BLOCK | F_SWAP | F_CHROMA | F_FINAL2, 2),
    # 32
    Model("image-green-swap", "max", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_GREEN |
          F_BLOCK | F_SWAP | F_CHROMA | F_FINAL2, 3),
    # 33
    Model("pixels", "fast", F_IMAGE | F_PIXELS, 2),
    # 34
    Model("pixels", "default", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_PIXELS | F_BLOCK |
          F_FINAL2, 2),
    # 35
    Model("pixels", "max", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_PIXELS | F_BLOCK |
          F_FINAL2, 3),
    # 36
    Model("pixels-green", "fast", F_IMAGE | F_PIXELS | F_GREEN | F_CHROMA, 2),
    # 37
    Model("pixels-green", "default", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_PIXELS |
          F_GREEN | F_BLOCK | F_CHROMA | F_FINAL2, 2),
    # 38
    Model("pixels-green", "max", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_PIXELS | F_GREEN
          | F_BLOCK | F_CHROMA | F_FINAL2, 3),
    # 39
    Model("pixels-green-swap", "fast", F_IMAGE | F_PIXELS | F_GREEN | F_SWAP | F_CHROMA, 2),
    # 40
    Model("pixels-green-swap", "default", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_PIXELS
          | F_GREEN | F_BLOCK | F_SWAP | F_CHROMA | F_FINAL2, 2),
    # 41
    Model("pixels-green-swap", "max", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_PIXELS |
          F_GREEN | F_BLOCK | F_SWAP | F_CHROMA | F_FINAL2, 3),
    # 42
    Model("binary", "fast", F_SPARSE | F_SPARSE2 | F_RECORD | F_STRIDE | F_RECORDS, 2),
    # 43
    Model("binary", "default", _M1 | F_SPARSE2 | F_RECORD | F_STRIDE | F_RECORDS | F_FINAL2 |
          F_DISTANT, 2),
    # 44
    Model("binary", "max", _M3 | F_SETS4 | F_STRIDE | F_WORDS | F_SSE | F_FINAL2 | F_DISTANT |
          F_QUIET | F_RUNKEYS | F_TEXT | F_TEXT2 | F_TEXT3 | F_SETS5, 4),
    # 45 (fade 0.12): JPEG photos at fast: F_JPEG's contexts alone, mixed by one layer
    Model("jpeg", "fast", F_JPEG, 2),
    # 46: and the default's, with more of them (F_JPEG2), its general parts and
    # the record and stride contexts, for what lies between the scans
    Model("jpeg", "default", _JPEG_MORE, 2, current=False),
    # 47: max's, the default's parts (the network is not run on JPEG photos)
    Model("jpeg", "max", _JPEG_MORE, 2, current=False),
    # 48 (fade 0.13): the default's for JPEG photos, 46's parts and the lines
    # of 16-bit numbers (F_NUMBERS: an ICC profile's tables between the scans)
    Model("jpeg", "default", _JPEG_MORE | F_NUMBERS, 2),
    # 49: max's, the default's parts
    Model("jpeg", "max", _JPEG_MORE | F_NUMBERS, 2),
    # 50 (fade 0.14): `fast`'s for text, model 0 with bit-history states, a
    # third APM, a faster start, a weight set by the contexts seen, an
    # order-0 input and no step for a small miss (below lpaq1's bytes:
    # docs/results.md, "fast's text below lpaq1's bytes")
    Model("text", "fast", F_STATES | F_APM3 | F_RATE | F_SEEN | F_ORDER0 | F_LAZY, 2),
)

# Not archive models: what fade.kinds.colour_choice codes a colour image's
# band with, to choose between its kinds (the default's image models before
# their second final mixer, so that the choice stays what it was). Their
# indices follow MODELS'; StatisticsConfig.validate refuses them in an
# archive.
BAND: tuple[Model, ...] = (
    # image
    Model("image", "default", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_BLOCK, 2),
    # image-green
    Model("image-green", "default", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_GREEN |
          F_BLOCK | F_CHROMA, 2),
    # image-green-swap
    Model("image-green-swap", "default", F_LAYERS | F_APM3 | F_RATE | F_SETS | F_IMAGE | F_GREEN |
          F_BLOCK | F_SWAP | F_CHROMA, 2),
)
BAND_MODELS = {model.kind: len(MODELS) + k for k, model in enumerate(BAND)}
# Candidate models between releases, by name ("text-max-next": a model for
# max's text to come), measured and never archived (docs/format.md, "Model
# numbers"); their indices follow the band's.
CANDIDATES: dict[str, Model] = {}
CANDIDATE_MODELS = {name: len(MODELS) + len(BAND) + k for k, name in enumerate(CANDIDATES)}
# What is measured but never archived, at the indices after MODELS'.
MEASURED = BAND + tuple(CANDIDATES.values())
# Every model the statistics can code, by its index (StatisticsConfig.model),
# and its parts.
EVERY_MODEL = MODELS + MEASURED
MODEL_PARTS = tuple(model.parts for model in EVERY_MODEL)
# (level, kind) -> the model that level writes for those bytes.
LEVEL_MODELS = {(model.level, model.kind): number for number, model in enumerate(MODELS)
                if model.current}
# (one current model for each level and kind, and none for another)
assert sorted(LEVEL_MODELS) == sorted((level, kind) for level in LEVELS for kind in KINDS) and \
    len(LEVEL_MODELS) == sum(model.current for model in MODELS)
