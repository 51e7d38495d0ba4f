"""The statistics' per-bit predictor: a model's inputs, mixing and learning.

Each byte is coded as eight binary decisions, most significant bit first.
Before a byte, its contexts are hashed (fade.statistics.contexts, and each
kind's module) and their slots found in the hash table, each slot holding a
nibble's nodes; before each bit, `predict` reads every active context's node
(an adaptive probability and a bit history through its state map), the order-1
table, the match model and the network's input, mixes them in the stretched
domain with the weight sets the model's parts name, and refines the result
with its APMs; after the bit, `update` makes every part learn. `code_byte`
runs the eight bits through the coder; the loops over a file (`encode_range`,
`decode_range`) and over the lockstep's sub-streams (`code_step`) call it.

This module is one model's code: fade.statistics.compose loads it once for
each composition of parts a process codes with, as a module whose `PARTS`
numba reads as a constant, so each `parts & F_...` test below is decided when
it compiles and a part the model lacks costs it nothing. The kind modules'
functions take the model's whole parts (`model_parts`, at run time), each
compiled once for every composition.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.coder import code_bit, code_check, flush, start_decoder  # noqa: F401
from fade.statistics.contexts import (
    byte_kind, final2_row, find_slots, general_contexts, match_slot, note_byte, note_followers,
    second_nibble, slots_ahead)
from fade.statistics.kernels import (
    ALLOCATING, COUNTER_LIMIT, INLINED, JIT, LAZY_ERROR, RECIPROCAL, STATE_LIMIT, STRETCH, adapt,
    apm_learn, apm_prefetch, apm_read, context_hash, final_learn, final_mix, learn, learn_two,
    network_bits, note_sets, squash, two_dots, typed_once, unsigned)
from fade.statistics.histories import NEXT, ONE_SIDED
from fade.statistics.parts import (
    F_APM3, F_DNA, F_FINAL2, F_IMAGE, F_INDIRECT, F_JPEG, F_LAYERS, F_LAZY, F_LINES, F_LOG,
    F_MARKUP, F_NUMBERS, F_ORDER0, F_QUIET, F_RATE, F_RECALL, F_RECORD, F_RECORDS, F_RUNS, F_SEEN,
    F_SETS, F_SETS4, F_SETS5, F_SOURCE, F_SSE, F_STATES, F_SURE, F_TABLE, F_TEXT, F_TEXT3, F_WORDS,
    F_WORDSET, F_X86, F_X86MORE)
from fade.statistics.runs import find_runs, note_runs, run_inputs, runs_learn
from fade.statistics.text import note_text3, text_contexts, text_sets
from fade.statistics.records import note_line, note_record, record_contexts, record_kept, record_set
from fade.statistics.tables import field_contexts, note_field
from fade.statistics.markup import markup_contexts, note_markup
from fade.statistics.dna import dna_contexts, dna_inputs, dna_learn, dna_sets, note_dna
from fade.statistics.image import image_contexts, image_inputs, note_image
from fade.statistics.jpeg import jpeg_byte
from fade.statistics.layouts.jpeg import J_ACTIVE, J_SET
from fade.statistics.coefficients import (jpeg_apm_row, jpeg_final_row, jpeg_inputs, jpeg_layers,
                                          jpeg_learn)
from fade.statistics.sse import sse_learn, sse_refined, sse_rows
from fade.statistics.words import (line_context, note_recall, note_words, recall_context,
                                   word_contexts)
from fade.statistics.x86 import (note_x86, note_x86_more, x86_contexts, x86_more_contexts,
                                x86_opcode_set, x86_set)
from fade.statistics.layouts.dna import S_DNA_HISTORY
from fade.statistics.layouts.image import (
    IMAGE_BUSY_SETS, S_IMAGE_APM, S_IMAGE_END, S_IMAGE_PHASE, S_IMAGE_PIXEL, S_IMAGE_PREDICTED,
    S_IMAGE_ROW, S_IMAGE_SET, S_IMAGE_SHAPE, S_IMAGE_START, S_IMAGE_STRIDE, S_IMAGE_STRIP)
from fade.statistics.layouts.markup import S_M_PLACE
from fade.statistics.layouts.tables import S_FIELD, TABLE_FIELDS
from fade.statistics.layouts.x86 import X86_PLACE_SETS
from fade.statistics.state import (
    APM3_BITS, APM_KNOTS, C_DAMAGED, C_GROWN, C_POS, FINAL2_AT, FINAL_ROWS, FIXED_INPUTS,
    KIND_SETS, LAYER_SETS, MAX_CONTEXTS, MORE_SETS, NETWORK_INPUT, ORDER0_AT, P_ACTIVE, P_BITS,
    P_COUNT, P_KIND_INPUT, P_DNA_SETS, P_IMAGE_SETS, P_KEYED, P_MATCH_BITS, P_PARTS, P_RATE,
    P_RECORD_SETS, P_SETS, P_TABLE_SETS, P_X86_SETS, SCRATCH_DOTS, SCRATCH_NODE, SET10, SET5, SET6,
    SETS5_AT, S_BASE, S_FOUND, S_HISTORY, S_LENGTH, S_MATCH_LEN, S_MATCH_PTR, S_POSITION, S_SLOTS,
    S_WORDLEN, WORD_SETS, kind_inputs)

if "PARTS" not in globals():
    raise ImportError("fade.statistics.predictor is one model's code: "
                      "fade.statistics.compose.predictor_for(parts) loads it")
PARTS: int = globals()["PARTS"]  # the composition, set by fade.statistics.compose
KIND_INPUTS = kind_inputs(PARTS)  # the kind's own inputs (F_DNA's, F_IMAGE's, F_JPEG's, F_JPEG2's)
typed_once()  # (context_hash's one signature, before this composition compiles)


def _jit(options: dict):
    """numba's njit with `options`, the name with this composition's parts: numba names a
    function's cache files by its source and name (else one would load another's code)."""
    def compiled(function):
        function.__qualname__ = f"{function.__qualname__}_{PARTS:x}"
        return nb.njit(**options)(function)
    return compiled


MATCH_MIN = 6  # bytes hashed to find a match
MATCH_LIMIT = 65535  # a match length saturates here


@_jit(JIT)
def _start_byte(tables, s, bits):
    """Hash stream s's contexts for its next byte and find their slots (first
    nibble); with F_RUNS, each context's run entry."""
    nodes, streams, buffer, scratch = tables.nodes, tables.streams, tables.buffer, tables.scratch
    parameters, runs, kind_map = tables.parameters, tables.runs, tables.kind_map
    parts = PARTS  # the parts tested here, constants (fade.statistics.compose)
    model_parts = parameters[P_PARTS]  # all the model's parts, for the kinds' own functions
    if parts & F_JPEG and tables.kind_state[J_ACTIVE]:  # (a scan's bytes are no numbers)
        model_parts &= ~F_NUMBERS
    general_contexts(scratch, streams, buffer, tables.followers, s, model_parts,
                     parameters[P_KEYED])
    record_contexts(scratch, streams, buffer, s, model_parts)
    if parts & F_TABLE:
        if parts & F_MARKUP:
            markup_contexts(scratch, streams, buffer, s, model_parts)
        else:
            field_contexts(scratch, streams, buffer, s)
    if parts & F_DNA:
        dna_contexts(scratch, streams, kind_map, parameters, s)
    if parts & F_X86:
        x86_contexts(scratch, streams, s)
        if parts & F_X86MORE:
            x86_more_contexts(scratch, streams, tables.recent, s)
    if parts & F_WORDS:
        word_contexts(scratch, streams, tables.followers, s)
    if parts & F_LINES:
        line_context(scratch, streams, s)
    if parts & F_RECALL:
        recall_context(scratch, streams, tables.followers, s)
    if parts & F_TEXT:
        text_contexts(scratch, streams, buffer, s, model_parts)
    if parts & F_IMAGE:
        _image_start(tables, s)
    streams[s, S_FOUND] = find_slots(nodes, bits, streams, s, scratch, parameters)
    if parts & F_RUNS:
        find_runs(streams, runs, scratch, parameters, s, bits)


