"""The statistics' state: every array that holds it, and the fields inside.

One description serves two readers: `fade.statistics.coding.Tables`
allocates its arrays from `state_arrays`, and `StatisticsConfig.memory_bytes`
sums the same list before anything is built, so the memory limit sees
exactly what coding will hold. Beside it live the names of the fields
inside the small arrays (a stream's state, the parameters, the weight sets,
the scratch, the coder), which the compiled kernels read. This module
imports only numpy, so that fade.config can import it.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from fade.statistics.models import MODEL_PARTS
from fade.statistics.parts import (DELIMITERS, DNA_DIRECT, DNA_ORDERS, F_APM3, F_BLOCK, F_DNA,
                                   F_FINAL2, F_IMAGE, F_INDIRECT, F_JPEG, F_MARKUP, F_RECALL,
                                   F_RECORD, F_RUNS, F_SETS, F_SETS4, F_SETS5, F_SURE, F_TABLE,
                                   F_RECORDS, F_SSE, F_WORDS, F_WORDSET, F_X86, F_X86MORE,
                                   IMAGE_CONTEXTS, IMAGE_SHARED, MAX_CONTEXTS, active_contexts)


class StatisticsConfig(Protocol):
    """What the arrays depend on: fade.config.StatisticsConfig's fields (a
    protocol, so that config imports this module and not the other way)."""

    table_bits: int
    match_bits: int
    keyed: bool
    model: int

    def validate(self) -> "StatisticsConfig": ...


# Fields of Tables.parameters: P_SETS, the weight sets under the final mixer;
# P_TABLE_SETS, where F_TABLE's weight sets (by field and bit position) start;
# P_DNA_SETS, where F_DNA's; P_DNA_BITS, log2 of each hashed count table's entries;
# P_DNA_INPUT, where F_DNA's (or F_IMAGE's) mixer inputs start (after the contexts'
# and their runs');
# P_X86_SETS, P_RECORD_SETS and P_IMAGE_SETS, where F_X86's, F_RECORDS' and
# F_IMAGE's weight sets start; then how many contexts are active, and their
# indices in input order.
(P_BITS, P_MATCH_BITS, P_RATE, P_KEYED, P_PARTS, P_SETS, P_TABLE_SETS, P_DNA_SETS, P_DNA_BITS,
 P_DNA_INPUT, P_X86_SETS, P_RECORD_SETS, P_IMAGE_SETS, P_COUNT) = range(14)
P_ACTIVE = P_COUNT + 1

# Weight sets: by c0 and match (1024), by contexts found and bit position,
# then (F_LAYERS) by the last byte and by the one before, then (F_SETS) by
# order 2 and by the match state, then (F_WORDSET) by the word so far and a
# slow copy of the first.
SETS = 4  # weight sets under the final mixer with F_LAYERS
SETS2 = 6  # with F_SETS: by order 2 (hashed) and by the match state
SETS3 = 8  # with F_WORDSET: by the word so far and the last byte's kind; a slow copy of set 1
SETS4 = 10  # with F_SETS4: by the kinds of the last four bytes, by order 3 (hashed)
SETS5 = 12  # with F_SETS5: by the text's groups and c0 (hashed), by its classes and bit position
FINAL_ROWS = 256  # the final mixer's rows of weights: by c0
# F_FINAL2's, after them: the match's length bucket (4), the kinds of the
# last two bytes (4 each), the word's length so far (up to 3) and the bit's position
FINAL2_ROWS = 4 * 4 * 4 * 4 * 8
KIND_SETS = 256 * 8  # F_SETS4: four bytes' kinds (letter, digit, space, other) x bit position
SET10 = 8192  # F_SETS4: order 3, hashed
SET11 = 4096  # F_SETS5: the last three groups (runs as one) and c0, hashed
SET12 = 512 * 8  # F_SETS5: the last three bytes' classes x bit position
WORD_SETS = 8 * 4 * 8  # letters in the current word (0-7+) x kind of last byte x bit position
LAYER_SETS = 1024 + (MAX_CONTEXTS + 1) * 8  # where F_LAYERS' sets start: by the last byte
MORE_SETS = LAYER_SETS + 2 * 256  # where F_SETS' start: by order 2, then by the match state
SET5 = 4096  # order 2, hashed
TABLE_FIELDS = 64  # F_TABLE: weight sets by the field's index (the last for all after it)
TABLE_SETS = TABLE_FIELDS * 8  # ... and the bit position
# F_DNA: weight sets by the high orders' contexts seen (0-7), whether the line
# may end here, whether in a header line, the last two bases, and the bit
# position (and the first set by c0 and the matches: none, short, long).
DNA_SETS = 8 * 2 * 2 * 16 * 8
DNA_MATCHES = 2  # F_DNA: the match on this strand and on the other
DNA_INPUTS = len(DNA_ORDERS) + DNA_MATCHES  # an input per order of counts, and per match
# F_X86: weight sets by the place in the instruction (fade.statistics.x86's
# steps), the bytes left in its field (0-7) and the bit position.
X86_STEPS = 9
X86_PLACE_SETS = X86_STEPS * 8 * 8
# ... then (F_LAYERS) by the opcode (map and byte) and the step.
X86_SETS = X86_PLACE_SETS + 1024 * X86_STEPS
# F_RECORDS: weight sets by the column (0 to 62, 63 and on) and the bit
# position.
RECORD_SETS = 64 * 8
# F_IMAGE: weight sets by the plane (0-3), how busy the neighbourhood is
# (0-7) and the bit position.
# ... then (F_LAYERS) by the plane and the neighbourhood's shape (which of
# its neighbours are larger, and where they differ by more than 3).
IMAGE_BUSY_SETS = 4 * 8 * 8
IMAGE_SETS = IMAGE_BUSY_SETS + 4 * 512
# F_IMAGE's mixer inputs: one per prediction of the pixel byte, from a map by
# where the prediction lies against the values the byte's bits so far
# leave (fade.statistics.image.image_inputs).
IMAGE_PREDICTIONS = 26
IMAGE_INPUTS = IMAGE_PREDICTIONS  # an input per prediction
# F_IMAGE's two linear predictors per plane, least squares over the pixels
# before with weights that decay by 2^-shift a byte (fade.statistics.image):
# their inputs, and each one's sums and weights (a matrix, a vector, weights).
OLS_INPUTS = 16
OLS_SHIFTS = (6, 9)
OLS_SIZE = OLS_INPUTS * OLS_INPUTS + 2 * OLS_INPUTS
# F_BLOCK's predictor, in the long-memory one's place: per plane and place
# in an 8x8 block (64 a plane), least squares over the neighbours this many
# rows up and pixels left (right: negative) less W, and a constant.
BLOCK_OFFSETS = ((1, 0), (1, 1), (1, -1), (0, 2), (2, 0), (2, -1), (1, 2), (2, 1), (0, 3),
                 (3, 0), (2, 2), (1, -2), (2, -2), (3, -1), (3, 1), (1, 3), (0, 4), (4, 0),
                 (1, -3), (0, 5), (5, 0), (2, 3), (3, 2), (3, -2), (4, -1), (4, 1))
BLOCK_INPUTS = len(BLOCK_OFFSETS) + 1
BLOCK_SIZE = BLOCK_INPUTS * BLOCK_INPUTS + 2 * BLOCK_INPUTS
BLOCK_SHIFT = 11  # its sums decay by 2^-11 an update (each place's own bytes)
BLOCK_CELLS = 4 * 64
# Per prediction and plane, histograms of its residuals by how well it did
# nearby (8 steps).
IMAGE_STEPS = 16
IMAGE_MAP = IMAGE_PREDICTIONS * 4 * 2 * IMAGE_STEPS * 256
IMAGE_COUNT_LIMIT = 4095  # a histogram's counts halve when their total reaches this
# F_IMAGE: each prediction's error at the last IMAGE_RING bytes (a ring: rows
# of more than a third of it see other rows' errors as their neighbours').
IMAGE_RING = 1 << 17
IMAGE_RING_MASK = IMAGE_RING - 1
# F_JPEG (fade.statistics.jpeg): an input per JPEG context, where F_DNA's
# are; weight sets in F_IMAGE's place (no model has both): by the phase (a
# Huffman code, or its value's extra bits), the coefficient's place in
# zig-zag order and the bits of the code or value so far (2048), then
# F_LAYERS' two (coefficients.jpeg_contexts); the contexts' adaptive
# probabilities (jpeg_map, in F_DNA's array); the parser's state with a
# ring of 2^JPEG_RING_BITS decoded blocks (in F_RUNS' array: jpeg.J_RING_AT
# fields before the ring, checked there).
JPEG_INPUTS = 16
JPEG_SETS = 8192
JPEG_MAP_BITS = (22, 24)  # log2 of the contexts' probabilities, at least and at most
JPEG_RING_BITS = 13
JPEG_FIELDS = 2800
JPEG_STATE = JPEG_FIELDS + (64 << JPEG_RING_BITS)
# match state (0: none, else 1 + 2 x length up to 31 + the expected bit) x bit position
SET6 = 65 * 8
# F_SETS with F_IMAGE, in SET5's and SET6's places: by the plane (0-3) and
# the pixel's column and row in an 8x8 block (a JPEG's blocks); by the plane
# and the pixel's strip of IMAGE_STRIP columns (the strips past IMAGE_STRIPS
# share sets again).
IMAGE_PHASE_SETS = 4 * 64
IMAGE_STRIP = 16
IMAGE_STRIPS = 128
assert IMAGE_PHASE_SETS <= SET5 and 4 * IMAGE_STRIPS <= SET6

# Scratch: the current bit's mixer state (0-7; 8-11 and 16-18 with F_LAYERS, 20-23 with
# F_SETS, 26-29 with F_WORDSET, 12-15 with F_SETS4; 19, 24, 25 and 30 with F_SSE;
# the sets' outputs under the final mixer from SCRATCH_DOTS, up to 10, and
# F_FINAL2's two at FINAL2_AT), then
# each context's hash while its slot is found.
SCRATCH_NODE = 6  # the node of the current bit in each context's slot
SCRATCH_DOTS = 32
FINAL2_AT = SCRATCH_DOTS + 12  # F_FINAL2's row and probability (after the sets' outputs)
SETS5_AT = FINAL2_AT + 2  # F_SETS5's two sets' indices and probabilities
SCRATCH_HASHES = SETS5_AT + 4
NODES = 16  # a slot holds one nibble of one context: nodes 1..15, node 0 its check
SLOT_BYTES = 4 * NODES  # 64: one cache line
FIXED_INPUTS = 5  # mixer inputs: bias, order 1, match (two), network; then two per context
NETWORK_INPUT = 4  # the network's input, after the bias, order 1 and the match's two
# and (F_RUNS) two more per context, (F_SURE) one more, and (F_DNA) the counts' inputs


def context_inputs(parts: int) -> int:
    """How many mixer inputs each context gives a model with `parts`: its
    node's and its state map's, (F_RUNS) its run's and its linear
    probability, (F_SURE) its node's again where its history is one-sided."""
    return 2 + (2 if parts & F_RUNS else 0) + (1 if parts & F_SURE else 0)


