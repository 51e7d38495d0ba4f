"""Context-mixing statistics and their binary arithmetic coder.

The only module that knows numba. Each byte is coded as eight binary
decisions, most significant bit first; before each one, a set of models
predicts it from hashed contexts of the bytes before (orders 1-4 and 6, the
current word, and a match model that follows the last occurrence of the
latest 6 bytes), a logistic mixer weighs their predictions in the stretched
(logit) domain, and two adaptive probability maps (APMs) refine the result;
then every part learns from the bit. This is the scheme of Mahoney's lpaq1
and paq8 family, written anew: integer arithmetic only, squash and stretch
from integer tables, so any CPU computes the same bits (no numeric profile
is needed here, unlike the network).

Four models, chosen by StatisticsConfig.model and recorded in the archive
(fade.statistics_state.MODEL_PARTS; docs/statistics.md): model 0 is the one
above; model 1 adds three contexts (the current word with the previous one
and with the one before that; bytes 2-3 back), two more weight sets (by the
last byte and by the one before) with a final mixer in place of the two
sets' average, a third APM on order 2, and a mixer rate that starts higher;
model 2 adds seven contexts (orders 5 and 8, three words, two by column, two
indirect) and four more weight sets; model 3 adds two inputs per context
(its run and its linear probability) and five contexts (the match model's
expected byte, two sparse, two by record length). Every model stays as it
is, bit for bit, so that older archives decode.

Two ways to drive it share one per-bit predictor and one update:

- `encode_file` / `decode_file`: one stream in file order (level `fast`).
- `Statistics`: several sub-streams in fade's lockstep, one byte of each per
  step, with an optional 256-way distribution per byte from the network
  that enters the mixer as one more input (the hybrid). Each sub-stream has
  its own recent bytes, word and match state, and contexts keyed by its
  index beside the shared ones: the shared recency state of a slot is
  disturbed by the other streams between a stream's own visits, the keyed
  contexts keep it.

All state lives in `Tables`, a named tuple of arrays that the compiled
kernels take whole and read by field name; fade.statistics_state describes
its arrays and names the fields inside them.

Cost: 2-5 us per byte and stream on one core (model 1: about 1.5 times
that, model 2 about 3 times, model 3 about 5 times), whatever the stream count;
the hash table takes 64 bytes a slot (one cache line; StatisticsConfig.memory_bytes
counts every array).
The first call in a process compiles the loops (seconds) or loads them from
numba's cache beside this file.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numba as nb
import numpy as np

from fade.config import StatisticsConfig
from fade.errors import CorruptArchiveError
from fade.statistics_state import (
    ABOVE, APM3_BITS, APM_KNOTS, BIGRAM, C_CODE, C_COUNT, C_DAMAGED, C_HASH, C_HIGH, C_LOW,
    C_NEXT, C_POS, COLUMN, EXPECTED, F_APM3, F_COLUMNS, F_EXPECTED, F_INDIRECT, F_LAYERS,
    F_ORDERS, F_RATE, F_RECORD, F_RUNS, F_SETS, F_SETS4, F_SPARSE2, F_STRIDE, F_TRIGRAM,
    F_WORDSET, FIXED_INPUTS, INDIRECT1, INDIRECT2, INPUTS, KEYED, KIND_SETS, LAYER_SETS,
    MAX_CONTEXTS, MODEL_PARTS, MORE_SETS, NODES, ORDER5, ORDER8, P_ACTIVE, P_BITS, P_COUNT,
    P_KEYED, P_MATCH_BITS, P_PARTS, P_RATE, P_SETS, RECORD1, RECORD2, S_ABOVE, S_BASE, S_FOUND,
    S_HISTORY, S_LENGTH, S_LINE, S_MATCH_LEN, S_MATCH_PTR, S_POSITION, S_RECORD,
    S_RECORD_SEEN, S_RUN, S_RUN_BYTE, S_SLOTS, S_WORD, S_WORD2, S_WORD3, S_WORDLEN,
    SCRATCH_DOTS, SCRATCH_HASHES, SCRATCH_NODE, SET5, SET6, SET10, SHARED, SKIPGRAM, SPARSE,
    SPARSE2, SPARSE3, STRIDE1, STRIDE2, TRIGRAM, WORD_SETS, active_contexts, final_sets,
    state_arrays)

# Knots of the logistic function: 65536 / (1 + exp(-k / 2)) for k = -32..32,
# rounded (computed once with math.exp and written out, so no libm is
# involved at run time). Squash interpolates them linearly, 64 stretch units
# apart: the stretch domain is -2047..2047 in units of 1/128 of a logit.
_KNOTS = np.array([
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 5, 8, 13, 22, 36, 60, 98, 162, 267, 439,
    720, 1179, 1921, 3108, 4971, 7812, 11955, 17625, 24743, 32768, 40793, 47911,
    53581, 57724, 60565, 62428, 63615, 64357, 64816, 65097, 65269, 65374, 65438,
    65476, 65500, 65514, 65523, 65528, 65531, 65533, 65534, 65535, 65535, 65536,
    65536, 65536, 65536, 65536, 65536, 65536, 65536, 65536], dtype=np.int64)


def _squash_table() -> np.ndarray:
    d = np.arange(-2047, 2048, dtype=np.int64) + 2048
    k, w = d >> 6, d & 63
    values = (_KNOTS[k] * (64 - w) + _KNOTS[k + 1] * w) >> 6
    return np.clip(values, 1, 65535).astype(np.int32)  # index d + 2047


SQUASH = _squash_table()
# stretch(p) = the smallest d with squash(d) >= p: the inverse on 16-bit probabilities.
STRETCH = (np.searchsorted(SQUASH, np.arange(65536), side="left") - 2047).clip(
    -2047, 2047).astype(np.int32)
# 65536 * 2 / (2n + 3): an adaptive probability's step after n updates, 1 / (n + 1.5).
RECIPROCAL = (131072 // (2 * np.arange(1024, dtype=np.int64) + 3)).astype(np.int32)

NETWORK_INPUT = 4  # the network's input, after the bias, order 1 and the match's two
MATCH_MIN = 6  # bytes hashed to find a match
MATCH_LIMIT = 65535  # a match length saturates here
COUNTER_LIMIT = 255  # adaptive probabilities slow down to 1/256.5
STATE_LIMIT = 1023  # bit-history maps slow down to 1/1024.5
# A coder codes a check of the bytes it coded (in its coding order) after the
# first 256, then after twice as many each time up to every 16 KiB: the low
# CHECK_BITS bits of their hash at probability 1/2 each, about 0.04% of a
# 2-bits-a-byte stream. A decoder that runs past the honest data (a false
# original_size, a damaged stream) meets a wrong check within twice the
# honest length, or 16 KiB, and stops instead of decoding on cheaply: past
# the end of a stream, zeros decode as runs the model soon predicts nearly free.
CHECK_FIRST, CHECK_LAST, CHECK_BITS = 256, 16384, 12


class Tables(NamedTuple):
    """All adaptive state of one statistics model and its coder, as arrays
    the compiled kernels take whole (numba reads a named tuple's fields by
    name). fade.statistics_state.state_arrays gives each field's shape and
    dtype, in this order; `build` allocates and starts them. A kernel binds
    the fields it uses to locals once, at its start: each read of a field
    costs numba a reference count update, too dear in the per-bit code
    (docs/statistics.md, "Speed")."""

    nodes: np.ndarray  # the hash table: 2^table_bits slots of NODES nodes
    direct: np.ndarray  # order 1 by (last byte, c0), no hashing
    state_maps: np.ndarray  # per context, a bit history's probability
    match_table: np.ndarray  # the match model's hash of the last MATCH_MIN bytes -> position
    match_map: np.ndarray  # the match model's (length, expected bit) -> probability
    weights: np.ndarray  # the mixer's weight sets, INPUTS each
    apm1: np.ndarray  # APM by c0
    apm2: np.ndarray  # APM by the last byte and c0
    streams: np.ndarray  # (streams, S_FIELDS): each stream's state
    buffer: np.ndarray  # every coded byte
    known: np.ndarray  # 1 where a byte is coded
    inputs: np.ndarray  # the current bit's mixer inputs
    scratch: np.ndarray  # the current bit's mixer state, then context hashes
    parameters: np.ndarray  # the P_ fields: the config and the active contexts
    apm3: np.ndarray  # F_APM3: APM by a hash of order 2 and c0
    final: np.ndarray  # F_LAYERS: the final mixer's weights, by c0
    followers: np.ndarray  # F_INDIRECT: the bytes that followed each byte and pair
    runs: np.ndarray  # F_RUNS: per context hash, its last byte and run length
    run_map: np.ndarray  # per context, (run length, expected bit) -> probability
    recent: np.ndarray  # F_RECORD: per stream, each byte value's last place
    coder: np.ndarray  # the range coder's C_ fields

    @classmethod
    def build(cls, config: StatisticsConfig, streams: int, length: int) -> "Tables":
        """Fresh tables for `streams` sub-streams of `length` bytes in all
        (FadeError for a config out of its domains)."""
        tables = cls(**{name: np.zeros(shape, dtype=dtype)
                        for name, shape, dtype in state_arrays(config, streams, length)})
        parts = MODEL_PARTS[config.model]
        tables.direct[:] = 1 << 31
        # A bit history h starts near its bits' mean, in every context's map.
        priors = np.array([_history_prior(h) for h in range(256)], dtype=np.uint32)
        tables.state_maps.reshape(MAX_CONTEXTS, 256)[:] = priors
        tables.match_map[:] = 1 << 31
        active, late, unkeyed = active_contexts(parts, config.keyed)
        _start_weights(tables.weights.reshape(-1, INPUTS), active, late, unkeyed)
        knots = SQUASH[(np.arange(APM_KNOTS) * 128 - 1).clip(0, 4094)].astype(np.int64)
        for apm in (tables.apm1, tables.apm2, tables.apm3):
            apm.reshape(-1, APM_KNOTS)[:] = knots
        tables.coder[C_NEXT] = CHECK_FIRST
        tables.coder[C_HIGH] = 0xFFFFFFFF
        sets = final_sets(parts)
        tables.parameters[:] = [config.table_bits, config.match_bits, config.mixer_rate,
                                int(config.keyed), parts, sets, len(active), *active]
        # The final mixer's weights, per c0: the average of the sets at first.
        tables.final[:] = 65536 // sets
        tables.run_map[:] = 1 << 31
        return tables


def _start_weights(weights: np.ndarray, active: list[int], late: list[int],
                   unkeyed: int) -> None:
    """The mixer's starting weights, (sets, INPUTS): 1/4 for the inputs that
    predict from the start, 0 for those that may say nothing at first (the
    keyed contexts, the network, the contexts from model 2 on, F_RUNS'
    inputs), which the mixer raises as they prove useful."""
    weights[:] = 16384
    weights[:, FIXED_INPUTS + 2 * unkeyed:] = 0
    weights[:, NETWORK_INPUT] = 0
    for k in late:
        weights[:, FIXED_INPUTS + 2 * k:FIXED_INPUTS + 2 * k + 2] = 0
    weights[:, FIXED_INPUTS + 2 * len(active):] = 0


def _history_prior(h: int) -> int:
    """A bit history's starting probability of a 1: (ones + 0.5) / (bits + 1)."""
    if h < 2:
        return 1 << 31
    bits = h.bit_length() - 1
    ones = bin(h & ((1 << bits) - 1)).count("1")
    p16 = (2 * ones + 1) * 65536 // (2 * bits + 2)
    return (min(max(p16, 64), 65472) << 16)


