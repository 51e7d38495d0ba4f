"""The general contexts: byte orders, words, sparse and indirect contexts.

lpaq1's and paq8's core, which every model starts from: each byte's
contexts are hashed here (`general_contexts`, into the scratch, where the
predictor finds their slots), and the state they read is kept up to date
after each byte (`note_byte`: the history of the last 6 bytes, the current
word and the two before it, the bytes that followed each byte and pair).
Contexts for a kind of data live in a module of their own
(fade.statistics.records: tables, records and arrays). The hashes' slots
in the hash table are found here too (`find_slots`, `second_nibble`): the
same for every model, so compiled once for all of them, not with each
model's predictor.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import (INLINED, JIT, context_hash, find_slot, prefetch, slot_base,
                                     unsigned)
from fade.statistics.parts import (BIGRAM, EXPECTED, F_DNA, F_EXPECTED, F_INDIRECT, F_ORDERS,
                                   F_SPARSE2, F_TRIGRAM, INDIRECT1, INDIRECT2, KEYED, ORDER5,
                                   ORDER8, SHARED, SKIPGRAM, SPARSE, SPARSE2, SPARSE3, TRIGRAM)
from fade.statistics.state import (
    NODES, P_ACTIVE, P_COUNT, P_MATCH_BITS, P_PARTS, SCRATCH_HASHES, S_BASE, S_HISTORY,
    S_MATCH_LEN, S_MATCH_PTR, S_POSITION, S_SLOTS, S_WORD, S_WORD2, S_WORD3, S_WORDLEN)


@nb.njit(**JIT)
def byte_kind(c):
    """0 for a letter, 1 a digit, 2 a space or control byte (<= 32), 3 any other."""
    return 0 if 97 <= (c | 32) <= 122 else (1 if 48 <= c <= 57 else (2 if c <= 32 else 3))


@nb.njit(**JIT)
def final2_row(streams, s, bucket, bitpos):
    """F_FINAL2's row of weights: the match's length bucket (0-3), the kinds
    of the last two bytes, the word's length so far (up to 3) and the bit's
    position (FINAL2_ROWS rows)."""
    history = streams[s, S_HISTORY]
    row = (bucket * 4 + byte_kind(history & 255)) * 4 + min(streams[s, S_WORDLEN], 3)
    return (row * 4 + byte_kind((history >> 8) & 255)) * 8 + bitpos


@nb.njit(**JIT)
def general_contexts(scratch, streams, buffer, followers, s, parts, keyed):
    """Hash stream s's general contexts for its next byte into the scratch:
    orders 1-4 and 6 and the word; keyed by the stream if `keyed`; and those
    the model's `parts` add."""
    history = streams[s, S_HISTORY]
    word = streams[s, S_WORD]
    for i in range(ORDERS + 1):
        scratch[SCRATCH_HASHES + i] = order_hash(history, word, i)
    if keyed:
        for i in range(4):
            context = history & ((np.int64(1) << (8 * (i + 1))) - 1)
            scratch[SCRATCH_HASHES + 6 + i] = context_hash(context * 4099 + s, i + 11)
        scratch[SCRATCH_HASHES + 10] = context_hash(word * 4099 + s, 15)
    if parts:
        scratch[SCRATCH_HASHES + BIGRAM] = context_hash(
            word + streams[s, S_WORD2] * 0x3A8F05C5, 22)
        scratch[SCRATCH_HASHES + SKIPGRAM] = context_hash(
            word + streams[s, S_WORD3] * 0x3A8F05C5, 25)
        scratch[SCRATCH_HASHES + SPARSE] = context_hash((history >> 8) & 0xFFFF, 23)
    if parts & F_ORDERS:
        position = streams[s, S_POSITION]
        start = streams[s, S_BASE]
        scratch[SCRATCH_HASHES + ORDER5] = context_hash(history & 0xFFFFFFFFFF, 41)
        older = 0
        for k in range(7, 9):
            if position >= k:
                older = (older << 8) | np.int64(buffer[start + position - k])
        scratch[SCRATCH_HASHES + ORDER8] = context_hash(history * 0x10001 + older, 42)
    if parts & F_INDIRECT:
        c1 = history & 255
        c2 = history & 0xFFFF
        scratch[SCRATCH_HASHES + INDIRECT1] = context_hash(c1 * 65536 + followers[c1], 46)
        scratch[SCRATCH_HASHES + INDIRECT2] = context_hash(c2 * 65536 + followers[256 + c2], 47)
    if parts & F_SPARSE2:
        scratch[SCRATCH_HASHES + SPARSE2] = context_hash(history & 0xFF00FF, 55)
        scratch[SCRATCH_HASHES + SPARSE3] = context_hash((history >> 16) & 0xFFFF, 56)
    if parts & F_EXPECTED:
        expected = 0
        if streams[s, S_MATCH_LEN] > 0:
            expected = (np.int64(buffer[streams[s, S_MATCH_PTR]]) + 256) * 16 + min(
                streams[s, S_MATCH_LEN], 15)
        scratch[SCRATCH_HASHES + EXPECTED] = context_hash(expected * 256 + (history & 255), 48)
    if parts & F_TRIGRAM:
        scratch[SCRATCH_HASHES + TRIGRAM] = context_hash(
            word + (streams[s, S_WORD2] + streams[s, S_WORD3] * 0x3A8F05C5) * 0x2F0F3A55, 43)