# A weight set is a row as long as the most inputs any model has (keyed, the
# most): four per context with F_RUNS, two without, and F_DNA's (longer rows
# for all slowed text 5-9%). Image models have fewer (2 of the shared and 18
# image contexts, two inputs each, and IMAGE_INPUTS).
INPUTS = max(FIXED_INPUTS + context_inputs(parts) * len(active_contexts(parts, True)[0])
             + (DNA_INPUTS if parts & F_DNA else JPEG_INPUTS if parts & F_JPEG else 0)
             for parts in MODEL_PARTS if not parts & F_IMAGE)
assert FIXED_INPUTS + 2 * (IMAGE_SHARED + IMAGE_CONTEXTS) + IMAGE_INPUTS <= INPUTS
BYTE_FOLLOWERS = 256 + 65536  # F_INDIRECT: the bytes that followed each byte and pair
WORD_FOLLOWERS_AT = BYTE_FOLLOWERS  # F_WORDS: the words that followed words, after those
WORD_FOLLOWERS = 1 << 16
RECALL_AT = WORD_FOLLOWERS_AT + WORD_FOLLOWERS  # F_RECALL: by a hash of a word so far,
RECALL = 1 << 18  # the letter that followed it last (lower case, + 1; 0: none), after those
APM_KNOTS = 33  # an adaptive probability map's knots per context
APM3_BITS = 16  # model 1's third APM: 2^16 contexts x APM_KNOTS (4 MiB)
SSE_APMS = 3  # F_SSE's APMs, each as large as APM3's, after it in its array
RECENT = 2 * 256  # F_RECORD, per stream: each byte value's last place, and the distance before
# F_MARKUP, per stream after F_RECORD's: per key (its low bits), the last
# field of that key: the key, where it starts and ends, its bytes' hash.
MARKUP_FIELDS = 1 << 12
# F_X86MORE, per stream after F_RECORD's: the last bytes seen at each place in
# an instruction (hashed to X86_PLACES entries), then at each step (with the
# bytes left in its field and REX.W: X86_STEPS_SEEN entries).
X86_PLACES = 1 << 10
X86_STEPS_SEEN = 512