@_jit(INLINED)
def predict(tables, s, c0, bitpos, network):
    """P(next bit = 1) in 16 bits for stream s, partial byte c0 (1..255),
    `network` the network's stretched probability of a 1 (0: none)."""
    nodes, direct, state_maps = tables.nodes, tables.direct, tables.state_maps
    match_map, weights, apm1, apm2 = tables.match_map, tables.weights, tables.apm1, tables.apm2
    streams, buffer, inputs, scratch = tables.streams, tables.buffer, tables.inputs, tables.scratch
    parameters, apm3, final, run_map = tables.parameters, tables.apm3, tables.final, tables.run_map
    parts = PARTS
    node = c0  # the node of the partial nibble, 1..15: a leading 1, then its bits
    if bitpos >= 4:
        node = (1 << (bitpos - 4)) | (c0 & ((1 << (bitpos - 4)) - 1))
    # Inputs: the fixed ones first (bias, order 1, match, network), then two per
    # context, so each keeps its place (and weight) whether contexts are keyed.
    inputs[0] = 256  # bias
    last = streams[s, S_HISTORY] & 255
    inputs[1] = STRETCH[direct[unsigned(last * 256 + c0)] >> 16]  # order 1, collision-free
    length = streams[s, S_MATCH_LEN]
    bucket = 0
    match_state = 0
    inputs[2] = 0
    inputs[3] = 0
    if length > 0:
        predicted = np.int64(buffer[streams[s, S_MATCH_PTR]]) | 256
        if (predicted >> (8 - bitpos)) == c0:
            bit = (predicted >> (7 - bitpos)) & 1
            capped = min(length, 31)
            inputs[2] = STRETCH[match_map[capped * 2 + bit] >> 16]
            inputs[3] = (capped * 64) if bit else -(capped * 64)
            bucket = 1 if length < 16 else (2 if length < 32 else 3)
            match_state = 1 + capped * 2 + bit
        else:
            streams[s, S_MATCH_LEN] = 0
    if parts & F_ORDER0 and bucket == 0:
        inputs[2] = STRETCH[match_map[ORDER0_AT + c0] >> 16]
    inputs[NETWORK_INPUT] = network
    n = FIXED_INPUTS
    count = parameters[P_COUNT]
    model_parts = parameters[P_PARTS]
    # The APMs' rows, asked for now: read after the mixing, they missed the cache.
    row2 = (streams[s, S_IMAGE_PREDICTED] if parts & F_IMAGE else last) * 256 + c0
    if parts & F_JPEG and tables.kind_state[J_ACTIVE]:  # by the coefficient and the code so far
        row2 = tables.kind_state[J_SET]
    apm_prefetch(apm2, row2)
    if parts & F_APM3:  # by order 2 and c0
        key = streams[s, S_HISTORY] & 0xFFFF
        if parts & F_DNA:  # by the last 8 bases
            key = streams[s, S_DNA_HISTORY] & 0xFFFF
        elif parts & F_X86:  # by the opcode, the place in the instruction, the last byte
            key = (x86_opcode_set(streams, s) << 8) | last
        elif parts & F_IMAGE:  # by the plane, the median predictor, the neighbourhood
            key = streams[s, S_IMAGE_APM]
        row3 = jpeg_apm_row(tables.kind_state, key, c0) if parts & F_JPEG else \
            context_hash(key, c0) & ((1 << APM3_BITS) - 1)  # (in a scan: by a coefficient's)
        apm_prefetch(apm3, row3)
    if parts & F_SSE:
        rows = sse_rows(streams, buffer, s, c0, last, bucket)
        for row in rows:
            apm_prefetch(apm3, row)
    runs_on = parts & F_RUNS
    quiet = 1 if parts & F_QUIET else 0  # each context's inputs at half scale
    sure_at = FIXED_INPUTS + (4 if runs_on else 2) * count if parts & F_SURE else 0
    seen = 0  # (F_SEEN) the contexts whose node has a bit history
    for k in range(count):
        i = parameters[P_ACTIVE + k]
        value = nodes[unsigned(streams[s, unsigned(S_SLOTS + i)] * 16 + node)]
        inputs[n] = STRETCH[value >> 16] >> quiet
        h = (value >> 8) & 255
        inputs[n + 1] = STRETCH[state_maps[unsigned(i * 256 + h)] >> 16] >> quiet if h else 0
        if parts & F_SEEN and h:
            seen += 1
        if runs_on:  # (model 3) its probability in the linear domain, after the runs below
            inputs[FIXED_INPUTS + 3 * count + k] = (np.int64(value >> 16) - 32768) >> (6 + quiet)
        if sure_at:  # (F_SURE) and where its history has seen one bit value only, again
            inputs[sure_at + k] = STRETCH[value >> 16] >> quiet if ONE_SIDED[h] else 0
        n += 2
    if runs_on:
        # Two more inputs per context (model 3): its run's prediction, and (set above)
        # its probability in the linear domain, the mixer's other nonlinearity.
        run_inputs(inputs, n, streams, run_map, parameters, s, c0, bitpos, model_parts, quiet)
        n += 2 * count
    if sure_at:
        n += count
    # the kind's inputs (code_byte's): the counts of bases, the image's predictions, JPEG's
    n += KIND_INPUTS
    set1 = c0 * 4 + bucket
    set2 = 1024 + streams[s, S_FOUND] * 8 + bitpos
    if parts & F_TABLE:  # by the field's index, not the contexts found
        set2 = parameters[P_TABLE_SETS] + min(streams[s, S_FIELD], TABLE_FIELDS - 1) * 8 + bitpos
    elif parts & F_DNA:  # by the high orders seen, the line's end, a header, the last
        matched, select = dna_sets(streams, s)  # two bases; set 1 by c0 and the matches
        set1 = c0 * 4 + matched
        set2 = parameters[P_DNA_SETS] + select * 8 + bitpos
    elif parts & F_X86:  # by the place in the instruction
        set2 = parameters[P_X86_SETS] + x86_set(streams, s) * 8 + bitpos
    elif parts & F_IMAGE:  # by the plane and the neighbourhood
        set2 = parameters[P_IMAGE_SETS] + streams[s, S_IMAGE_SET] * 8 + bitpos
    elif parts & F_JPEG and tables.kind_state[J_ACTIVE]:  # by the coefficient and the code so far
        set2 = parameters[P_IMAGE_SETS] + tables.kind_state[J_SET]
    elif parts & F_RECORDS and record_kept(streams, s):  # by the column
        set2 = parameters[P_RECORD_SETS] + record_set(streams, s) * 8 + bitpos
    elif parts & F_SEEN:  # by the contexts seen or the match, and the last byte's top bits
        set2 = 1024 + min(seen if bucket == 0 else count + bucket, MAX_CONTEXTS) * 8 + (last >> 5)
    dot1, dot2 = two_dots(inputs, weights, n, set1, set2)
    if parts & F_LAYERS:
        # Two more weight sets, by the last byte and by the one before, and a
        # final mixer of the four outputs, its weights chosen by c0.
        set3 = LAYER_SETS + last
        if parts & F_IMAGE:  # by the plane and the neighbourhood's shape instead
            set3 = parameters[P_IMAGE_SETS] + IMAGE_BUSY_SETS + streams[s, S_IMAGE_SHAPE]
        set4 = LAYER_SETS + 256 + ((streams[s, S_HISTORY] >> 8) & 255)
        if parts & F_X86:  # by the opcode and the place in the instruction instead
            set4 = parameters[P_X86_SETS] + X86_PLACE_SETS + x86_opcode_set(streams, s)
        elif parts & F_IMAGE:  # by the pixel's prediction instead
            set4 = LAYER_SETS + 256 + streams[s, S_IMAGE_PREDICTED]
        elif parts & F_MARKUP:  # by where the byte is in the markup and its place
            set4 = LAYER_SETS + 256 + streams[s, S_M_PLACE]
        if parts & F_JPEG:  # by the coefficient's neighbours instead, in a scan
            set3, set4 = jpeg_layers(tables.kind_state, parameters[P_IMAGE_SETS], set3, set4)
        note_sets(scratch, 8, set3, set4, inputs, weights, n, 2)
        if parts & F_SETS and parts & F_IMAGE:  # by the plane and the pixel's place in
            set5 = MORE_SETS + streams[s, S_IMAGE_PHASE]  # its block; in its strip
            set6 = MORE_SETS + SET5 + streams[s, S_IMAGE_STRIP]
            note_sets(scratch, 20, set5, set6, inputs, weights, n, 4)
        elif parts & F_SETS:  # and two more: by order 2, hashed; by the match state and bit
            set5 = MORE_SETS + (context_hash(streams[s, S_HISTORY] & 0xFFFF, 51) & (SET5 - 1))
            set6 = MORE_SETS + SET5 + match_state * 8 + bitpos
            note_sets(scratch, 20, set5, set6, inputs, weights, n, 4)
            if parts & F_WORDSET:  # two more: by the word so far, and set 1 learning slowly
                kind = byte_kind(last)
                word_sets = MORE_SETS + SET5 + SET6
                set7 = word_sets + (min(streams[s, S_WORDLEN], 7) * 4 + kind) * 8 + bitpos
                note_sets(scratch, 26, set7, word_sets + WORD_SETS + set1, inputs, weights, n, 6)
                if parts & F_SETS4:  # two more: by the last four bytes' kinds, by order 3
                    kinds = 0
                    for b in range(4):
                        kinds = kinds * 4 + byte_kind((streams[s, S_HISTORY] >> (8 * b)) & 255)
                    base = word_sets + WORD_SETS + 1024
                    set9 = base + kinds * 8 + bitpos
                    set10 = base + KIND_SETS + (
                        context_hash(streams[s, S_HISTORY] & 0xFFFFFF, 52) & (SET10 - 1))
                    note_sets(scratch, 12, set9, set10, inputs, weights, n, 8)
                    if parts & F_SETS5:  # two more: by the text's groups and its classes
                        set11, set12 = text_sets(streams, s, c0, bitpos, base + KIND_SETS + SET10)
                        note_sets(scratch, SETS5_AT, set11, set12, inputs, weights, n, 10)
        scratch[SCRATCH_DOTS] = dot1
        scratch[SCRATCH_DOTS + 1] = dot2
        scratch[16] = (jpeg_final_row(tables.kind_state, c0) if parts & F_JPEG else c0) * \
            parameters[P_SETS]  # (in a scan: by the coefficient and the code so far)
        mixed = final_mix(final, scratch, 16, parameters[P_SETS])
        if parts & F_FINAL2:  # and a second final mixer, by the text around the bit
            scratch[FINAL2_AT] = (FINAL_ROWS + final2_row(streams, s, bucket, bitpos)) * \
                parameters[P_SETS]
            mixed = (mixed + final_mix(final, scratch, FINAL2_AT, parameters[P_SETS])) >> 1
    else:
        mixed = (dot1 + dot2) >> 1
    p0 = np.int64(squash(mixed))
    # APMs: interpolate between the two knots around the mixed stretch.
    position = (mixed + 2048) * (APM_KNOTS - 1)
    knot = position >> 12
    weight = position & 4095
    p1 = apm_read(apm1, scratch, 4, c0, knot, weight)
    p2 = apm_read(apm2, scratch, 5, row2, knot, weight)
    if parts & F_APM3:
        p3 = apm_read(apm3, scratch, 18, row3, knot, weight)
        # The maps with the most context (by the last byte, by order 2) weigh most.
        p = (p0 + p1 + 3 * p2 + 3 * p3 + 4) >> 3
        if parts & F_SSE:  # three more (fade.statistics.sse)
            p = sse_refined(apm3, scratch, rows, knot, weight, p)
    else:
        p = (p0 + p1 + 2 * p2 + 2) >> 2
    scratch[0] = set1
    scratch[1] = set2
    scratch[2] = squash(dot1)
    scratch[3] = squash(dot2)
    scratch[SCRATCH_NODE] = node
    scratch[7] = n
    return max(min(p, 65535), 1)


