"""The statistics' state: every array that holds it, and the fields inside.

One description serves two readers: `fade.statistics.coding.Tables`
allocates its arrays from `state_arrays`, and `StatisticsConfig.memory_bytes`
sums the same list before anything is built, so the memory limit sees
exactly what coding will hold. Beside it live the names of the fields
inside the small arrays (a stream's state, the parameters, the weight sets,
the scratch, the coder), which the compiled kernels read: the general ones
here, each kind's in its layout (fade.statistics.layouts), composed here
(a stream's row, the kinds' weight sets and inputs, the kind's arrays).
This module imports only numpy, so that fade.config can import it.
"""

from __future__ import annotations

from typing import Protocol

from fade.lazy import numpy as np

from fade.statistics.layouts import dna, image, jpeg, markup, records, row_fields, tables, x86
from fade.statistics.layouts.general import (  # noqa: F401 (the general fields, for the kernels)
    S_ABOVE, S_BASE, S_FOUND, S_HISTORY, S_LENGTH, S_LINE, S_MATCH_LEN, S_MATCH_PTR, S_MISSES,
    S_POSITION, S_RUN, S_RUN_BYTE, S_SLOTS, S_WORD, S_WORD2, S_WORD3, S_WORDLEN)
from fade.statistics.models import MODEL_PARTS
from fade.statistics.parts import (F_APM3, F_BLOCK, F_DNA, F_FINAL2, F_IMAGE, F_INDIRECT, F_JPEG,
                                   F_JPEG2, F_MARKUP, F_ORDER0, F_RECALL, F_RECORD, F_RECORDS,
                                   F_RUNS, F_SETS, F_SETS4, F_SETS5, F_SSE, F_SURE, F_TABLE,
                                   F_WORDS, F_WORDSET, F_X86, F_X86MORE, IMAGE_CONTEXTS,
                                   IMAGE_SHARED, MAX_CONTEXTS, active_contexts)


class StatisticsConfig(Protocol):
    """What the arrays depend on: fade.config.StatisticsConfig's fields (a
    protocol, so that config imports this module and not the other way)."""

    table_bits: int
    match_bits: int
    keyed: bool
    model: int

    def validate(self) -> "StatisticsConfig": ...


# Fields of Tables.parameters: P_SETS, the weight sets under the final mixer;
# P_TABLE_SETS, P_DNA_SETS, P_X86_SETS, P_RECORD_SETS and P_IMAGE_SETS, where
# F_TABLE's, F_DNA's, F_X86's, F_RECORDS' and F_IMAGE's (or F_JPEG's) weight
# sets start (`kind_sets`); P_DNA_BITS, log2 of each of F_DNA's hashed count
# tables' entries; P_KIND_INPUT, where the kind's mixer inputs (F_DNA's,
# F_IMAGE's, F_JPEG's) start, after the contexts'; then how many contexts
# are active, and their indices in input order.
(P_BITS, P_MATCH_BITS, P_RATE, P_KEYED, P_PARTS, P_SETS, P_TABLE_SETS, P_DNA_SETS, P_DNA_BITS,
 P_KIND_INPUT, P_X86_SETS, P_RECORD_SETS, P_IMAGE_SETS, P_COUNT) = range(14)
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
# match state (0: none, else 1 + 2 x length up to 31 + the expected bit) x bit position
SET6 = 65 * 8
assert image.IMAGE_PHASE_SETS <= SET5 and 4 * image.IMAGE_STRIPS <= SET6  # (F_SETS with F_IMAGE)

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
ORDER0_AT = 2 * 64  # F_ORDER0's probabilities by c0, in the match's map after its own
# and (F_RUNS) two more per context, (F_SURE) one more, and the kind's (`kind_inputs`)


def context_inputs(parts: int) -> int:
    """How many mixer inputs each context gives a model with `parts`: its
    node's and its state map's, (F_RUNS) its run's and its linear
    probability, (F_SURE) its node's again where its history is one-sided."""
    return 2 + (2 if parts & F_RUNS else 0) + (1 if parts & F_SURE else 0)