# Index of each per-stream field in Tables.streams (int64 each).
S_HISTORY, S_WORD, S_MATCH_PTR, S_MATCH_LEN, S_POSITION, S_BASE, S_LENGTH = range(7)
S_SLOTS = 7  # the current slot of each context follows: MAX_CONTEXTS fields
S_FOUND = S_SLOTS + MAX_CONTEXTS  # how many contexts were seen before, this byte
S_WORD2 = S_FOUND + 1  # the word before the current one (model 1)
S_WORD3 = S_FOUND + 2  # the word before that
S_LINE = S_FOUND + 3  # where the current line starts (model 2)
S_ABOVE = S_FOUND + 4  # where the line before it starts
S_WORDLEN = S_FOUND + 5  # letters in the current word (model 2)
S_RUN = S_FOUND + 6  # F_RUNS: each context's run entry index
S_RUN_BYTE = S_RUN + MAX_CONTEXTS  # and its byte | count << 8 | flag << 16 (-1: none)
S_RECORD = S_RUN_BYTE + MAX_CONTEXTS  # F_RECORD: the record length found (0: none)
S_RECORD_SEEN = S_RECORD + 1  # a distance << 16 | how many repeats in a row agreed on it
# F_TABLE (fade.statistics.tables): the delimiter found (0: none); the field's
# index in its row, where it starts, its bytes so far (hashed); the same
# field in the row above: where it starts and ends in the buffer (-1: none)
# and its bytes (hashed); per candidate delimiter, its count in this row, in
# the row before, and for how many rows in a row the two agreed.
S_DELIMITER = S_RECORD + 2
S_FIELD, S_FIELD_START, S_FIELD_HASH = S_DELIMITER + 1, S_DELIMITER + 2, S_DELIMITER + 3
S_ABOVE_START, S_ABOVE_END, S_ABOVE_HASH = S_DELIMITER + 4, S_DELIMITER + 5, S_DELIMITER + 6
CANDIDATES = len(DELIMITERS)  # tab, comma, semicolon, vertical bar
S_COUNT = S_DELIMITER + 7
S_COUNT_BEFORE = S_COUNT + CANDIDATES
S_AGREED = S_COUNT_BEFORE + CANDIDATES
# F_DNA (fade.statistics.dna): the last 31 bases, 2 bits each, newest lowest
# (A, C, G, T: 0-3); the complements of the last 31, newest highest (the
# other strand's contexts); bases seen; the last base's letter case (0 or
# 32); whether the line is a header (> or ;); the line before's length; the
# high orders' contexts seen before; each order's count entry; per match (on
# this strand, on the other), the base it points at in Tables.dna_bases, its
# length (0: none) and the entry of Tables.match_map for the current bit (-1:
# none).
S_DNA = S_AGREED + CANDIDATES
S_DNA_HISTORY, S_DNA_REVERSE, S_DNA_BASES, S_DNA_CASE = S_DNA, S_DNA + 1, S_DNA + 2, S_DNA + 3
S_DNA_HEADER, S_DNA_WIDTH, S_DNA_HITS = S_DNA + 4, S_DNA + 5, S_DNA + 6
S_DNA_ENTRY = S_DNA + 7
S_DNA_POINTER = S_DNA_ENTRY + len(DNA_ORDERS)
S_DNA_LENGTH = S_DNA_POINTER + DNA_MATCHES
S_DNA_MAP = S_DNA_LENGTH + DNA_MATCHES
# F_X86 (fade.statistics.x86): what the next byte is in its instruction (a
# step), the bytes left in its field, the immediate's bytes still to come
# after the ModRM (minus its size: by the ModRM's reg field; in a VEX
# prefix, its opcode map) and the prefixes seen; the instruction: its
# opcode (prefixes << 10 | map << 8 | opcode), ModRM (256 + the byte; 0:
# none yet) and bytes so far (hashed); the last four opcodes (12 bits each:
# map, byte, 66 and REX.W; newest lowest) and the last three ModRMs (9 bits
# each).
S_X86 = S_DNA_MAP + DNA_MATCHES
S_X86_STEP, S_X86_LEFT, S_X86_IMMEDIATE, S_X86_PREFIXES = S_X86, S_X86 + 1, S_X86 + 2, S_X86 + 3
S_X86_OPCODE, S_X86_MODRM, S_X86_BYTES = S_X86 + 4, S_X86 + 5, S_X86 + 6
S_X86_OPCODES, S_X86_MODRMS = S_X86 + 7, S_X86 + 8
# F_RECORDS (fade.statistics.records): two candidate record lengths, and how
# many repeats at each distance they have seen.
S_LENGTHS = S_X86 + 9
S_LENGTH_COUNTS = S_LENGTHS + 2
# F_IMAGE (fade.statistics.image): where the pixels start and end in the
# stream, the bytes a row takes (with any padding), a pixel, and a row's
# pixels; then, for the next byte, the prediction its APM and weight sets
# read and the weight set by the plane and the neighbourhood.
S_IMAGE = S_LENGTH_COUNTS + 2
S_IMAGE_START, S_IMAGE_END, S_IMAGE_STRIDE = S_IMAGE, S_IMAGE + 1, S_IMAGE + 2
S_IMAGE_PIXEL, S_IMAGE_ROW = S_IMAGE + 3, S_IMAGE + 4
S_IMAGE_PREDICTED, S_IMAGE_SET, S_IMAGE_APM = S_IMAGE + 5, S_IMAGE + 6, S_IMAGE + 7
# ... the predictions of the next byte (value | histogram << 12).
S_IMAGE_PLANE = S_IMAGE + 8
S_IMAGE_SHAPE = S_IMAGE + 9
S_IMAGE_PREDICTIONS = S_IMAGE + 10
# ... the linear predictors' inputs for the next byte, and their weights
# per rate and plane (4 planes).
S_OLS_INPUTS = S_IMAGE_PREDICTIONS + IMAGE_PREDICTIONS
# F_MARKUP (fade.statistics.markup; with F_TABLE, whose field fields it uses
# as its own): where the next byte is (text, a name, a tag, a value...), the
# field's key, the open elements (how many; the names of the outermost
# MARKUP_STACK), the element closed last among the current one's children,
# the attribute named last, the last value given in the tag, and the quote
# that ends the value; the last 8 bytes of text (the tags between skipped);
# where the value before in this tag starts and ends (-1: none).
S_MARKUP = S_OLS_INPUTS + OLS_INPUTS
S_M_MODE, S_M_KEY, S_M_DEPTH, S_M_SIBLING = S_MARKUP, S_MARKUP + 1, S_MARKUP + 2, S_MARKUP + 3
S_M_ATTRIBUTE, S_M_VALUE, S_M_QUOTE = S_MARKUP + 4, S_MARKUP + 5, S_MARKUP + 6
S_M_TEXTS, S_M_LEFT_START, S_M_LEFT_END = S_MARKUP + 7, S_MARKUP + 8, S_MARKUP + 9
S_M_PLACE = S_MARKUP + 10
MARKUP_STACK = 16
S_M_STACK = S_MARKUP + 11
# F_WORDS (fade.statistics.words): the line's first word and how many words
# the line has had; the bytes since the last word ended (the gap, its last
# four) and the gap before the current word; the kinds of the last 16 bytes
# (2 bits each, fade.statistics.contexts.byte_kind); the brackets and
# quotes open (8 bits each, the innermost lowest); the digits of the
# current number and of the one before (hashed).
S_WORDS = S_M_STACK + MARKUP_STACK
S_W_LINE, S_W_COUNT, S_W_GAP, S_W_GAP_BEFORE = S_WORDS, S_WORDS + 1, S_WORDS + 2, S_WORDS + 3
S_W_KINDS, S_W_OPEN, S_W_NUMBER, S_W_NUMBER_BEFORE = (S_WORDS + 4, S_WORDS + 5, S_WORDS + 6,
                                                      S_WORDS + 7)