@_jit(INLINED)
def update(tables, s, c0, bitpos, bit, node):
    """Every part of stream s's model learns `bit`, coded at `node` of its byte's c0."""
    nodes, direct, state_maps = tables.nodes, tables.direct, tables.state_maps
    match_map, weights, apm1, apm2 = tables.match_map, tables.weights, tables.apm1, tables.apm2
    streams, buffer, inputs, scratch = tables.streams, tables.buffer, tables.inputs, tables.scratch
    parameters, apm3, final, run_map = tables.parameters, tables.apm3, tables.final, tables.run_map
    rate = parameters[P_RATE]
    parts = PARTS
    model_parts = parameters[P_PARTS]
    states = parts & F_STATES
    for k in range(parameters[P_COUNT]):
        i = parameters[P_ACTIVE + k]
        index = unsigned(streams[s, unsigned(S_SLOTS + i)] * 16 + node)
        value = np.int64(nodes[index])
        p = value >> 16
        h = (value >> 8) & 255
        n = value & 255
        p += (((bit << 16) - p) * RECIPROCAL[unsigned(n)]) >> 16
        if n < COUNTER_LIMIT:
            n += 1
        if h:
            adapt(state_maps, i * 256 + h, bit, STATE_LIMIT)
        if states:  # its counts' state
            h = NEXT[unsigned(h * 2 + bit)]
        elif h:  # its last seven bits, after a leading 1
            h = (h << 1) | bit
            if h >= 256:
                h = (h & 127) | 128
        else:
            h = 2 | bit
        nodes[index] = np.uint32((p << 16) | (h << 8) | n)
    if parts & F_RUNS:
        runs_learn(streams, run_map, parameters, s, c0, bitpos, bit, model_parts)
    last = streams[s, S_HISTORY] & 255
    adapt(direct, last * 256 + c0, bit, COUNTER_LIMIT)
    length = streams[s, S_MATCH_LEN]
    if parts & F_ORDER0 and length == 0:  # (no match predicted the bit)
        adapt(match_map, ORDER0_AT + c0, bit, STATE_LIMIT)
    if length > 0:
        predicted = np.int64(buffer[streams[s, S_MATCH_PTR]]) | 256
        expected = (predicted >> (7 - bitpos)) & 1
        adapt(match_map, min(length, 31) * 2 + expected, bit, STATE_LIMIT)
        if expected != bit:
            streams[s, S_MATCH_LEN] = 0
    if parts & F_RATE:  # faster at first: 4x the rate at the start, 2.5x after 16 KiB
        rate += (rate * 3 << 14) // ((1 << 14) + streams[s, S_POSITION])
    if parts & F_QUIET:  # and 1.5x, its contexts' inputs at half scale
        rate += rate >> 1
    skip = LAZY_ERROR if parts & F_LAZY else 0
    used = scratch[7]  # the inputs the mixer used
    # each pair of weight sets learns (their indices, then their outputs, in the scratch)
    grown = learn_two(weights, inputs, used, scratch, 0, bit, rate, skip)
    if parts & F_LAYERS:
        grown |= learn_two(weights, inputs, used, scratch, 8, bit, rate, skip)
        final_learn(final, scratch, 16, parameters[P_SETS], bit, parameters[P_RATE])
        if parts & F_FINAL2:
            final_learn(final, scratch, FINAL2_AT, parameters[P_SETS], bit, parameters[P_RATE])
        if parts & F_SETS:
            grown |= learn_two(weights, inputs, used, scratch, 20, bit, rate, skip)
        if parts & F_WORDSET:  # (its second set, set 1's again, learns slowly)
            grown |= learn(weights, inputs, used, scratch[26], scratch[28], bit, rate, skip)
            grown |= learn(weights, inputs, used, scratch[27], scratch[29], bit, rate >> 2, skip)
        if parts & F_SETS4:
            grown |= learn_two(weights, inputs, used, scratch, 12, bit, rate, skip)
        if parts & F_SETS5:
            grown |= learn_two(weights, inputs, used, scratch, SETS5_AT, bit, rate, skip)
    if grown:  # (32-bit weights: the loop widens them after this byte)
        tables.coder[C_GROWN] = 1
    if parts & F_APM3:
        apm_learn(apm3, scratch[18], bit)
    if parts & F_SSE:
        sse_learn(apm3, scratch, streams, s, bit)
    apm_learn(apm1, scratch[4], bit)
    apm_learn(apm2, scratch[5], bit)