@nb.njit(**JIT)
def note_followers(followers, history, byte):
    """F_INDIRECT: `byte` followed the last byte and pair of `history`."""
    c1 = history & 255
    c2 = history & 0xFFFF
    followers[c1] = ((followers[c1] << 8) | byte) & 0xFFFF
    followers[256 + c2] = ((followers[256 + c2] << 8) | byte) & 0xFFFF


@nb.njit(**JIT)
def in_word(byte):
    """Whether `byte` belongs to a word: a letter (either case) or a byte >= 128."""
    return 97 <= (byte | 32) <= 122 or byte >= 128


@nb.njit(**JIT)
def note_byte(streams, s, byte):
    """Stream s's history and words after `byte`: a word is a run of bytes
    `in_word`."""
    streams[s, S_HISTORY] = next_history(streams[s, S_HISTORY], byte)
    if in_word(byte):
        streams[s, S_WORDLEN] += 1
        streams[s, S_WORD] = next_word(streams[s, S_WORD], byte)
    else:
        if streams[s, S_WORD] != 0:
            streams[s, S_WORD3] = streams[s, S_WORD2]
            streams[s, S_WORD2] = streams[s, S_WORD]
        streams[s, S_WORD] = 0
        streams[s, S_WORDLEN] = 0


@nb.njit(**JIT)
def next_history(history, byte):
    """The last six bytes after `byte`."""
    return ((history << 8) | byte) & 0xFFFFFFFFFFFF


@nb.njit(**JIT)
def next_word(word, byte):
    """The word's hash after `byte`: 0 where the byte is no part of a word."""
    if in_word(byte):
        lower = byte + 32 if 65 <= byte <= 90 else byte
        return (word + lower + 1) * 0x2F0F3A55 & 0xFFFFFFFFFFFF
    return np.int64(0)


ORDERS = 5  # the general contexts 0 to 4 are orders 1 to 4 and 6; 5 is the word


@nb.njit(**JIT)
def order_hash(history, word, i):
    """General context i's hash (i <= ORDERS): an order of `history`, or the word."""
    if i == ORDERS:
        return context_hash(word, 7)
    order = (1, 2, 3, 4, 6)[i]
    return context_hash(history & ((np.int64(1) << (8 * order)) - 1), i + 1)


@nb.njit(**JIT)
def match_slot(history, match_bits):
    """The match model's entry for the last six bytes (`history`)."""
    return context_hash(history & 0xFFFFFFFFFFFF, 99) & ((np.int64(1) << match_bits) - 1)