# F_SSE: where the last 32 bits were mispredicted (1: the coded bit had
# less than half the probability), the newest lowest.
S_MISSES = S_WORDS + 8
# F_IMAGE with F_SETS: the next byte's weight sets by its plane and place
# (above: the column and row in an 8x8 block; the strip of columns).
S_IMAGE_PHASE, S_IMAGE_STRIP = S_WORDS + 9, S_WORDS + 10
# F_SOURCE (fade.statistics.markup): the last word (hashed) of the last text
# whose tag gave no value, and how many words the current text has had.
S_M_SOURCE, S_M_TEXT_WORDS = S_WORDS + 11, S_WORDS + 12
# F_BLOCK: the block predictor's inputs for the next byte (its sums and
# weights: by S_IMAGE_PHASE, fade.statistics.image.block_cell).
S_BLOCK_INPUTS = S_WORDS + 13
# F_TEXT3 (fade.statistics.text): the last bytes' groups with runs of one
# group of letters or digits kept as one (8 bits each, the newest lowest),
# the seven before those, and whether the last byte continued a run; the
# brackets and quotes open (fade.statistics.text.nest_state); the bytes since
# they last changed; the last bytes' classes (vowel, consonant, space, ...,
# 3 bits each), and the same with runs of one class kept as one.
S_T3_GROUPS, S_T3_OLDER, S_T3_RUN, S_T3_NEST, S_T3_SINCE, S_T3_CLASSES, S_T3_RUNS = range(
    S_BLOCK_INPUTS + BLOCK_INPUTS, S_BLOCK_INPUTS + BLOCK_INPUTS + 7)