_JIT = dict(nogil=True, cache=True, boundscheck=False)


@nb.njit(**_JIT)
def _squash(d):
    if d > 2047:
        d = 2047
    if d < -2047:
        d = -2047
    return _SQUASH[d + 2047]


_SQUASH = SQUASH
_STRETCH = STRETCH
_RECIPROCAL = RECIPROCAL


@nb.njit(**_JIT)
def _adapt(table, index, bit, limit):
    """An adaptive probability, (p22 << 10) | n: step 1 / (n + 1.5), n capped at limit."""
    value = np.int64(table[index])
    n = value & 1023
    p = value >> 10
    target = bit << 22
    p += ((target - p) * _RECIPROCAL[n]) >> 16
    if n < limit:
        n += 1
    table[index] = np.uint32((p << 10) | n)


@nb.njit(**_JIT)
def _byte_kind(c):
    """0 for a letter, 1 a digit, 2 a space or control byte (<= 32), 3 any other."""
    return 0 if 97 <= (c | 32) <= 122 else (1 if 48 <= c <= 57 else (2 if c <= 32 else 3))


@nb.njit(**_JIT)
def _hash(a, b):
    h = (a + 0x9E3779B97F4A7C15) * 0x2545F4914F6CDD1D + b * 0x632BE59BD9B4E019
    return h ^ (h >> 29)