@_jit(JIT)
def end_byte(tables, s, byte, bits, match_bits):
    """After stream s coded `byte`: histories, word, match model, next slots."""
    match_table, streams, buffer = tables.match_table, tables.streams, tables.buffer
    known, parameters, followers = tables.known, tables.parameters, tables.followers
    runs, recent, kind_map, kind_bytes = (tables.runs, tables.recent, tables.kind_map,
                                          tables.kind_bytes)
    position = streams[s, S_BASE] + streams[s, S_POSITION]
    buffer[position] = byte
    known[position] = 1
    streams[s, S_POSITION] += 1
    note_line(streams, s, byte)
    parts = PARTS
    model_parts = parameters[P_PARTS]
    if parts & F_TABLE:
        if parts & F_MARKUP:
            note_markup(streams, recent, s, byte, model_parts & F_SOURCE)
        else:
            note_field(streams, buffer, s, byte, model_parts & F_LOG)
    if parts & F_DNA:
        note_dna(streams, kind_map, kind_bytes, match_table, parameters, s, byte)
    if parts & F_X86:
        if parts & F_X86MORE:
            note_x86_more(streams, recent, s, byte)
        note_x86(streams, s, byte)
    if parts & F_IMAGE:
        _image_noted(tables, s, byte)
    if parts & F_JPEG:
        jpeg_byte(tables.kind_state, buffer, position)
    if parts & F_INDIRECT:
        note_followers(followers, streams[s, S_HISTORY], byte)
    if parts & (F_RECORD | F_RECORDS):
        note_record(streams, recent, s, byte, model_parts)
    if parts & F_RUNS:
        note_runs(streams, runs, parameters, s, byte, model_parts)
    if parts & F_WORDS:
        note_words(followers, streams, s, byte)
    if parts & F_RECALL:
        note_recall(followers, streams, s, byte)
    if parts & F_TEXT3:
        note_text3(streams, s, byte)
    note_byte(streams, s, byte)
    # Match model: extend the match if the predicted byte came, else look one up.
    length = streams[s, S_MATCH_LEN]
    if length > 0:
        pointer = streams[s, S_MATCH_PTR] + 1
        if pointer < known.shape[0] and known[pointer]:
            streams[s, S_MATCH_PTR] = pointer
            streams[s, S_MATCH_LEN] = min(length + 1, MATCH_LIMIT)
        else:
            streams[s, S_MATCH_LEN] = 0
    done = streams[s, S_POSITION]
    if done >= MATCH_MIN and not parts & F_DNA:  # (6 bytes of bases place nothing)
        slot = match_slot(streams[s, S_HISTORY], match_bits)
        if streams[s, S_MATCH_LEN] == 0:
            candidate = match_table[slot]  # position after an earlier occurrence, + 1
            if candidate > 0:
                pointer = candidate - 1
                if pointer < known.shape[0] and known[pointer]:
                    n = 0
                    while (n < 32 and n < done and pointer - 1 - n >= 0
                           and known[pointer - 1 - n]
                           and buffer[pointer - 1 - n] == buffer[position - n]):
                        n += 1
                    if n >= MATCH_MIN:
                        streams[s, S_MATCH_PTR] = pointer
                        streams[s, S_MATCH_LEN] = n
        match_table[slot] = position + 2
    _start_byte(tables, s, bits)