S_FIELDS = S_T3_RUNS + 1

# Coder state: low, high, code (decoder), position in the buffer, damage flag,
# and the check: a hash of the bytes coded since the last check, their count,
# and the count at which the next check falls.
C_LOW, C_HIGH, C_CODE, C_POS, C_DAMAGED, C_HASH, C_COUNT, C_NEXT = range(8)
C_FIELDS = 8
# The check (fade.statistics.coder) comes after the first 256 bytes, then
# after twice as many each time up to every 16 KiB: the low CHECK_BITS bits
# of their hash at probability 1/2 each, about 0.04% of a 2-bits-a-byte
# stream. A decoder that runs past the honest data (a false original_size, a
# damaged stream) meets a wrong check within twice the honest length, or 16
# KiB, and stops instead of decoding on cheaply: past the end of a stream,
# zeros decode as runs the model soon predicts nearly free.
CHECK_FIRST, CHECK_LAST, CHECK_BITS = 256, 16384, 12


def table_bytes(bits: int) -> int:
    """Bytes of a statistics hash table of 2^bits slots."""
    return SLOT_BYTES << bits


def weight_sets(parts: int) -> int:
    """How many weight sets (rows of INPUTS weights) a model with `parts` has."""
    return image_sets(parts) + (IMAGE_SETS if parts & F_IMAGE else
                                JPEG_SETS if parts & F_JPEG else 0)