@nb.njit(**JIT)
def ahead_byte(tables, s, bits, byte):
    """Ask for the slots that stream s's next byte's general contexts will
    take (`order_hash`) and for the match model's entry (`match_slot`;
    F_DNA's bases place none), if the byte now coded is `byte`. `find_slots`
    waited for these misses one after the other at the byte's end; asked for
    while the byte is coded, they overlap its bits (docs/results.md, "The
    next byte's slots a bit ahead"). Only requests to the cache: a context
    that a kind's part hashes otherwise is asked for in vain, and nothing is
    written."""
    nodes, streams, parameters = tables.nodes, tables.streams, tables.parameters
    history = next_history(streams[s, S_HISTORY], byte)
    word = next_word(streams[s, S_WORD], byte)
    for k in range(parameters[P_COUNT]):
        i = parameters[P_ACTIVE + k]
        if i <= ORDERS:
            prefetch(nodes, slot_base(order_hash(history, word, i), bits) * NODES)
    if not parameters[P_PARTS] & F_DNA:
        prefetch(tables.match_table, match_slot(history, parameters[P_MATCH_BITS]))


@nb.njit(**INLINED)
def slots_ahead(tables, s, bits, byte, c0, bitpos, decoding):
    """Before stream s's bit `bitpos` of `byte` (c0 the bits before it): ask
    for the slots to come. Decoding, before the last bit: `ahead_byte` for
    either value of it. Encoding, before the first: `ahead_known`."""
    if decoding:
        if bitpos == 7:
            for b in range(2):
                ahead_byte(tables, s, bits, ((c0 << 1) | b) & 255)
    elif bitpos == 0:
        ahead_known(tables, s, bits, byte)


@nb.njit(**JIT)
def ahead_known(tables, s, bits, byte):
    """Encoding `byte`: ask for the slots of its second nibble (`nibble_hash`)
    and of the next byte (`ahead_byte`), a nibble and a byte before they are
    read."""
    nodes, streams, parameters = tables.nodes, tables.streams, tables.parameters
    for k in range(parameters[P_COUNT]):
        i = parameters[P_ACTIVE + k]
        h = nibble_hash(streams[s, S_SLOTS + i], (byte >> 4) | 16, i)
        prefetch(nodes, slot_base(h, bits) * NODES)
    ahead_byte(tables, s, bits, byte)


@nb.njit(**JIT)
def nibble_hash(slot, c0, i):
    """Context i's hash for a byte's second nibble: its first nibble's
    `slot` and that nibble, c0 (with its leading 1)."""
    return context_hash(slot * 16 + c0, i + 31)


@nb.njit(**JIT)
def find_slots(nodes, bits, streams, s, scratch, parameters):
    """The slots of stream s's active contexts' hashes (scratch[SCRATCH_HASHES
    + i]), found in input order; returns how many unkeyed ones were seen before."""
    count = parameters[P_COUNT]
    for k in range(count):  # every context's slots asked for before the first is read
        h = scratch[SCRATCH_HASHES + parameters[P_ACTIVE + k]]
        prefetch(nodes, slot_base(h, bits) * NODES)
    found = 0
    for k in range(count):
        i = parameters[P_ACTIVE + k]
        slot, seen = find_slot(nodes, bits, scratch[SCRATCH_HASHES + i])
        streams[s, unsigned(S_SLOTS + i)] = slot
        if i < SHARED or i >= SHARED + KEYED:
            found += seen
    return found


@nb.njit(**JIT)
def second_nibble(tables, s, bits, c0):
    """Find the contexts' slots for stream s's second nibble, after the first, c0."""
    nodes, streams, scratch = tables.nodes, tables.streams, tables.scratch
    parameters = tables.parameters
    for k in range(parameters[P_COUNT]):
        i = parameters[P_ACTIVE + k]
        scratch[SCRATCH_HASHES + i] = nibble_hash(streams[s, S_SLOTS + i], c0, i)
    find_slots(nodes, bits, streams, s, scratch, parameters)