@_jit(JIT)
def _dna_bit(tables, s, c0, bitpos):
    """F_DNA: the counts' and matches' inputs for stream s's next bit (apart
    from predict: binding one more array there slowed every model, docs/
    history/statistics-0.11.md, "Models 10 to 12")."""
    dna_inputs(tables.inputs, tables.parameters[P_KIND_INPUT], tables.streams, tables.kind_map,
               tables.kind_bytes, tables.match_map, s, c0, bitpos)


@_jit(JIT)
def _image_start(tables, s):
    """F_IMAGE: stream s's image contexts and predictions for its next byte
    (apart from _start_byte: compiled into it, they slowed text 5-9%)."""
    image_contexts(tables.scratch, tables.streams, tables.buffer, tables.kind_bytes,
                   tables.kind_state, s, tables.parameters[P_PARTS])


@_jit(JIT)
def _image_bit(tables, s, c0, bitpos):
    """F_IMAGE: the predictions' inputs for stream s's next bit (as _dna_bit)."""
    image_inputs(tables.inputs, tables.parameters[P_KIND_INPUT], tables.streams,
                 tables.kind_map, s, c0, bitpos)


@_jit(JIT)
def _image_noted(tables, s, byte):
    """F_IMAGE: stream s's predictions' errors at the byte it coded."""
    note_image(tables.streams, tables.kind_bytes, tables.kind_map, tables.kind_state, s, byte,
               tables.parameters[P_PARTS])