@nb.njit(**_JIT)
def _find_slot(nodes, bits, h):
    """The slot of context hash h: one of three neighbours with its check, or the
    least used of them, cleared."""
    mask = (np.int64(1) << bits) - 1
    base = (h >> 20) & mask
    check = np.uint32(((h >> 32) & 0xFFFFFFFF) | 1)
    victim = base
    least = np.int64(1) << 40
    for probe in range(3):
        slot = base ^ probe
        if nodes[slot * 16] == check:
            return slot, 1
        used = np.int64(nodes[slot * 16 + 1] & 255)
        if used < least:
            least = used
            victim = slot
    start = victim * 16
    nodes[start] = check
    for j in range(1, 16):
        nodes[start + j] = np.uint32(1 << 31)
    return victim, 0


@nb.njit(**_JIT)
def _start_byte(tables, s, bits):
    """Find the contexts' slots for stream s's next byte (first nibble)."""
    nodes, streams, buffer, scratch = tables.nodes, tables.streams, tables.buffer, tables.scratch
    parameters, followers, runs = tables.parameters, tables.followers, tables.runs
    history = streams[s, S_HISTORY]
    word = streams[s, S_WORD]
    for i in range(5):
        order = (1, 2, 3, 4, 6)[i]
        context = history & ((np.int64(1) << (8 * order)) - 1)
        scratch[SCRATCH_HASHES + i] = _hash(context, i + 1)
    scratch[SCRATCH_HASHES + 5] = _hash(word, 7)
    if parameters[P_KEYED]:
        for i in range(4):
            context = history & ((np.int64(1) << (8 * (i + 1))) - 1)
            scratch[SCRATCH_HASHES + 6 + i] = _hash(context * 4099 + s, i + 11)
        scratch[SCRATCH_HASHES + 10] = _hash(word * 4099 + s, 15)
    if parameters[P_PARTS]:
        scratch[SCRATCH_HASHES + BIGRAM] = _hash(word + streams[s, S_WORD2] * 0x3A8F05C5, 22)
        scratch[SCRATCH_HASHES + SKIPGRAM] = _hash(word + streams[s, S_WORD3] * 0x3A8F05C5, 25)
        scratch[SCRATCH_HASHES + SPARSE] = _hash((history >> 8) & 0xFFFF, 23)
    parts = parameters[P_PARTS]
    if parts & (F_ORDERS | F_COLUMNS):
        position = streams[s, S_POSITION]
        start = streams[s, S_BASE]
        if parts & F_ORDERS:
            scratch[SCRATCH_HASHES + ORDER5] = _hash(history & 0xFFFFFFFFFF, 41)
            older = 0
            for k in range(7, 9):
                if position >= k:
                    older = (older << 8) | np.int64(buffer[start + position - k])
            scratch[SCRATCH_HASHES + ORDER8] = _hash(history * 0x10001 + older, 42)
        if parts & F_COLUMNS:
            line = streams[s, S_LINE]
            column = position - line
            above = 0
            if line > 0 and streams[s, S_ABOVE] + column < line:
                above = np.int64(buffer[start + streams[s, S_ABOVE] + column])
            scratch[SCRATCH_HASHES + ABOVE] = _hash(above * 256 + (history & 255), 44)
            scratch[SCRATCH_HASHES + COLUMN] = _hash(above * 4096 + min(column, 4095), 45)
    if parts & F_INDIRECT:
        c1 = history & 255
        c2 = history & 0xFFFF
        scratch[SCRATCH_HASHES + INDIRECT1] = _hash(c1 * 65536 + followers[c1], 46)
        scratch[SCRATCH_HASHES + INDIRECT2] = _hash(c2 * 65536 + followers[256 + c2], 47)
    if parts & F_SPARSE2:
        scratch[SCRATCH_HASHES + SPARSE2] = _hash(history & 0xFF00FF, 55)
        scratch[SCRATCH_HASHES + SPARSE3] = _hash((history >> 16) & 0xFFFF, 56)
    if parts & F_RECORD:
        position = streams[s, S_POSITION]
        start = streams[s, S_BASE]
        r = streams[s, S_RECORD]
        back1 = 0  # the bytes one and two records back
        back2 = 0
        if r > 0 and position >= 2 * r:
            back1 = np.int64(buffer[start + position - r])
            back2 = np.int64(buffer[start + position - 2 * r])
        r = min(r, 4095)
        scratch[SCRATCH_HASHES + RECORD1] = _hash(((back1 << 8) | (history & 255)) * 4096 + r, 57)
        scratch[SCRATCH_HASHES + RECORD2] = _hash(((back1 << 8) | back2) * 4096 + r, 58)
    if parts & F_STRIDE:
        position = streams[s, S_POSITION]
        start = streams[s, S_BASE]
        back8 = np.int64(buffer[start + position - 8]) if position >= 8 else 0
        back16 = np.int64(buffer[start + position - 16]) if position >= 16 else 0
        lane = position & 7
        scratch[SCRATCH_HASHES + STRIDE1] = _hash((lane << 16) | (back8 << 8) | back16, 61)
        scratch[SCRATCH_HASHES + STRIDE2] = _hash((lane << 16) | (back16 << 8) | (history & 255),
                                                  62)
    if parts & F_EXPECTED:
        expected = 0
        if streams[s, S_MATCH_LEN] > 0:
            expected = (np.int64(buffer[streams[s, S_MATCH_PTR]]) + 256) * 16 + min(
                streams[s, S_MATCH_LEN], 15)
        scratch[SCRATCH_HASHES + EXPECTED] = _hash(expected * 256 + (history & 255), 48)
    if parts & F_TRIGRAM:
        scratch[SCRATCH_HASHES + TRIGRAM] = _hash(
            word + (streams[s, S_WORD2] + streams[s, S_WORD3] * 0x3A8F05C5) * 0x2F0F3A55, 43)
    streams[s, S_FOUND] = _find_slots(nodes, bits, streams, s, scratch, parameters)
    if parts & F_RUNS:
        mask = (np.int64(1) << bits) - 1
        for k in range(parameters[P_COUNT]):
            i = parameters[P_ACTIVE + k]
            h = scratch[SCRATCH_HASHES + i]
            index = (h >> 8) & mask
            check = (h >> 40) & 0xFFFFFF
            streams[s, S_RUN + i] = index | (check << 32)
            entry = runs[index]
            streams[s, S_RUN_BYTE + i] = (entry & 0xFFFF) if (entry >> 16) == check else -1