def image_sets(parts: int) -> int:
    """Where F_IMAGE's (or F_JPEG's) weight sets start: after F_RECORDS'."""
    return record_sets(parts) + (RECORD_SETS if parts & F_RECORDS else 0)


def record_sets(parts: int) -> int:
    """Where F_RECORDS' weight sets start: after F_X86's."""
    return x86_sets(parts) + (X86_SETS if parts & F_X86 else 0)


def x86_sets(parts: int) -> int:
    """Where F_X86's weight sets start: after F_DNA's."""
    return dna_sets(parts) + (DNA_SETS if parts & F_DNA else 0)


def dna_sets(parts: int) -> int:
    """Where F_DNA's weight sets start: after F_TABLE's."""
    return table_sets(parts) + (TABLE_SETS if parts & F_TABLE else 0)


def dna_bits(table_bits: int) -> int:
    """log2 of each hashed count table's entries (F_DNA): half as many as
    the hash table has slots (4 bytes each against 64), at least 2^16."""
    return max(16, table_bits - 1)


def dna_entries(parts: int, table_bits: int) -> int:
    """F_DNA's count tables' entries in all: 4^order for each direct
    order, 2^dna_bits for each hashed one (1 without F_DNA)."""
    if not parts & F_DNA:
        return 1
    return sum(4 ** k if k <= DNA_DIRECT else 1 << dna_bits(table_bits) for k in DNA_ORDERS)