@_jit(JIT)
def code_byte(tables, stream, s, byte, distribution, decoding):
    """Code one byte of stream s: encode `byte` into `stream`, or decode and
    return it. `distribution`: the network's 256 integer weights, or empty."""
    scratch, parameters, coder = tables.scratch, tables.parameters, tables.coder
    bits = parameters[P_BITS]
    parts = PARTS
    c0 = np.int64(1)
    for bitpos in range(8):
        slots_ahead(tables, s, bits, byte, c0, bitpos, decoding)
        if parts & F_DNA:
            _dna_bit(tables, s, c0, bitpos)
        elif parts & F_IMAGE:
            _image_bit(tables, s, c0, bitpos)
        elif parts & F_JPEG:
            jpeg_inputs(tables.kind_state, tables.kind_map, tables.inputs, parameters[P_KIND_INPUT],
                        KIND_INPUTS)
        network = 0
        if distribution.shape[0] == 256:
            network = network_bits(distribution, c0, bitpos)
        p = predict(tables, s, c0, bitpos, network)
        node = scratch[SCRATCH_NODE]
        bit = code_bit(coder, stream, (byte >> (7 - bitpos)) & 1, p, decoding)
        update(tables, s, c0, bitpos, bit, node)
        if parts & F_DNA:  # the matches' probabilities learn the bit
            dna_learn(tables.match_map, tables.streams, s, bit)
        elif parts & F_JPEG:
            jpeg_learn(tables.kind_state, tables.kind_map, bit, KIND_INPUTS)
        c0 = (c0 << 1) | bit
        if bitpos == 3:
            second_nibble(tables, s, bits, c0)
    byte = c0 & 255
    end_byte(tables, s, byte, bits, parameters[P_MATCH_BITS])
    code_check(coder, stream, byte, decoding)
    return byte


