"""The table of statistics models: one entry each, read by everything else.

A model is a set of parts (fade.statistics.parts) with its hash table's
size per byte of input, the level that writes it, for which bytes, and
what it adds in words. The archive records a model by its number (its
index), so an entry never changes or goes: older archives must decode.
From this table come the header's limit on the model field
(fade.config.STATISTICS_LIMITS), each level's model for each kind of bytes
(fade.statistics.choice), the table sizes (StatisticsConfig.sized), the
names in `fade -l`, the table in docs/statistics.md (`python -m
fade.statistics.listing`; a test compares) and the tests' models. Adding a
model: one entry here and the parts it names (with their kernels, if new).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fade.statistics.parts import (
    F_APM3, F_BIGRAM, F_COLUMNS, F_DNA, F_E8E9, F_EXPECTED, F_INDIRECT, F_LAYERS, F_ORDERS, F_RATE,
    F_RECORD, F_RUNS, F_SETS, F_SETS4, F_SKIPGRAM, F_SPARSE, F_SPARSE2, F_STRIDE, F_TABLE,
    F_TRIGRAM, F_WORDSET, F_X86, F_RECORDS, F_AUDIO, F_IMAGE, F_PIXELS, F_MARKUP, F_LOG, F_STATES,
    F_WORDS, F_SSE, F_GREEN, F_OLS64, F_LENGTH, F_LINES, F_X86MORE, F_FIELD_ORDERS, F_FIELD_ORDER1,
    F_LAZY, F_RECALL, F_SOURCE, F_BLOCK, F_SWAP, F_CHROMA, F_FINAL2, F_DISTANT, F_QUIET,
    F_RUNKEYS, F_SETS5, F_TEXT, F_TEXT2, F_TEXT3, F_SURE)


@dataclass(frozen=True)
class Model:
    """One statistics model (StatisticsConfig.model is its index in MODELS)."""

    parts: int  # bits of fade.statistics.parts
    base: int | None  # the model it extends (its parts and more), for the docs
    level: str  # the level that writes it (or wrote it, in older releases)
    kind: str | None  # what bytes it is for at that level (fade.race.Screen.kind); None: any
    use: str  # where it is used, and since when, in words
    adds: str  # what it adds to its base, in words
    slots_per_byte_bits: int = 2  # log2 of hash table slots a byte of input (sized)
    current: bool = True  # whether its level writes it today (else: only older archives)


# Models for bytes that are not text (fade.race.Screen) add the contexts that
# pay on machine code, records and images to the level's text model, at about
# 0.85x its speed (docs/statistics.md, "Models 4 to 6"): text keeps its bytes
# and its speed.
_BINARY = F_SPARSE | F_SPARSE2 | F_RECORD | F_STRIDE
_M1 = F_BIGRAM | F_SKIPGRAM | F_SPARSE | F_LAYERS | F_APM3 | F_RATE
_M2 = _M1 | F_ORDERS | F_TRIGRAM | F_COLUMNS | F_SETS | F_INDIRECT | F_WORDSET
_M3 = _M2 | F_RUNS | F_EXPECTED | F_SPARSE2 | F_RECORD
# The default's and max's images (models 45 to 52): model 25's parts and, with
# F_IMAGE, F_SETS' weight sets by the pixel's place.
_PLACES = F_LAYERS | F_APM3 | F_RATE | F_IMAGE | F_SETS
_BLOCK_ADDS = ("the long-memory linear predictor per plane and place in an 8x8 block, over 26 "
               "neighbours; a context of its prediction; a colour pixel's first plane predicted "
               "as gray's")
# The audio models' parts at fast, the default and max (models 21 to 23; 53 to
# 55 with F_OLS64).
_AUDIO = (_BINARY | F_RECORDS | F_AUDIO, _M1 | _BINARY | F_RECORDS | F_AUDIO,
          _M3 | F_SETS4 | F_STRIDE | F_AUDIO)

MODELS: tuple[Model, ...] = (
    Model(0, None, "fast", "text", "`fast` (fade 0.6-0.7's only model)",
          "orders 1-4 and 6 hashed, the current word, order 1 direct, a match model (the last "
          "occurrence of the latest 6 bytes); two weight sets (by c0 and match length; by "
          "contexts found and bit position) averaged; two APMs (by c0; by the last byte and "
          "c0)"),
    Model(_M1, 0, "default", "text",
          "`default`, text (mixed with the network at 0.8-0.10's default; alone, or mixed "
          "with `--method fade` or `--preset`, in a development build of fade 0.11)",
          "the current word with the previous one and with the one before that; bytes 2-3 "
          "back; two more weight sets (by the last byte, by the byte before) under a final "
          "mixer chosen by c0; a third APM on a hash of order 2 and c0; a mixer rate that "
          "starts 4x higher", current=False),
    Model(_M2, 1, "max", None, "`max` (fade 0.9)",
          "orders 5 and 8; the last three words; two column contexts (the byte above with the "
          "last byte, and with the column); two indirect contexts (the last byte and the last "
          "two, with the two bytes that followed them last); weight sets by order 2 (hashed "
          "to 12 bits) and by the match state; weight sets by the letters in the current word "
          "and the last byte's kind, and a copy of the first set learning at a quarter of the "
          "rate", current=False),
    Model(_M3, 2, "max", None, "`max` (fade 0.10)",
          "two more inputs per context: its run (the byte it saw last and how many times in "
          "a row, through a map by run length and expected bit) and its probability in the "
          "linear domain; the byte the match model expects; two sparse contexts (the last "
          "byte with the third; bytes 3-4 back); two record contexts (the byte one record "
          "length back with the last byte, and with the byte two records back; the record "
          "length is found as paq8's record model does)", current=False),
    Model(_BINARY, 0, "fast", "binary",
          "`fast`, bytes that are not text (a development build of fade 0.11)",
          "model 1's bytes 2-3 back, model 3's sparse and record contexts, and two stride "
          "contexts (where the byte falls in 8, with the bytes 8 and 16 back; with the byte "
          "16 back and the last byte)", current=False),
    Model(_M1 | _BINARY, 1, "default", "binary",
          "`default`, bytes that are not text (a development build of fade 0.11)",
          "the same sparse, record and stride contexts as model 4", current=False),
    # lcet10.txt: -0.45% at 8 slots a byte against 2 (docs/statistics.md, "Models 4 to 6").
    Model(_M3 | F_SETS4 | F_STRIDE, 3, "max", None,
          "`max` (fade 0.11; for text until model 36, other bytes until model 106)",
          "the stride contexts and two more weight sets (by the kinds of the last four "
          "bytes; by order 3, hashed); its tables hold 8 slots a byte (up to 2^24, 1 GiB)",
          slots_per_byte_bits=3),
    Model(F_TABLE, 0, "fast", "table",
          "`fast`, delimited tables (a development build of fade 0.11; model 59 since)",
          "three field contexts: the field's index with the place in it, the byte above "
          "(the same field's in the row above) and the last byte; the field's index with its "
          "bytes so far; the bytes of the field above with the place, the byte after the one "
          "above and the last byte (the delimiter found as the bytes come); the weight set by "
          "the field's index and the bit position in place of the one by contexts found",
          current=False),
    Model(_M1 | F_TABLE, 1, "default", "table",
          "`default`, delimited tables (a development build of fade 0.11; model 60 since)",
          "the field contexts and weight set of model 7", current=False),
    Model(_M3 | F_SETS4 | F_STRIDE | F_TABLE, 6, "max", "table",
          "`max`, delimited tables (a development build of fade 0.11; model 61 since)",
          "the field contexts and weight set of model 7", slots_per_byte_bits=3, current=False),
    Model(F_DNA, 0, "fast", "dna", "`fast`, nucleotides (fade 0.11)",
          "the history as bases (line breaks, headers and other bytes skipped); three contexts "
          "(the place in the line with the line before's width; the last 12 and 20 bases with "
          "the letter case); an input per order of 1 to 24 bases from counts of the four bases "
          "learned on both strands (inverted repeats); the weight set by the high orders seen, "
          "the line's end and headers in place of the one by contexts found"),
    Model(_M1 | F_DNA, 1, "default", "dna", "`default`, nucleotides (fade 0.11)",
          "the nucleotide contexts, counts and weight set of model 10"),
    # Model 6's many contexts say nothing more on bases (0.1-0.2% larger than model 11 on
    # two genomes): max adds model 2's weight sets (by order 2, by the match) instead.
    Model(_M1 | F_SETS | F_DNA, 11, "max", "dna", "`max`, nucleotides (fade 0.11)",
          "two more weight sets under the final mixer (model 2's: by order 2, hashed; by the "
          "match state)"),
    Model(_BINARY | F_E8E9, 4, "fast", "x86",
          "`fast`, x86 machine code (a development build of fade 0.11)",
          "calls' and jumps' distances (after E8 and E9) coded as their targets' addresses, "
          "in file order", current=False),
    Model(_M1 | _BINARY | F_E8E9, 5, "default", "x86",
          "`default`, x86 machine code (a development build of fade 0.11)",
          "the addresses of model 13", current=False),
    Model(_M3 | F_SETS4 | F_STRIDE | F_E8E9, 6, "max", "x86",
          "`max`, x86 machine code (a development build of fade 0.11)",
          "the addresses of model 13", slots_per_byte_bits=3, current=False),
    # The stride contexts say little on code beside the instruction contexts (0.3% larger
    # and 0.07% smaller on two libraries without them) and cost 6% of fast's speed; the
    # runs pay at the default (-1.5%, -2.0%) for a quarter of its speed (docs/statistics.md,
    # "Models 16 to 18").
    Model((_BINARY & ~F_STRIDE) | F_E8E9 | F_X86, 13, "fast", "x86",
          "`fast`, x86 machine code (fade 0.11)",
          "the instructions parsed as they come (prefixes, opcode, ModRM, SIB, displacement, "
          "immediate): four contexts (the place in the instruction with its opcode and "
          "ModRM mode; its bytes so far with the opcode before; the place with the two "
          "opcodes before and the ModRM before; with the four opcodes before), the weight set by "
          "the place in the instruction in place of the one by contexts found; RIP-relative "
          "displacements coded as the addresses they point at; no stride contexts"),
    Model(_M1 | _BINARY | F_RUNS | F_E8E9 | F_X86, 14, "default", "x86",
          "`default`, x86 machine code (a development build of fade 0.11; model 66 since)",
          "the instruction contexts, weight set and addresses of model 16; the weight set by "
          "the opcode and the place in place of the one by the byte before, the third APM by "
          "the opcode, the place and the last byte; model 3's runs (two more inputs per "
          "context)", current=False),
    Model(_M3 | F_SETS4 | F_STRIDE | F_E8E9 | F_X86, 15, "max", "x86",
          "`max`, x86 machine code, alone in file order (a development build of fade 0.11; "
          "model 67 since; its hybrid mixes model 6)",
          "the instruction contexts, weight sets, APM and addresses of model 17",
          slots_per_byte_bits=3, current=False),
    Model(_BINARY | F_RECORDS, 4, "fast", "binary", "`fast`, bytes that are not text (fade 0.11)",
          "three more record contexts: the column (the place in the record) with the byte "
          "one record above and the last byte; the column with the bytes one and two records "
          "above; the bytes one and two records above at a second record length (the other "
          "of two candidates, each counting its repeats, as paq8's record model keeps two), "
          "with the last byte; the weight set by the column in place of the one by contexts "
          "found, once the record length has 32 repeats counted"),
    Model(_M1 | _BINARY | F_RECORDS, 5, "default", "binary",
          "`default`, bytes that are not text (a development build of fade 0.11; model 107 "
          "since)", "the record contexts and weight set of model 19", current=False),
    Model(_AUDIO[0], 19, "fast", "audio",
          "`fast`, 16- or 24-bit PCM audio in a WAV file (a development build of fade 0.11)",
          "the samples coded as the residuals of a predictor (each channel's first "
          "differences, from the second channel on its side where that moves less, "
          "predicted by least squares of order 48 solved in integers every 8 samples, then "
          "sign-sign LMS filters of orders 16 and 4 in cascade; low bits that every sample "
          "left 0 kept 0), zigzagged, high byte first", current=False),
    Model(_AUDIO[1], 20, "default", "audio",
          "`default`, 16- or 24-bit PCM audio in a WAV file (a development build of fade 0.11)",
          "the residuals of model 21", current=False),
    Model(_AUDIO[2], 6, "max", "audio",
          "`max`, 16- or 24-bit PCM audio in a WAV file, alone in file order (a development "
          "build of fade 0.11; its hybrid mixes model 6)", "the residuals of model 21",
          slots_per_byte_bits=3, current=False),
    # Model 3's runs and model 2's weight sets made images larger (docs/statistics.md,
    # "Models 24 to 29"): max is the default's model with larger tables.
    Model(F_IMAGE, 0, "fast", "image", "`fast`, PNM and BMP images (fade 0.11)",
          "once the header gives the layout, per pixel byte: 18 contexts of its neighbours "
          "in its plane (pairs, gradients, the median predictor, the planes before in the "
          "pixel), 26 predictions (gradients, trends, two least-squares predictors) each an "
          "input from a histogram of its residuals by how it did nearby; weight sets by the "
          "plane and the neighbourhood; the APMs by the prediction; of the shared contexts "
          "orders 1 and 2 alone"),
    Model(F_LAYERS | F_APM3 | F_RATE | F_IMAGE, 24, "default", "image",
          "`default`, PNM and BMP images (a development build of fade 0.11)",
          "model 1's final mixer (its weight sets by the neighbourhood's shape and by the "
          "prediction), third APM (by the median predictor) and faster start", current=False),
    Model(F_LAYERS | F_APM3 | F_RATE | F_IMAGE, 25, "max", "image",
          "`max`, PNM and BMP images, alone in file order (a development build of fade "
          "0.11; its hybrid mixes model 6)", "tables of 8 slots a byte", slots_per_byte_bits=3,
          current=False),
    Model(F_IMAGE | F_PIXELS, 24, "fast", "pixels", "`fast`, raw pixels (fade 0.11)",
          "the layout measured (the row length where bytes are nearest the ones a row back, "
          "the pixel size where nearest the ones a pixel back), coded first as a PNM header "
          "that the decoder drops"),
    Model(F_LAYERS | F_APM3 | F_RATE | F_IMAGE | F_PIXELS, 25, "default", "pixels",
          "`default`, raw pixels (a development build of fade 0.11)",
          "the made header of model 27", current=False),
    Model(F_LAYERS | F_APM3 | F_RATE | F_IMAGE | F_PIXELS, 26, "max", "pixels",
          "`max`, raw pixels, alone in file order (a development build of fade 0.11; its "
          "hybrid mixes model 6)", "the made header of model 27", slots_per_byte_bits=3,
          current=False),
    Model(F_TABLE | F_MARKUP, 7, "fast", "markup",
          "`fast`, markup: XML, HTML (a development build of fade 0.11; model 56 since)",
          "the field contexts keyed by markup instead of columns: a field is an attribute's "
          "value (keyed by its element, the parent and the attribute) or the text in an "
          "element (by the element and the parent), the field above the same key's last one; "
          "between tags, by the parent and the element closed last, or the element and the "
          "attribute before; three more contexts: the text alone (the tags between skipped) "
          "of orders 3 and 6, and the value before in the tag at the same place (in text: "
          "the tag's last value, such as a language, with the current word); the "
          "weight set by the key in place of the one by the field's index, and (with model "
          "1's final mixer) the one by where the byte is (text, a name, a value...) and its "
          "place in place of the one by the byte before", current=False),
    # Model 2's contexts pay on markup (-2.6% on seven files against model 1's) at
    # 0.62x the speed, 90 KB/s (docs/statistics.md, "Models 30 to 32").
    Model(_M2 | F_TABLE | F_MARKUP, 2, "default", "markup",
          "`default`, markup: XML, HTML (a development build of fade 0.11; model 57 since)",
          "the markup contexts and weight sets of model 30", current=False),
    Model(_M3 | F_SETS4 | F_STRIDE | F_TABLE | F_MARKUP, 9, "max", "markup",
          "`max`, markup: XML, HTML (a development build of fade 0.11; model 58 since)",
          "the markup contexts and weight sets of model 30",
          slots_per_byte_bits=3, current=False),
    Model(F_TABLE | F_LOG, 7, "fast", "log",
          "`fast`, log lines (a development build of fade 0.11; model 62 since)",
          "the field contexts and weight set of a table whose delimiter is a space from the "
          "end of the first line: a field is a token (a timestamp's part, a host, a level, "
          "a word of the message), the field above the same token of the line before",
          current=False),
    # As for markup, model 2's contexts pay (-2.7% on eight logs against model 1's) at
    # about 0.6x the speed, 100 KB/s (docs/statistics.md, "Models 33 to 35").
    Model(_M2 | F_TABLE | F_LOG, 2, "default", "log",
          "`default`, log lines (a development build of fade 0.11; model 63 since)",
          "the log fields and weight set of model 33", current=False),
    Model(_M3 | F_SETS4 | F_STRIDE | F_TABLE | F_LOG, 9, "max", "log",
          "`max`, log lines (a development build of fade 0.11; model 64 since)",
          "the log fields of model 33", slots_per_byte_bits=3, current=False),
    # Issue 39's model for text at max (model 6 for other bytes with no model of
    # their own): -0.7% on the six shared files, -0.5% to -3.4% on five held-out
    # texts against model 6 (docs/statistics.md, "Model 36").
    Model(_M3 | F_SETS4 | F_STRIDE | F_STATES | F_WORDS, 6, "max", "text",
          "`max`, text (a development build of fade 0.11)",
          "each context's bit history a state of its counts of zeros and ones, the other "
          "count's excess over two halved by each bit (fade.statistics.histories), in place of "
          "its last seven bits; seven word contexts (the current word with the line's first "
          "word; with the bytes between it and the word before; with the word before and those "
          "bytes; with the brackets and quotes open; with the word that followed the word "
          "before last time; the kinds of the last eight bytes with the last byte; the current "
          "number with the one before)", slots_per_byte_bits=3, current=False),
    # Issue 39's default text model: model 36's word contexts and states on
    # model 1, -1.8% on the five shared texts at 0.65x its speed in the
    # coding loop (docs/statistics.md, "Models 37 and 38").
    Model(_M1 | F_STATES | F_WORDS | F_SSE, 1, "default", "text",
          "`default`, text (a development build of fade 0.11; model 77 since)",
          "model 36's bit-history states and word contexts; three more APMs (by the byte "
          "the match expects and its length, by order 3, by the last byte with the recent "
          "mispredictions) averaged in; tables of 8 slots a byte", slots_per_byte_bits=3,
          current=False),
    Model(_M3 | F_SETS4 | F_STRIDE | F_STATES | F_WORDS | F_SSE, 36, "max", "text",
          "`max`, text (a development build of fade 0.11; model 65 since)",
          "model 37's APMs; tables of 16 slots a byte (up to 2^24, 1 GiB)",
          slots_per_byte_bits=4, current=False),
    # A colour photo that went through JPEG codes 3-9% smaller with its colours as
    # green and differences, a sharp one 0.4-1.4% larger: the encoder codes a band
    # of rows both ways at the default to choose (docs/statistics.md, "Models 39 to 44").
    Model(F_IMAGE | F_GREEN, 24, "fast", "image-green",
          "`fast`, PNM and BMP colour images whose colours move together (a development "
          "build of fade 0.11; model 92 since)",
          "each pixel coded as its green, then its red and its blue less the green (modulo "
          "256, plus 128; fade.statistics.colour), chosen where a band of rows from the "
          "middle of the image, coded both ways with the default's image models (25 and 40; "
          "45 and 49 since), is 1.5% smaller so", current=False),
    Model(F_LAYERS | F_APM3 | F_RATE | F_IMAGE | F_GREEN, 25, "default", "image-green",
          "`default`, PNM and BMP colour images whose colours move together (a development "
          "build of fade 0.11)", "the colours of model 39", current=False),
    Model(F_LAYERS | F_APM3 | F_RATE | F_IMAGE | F_GREEN, 26, "max", "image-green",
          "`max`, PNM and BMP colour images whose colours move together, alone in file "
          "order (a development build of fade 0.11; its hybrid mixes model 6)",
          "the colours of model 39", slots_per_byte_bits=3, current=False),
    Model(F_IMAGE | F_PIXELS | F_GREEN, 27, "fast", "pixels-green",
          "`fast`, raw colour pixels that move together (a development build of fade 0.11; "
          "model 93 since)", "the colours of model 39", current=False),
    Model(F_LAYERS | F_APM3 | F_RATE | F_IMAGE | F_PIXELS | F_GREEN, 28, "default",
          "pixels-green", "`default`, raw colour pixels that move together (a development "
          "build of fade 0.11)", "the colours of model 39", current=False),
    Model(F_LAYERS | F_APM3 | F_RATE | F_IMAGE | F_PIXELS | F_GREEN, 29, "max",
          "pixels-green", "`max`, raw colour pixels that move together, alone in file "
          "order (a development build of fade 0.11; its hybrid mixes model 6)",
          "the colours of model 39", slots_per_byte_bits=3, current=False),
    # The mixer's weights by where a pixel is, as paq8px's image models choose
    # some: in its 8x8 block (a JPEG's) and its strip of columns; 0.3-5.1% smaller
    # on held-out images (docs/statistics.md, "Models 45 to 52").
    Model(_PLACES, 25, "default", "image", "`default`, PNM and BMP images (a development "
          "build of fade 0.11; model 78 since)",
          "two more weight sets under the final mixer: by the plane and the pixel's column "
          "and row in an 8x8 block; by the plane and the pixel's strip of 16 columns",
          current=False),
    Model(_PLACES, 26, "max", "image", "`max`, PNM and BMP images, alone in file order (a "
          "development build of fade 0.11, whose hybrid mixed model 6; model 79 since)",
          "the weight sets of model 45", slots_per_byte_bits=3, current=False),
    Model(_PLACES | F_PIXELS, 28, "default", "pixels", "`default`, raw pixels (a development "
          "build of fade 0.11; model 80 since)", "the weight sets of model 45", current=False),
    Model(_PLACES | F_PIXELS, 29, "max", "pixels", "`max`, raw pixels, alone in file order (a "
          "development build of fade 0.11, whose hybrid mixed model 6; model 81 since)",
          "the weight sets of model 45", slots_per_byte_bits=3, current=False),
    Model(_PLACES | F_GREEN, 40, "default", "image-green", "`default`, PNM and BMP colour "
          "images whose colours move together (a development build of fade 0.11; model 82 "
          "since)", "the weight sets of model 45", current=False),
    Model(_PLACES | F_GREEN, 41, "max", "image-green", "`max`, PNM and BMP colour images "
          "whose colours move together, alone in file order (a development build of fade "
          "0.11, whose hybrid mixed model 6; model 83 since)", "the weight sets of model 45",
          slots_per_byte_bits=3, current=False),
    Model(_PLACES | F_PIXELS | F_GREEN, 43, "default", "pixels-green", "`default`, raw colour "
          "pixels that move together (a development build of fade 0.11; model 84 since)",
          "the weight sets of model 45", current=False),
    Model(_PLACES | F_PIXELS | F_GREEN, 44, "max", "pixels-green", "`max`, raw colour pixels "
          "that move together, alone in file order (a development build of fade 0.11, whose "
          "hybrid mixed model 6; model 85 since)", "the weight sets of model 45",
          slots_per_byte_bits=3, current=False),
    # Least squares of order 64 for audio: -0.54% on ten tuning recordings against
    # order 48, -0.34% on eight held out (docs/statistics.md, "Models 53 to 55").
    Model(_AUDIO[0] | F_OLS64, 21, "fast", "audio",
          "`fast`, 16- or 24-bit PCM audio in a WAV file (fade 0.11)",
          "least squares of order 64 in place of 48"),
    Model(_AUDIO[1] | F_OLS64, 22, "default", "audio",
          "`default`, 16- or 24-bit PCM audio in a WAV file (fade 0.11)",
          "least squares of order 64 in place of 48"),
    Model(_AUDIO[2] | F_OLS64, 23, "max", "audio",
          "`max`, 16- or 24-bit PCM audio in a WAV file, alone in file order (fade 0.11; its "
          "hybrid mixes model 6)", "least squares of order 64 in place of 48",
          slots_per_byte_bits=3),
    # Markup with the context of a field's length against the field above's: -0.4%
    # on seven tuning files at fast; at the default with model 37's word contexts and
    # APMs, without the trigram and the skipgram, -1.1% at 0.8x the speed (model
    # 37's bit-history states were worse: docs/statistics.md, "Models 56 to 58").
    Model(F_TABLE | F_MARKUP | F_LENGTH, 30, "fast", "markup",
          "`fast`, markup: XML, HTML (fade 0.11)",
          "the field's length so far against the field above's (shorter or longer by a "
          "power of two, or as long) with the field's key and the last byte"),
    Model((_M2 | F_TABLE | F_MARKUP | F_WORDS | F_SSE | F_LENGTH) & ~(F_TRIGRAM | F_SKIPGRAM),
          31, "default", "markup",
          "`default`, markup: XML, HTML (a development build of fade 0.11; model 68 since)",
          "model 56's length context, model 37's word contexts and three more APMs; without "
          "the word before last with the current one, and the last three words",
          slots_per_byte_bits=3, current=False),
    Model((_M3 | F_SETS4 | F_TABLE | F_MARKUP | F_WORDS | F_SSE | F_LENGTH)
          & ~(F_TRIGRAM | F_SKIPGRAM), 32, "max", "markup",
          "`max`, markup: XML, HTML (a development build of fade 0.11; model 69 since)",
          "model 57's additions; without the trigram, the skipgram and the stride contexts",
          slots_per_byte_bits=3, current=False),
    # Tables and log lines with the same length context (F_LENGTH, by the field's
    # index), and at the default and max model 37's word contexts and APMs (without
    # the trigram and the skipgram where the model had them): smaller on every one
    # of four tables and nine logs tried, at each level (docs/statistics.md,
    # "Models 59 to 64").
    Model(F_TABLE | F_LENGTH, 7, "fast", "table", "`fast`, delimited tables (fade 0.11)",
          "the field's length so far against the field above's (as model 56's) with the "
          "field's index and the last byte"),
    Model(_M1 | F_TABLE | F_WORDS | F_SSE | F_LENGTH, 8, "default", "table",
          "`default`, delimited tables (fade 0.11)",
          "model 59's length context, model 37's word contexts and three more APMs",
          slots_per_byte_bits=3),
    Model((_M3 | F_SETS4 | F_STRIDE | F_TABLE | F_WORDS | F_SSE | F_LENGTH)
          & ~(F_TRIGRAM | F_SKIPGRAM), 9, "max", "table", "`max`, delimited tables (fade 0.11)",
          "model 60's additions; without the word before last with the current one, and the "
          "last three words", slots_per_byte_bits=3),
    Model(F_TABLE | F_LOG | F_LENGTH, 33, "fast", "log", "`fast`, log lines (fade 0.11)",
          "model 59's length context, by the token's index"),
    Model((_M2 | F_TABLE | F_LOG | F_WORDS | F_SSE | F_LENGTH) & ~(F_TRIGRAM | F_SKIPGRAM), 34,
          "default", "log", "`default`, log lines (fade 0.11)",
          "model 62's length context, model 37's word contexts and three more APMs; without "
          "the word before last with the current one, and the last three words",
          slots_per_byte_bits=3),
    Model((_M3 | F_SETS4 | F_STRIDE | F_TABLE | F_LOG | F_WORDS | F_SSE | F_LENGTH)
          & ~(F_TRIGRAM | F_SKIPGRAM), 35, "max", "log", "`max`, log lines (fade 0.11)",
          "model 63's additions and removals", slots_per_byte_bits=3),
    # Text at max with the context of a line's length against the line above's:
    # where a book's lines break (docs/statistics.md, "Model 65").
    Model(_M3 | F_SETS4 | F_STRIDE | F_STATES | F_WORDS | F_SSE | F_LINES, 38, "max", "text",
          "`max`, text (a development build of fade 0.11; model 73 since)",
          "the line's length so far against the line above's (shorter or longer by a power "
          "of two, or as long) with the current word's length and the last byte",
          slots_per_byte_bits=4, current=False),
    # x86 code at the default and max with five more instruction contexts: the
    # bytes seen last at the byte's place in its instruction, and at its step; the
    # last byte with the step; the three instructions before; a call's target
    # against the call's place (docs/statistics.md, "Models 66 and 67").
    Model(_M1 | _BINARY | F_RUNS | F_E8E9 | F_X86 | F_X86MORE, 17, "default", "x86",
          "`default`, x86 machine code (fade 0.11)",
          "five more instruction contexts: the place in the instruction with the two bytes "
          "seen last at that place; the step with the byte seen last at that step; the last "
          "byte with the step and the place mod 16; the place with the three instructions "
          "before (opcodes and ModRMs); a call's or jump's target's bytes so far against the "
          "call's place"),
    Model(_M3 | F_SETS4 | F_STRIDE | F_E8E9 | F_X86 | F_X86MORE, 18, "max", "x86",
          "`max`, x86 machine code, alone in file order (fade 0.11; its hybrid mixes model 6)",
          "model 66's five more instruction contexts", slots_per_byte_bits=3),
    # Markup with two low orders keyed by the field, or in text by its language:
    # each language's spelling (docs/statistics.md, "Models 68 and 69").
    Model((_M2 | F_TABLE | F_MARKUP | F_WORDS | F_SSE | F_LENGTH | F_FIELD_ORDERS)
          & ~(F_TRIGRAM | F_SKIPGRAM), 57, "default", "markup",
          "`default`, markup: XML, HTML (a development build of fade 0.11; model 70 since)",
          "in text, orders 0 and 3 keyed by the last value its tag gave (its language); "
          "elsewhere, orders 2 and 3 keyed by the field's key",
          slots_per_byte_bits=3, current=False),
    # (max's markup drops model 3's two sparse contexts to keep within the mixer's rows)
    Model((_M3 | F_SETS4 | F_TABLE | F_MARKUP | F_WORDS | F_SSE | F_LENGTH | F_FIELD_ORDERS)
          & ~(F_TRIGRAM | F_SKIPGRAM | F_SPARSE2), 58, "max", "markup",
          "`max`, markup: XML, HTML (a development build of fade 0.11; model 71 since)",
          "model 68's orders keyed by the text's language or the field's key; without model "
          "3's two sparse contexts", slots_per_byte_bits=3, current=False),
    # Order 1 keyed the same way; at the default, max's runs and expected byte
    # too (docs/statistics.md, "Models 70 and 71").
    Model((_M2 | F_RUNS | F_EXPECTED | F_TABLE | F_MARKUP | F_WORDS | F_SSE | F_LENGTH
           | F_FIELD_ORDERS | F_FIELD_ORDER1) & ~(F_TRIGRAM | F_SKIPGRAM), 68, "default",
          "markup", "`default`, markup: XML, HTML (a development build of fade 0.11; model 72 "
          "since)", "order 1 keyed by the text's language or the field's key; model 3's runs (two "
          "more inputs per context) and the byte the match model expects",
          slots_per_byte_bits=3, current=False),
    Model((_M3 | F_SETS4 | F_TABLE | F_MARKUP | F_WORDS | F_SSE | F_LENGTH | F_FIELD_ORDERS
           | F_FIELD_ORDER1) & ~(F_TRIGRAM | F_SKIPGRAM | F_SPARSE2), 69, "max", "markup",
          "`max`, markup: XML, HTML (a development build of fade 0.11; model 74 since)",
          "order 1 keyed by the text's language or the field's key", slots_per_byte_bits=3,
          current=False),
    # The letter that last followed the word so far: a word met before (a name in
    # a tag, in the text above) completed as it went then (docs/statistics.md,
    # "Models 72 and 73"; max's markup, model 74, makes room for it without the
    # two record contexts).
    Model((_M2 | F_RUNS | F_EXPECTED | F_TABLE | F_MARKUP | F_WORDS | F_SSE | F_LENGTH
           | F_FIELD_ORDERS | F_FIELD_ORDER1 | F_RECALL) & ~(F_TRIGRAM | F_SKIPGRAM), 70,
          "default", "markup", "`default`, markup: XML, HTML (a development build of fade 0.11; "
          "model 75 since)",
          "the letter that last followed the current word's letters so far (in either case), "
          "with the last byte's case and the word's length", slots_per_byte_bits=3,
          current=False),
    Model(_M3 | F_SETS4 | F_STRIDE | F_STATES | F_WORDS | F_SSE | F_LINES | F_RECALL, 65, "max",
          "text", "`max`, text (a development build of fade 0.11; model 104 since)",
          "model 72's recalled letter", slots_per_byte_bits=4, current=False),
    Model((_M3 | F_SETS4 | F_TABLE | F_MARKUP | F_WORDS | F_SSE | F_LENGTH | F_FIELD_ORDERS
           | F_FIELD_ORDER1 | F_RECALL) & ~(F_TRIGRAM | F_SKIPGRAM | F_SPARSE2 | F_RECORD), 71,
          "max", "markup", "`max`, markup: XML, HTML (a development build of fade 0.11; "
          "model 76 since)",
          "model 72's recalled letter; without model 3's two record contexts",
          slots_per_byte_bits=3, current=False),
    # A translation's words by its original's last word, and weight sets that
    # skip their tiny errors (docs/statistics.md, "Models 75 and 76").
    Model((_M2 | F_RUNS | F_EXPECTED | F_TABLE | F_MARKUP | F_WORDS | F_SSE | F_LENGTH
           | F_FIELD_ORDERS | F_FIELD_ORDER1 | F_RECALL | F_SOURCE | F_LAZY)
          & ~(F_TRIGRAM | F_SKIPGRAM), 72, "default", "markup",
          "`default`, markup: XML, HTML (fade 0.11)",
          "in text, the word by its language and its original's last word; weight sets "
          "that skip their tiny errors", slots_per_byte_bits=3),
    # Max's the same, making room without the field's length against the field
    # above's (docs/statistics.md, "Models 75 and 76").
    Model((_M3 | F_SETS4 | F_TABLE | F_MARKUP | F_WORDS | F_SSE | F_FIELD_ORDERS
           | F_FIELD_ORDER1 | F_RECALL | F_SOURCE | F_LAZY)
          & ~(F_TRIGRAM | F_SKIPGRAM | F_SPARSE2 | F_RECORD), 74, "max", "markup",
          "`max`, markup: XML, HTML (fade 0.11)",
          "model 75's context of a translation's words and lazy weight sets; without the "
          "field's length against the field above's", slots_per_byte_bits=3),
    # The default's text with max's recalled letter, line length and indirect
    # contexts, and lazy weight sets (docs/statistics.md, "Model 77").
    Model(_M1 | F_STATES | F_WORDS | F_SSE | F_LAZY | F_RECALL | F_LINES | F_INDIRECT, 37,
          "default", "text", "`default`, text (a development build of fade 0.11; model 105 "
          "since)", "the recalled letter, the line's length against the line above's, the two "
          "indirect contexts; weight sets that skip their tiny errors", slots_per_byte_bits=3,
          current=False),
)


def _extended(part: int, kind: str, adds: str, uses: tuple[tuple[int, str], ...],
              retired: tuple[int, ...] = ()) -> tuple[Model, ...]:
    """Models that add `part` to each base model numbered in `uses`, at its
    level, for its kind with `kind` after it, with its table size; those
    whose base is in `retired` no longer written (current False)."""
    return tuple(Model(MODELS[base].parts | part, base, MODELS[base].level,
                       MODELS[base].kind + kind, use, adds,
                       slots_per_byte_bits=MODELS[base].slots_per_byte_bits,
                       current=base not in retired)
                 for base, use in uses)


# Images with least squares per place in an 8x8 block, over a wider
# neighbourhood: photos that were JPEGs once smaller (docs/statistics.md,
# "Models 78 to 85"). Models 45 to 52, each with F_BLOCK, in their order.
MODELS += _extended(F_BLOCK, "", _BLOCK_ADDS, (
    (45, "`default`, PNM and BMP images (fade 0.11)"),
    (46, "`max`, PNM and BMP images, alone in file order (fade 0.11; its hybrid mixes "
         "model 6)"),
    (47, "`default`, raw pixels (fade 0.11)"),
    (48, "`max`, raw pixels, alone in file order (fade 0.11; its hybrid mixes model 6)"),
    (49, "`default`, PNM and BMP colour images whose colours move together (a development "
         "build of fade 0.11; model 94 since)"),
    (50, "`max`, PNM and BMP colour images whose colours move together, alone in file "
         "order (a development build of fade 0.11, whose hybrid mixed model 6; model 95 "
         "since)"),
    (51, "`default`, raw colour pixels that move together (a development build of fade 0.11; "
         "model 96 since)"),
    (52, "`max`, raw colour pixels that move together, alone in file order (a development "
         "build of fade 0.11, whose hybrid mixed model 6; model 97 since)")),
    retired=(49, 50, 51, 52))
# The colour differences in the other order where a band of the image says
# so (fade.race.colour_choice; docs/statistics.md, "Models 86 to 91"):
# models 39, 42 and 82 to 85, each with F_SWAP.
_COLOURS = ((39, "`fast`, PNM and BMP colour images whose colours move together"),
            (42, "`fast`, raw colour pixels that move together"),
            (82, "`default`, PNM and BMP colour images whose colours move together"),
            (83, "`max`, PNM and BMP colour images whose colours move together, alone in file "
                 "order"),
            (84, "`default`, raw colour pixels that move together"),
            (85, "`max`, raw colour pixels that move together, alone in file order"))
MODELS += _extended(F_SWAP, "-swap", "the two differences in the other order", tuple(
    (base, use + f", the last byte's difference first (a development build of fade 0.11; "
     f"model {98 + k} since)") for k, (base, use) in enumerate(_COLOURS)),
    retired=tuple(base for base, _ in _COLOURS))
# A colour's two differences by the differences at the pixel and its
# neighbours alone (fade.statistics.chroma; docs/statistics.md, "Models 92 to
# 103"): models 39, 42 and 82 to 91, each with F_CHROMA.
MODELS += _extended(F_CHROMA, "", "the differences' contexts by the differences alone", (
    *((base, use + " (fade 0.11)") for base, use in _COLOURS),
    *((86 + k, use + ", the last byte's difference first (fade 0.11)")
      for k, (_, use) in enumerate(_COLOURS))))
# Max's and the default's text with a second final mixer, by the text around
# the bit (docs/statistics.md, "Models 104 and 105"): models 73 and 77 with F_FINAL2.
MODELS += _extended(F_FINAL2, "", "a second final mixer over the same weight sets, its weights "
                    "by the match's length, the kinds of the last two bytes, the word's length "
                    "and the bit's position; the two final mixers' outputs averaged", (
                        (73, "`max`, text (fade 0.11)"), (77, "`default`, text (fade 0.11)")))
# Bytes of no other kind at max and the default (docs/statistics.md, "Models 106 and 107").
MODELS += tuple(Model(MODELS[base].parts | F_DISTANT | F_FINAL2, base, MODELS[base].level, "binary",
                      f"`{MODELS[base].level}`, bytes of no other kind (fade 0.11)",
                      "thirteen contexts of the bytes at fixed distances back (2, 3 and 6 alone; 1 "
                      "and 4, 1 and 5, 2 and 4, 4 and 6, 6 and 7, 7 and 9, 8 and 9, 8 and 10; 1, 3 "
                      "and 5; 2, 4 and 6); model 104's second final mixer",
                      slots_per_byte_bits=MODELS[base].slots_per_byte_bits) for base in (6, 20))
# The default's and max's other kinds with the same, then max's audio as the default's (docs/
# statistics.md, "Models 108 to 115" to "Model 130"); their bases asked for by number since.
_FINAL2_BASES, _FINAL2_FIRST = (61, 76, 64, 67, 60, 75, 63, 66), len(MODELS)
MODELS += _extended(F_FINAL2, "", "model 104's second final mixer", tuple(
    (base, MODELS[base].use.split(" (")[0] + " (fade 0.11)") for base in _FINAL2_BASES))
_MEDIA, _MEDIA_FIRST = (78, 79, 80, 81, 94, 95, 96, 97, 100, 101, 102, 103, 54, 55), len(MODELS)
MODELS += _extended(F_FINAL2, "", "model 104's second final mixer", tuple(
    (base, MODELS[base].use) for base in _MEDIA))
MODELS += (replace(MODELS[128], base=128, level="max", use=MODELS[129].use,
                   adds="nothing (max's settings)"),)
# Steps on the text's models, and max's markup and other bytes with them (docs/statistics.md,
# "Model 131" to "Models 138 and 139"): models 131 to 139, each its base, the parts named and
# how many times twice its base's slots a byte.
_STEPS = ((104, F_QUIET | F_RUNKEYS, "each context's inputs at half scale, the first layer's "
           "weight sets at 1.5x the rate; each run map by the bit's place and whether the context "
           "saw another byte", 0),
          (131, F_TEXT, "thirteen contexts of the text around the byte: the last letters and "
           "digits whatever lies between them, the bytes' groups, the column, the word's shape "
           "and case, the words before with the gap, the bytes above", 0),
          (132, F_TEXT2, "thirteen more: the line's bytes so far (orders 0 and 1), its first "
           "byte and first word, the word in its KiB, the last bytes' kinds, the column with the "
           "kinds, a space or the line above's length, the words before, the last letters and "
           "digits with the last bytes", 0),
          (105, F_TEXT | F_QUIET, "model 132's thirteen text contexts; each context's inputs at "
           "half scale and the first layer's weight sets at 1.5x the rate", 0),
          (109, F_QUIET | F_RUNKEYS | F_TEXT, "model 131's quieter inputs and finer run maps; "
           "model 132's text contexts", 0),
          (133, F_TEXT3 | F_SETS5, "twelve more: the bytes' groups with a run of letters or "
           "digits as one, and the brackets and quotes open with the word, the last bytes and "
           "their classes; two more weight sets, by those groups and by those classes; twice "
           "the slots a byte", 1),
          (135, F_TEXT3, "model 136's twelve contexts of groups and brackets", 0),
          (136, F_SURE, "one more input per context: its node's probability where its bit "
           "history has seen one bit value only", 0),
          (106, F_QUIET | F_RUNKEYS | F_WORDS | F_TEXT | F_TEXT2 | F_TEXT3 | F_SSE | F_SETS5,
           "max's text parts: model 131's quieter inputs and finer run maps; the word, text, "
           "group and bracket contexts of models 37 and 132 to 136; three more APMs; model "
           "136's two weight sets; twice the slots a byte", 1))
_STEPS_FIRST = len(MODELS)
for _base, _part, _adds, _more in _STEPS:  # (in turn: a step may extend the one before)
    (_model,) = _extended(_part, "", _adds, ((_base, MODELS[_base].use),))
    MODELS += (replace(_model, slots_per_byte_bits=_model.slots_per_byte_bits + _more),)
_SINCE = {base: first + k for first, bases in ((_FINAL2_FIRST, _FINAL2_BASES), (
    _MEDIA_FIRST, _MEDIA), (130, (129,)), (_STEPS_FIRST, tuple(step[0] for step in _STEPS)))
          for k, base in enumerate(bases)}
MODELS = tuple(replace(model, current=False, use=model.use.split(" (")[0] + " (a development "
                       "build of fade 0.11" + (", whose hybrid mixed model 6" if number in (
                           79, 81, 55, 129) else "") + f"; model {_SINCE[number]} since)")
               if number in _SINCE else model for number, model in enumerate(MODELS))
MODEL_PARTS = tuple(model.parts for model in MODELS)