@nb.njit(**_JIT)
def _find_slots(nodes, bits, streams, s, scratch, parameters):
    """The slots of stream s's active contexts' hashes (scratch[SCRATCH_HASHES
    + i]), found in input order; returns how many unkeyed ones were seen before."""
    count = parameters[P_COUNT]
    found = 0
    for k in range(count):
        i = parameters[P_ACTIVE + k]
        slot, seen = _find_slot(nodes, bits, scratch[SCRATCH_HASHES + i])
        streams[s, S_SLOTS + i] = slot
        if i < SHARED or i >= SHARED + KEYED:
            found += seen
    return found


@nb.njit(**_JIT)
def _second_nibble(tables, s, bits, c0):
    """Find the contexts' slots for stream s's second nibble, after the first, c0."""
    nodes, streams, scratch = tables.nodes, tables.streams, tables.scratch
    parameters = tables.parameters
    for k in range(parameters[P_COUNT]):
        i = parameters[P_ACTIVE + k]
        scratch[SCRATCH_HASHES + i] = _hash(streams[s, S_SLOTS + i] * 16 + c0, i + 31)
    _find_slots(nodes, bits, streams, s, scratch, parameters)


@nb.njit(**_JIT)
def _two_dots(inputs, weights, n, set_a, set_b):
    """The outputs of weight sets a and b on the first n inputs, stretched and clipped."""
    dot_a = np.int64(0)
    dot_b = np.int64(0)
    wa = set_a * INPUTS
    wb = set_b * INPUTS
    for j in range(n):
        dot_a += inputs[j] * weights[wa + j]
        dot_b += inputs[j] * weights[wb + j]
    return max(min(dot_a >> 16, 2047), -2047), max(min(dot_b >> 16, 2047), -2047)


@nb.njit(**_JIT)
def _note_sets(scratch, at, set_a, set_b, inputs, weights, n, place):
    """Two more weight sets under the final mixer: their outputs, kept as its
    inputs `place` and `place` + 1, and their indices and probabilities at
    scratch[at:at + 4] for their update."""
    dot_a, dot_b = _two_dots(inputs, weights, n, set_a, set_b)
    scratch[at] = set_a
    scratch[at + 1] = set_b
    scratch[at + 2] = _squash(dot_a)
    scratch[at + 3] = _squash(dot_b)
    scratch[SCRATCH_DOTS + place] = dot_a
    scratch[SCRATCH_DOTS + place + 1] = dot_b