@_jit(JIT)
def begin_streams(tables, starts, lengths):
    """Place stream s at buffer[starts[s]:starts[s] + lengths[s]] and find
    its first byte's slots."""
    streams, parameters = tables.streams, tables.parameters
    bits = parameters[P_BITS]
    for s in range(starts.shape[0]):
        streams[s, S_BASE] = starts[s]
        streams[s, S_LENGTH] = lengths[s]
        _start_byte(tables, s, bits)


@_jit(JIT)
def begin_image(tables, s, start, end, stride, row, pixel):
    """F_IMAGE: stream s's pixels lie from its next byte `start` to `end`, rows of
    `stride` bytes (`row` of them pixels, `pixel` bytes a pixel): hash again."""
    streams = tables.streams
    streams[s, S_IMAGE_START], streams[s, S_IMAGE_END] = start, end
    streams[s, S_IMAGE_STRIDE], streams[s, S_IMAGE_ROW] = stride, row
    streams[s, S_IMAGE_PIXEL] = pixel
    _start_byte(tables, s, tables.parameters[P_BITS])


@_jit(ALLOCATING)  # (its empty distribution)
def encode_range(tables, data, begin, end, out):
    """Encode data[begin:end] into `out`; returns the coder's position in it."""
    coder = tables.coder
    empty = np.zeros(0, dtype=np.int64)
    # Stream 0 and the direction typed as any stream's and direction (each
    # literal compiles another code_byte: one serves code_step and both ranges)
    first, encoding = np.int64(0), np.bool_(False)
    for i in range(begin, end):
        code_byte(tables, out, first, np.int64(data[i]), empty, encoding)
        if coder[C_GROWN]:  # (a weight grew: stopped after the byte, C_GROWN says where)
            coder[C_GROWN] = i + 1
            break
    return coder[C_POS]