def jpeg_map(slots: int) -> int:
    """F_JPEG's contexts' probabilities with a hash table of `slots`: 16 a
    slot, between 2^JPEG_MAP_BITS[0] and 2^JPEG_MAP_BITS[1]."""
    return min(max(slots << 4, 1 << JPEG_MAP_BITS[0]), 1 << JPEG_MAP_BITS[1])


def table_sets(parts: int) -> int:
    """Where F_TABLE's weight sets start: after every other set."""
    return (MORE_SETS + (SET5 + SET6 if parts & F_SETS else 0)
            + (WORD_SETS + 1024 if parts & F_WORDSET else 0)
            + (KIND_SETS + SET10 if parts & F_SETS4 else 0)
            + (SET11 + SET12 if parts & F_SETS5 else 0))


def final_sets(parts: int) -> int:
    """How many weight sets' outputs the final mixer combines (F_LAYERS)."""
    if parts & F_SETS5:
        return SETS5
    if parts & F_SETS4:
        return SETS4
    return SETS3 if parts & F_WORDSET else SETS2 if parts & F_SETS else SETS


def state_arrays(config: StatisticsConfig, streams: int,
                 length: int) -> list[tuple[str, tuple[int, ...], type]]:
    """(name, shape, dtype) of every array the statistics with `config` hold
    for `streams` sub-streams of `length` bytes in all, in the order of
    fade.statistics.coding.Tables' fields. Raises FadeError for a config out of its
    domains (StatisticsConfig.validate)."""
    parts = MODEL_PARTS[config.validate(measured=True).model]
    slots = 1 << config.table_bits
    streams, length = max(streams, 1), max(length, 1)
    active = active_contexts(parts, config.keyed)[0]
    return [
        # A node: (p16 << 16) | (bit history << 8) | count; node 0 of a slot: its check.
        ("nodes", (slots * NODES,), np.uint32),
        ("direct", (256 * 256,), np.uint32),  # order 1, no hashing: an adaptive probability
        ("state_maps", (MAX_CONTEXTS * 256,), np.uint32),  # per context, bit history -> p
        ("match_table", (1 << config.match_bits,), np.int64),  # hash -> position after it + 1
        ("match_map", (2 * 64,), np.uint32),  # (match length, expected bit) -> p
        ("weights", (weight_sets(parts) * INPUTS,), np.int64),
        ("apm1", (256 * APM_KNOTS,), np.uint16),  # by c0
        ("apm2", (65536 * APM_KNOTS,), np.uint16),  # by the last byte and c0
        ("streams", (streams, S_FIELDS), np.int64),  # each stream's S_ fields
        ("buffer", (length,), np.uint8),  # every coded byte, the streams one after another
        ("known", (length,), np.uint8),  # 1 once coded
        ("inputs", (INPUTS,), np.int64),  # the current bit's mixer inputs
        ("scratch", (SCRATCH_HASHES + MAX_CONTEXTS,), np.int64),
        ("parameters", (P_ACTIVE + len(active),), np.int64),  # the P_ fields
        # F_APM3's APM, then F_SSE's.
        ("apm3", (((1 << APM3_BITS) * (1 + (SSE_APMS if parts & F_SSE else 0))
                   if parts & F_APM3 else 1) * APM_KNOTS,), np.uint16),
        # the final mixer's weights, by c0; F_FINAL2's second, by its rows, after them
        ("final", ((FINAL_ROWS + (FINAL2_ROWS if parts & F_FINAL2 else 0)) * final_sets(parts),),
         np.int64),
        # F_INDIRECT: the two bytes that followed each byte, and each byte pair, last.
        # F_WORDS: then, by a word's low 16 bits, the word that followed it last.
        # F_RECALL (with F_WORDS): then RECALL's letters.
        ("followers", ((BYTE_FOLLOWERS + (WORD_FOLLOWERS if parts & F_WORDS else 0)
                        + (RECALL if parts & F_RECALL else 0))
                       if parts & (F_INDIRECT | F_WORDS) else 1,), np.int64),
        # F_RUNS: per context hash, the byte it saw last and how many times in a
        # row (check << 16 | count << 8 | byte; fade.statistics.runs); per
        # context, a map of (count up to 15, the bit the run expects; with
        # F_RUNKEYS the bit's place and a flag) to the probability of a 1.
        # F_IMAGE (no model has it with F_RUNS): the linear predictors' sums and
        # weights, per predictor and plane, then F_BLOCK's per plane and place.
        # (Kept in arrays that other kinds use: each more field of Tables
        # costs every model 4-7%, as a call passes it.)
        # F_JPEG (never with F_RUNS or F_IMAGE): the JPEG parser's state.
        ("runs", (slots if parts & F_RUNS else len(OLS_SHIFTS) * 4 * OLS_SIZE
                  + (BLOCK_CELLS * BLOCK_SIZE if parts & F_BLOCK else 0)
                  if parts & F_IMAGE else JPEG_STATE if parts & F_JPEG else 1,), np.int64),
        ("run_map", (MAX_CONTEXTS * 256,), np.uint32),
        ("recent", (streams if parts & (F_RECORD | F_RECORDS | F_MARKUP | F_X86MORE) else 1,
                    RECENT + (4 * MARKUP_FIELDS if parts & F_MARKUP else 0)
                    + (X86_PLACES + X86_STEPS_SEEN if parts & F_X86MORE else 0)),
         np.int64),  # F_RECORD, F_RECORDS, F_MARKUP, F_X86MORE
        # F_DNA: the four bases' counts (8 bits each) after each context, per order;
        # F_IMAGE (never with F_DNA): the predictions' residual histograms.
        # F_JPEG: its contexts' adaptive probabilities.
        ("dna", (IMAGE_MAP if parts & F_IMAGE else jpeg_map(slots) if parts & F_JPEG
                 else dna_entries(parts, config.table_bits),), np.uint32),
        # F_DNA: each stream's bases (0-3) in order, from its place in the buffer;
        # F_IMAGE: each prediction's error at each of the last IMAGE_RING bytes.
        ("dna_bases", (length if parts & F_DNA else IMAGE_RING * IMAGE_PREDICTIONS
                       if parts & F_IMAGE else 1,), np.uint8),
        ("coder", (C_FIELDS,), np.int64),  # the C_ fields
    ]


def state_bytes(config: StatisticsConfig, streams: int, length: int) -> int:
    """Bytes of all the arrays `state_arrays` describes."""
    return sum(int(np.prod(shape)) * np.dtype(dtype).itemsize
               for _, shape, dtype in state_arrays(config, streams, length))