@nb.njit(**_JIT)
def _predict(tables, s, c0, bitpos, network):
    """P(next bit = 1) in 16 bits for stream s, partial byte c0 (1..255),
    `network` the network's stretched probability of a 1 (0: none)."""
    nodes, direct, state_maps = tables.nodes, tables.direct, tables.state_maps
    match_map, weights, apm1, apm2 = tables.match_map, tables.weights, tables.apm1, tables.apm2
    streams, buffer, inputs, scratch = tables.streams, tables.buffer, tables.inputs, tables.scratch
    parameters, apm3, final, run_map = tables.parameters, tables.apm3, tables.final, tables.run_map
    node = c0  # the node of the partial nibble, 1..15: a leading 1, then its bits
    if bitpos >= 4:
        node = (1 << (bitpos - 4)) | (c0 & ((1 << (bitpos - 4)) - 1))
    # Inputs: the fixed ones first (bias, order 1, match, network), then two per
    # context, so each keeps its place (and weight) whether contexts are keyed.
    inputs[0] = 256  # bias
    last = streams[s, S_HISTORY] & 255
    inputs[1] = _STRETCH[direct[last * 256 + c0] >> 16]  # order 1 direct, collision-free
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
            inputs[2] = _STRETCH[match_map[capped * 2 + bit] >> 16]
            inputs[3] = (capped * 64) if bit else -(capped * 64)
            bucket = 1 if length < 16 else (2 if length < 32 else 3)
            match_state = 1 + capped * 2 + bit
        else:
            streams[s, S_MATCH_LEN] = 0
    inputs[NETWORK_INPUT] = network
    n = FIXED_INPUTS
    count = parameters[P_COUNT]
    runs_on = parameters[P_PARTS] & F_RUNS
    for k in range(count):
        i = parameters[P_ACTIVE + k]
        value = nodes[streams[s, S_SLOTS + i] * 16 + node]
        inputs[n] = _STRETCH[value >> 16]
        h = (value >> 8) & 255
        inputs[n + 1] = _STRETCH[state_maps[i * 256 + h] >> 16] if h else 0
        if runs_on:  # (model 3) its probability in the linear domain, after the runs below
            inputs[FIXED_INPUTS + 3 * count + k] = (np.int64(value >> 16) - 32768) >> 6
        n += 2
    if runs_on:
        # Two more inputs per context (model 3): its run's prediction, and (set
        # above) its probability in the linear domain, the mixer's other
        # nonlinearity.
        for k in range(count):
            i = parameters[P_ACTIVE + k]
            run = streams[s, S_RUN_BYTE + i]
            inputs[n] = 0
            if run >= 0:
                predicted = (run & 255) | 256
                if (predicted >> (8 - bitpos)) == c0:
                    bit = (predicted >> (7 - bitpos)) & 1
                    place = i * 64 + min(run >> 8, 15) * 2 + bit
                    inputs[n] = _STRETCH[run_map[place] >> 16]
                else:  # the byte went another way: no prediction for its other bits
                    streams[s, S_RUN_BYTE + i] = -1
            n += 1
        n += count
    set1 = c0 * 4 + bucket
    set2 = 1024 + streams[s, S_FOUND] * 8 + bitpos
    dot1, dot2 = _two_dots(inputs, weights, n, set1, set2)
    parts = parameters[P_PARTS]
    if parts & F_LAYERS:
        # Two more weight sets, by the last byte and by the one before, and a
        # final mixer of the four outputs, its weights chosen by c0.
        set3 = LAYER_SETS + last
        set4 = LAYER_SETS + 256 + ((streams[s, S_HISTORY] >> 8) & 255)
        _note_sets(scratch, 8, set3, set4, inputs, weights, n, 2)
        if parts & F_SETS:  # and two more: by order 2, hashed; by the match state and bit
            set5 = MORE_SETS + (_hash(streams[s, S_HISTORY] & 0xFFFF, 51) & (SET5 - 1))
            set6 = MORE_SETS + SET5 + match_state * 8 + bitpos
            _note_sets(scratch, 20, set5, set6, inputs, weights, n, 4)
            if parts & F_WORDSET:  # two more: by the word so far, and set 1 learning slowly
                kind = _byte_kind(last)
                word_sets = MORE_SETS + SET5 + SET6
                set7 = word_sets + (min(streams[s, S_WORDLEN], 7) * 4 + kind) * 8 + bitpos
                _note_sets(scratch, 26, set7, word_sets + WORD_SETS + set1, inputs, weights, n, 6)
                if parts & F_SETS4:  # two more: by the last four bytes' kinds, by order 3
                    kinds = 0
                    for b in range(4):
                        kinds = kinds * 4 + _byte_kind((streams[s, S_HISTORY] >> (8 * b)) & 255)
                    base = word_sets + WORD_SETS + 1024
                    set9 = base + kinds * 8 + bitpos
                    set10 = base + KIND_SETS + (
                        _hash(streams[s, S_HISTORY] & 0xFFFFFF, 52) & (SET10 - 1))
                    _note_sets(scratch, 12, set9, set10, inputs, weights, n, 8)
        scratch[SCRATCH_DOTS] = dot1
        scratch[SCRATCH_DOTS + 1] = dot2
        f = c0 * parameters[P_SETS]
        mixed = 0
        for k in range(parameters[P_SETS]):
            mixed += scratch[SCRATCH_DOTS + k] * final[f + k]
        mixed = max(min(mixed >> 16, 2047), -2047)
        scratch[16] = f
        scratch[17] = _squash(mixed)
    else:
        mixed = (dot1 + dot2) >> 1
    p0 = np.int64(_squash(mixed))
    # APMs: interpolate between the two knots around the mixed stretch.
    position = (mixed + 2048) * (APM_KNOTS - 1)
    knot = position >> 12
    weight = position & 4095
    a1 = (c0 * APM_KNOTS) + knot
    a2 = ((last * 256 + c0) * APM_KNOTS) + knot
    p1 = (apm1[a1] * (4096 - weight) + apm1[a1 + 1] * weight) >> 12
    p2 = (apm2[a2] * (4096 - weight) + apm2[a2 + 1] * weight) >> 12
    if parts & F_APM3:
        a3 = (_hash(streams[s, S_HISTORY] & 0xFFFF, c0) & ((1 << APM3_BITS) - 1)) * APM_KNOTS + knot
        p3 = (apm3[a3] * (4096 - weight) + apm3[a3 + 1] * weight) >> 12
        scratch[18] = a3 if weight < 2048 else a3 + 1
        # The maps with the most context (by the last byte, by order 2) weigh most.
        p = (p0 + p1 + 3 * p2 + 3 * p3 + 4) >> 3
    else:
        p = (p0 + p1 + 2 * p2 + 2) >> 2
    scratch[0] = set1
    scratch[1] = set2
    scratch[2] = _squash(dot1)
    scratch[3] = _squash(dot2)
    scratch[4] = a1 if weight < 2048 else a1 + 1
    scratch[5] = a2 if weight < 2048 else a2 + 1
    scratch[SCRATCH_NODE] = node
    scratch[7] = n
    return max(min(p, 65535), 1)


@nb.njit(**_JIT)
def _learn(weights, inputs, n, weight_set, p, bit, rate):
    """One weight set's step on the first n inputs, against its own output p."""
    error = (((bit << 16) - p) >> 4) * rate
    w = weight_set * INPUTS
    for j in range(n):
        weights[w + j] += (inputs[j] * error) >> 16


@nb.njit(**_JIT)
def _update(tables, s, c0, bitpos, bit, node):
    """Every part of stream s's model learns `bit`, coded at `node` of its byte's c0."""
    nodes, direct, state_maps = tables.nodes, tables.direct, tables.state_maps
    match_map, weights, apm1, apm2 = tables.match_map, tables.weights, tables.apm1, tables.apm2
    streams, buffer, inputs, scratch = tables.streams, tables.buffer, tables.inputs, tables.scratch
    parameters, apm3, final, run_map = tables.parameters, tables.apm3, tables.final, tables.run_map
    rate = parameters[P_RATE]
    parts = parameters[P_PARTS]
    for k in range(parameters[P_COUNT]):
        i = parameters[P_ACTIVE + k]
        index = streams[s, S_SLOTS + i] * 16 + node
        value = np.int64(nodes[index])
        p = value >> 16
        h = (value >> 8) & 255
        n = value & 255
        p += (((bit << 16) - p) * _RECIPROCAL[n]) >> 16
        if n < COUNTER_LIMIT:
            n += 1
        if h:
            _adapt(state_maps, i * 256 + h, bit, STATE_LIMIT)
            h = (h << 1) | bit
            if h >= 256:
                h = (h & 127) | 128
        else:
            h = 2 | bit
        nodes[index] = np.uint32((p << 16) | (h << 8) | n)
    if parts & F_RUNS:
        for k in range(parameters[P_COUNT]):
            i = parameters[P_ACTIVE + k]
            run = streams[s, S_RUN_BYTE + i]
            if run >= 0:
                expected = (((run & 255) | 256) >> (7 - bitpos)) & 1
                _adapt(run_map, i * 64 + min(run >> 8, 15) * 2 + expected, bit, STATE_LIMIT)
    last = streams[s, S_HISTORY] & 255
    _adapt(direct, last * 256 + c0, bit, COUNTER_LIMIT)
    length = streams[s, S_MATCH_LEN]
    if length > 0:
        predicted = np.int64(buffer[streams[s, S_MATCH_PTR]]) | 256
        expected = (predicted >> (7 - bitpos)) & 1
        _adapt(match_map, min(length, 31) * 2 + expected, bit, STATE_LIMIT)
        if expected != bit:
            streams[s, S_MATCH_LEN] = 0
    if parts & F_RATE:  # faster at first: 4x the rate at the start, 2.5x after 16 KiB
        rate += (rate * 3 << 14) // ((1 << 14) + streams[s, S_POSITION])
    for k in range(2):
        _learn(weights, inputs, scratch[7], scratch[k], scratch[2 + k], bit, rate)
    target = bit << 16
    if parts & F_LAYERS:
        for k in range(2):  # the two further sets, each on its own output's error
            _learn(weights, inputs, scratch[7], scratch[8 + k], scratch[10 + k], bit, rate)
        error = (((bit << 16) - scratch[17]) >> 4) * parameters[P_RATE]
        f = scratch[16]
        for k in range(parameters[P_SETS]):
            final[f + k] += (scratch[SCRATCH_DOTS + k] * error) >> 16
        if parts & F_SETS:
            for k in range(2):
                _learn(weights, inputs, scratch[7], scratch[20 + k], scratch[22 + k], bit, rate)
        if parts & F_WORDSET:
            _learn(weights, inputs, scratch[7], scratch[26], scratch[28], bit, rate)
            _learn(weights, inputs, scratch[7], scratch[27], scratch[29], bit, rate >> 2)
        if parts & F_SETS4:
            for k in range(2):
                _learn(weights, inputs, scratch[7], scratch[12 + k], scratch[14 + k], bit, rate)
    if parts & F_APM3:
        apm3[scratch[18]] += (target - apm3[scratch[18]]) >> 6
    apm1[scratch[4]] += (target - apm1[scratch[4]]) >> 6
    apm2[scratch[5]] += (target - apm2[scratch[5]]) >> 6