# The mixer inputs of the kinds that have their own, after the contexts'
# (no model has two of them).
OWN_INPUTS = ((F_DNA, dna.INPUTS), (F_IMAGE, image.INPUTS), (F_JPEG, jpeg.INPUTS),
              (F_JPEG2, jpeg.MORE))


def kind_inputs(parts: int) -> int:
    """The mixer inputs of the kind a model with `parts` has (0: none)."""
    return sum(inputs for part, inputs in OWN_INPUTS if parts & part)


# A weight set is a row as long as the most inputs any model has (keyed, the
# most): four per context with F_RUNS, two without, and the kind's (longer
# rows for all slowed text 5-9%). Image models have fewer (2 of the shared
# and 18 image contexts, two inputs each, and F_IMAGE's).
INPUTS = max(FIXED_INPUTS + context_inputs(parts) * len(active_contexts(parts, True)[0])
             + kind_inputs(parts) for parts in MODEL_PARTS if not parts & F_IMAGE)
assert FIXED_INPUTS + 2 * (IMAGE_SHARED + IMAGE_CONTEXTS) + image.INPUTS <= INPUTS
BYTE_FOLLOWERS = 256 + 65536  # F_INDIRECT: the bytes that followed each byte and pair
WORD_FOLLOWERS_AT = BYTE_FOLLOWERS  # F_WORDS: the words that followed words, after those
WORD_FOLLOWERS = 1 << 16
RECALL_AT = WORD_FOLLOWERS_AT + WORD_FOLLOWERS  # F_RECALL: by a hash of a word so far,
RECALL = 1 << 18  # the letter that followed it last (lower case, + 1; 0: none), after those
APM_KNOTS = 33  # an adaptive probability map's knots per context
APM3_BITS = 16  # model 1's third APM: 2^16 contexts x APM_KNOTS (4 MiB)
SSE_APMS = 3  # F_SSE's APMs, each as large as APM3's, after it in its array
RECENT = 2 * 256  # F_RECORD, per stream: each byte value's last place, and the distance before
# The fields of a stream's row in Tables.streams (int64 each): the general
# ones (fade.statistics.layouts.general), then each kind's
# (fade.statistics.layouts).
S_FIELDS = row_fields()

# The mixer's weights are 32 bits (Tables.build: wherever they can stay so):
# where a set's step takes one to GROWN (fade.statistics.kernels.learn),
# the loop over the bytes stops after the byte (C_GROWN) and its caller widens
# them to 64 bits (fade.statistics.coding.Tables.widened). A step moves a
# weight by at most `step_bound`, and a bit steps a weight once for each set
# whose row it is (a row can be several sets', as a JPEG's padding's), so
# where 8 bits of such steps a stream move it less than 2^30, a weight that
# starts a byte below 2^30 ends it below 2^31: the 32-bit weights hold
# exactly what 64 bits would, and code faster.
GROWN = 1 << 30


def step_bound(rate: int) -> int:
    """The most one weight moves in one step at the mixer's `rate`: an
    input of at most 2048 times an error of at most 4096 times 6x the rate,
    over 65536, and 1 for the shift's rounding down."""
    return (2048 * 4096 * 6 * rate >> 16) + 1


# Coder state: low, high, code (decoder), position in the buffer, damage flag,
# and the check: a hash of the bytes coded since the last check, their count,
# and the count at which the next check falls; then where a weight of 32 bits
# grew too large (fade.statistics.kernels.learn: 0 where none did).
C_LOW, C_HIGH, C_CODE, C_POS, C_DAMAGED, C_HASH, C_COUNT, C_NEXT, C_GROWN = range(9)
C_FIELDS = 9
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


# The kinds' own weight sets, in their order after the general ones
# (`general_sets`). F_IMAGE's and F_JPEG's start at one place: no model has both.
OWN_SETS = ((F_TABLE, tables.SETS), (F_DNA, dna.SETS), (F_X86, x86.SETS),
            (F_RECORDS, records.SETS), (F_IMAGE, image.SETS), (F_JPEG, jpeg.SETS))