@_jit(ALLOCATING)  # (its empty distribution)
def decode_range(tables, payload, out, begin, end):
    """Decode out[begin:end]; returns where it stopped (end unless damaged, or a
    weight grew: C_GROWN, as encode_range's)."""
    coder = tables.coder
    empty = np.zeros(0, dtype=np.int64)
    first, decoding = np.int64(0), np.bool_(True)  # (as encode_range's)
    for i in range(begin, end):
        out[i] = code_byte(tables, payload, first, np.int64(0), empty, decoding)
        if coder[C_DAMAGED]:
            return i
        if coder[C_GROWN]:
            coder[C_GROWN] = i + 1
            return i + 1
    return end


@_jit(JIT)
def code_step(tables, stream, symbols, distributions, count, decoding):
    """One lockstep step: byte `symbols[s]` of streams s < count, each with the
    network's weights `distributions[s]` (none: no columns); decoding fills `symbols`."""
    coder = tables.coder
    for s in range(count):
        if distributions.shape[1] == 256:
            distribution = distributions[s]
        else:
            distribution = distributions[0, :0]
        byte = code_byte(tables, stream, s, np.int64(symbols[s]), distribution, decoding)
        if decoding:
            symbols[s] = byte
            if coder[C_DAMAGED]:
                return s
    return count