@nb.njit(**_JIT)
def _end_byte(tables, s, byte, bits, match_bits):
    """After stream s coded `byte`: histories, word, match model, next slots."""
    match_table, streams, buffer = tables.match_table, tables.streams, tables.buffer
    known, parameters, followers = tables.known, tables.parameters, tables.followers
    runs, recent = tables.runs, tables.recent
    position = streams[s, S_BASE] + streams[s, S_POSITION]
    buffer[position] = byte
    known[position] = 1
    streams[s, S_POSITION] += 1
    if byte == 10:
        streams[s, S_ABOVE] = streams[s, S_LINE]
        streams[s, S_LINE] = streams[s, S_POSITION]
    if parameters[P_PARTS] & F_INDIRECT:
        c1 = streams[s, S_HISTORY] & 255
        c2 = streams[s, S_HISTORY] & 0xFFFF
        followers[c1] = ((followers[c1] << 8) | byte) & 0xFFFF
        followers[256 + c2] = ((followers[256 + c2] << 8) | byte) & 0xFFFF
    if parameters[P_PARTS] & F_RECORD:
        # The record length: a distance d > 3 at which a byte value came twice in
        # a row (d since its last time, and d before that), once three such
        # repeats (of any values) agree on d with none at another distance
        # between them.
        here = streams[s, S_POSITION] - 1
        d = here - (recent[s, byte] - 1) if recent[s, byte] > 0 else 0
        if d > 3 and d == recent[s, 256 + byte]:
            seen = streams[s, S_RECORD_SEEN]  # d << 16 | how many repeats agreed on it
            if d == seen >> 16:
                seen += 1 if (seen & 0xFFFF) < 0xFFFF else 0
            else:
                seen = (d << 16) | 1
            streams[s, S_RECORD_SEEN] = seen
            if (seen & 0xFFFF) >= 3:
                streams[s, S_RECORD] = d
        recent[s, 256 + byte] = d
        recent[s, byte] = here + 1
    if parameters[P_PARTS] & F_RUNS:
        for k in range(parameters[P_COUNT]):
            i = parameters[P_ACTIVE + k]
            index = streams[s, S_RUN + i] & 0xFFFFFFFF
            check = streams[s, S_RUN + i] >> 32
            entry = runs[index]
            count = 1
            if (entry >> 16) == check and (entry & 255) == byte:
                count = min(((entry >> 8) & 255) + 1, 255)
            runs[index] = (check << 16) | (count << 8) | byte
    streams[s, S_HISTORY] = ((streams[s, S_HISTORY] << 8) | byte) & 0xFFFFFFFFFFFF
    lower = byte + 32 if 65 <= byte <= 90 else byte
    if 97 <= lower <= 122 or byte >= 128:
        streams[s, S_WORDLEN] += 1
        streams[s, S_WORD] = (streams[s, S_WORD] + lower + 1) * 0x2F0F3A55 & 0xFFFFFFFFFFFF
    else:
        if streams[s, S_WORD] != 0:
            streams[s, S_WORD3] = streams[s, S_WORD2]
            streams[s, S_WORD2] = streams[s, S_WORD]
        streams[s, S_WORD] = 0
        streams[s, S_WORDLEN] = 0
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
    if done >= MATCH_MIN:
        h = streams[s, S_HISTORY] & 0xFFFFFFFFFFFF
        slot = _hash(h, 99) & ((np.int64(1) << match_bits) - 1)
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


@nb.njit(**_JIT)
def _code_bit(coder, stream, bit, p, decoding):
    """Binary arithmetic coder (carry-less, 32-bit), p = P(1) in 16 bits:
    encode `bit` into `stream`, or decode a bit from it; returns the bit.
    The range splits at middle: a 1 takes [low, middle], a 0 (middle, high];
    while low and high share their top byte, it is shifted out (encoding:
    written; decoding: the next stream byte shifted into the code)."""
    low = coder[C_LOW]
    high = coder[C_HIGH]
    middle = low + (((high - low) * p) >> 16)
    if decoding:
        bit = 1 if coder[C_CODE] <= middle else 0
    if bit:
        high = middle
    else:
        low = middle + 1
    position = coder[C_POS]
    code = coder[C_CODE]
    while ((low ^ high) & 0xFF000000) == 0:
        if decoding:
            byte = 0
            if position < stream.shape[0]:
                byte = stream[position]
            elif position > stream.shape[0] + 8:
                coder[C_DAMAGED] = 1
            code = ((code << 8) & 0xFFFFFFFF) | byte
        elif position < stream.shape[0]:
            stream[position] = (high >> 24) & 255
        position += 1
        low = (low << 8) & 0xFFFFFFFF
        high = ((high << 8) & 0xFFFFFFFF) | 255
    coder[C_POS] = position
    coder[C_LOW] = low
    coder[C_HIGH] = high
    coder[C_CODE] = code
    return bit