def kind_sets(parts: int, part: int) -> int:
    """Where the weight sets of `part` (one of OWN_SETS') start in a model
    with `parts`: after the general sets and the kinds' before it."""
    start = general_sets(parts)
    for owner, count in OWN_SETS:
        if owner == part:
            return start
        start += count if parts & owner else 0
    raise ValueError(f"no weight sets of its own: {part:#x}")


def weight_sets(parts: int) -> int:
    """How many weight sets (rows of INPUTS weights) a model with `parts` has."""
    return general_sets(parts) + sum(count for owner, count in OWN_SETS if parts & owner)


def general_sets(parts: int) -> int:
    """Where the kinds' own weight sets (OWN_SETS) start: after the general
    ones (by c0, by the contexts found, F_LAYERS', F_SETS', F_WORDSET's,
    F_SETS4's and F_SETS5's)."""
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


def kind_state(parts: int, length: int) -> int:
    """Tables.kind_state's entries for `length` bytes: F_IMAGE's solvers,
    F_JPEG's parser and its store (1: neither)."""
    if parts & F_IMAGE:
        return image.state_words(bool(parts & F_BLOCK))
    if parts & F_JPEG:
        return jpeg.STATE_WORDS + jpeg.STORE_WORDS * jpeg.store_blocks(length)
    return 1


def kind_map(parts: int, table_bits: int) -> int:
    """Tables.kind_map's entries: F_DNA's counts, F_IMAGE's histograms,
    F_JPEG's probabilities (1: none of them)."""
    if parts & F_DNA:
        return dna.map_entries(table_bits)
    if parts & F_IMAGE:
        return image.MAP_ENTRIES
    return jpeg.map_entries(1 << table_bits) if parts & F_JPEG else 1


def kind_bytes(parts: int, length: int) -> int:
    """Tables.kind_bytes' entries for `length` bytes of input: F_DNA's bases
    (each stream's, 0-3, from its place in the buffer), F_IMAGE's errors (1:
    neither)."""
    if parts & F_DNA:
        return length
    return image.BYTE_ENTRIES if parts & F_IMAGE else 1


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
        # (match length, expected bit) -> p; F_ORDER0's after them (ORDER0_AT), by c0
        ("match_map", (ORDER0_AT + (256 if parts & F_ORDER0 else 0),), np.uint32),
        ("weights", (weight_sets(parts) * INPUTS,), np.int32),  # (int64 where they grow)
        ("apm1", (256 * APM_KNOTS,), np.uint16),  # by c0
        ("apm2", (65536 * APM_KNOTS,), np.uint16),  # by the last byte and c0
        ("streams", (streams, S_FIELDS), np.int64),  # each stream's S_ fields
        ("buffer", (length,), np.uint8),  # every coded byte, the streams one after another
        ("known", (length,), np.uint8),  # 1 once coded
        ("inputs", (INPUTS,), np.int32),  # the current bit's mixer inputs (stretched)
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
        ("runs", (slots if parts & F_RUNS else 1,), np.int64),
        ("run_map", (MAX_CONTEXTS * 256,), np.uint32),
        ("recent", (streams if parts & (F_RECORD | F_RECORDS | F_MARKUP | F_X86MORE) else 1,
                    RECENT + (4 * markup.MARKUP_FIELDS if parts & F_MARKUP else 0)
                    + (x86.X86_PLACES + x86.X86_STEPS_SEEN if parts & F_X86MORE else 0)),
         np.int64),  # F_RECORD, F_RECORDS, F_MARKUP, F_X86MORE
        # The arrays of the model's kind (F_DNA, F_IMAGE or F_JPEG), as its
        # layout (fade.statistics.layouts) describes them.
        ("kind_state", (kind_state(parts, length),), np.int64),
        ("kind_map", (kind_map(parts, config.table_bits),), np.uint32),
        ("kind_bytes", (kind_bytes(parts, length),), np.uint8),
        ("coder", (C_FIELDS,), np.int64),  # the C_ fields
    ]


def state_bytes(config: StatisticsConfig, streams: int, length: int) -> int:
    """Bytes of all the arrays `state_arrays` describes."""
    return sum(int(np.prod(shape)) * np.dtype(dtype).itemsize
               for _, shape, dtype in state_arrays(config, streams, length))