@nb.njit(**_JIT)
def _start_decoder(coder, payload):
    code = 0
    for i in range(4):
        code = code << 8
        if i < payload.shape[0]:
            code |= payload[i]
    coder[C_CODE] = code
    coder[C_POS] = 4


@nb.njit(**_JIT)
def _flush(coder, out):
    position = coder[C_POS]
    for i in range(4):
        if position < out.shape[0]:
            out[position] = (coder[C_LOW] >> (24 - 8 * i)) & 255
        position += 1
    coder[C_POS] = position


@nb.njit(**_JIT)
def _network_bits(distribution, c0, bitpos):
    """The network's stretched P(bit = 1 | the byte's earlier bits c0): the mass
    of the byte values that start with c0 and then a 1, over those with c0."""
    first = (c0 << (8 - bitpos)) & 255
    half = 1 << (7 - bitpos)
    zeros = np.int64(0)
    ones = np.int64(0)
    for v in range(first, first + half):
        zeros += distribution[v]
    for v in range(first + half, first + 2 * half):
        ones += distribution[v]
    total = zeros + ones
    if total <= 0:
        return 0
    p = (ones * 65536 + total // 2) // total
    return _STRETCH[max(min(p, 65535), 1)]


@nb.njit(**_JIT)
def _code_byte(tables, stream, s, byte, distribution, decoding):
    """Code one byte of stream s: encode `byte` into `stream`, or decode and
    return it. `distribution`: the network's 256 integer weights, or empty."""
    scratch, parameters, coder = tables.scratch, tables.parameters, tables.coder
    bits = parameters[P_BITS]
    c0 = np.int64(1)
    for bitpos in range(8):
        network = 0
        if distribution.shape[0] == 256:
            network = _network_bits(distribution, c0, bitpos)
        p = _predict(tables, s, c0, bitpos, network)
        node = scratch[SCRATCH_NODE]
        bit = _code_bit(coder, stream, (byte >> (7 - bitpos)) & 1, p, decoding)
        _update(tables, s, c0, bitpos, bit, node)
        c0 = (c0 << 1) | bit
        if bitpos == 3:
            _second_nibble(tables, s, bits, c0)
    byte = c0 & 255
    _end_byte(tables, s, byte, bits, parameters[P_MATCH_BITS])
    _check(coder, stream, byte, decoding)
    return byte


@nb.njit(**_JIT)
def _check(coder, stream, byte, decoding):
    """Hash `byte` into the check; at a check point, code its CHECK_BITS bits
    (a decoder compares them with its own and flags damage)."""
    coder[C_HASH] = ((coder[C_HASH] ^ byte) * 0x01000193) & 0xFFFFFFFF
    coder[C_COUNT] += 1
    if coder[C_COUNT] < coder[C_NEXT]:
        return
    expected = coder[C_HASH] & ((1 << CHECK_BITS) - 1)
    got = 0
    for k in range(CHECK_BITS):
        bit = _code_bit(coder, stream, (expected >> (CHECK_BITS - 1 - k)) & 1, 32768, decoding)
        got = (got << 1) | bit
    if got != expected:
        coder[C_DAMAGED] = 1
    coder[C_HASH] = 0
    coder[C_COUNT] = 0
    coder[C_NEXT] = min(2 * coder[C_NEXT], CHECK_LAST)


@nb.njit(**_JIT)
def _begin(tables, starts, lengths):
    """Place stream s at buffer[starts[s]:starts[s] + lengths[s]] and find
    its first byte's slots."""
    streams, parameters = tables.streams, tables.parameters
    bits = parameters[P_BITS]
    for s in range(starts.shape[0]):
        streams[s, S_BASE] = starts[s]
        streams[s, S_LENGTH] = lengths[s]
        _start_byte(tables, s, bits)


@nb.njit(**_JIT)
def _encode_range(tables, data, begin, end, out):
    """Encode data[begin:end] into `out`; returns the coder's position in it."""
    coder = tables.coder
    empty = np.zeros(0, dtype=np.int64)
    for i in range(begin, end):
        _code_byte(tables, out, 0, np.int64(data[i]), empty, False)
    return coder[C_POS]


@nb.njit(**_JIT)
def _decode_range(tables, payload, out, begin, end):
    """Decode out[begin:end]; returns where it stopped (end unless damaged)."""
    coder = tables.coder
    empty = np.zeros(0, dtype=np.int64)
    for i in range(begin, end):
        out[i] = _code_byte(tables, payload, 0, 0, empty, True)
        if coder[C_DAMAGED]:
            return i
    return end


CHUNK = 1 << 16  # bytes coded between progress reports (and Ctrl-C checks): ~0.3 s


def encode_file(data: bytes, config: StatisticsConfig,
                progress: Callable[[int, int], None] | None = None) -> bytes | None:
    """Code `data` in file order: the stream `decode_file` takes back, or None
    if it would exceed 10 bits a byte (the size floor wins there anyway).
    `progress(bytes_done, bits_so_far)` is called every CHUNK bytes (the
    bits the coder has put out, at most 32 short of the code length)."""
    return encode_file_marked(data, config, np.zeros(0, dtype=np.int64), progress)[0]


def encode_file_marked(data: bytes, config: StatisticsConfig, marks: np.ndarray,
                       progress: Callable[[int, int], None] | None = None
                       ) -> tuple[bytes | None, np.ndarray]:
    """`encode_file`, and the bits put out for data[:m] at each offset m of
    `marks` (0 <= m <= len(data), any order): multiples of 8, at most 32 bits
    short of the code length (what the coder holds back), the same on any CPU."""
    tables = Tables.build(config, 1, len(data))
    _begin(tables, np.zeros(1, dtype=np.int64), np.array([len(data)], dtype=np.int64))
    source = np.frombuffer(data, dtype=np.uint8)
    out = np.zeros(len(data) + len(data) // 4 + 64, dtype=np.uint8)
    marks = np.asarray(marks, dtype=np.int64)
    bits = np.zeros(len(marks), dtype=np.int64)
    stops = np.union1d(np.arange(CHUNK, len(data), CHUNK), marks)
    begin = 0
    for end in [*stops[(stops > 0) & (stops < len(data))].tolist(), len(data)]:
        if _encode_range(tables, source, begin, end, out) > out.shape[0]:
            return None, bits
        bits[marks == end] = 8 * tables.coder[C_POS]
        if progress is not None and (end % CHUNK == 0 or end == len(data)):
            progress(end, 8 * int(tables.coder[C_POS]))
        begin = end
    _flush(tables.coder, out)
    size = tables.coder[C_POS]
    return (None if size > out.shape[0] else out[:size].tobytes()), bits


def decode_file(stream: bytes, size: int, config: StatisticsConfig,
                progress: Callable[[int, int], None] | None = None) -> bytes:
    """The `size` bytes `encode_file` coded into `stream`; raises
    CorruptArchiveError if the stream runs out first."""
    return decode_prefix(stream, size, config, progress)[0]


def decode_prefix(stream: bytes, size: int, config: StatisticsConfig,
                  progress: Callable[[int, int], None] | None = None) -> tuple[bytes, int]:
    """`decode_file` of a stream that may have other bytes after it: the
    `size` bytes and the length of the stream `encode_file` wrote. The
    decoder reads the 4 bytes the encoder's flush writes first and then one
    byte per byte the encoder shifted out, so where it stops is where the
    encoder's stream ended (what finds the end of a statistics archive in a
    concatenation)."""
    tables = Tables.build(config, 1, size)
    _begin(tables, np.zeros(1, dtype=np.int64), np.array([size], dtype=np.int64))
    out = np.zeros(size, dtype=np.uint8)
    payload = np.frombuffer(stream, dtype=np.uint8).copy()  # numba takes no read-only array
    _start_decoder(tables.coder, payload)
    for begin in range(0, size, CHUNK):
        end = min(begin + CHUNK, size)
        done = _decode_range(tables, payload, out, begin, end)
        if done < end:
            raise CorruptArchiveError(f"the statistics stream is damaged: a check failed, or "
                                      f"it ran out, after {done} of {size} bytes")
        if progress is not None:
            progress(end, 8 * int(tables.coder[C_POS]))
    used = int(tables.coder[C_POS])
    if used > len(stream):
        raise CorruptArchiveError(f"the statistics stream is truncated: it needs {used} bytes, "
                                  f"{len(stream)} are there")
    return out.tobytes(), used


@nb.njit(**_JIT)
def _code_step(tables, stream, symbols, distributions, count, decoding):
    """One lockstep step: byte `symbols[s]` of streams s < count, each with the
    network's weights `distributions[s]` (or none, if that array has no
    columns); decoding fills `symbols` instead."""
    coder = tables.coder
    for s in range(count):
        if distributions.shape[1] == 256:
            distribution = distributions[s]
        else:
            distribution = distributions[0, :0]
        byte = _code_byte(tables, stream, s, np.int64(symbols[s]), distribution, decoding)
        if decoding:
            symbols[s] = byte
            if coder[C_DAMAGED]:
                return s
    return count


# The network's float32 probabilities become integer weights p * 2^24 + 1:
# exact in float32 (a power of two) and truncated alike everywhere, never 0.
_NETWORK_SCALE = np.float32(1 << 24)


def network_weights(probabilities: np.ndarray) -> np.ndarray:
    """The integer form of the network's (count, 256) float32 probabilities."""
    return (probabilities * _NETWORK_SCALE).astype(np.int64) + 1


class Statistics:
    """One group's statistics, coding its sub-streams in lockstep with the
    network (the hybrid): `encode` or `decode` one step at a time, one byte
    per active sub-stream (the first `count` of the group's), then `finish`.

    `lengths`: each sub-stream's length, in file order (the group's bytes
    are contiguous); `payload`: the stream to decode, or None to encode.
    Cost per step: 2-5 us per byte, in compiled code that releases the GIL."""

    def __init__(self, config: StatisticsConfig, lengths: np.ndarray,
                 payload: bytes | None = None):
        lengths = np.asarray(lengths, dtype=np.int64)
        self._tables = Tables.build(config, len(lengths), int(lengths.sum()))
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
        _begin(self._tables, starts, lengths)
        self._coder = self._tables.coder
        if payload is None:
            self._stream = np.zeros(1 << 16, dtype=np.uint8)
        else:
            self._stream = np.frombuffer(payload, dtype=np.uint8).copy()
            _start_decoder(self._coder, self._stream)
        self._empty = np.zeros((1, 0), dtype=np.int64)

    def encode(self, symbols: np.ndarray, probabilities: np.ndarray | None) -> None:
        """Code symbols[s] (uint8) of the first len(symbols) sub-streams."""
        count = len(symbols)
        need = int(self._coder[C_POS]) + 16 * count + 16  # a byte costs at most 16 bytes
        if need > len(self._stream):
            grown = np.zeros(max(need, 2 * len(self._stream)), dtype=np.uint8)
            grown[:len(self._stream)] = self._stream
            self._stream = grown
        weights = self._empty if probabilities is None else network_weights(probabilities)
        _code_step(self._tables, self._stream, np.ascontiguousarray(symbols, dtype=np.uint8),
                   weights, count, False)

    def decode(self, probabilities: np.ndarray | None, count: int | None = None) -> np.ndarray:
        """The next byte of each of the first `count` sub-streams (default: one
        per row of `probabilities`)."""
        count = len(probabilities) if count is None else count
        if probabilities is not None and not np.isfinite(probabilities).all():
            raise CorruptArchiveError("the model's probabilities are not finite: the header's "
                                      "model settings are not those the archive was made with")
        weights = self._empty if probabilities is None else network_weights(probabilities)
        symbols = np.zeros(count, dtype=np.uint8)
        if _code_step(self._tables, self._stream, symbols, weights, count, True) < count:
            raise CorruptArchiveError("the statistics stream is damaged: a check failed, or it "
                                      "ran out (or the header is not the one it was made with)")
        return symbols

    @property
    def bits(self) -> int:
        """Bits put out (encoding) or taken in (decoding) so far."""
        return 8 * int(self._coder[C_POS])

    def finish(self) -> bytes:
        """The encoded stream, complete."""
        _flush(self._coder, self._stream)
        return self._stream[:self._coder[C_POS]].tobytes()
