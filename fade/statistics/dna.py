"""Nucleotides: DNA read as bases, whatever its line breaks, from both strands.

A genome in FASTA is header lines (`>` or `;` first) and lines of bases
(A, C, G, T in either case, N and other letters where unknown) broken at a
fixed width. What predicts a base is the bases before it, up to twenty and
more back, not the bytes: so the history here holds bases alone, 2 bits
each, and skips the line breaks, the headers and every other byte. Two
kinds of context read it:

- a hashed context of the bit-wise kind, in the shared hash table: the
  place in the line with the width of the line before, which finds the
  line breaks (and beside it the shared orders 1 and 2 of bytes);
- counts of the four bases after each context of DNA_ORDERS bases, one
  table per order (direct up to DNA_DIRECT, hashed above), each giving the
  mixer one input: the probability of the next bit from the bases whose
  letters agree with the byte's bits so far. After each base both strands
  learn (as the GeCo compressors do): the forward context counts the base,
  and the other strand's context, the complements of the last bases read
  backwards, counts the complement of the base before them. A stretch the
  genome holds reverse-complemented (an inverted repeat) then finds its
  counts;
- two match models on the bases: the last MATCH_BASES bases found earlier
  on this strand (the base that followed them then is expected next), or
  on the other (read backwards and complemented), each followed while it
  keeps predicting; an input each, from an adaptive probability by the
  match's length and the expected bit (the byte match model is off: six
  bytes of bases place nothing).

`dna_contexts` hashes a stream's contexts and finds its count entries for
the next byte; `dna_inputs` gives the mixer the counts' and the matches'
inputs for a bit and `dna_learn` teaches the matches' probabilities the
bit; `note_dna` counts a base on both strands, follows and finds the
matches, and keeps the state.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import INLINED, JIT, STATE_LIMIT, STRETCH, adapt, context_hash
from fade.statistics.parts import DNA_DIRECT, DNA_LINE, DNA_ORDERS
from fade.statistics.layouts.dna import (
    DNA_MATCHES, S_DNA_BASES, S_DNA_CASE, S_DNA_ENTRY, S_DNA_HEADER, S_DNA_HISTORY, S_DNA_HITS,
    S_DNA_LENGTH, S_DNA_MAP, S_DNA_POINTER, S_DNA_REVERSE, S_DNA_WIDTH)
from fade.statistics.state import (
    P_DNA_BITS, P_MATCH_BITS, SCRATCH_HASHES, S_ABOVE, S_BASE, S_LINE, S_POSITION)

_BASE = np.full(256, -1, dtype=np.int64)  # a byte's base: A, C, G, T (either case) 0-3
for _code, _letter in enumerate(b"ACGT"):
    _BASE[_letter] = _BASE[_letter | 32] = _code
_LETTERS = np.array([ord(c) for c in "ACGT"], dtype=np.int64)
_ORDERS = np.array(DNA_ORDERS, dtype=np.int64)
# A count of one base at its limit halves all four: low orders count long,
# high orders (where a context is a place in the genome) follow the latest.
_LIMITS = np.array([255 if k <= 8 else (63 if k <= 12 else 15) for k in DNA_ORDERS],
                   dtype=np.int64)
# The prior added to each base's count, in sixteenths: 1 for low orders,
# 1/8 for high ones (few counts there say much).
_PRIORS = np.array([16 if k <= 8 else 2 for k in DNA_ORDERS], dtype=np.int64)
_MASK = (np.int64(1) << 62) - 1  # 31 bases
_COUNTS = len(DNA_ORDERS)
MATCH_BASES = 16  # bases hashed to find a match
# A match starts at this length; a base it predicts adds one, one it misses
# divides it by 4, and below the start it ends (after long agreement a
# mutation does not end it).
_MATCH_START = 8


@nb.njit(**JIT)
def _entry(dna_bits, order, context, offset):
    """The count entry of `context` (order bases, 2 bits each) in the order's table
    at `offset`; returns it and the next table's offset."""
    if order <= DNA_DIRECT:
        return offset + context, offset + (np.int64(1) << (2 * order))
    mask = (np.int64(1) << dna_bits) - 1
    return offset + ((context_hash(context, 90 + order) >> 8) & mask), offset + mask + 1


@nb.njit(**JIT)
def dna_contexts(scratch, streams, dna, parameters, s):
    """Hash stream s's line context for its next byte into the scratch, and
    find each order's count entry (and how many of the hashed
    orders have seen their context)."""
    history = streams[s, S_DNA_HISTORY]
    header = streams[s, S_DNA_HEADER]
    column = min(streams[s, S_POSITION] - streams[s, S_LINE], 65535)
    width = min(streams[s, S_DNA_WIDTH], 65535)
    scratch[SCRATCH_HASHES + DNA_LINE] = context_hash(((column << 16) | width) * 2 + header, 83)
    bits = parameters[P_DNA_BITS]
    offset = np.int64(0)
    hits = 0
    for j in range(_COUNTS):
        order = _ORDERS[j]
        index, offset = _entry(bits, order, history & ((np.int64(1) << (2 * order)) - 1), offset)
        streams[s, S_DNA_ENTRY + j] = index
        if order > DNA_DIRECT and dna[index] != 0:
            hits += 1
    streams[s, S_DNA_HITS] = hits


@nb.njit(**JIT)
def dna_inputs(inputs, n, streams, dna, dna_bases, match_map, s, c0, bitpos):
    """The inputs for stream s's next bit, at inputs[n:n + DNA_INPUTS]: each
    order's stretched probability of a 1, from the bases whose letters (in
    the last base's case) begin with the byte's bits so far, c0 (0 where its
    context has no counts or no base agrees); then each match's, from the
    map by its length and the bit its base's letter has here (0 where there
    is no match or the letter does not begin with c0)."""
    case = streams[s, S_DNA_CASE]
    for which in range(DNA_MATCHES):
        length = streams[s, S_DNA_LENGTH + which]
        streams[s, S_DNA_MAP + which] = -1
        inputs[n + _COUNTS + which] = 0
        if length > 0:
            base = np.int64(dna_bases[streams[s, S_DNA_POINTER + which]])
            letter = _LETTERS[base if which == 0 else 3 - base] | case | 256
            if (letter >> (8 - bitpos)) == c0:
                index = (which * 32 + (min(length, 127) >> 2)) * 2 + ((letter >> (7 - bitpos)) & 1)
                streams[s, S_DNA_MAP + which] = index
                inputs[n + _COUNTS + which] = STRETCH[match_map[index] >> 16]
    for j in range(_COUNTS):
        entry = np.int64(dna[streams[s, S_DNA_ENTRY + j]])
        inputs[n + j] = 0
        if entry == 0:
            continue
        zeros = np.int64(0)
        ones = np.int64(0)
        for b in range(4):
            letter = _LETTERS[b] | case | 256
            if (letter >> (8 - bitpos)) == c0:
                mass = ((entry >> (8 * b)) & 255) * 16 + _PRIORS[j]
                if (letter >> (7 - bitpos)) & 1:
                    ones += mass
                else:
                    zeros += mass
        total = zeros + ones
        if total > 0:
            p = (ones * 65536 + (total >> 1)) // total
            inputs[n + j] = STRETCH[max(min(p, 65535), 1)]


@nb.njit(**INLINED)
def dna_sets(streams, s):
    """Stream s's weight sets for its next byte: (how far the matches go,
    for the set by c0: none, short, long; the set by the high orders seen,
    whether the line may end here, whether in a header line and the last two
    bases, before the bit position)."""
    width = streams[s, S_DNA_WIDTH]
    ends = 1 if width > 0 and streams[s, S_POSITION] - streams[s, S_LINE] >= width else 0
    longest = max(streams[s, S_DNA_LENGTH], streams[s, S_DNA_LENGTH + 1])
    matched = 0 if longest == 0 else (1 if longest < 32 else 2)
    select = ((min(streams[s, S_DNA_HITS], 7) * 2 + ends) * 2 + streams[s, S_DNA_HEADER]) * 16
    return matched, select + (streams[s, S_DNA_HISTORY] & 15)


@nb.njit(**JIT)
def dna_learn(match_map, streams, s, bit):
    """The matches' probabilities, where they predicted stream s's bit, learn it."""
    for which in range(DNA_MATCHES):
        index = streams[s, S_DNA_MAP + which]
        if index >= 0:
            adapt(match_map, index, bit, STATE_LIMIT)


@nb.njit(**JIT)
def _count(entry, base, limit):
    """`entry` (four 8-bit counts) with one more of `base`, all halved first
    where that count is at `limit`."""
    if ((entry >> (8 * base)) & 255) >= limit:
        entry = (entry >> 1) & 0x7F7F7F7F
    return entry + (np.int64(1) << (8 * base))


@nb.njit(**JIT)
def note_dna(streams, dna, dna_bases, match_table, parameters, s, byte):
    """After `byte` (note_line has run): headers and line widths, and a base
    counted after its context on this strand and after its other-strand
    context, added to the histories, and the matches followed or found."""
    if byte == 10:
        if not streams[s, S_DNA_HEADER]:
            streams[s, S_DNA_WIDTH] = streams[s, S_LINE] - 1 - streams[s, S_ABOVE]
        streams[s, S_DNA_HEADER] = 0
        return
    if (byte == 62 or byte == 59) and streams[s, S_POSITION] - 1 == streams[s, S_LINE]:
        streams[s, S_DNA_HEADER] = 1
    base = _BASE[byte]
    if base < 0 or streams[s, S_DNA_HEADER]:
        return
    history = streams[s, S_DNA_HISTORY]
    bases = streams[s, S_DNA_BASES]
    reverse = (streams[s, S_DNA_REVERSE] >> 2) | ((3 - base) << 60)
    bits = parameters[P_DNA_BITS]
    offset = np.int64(0)
    for j in range(_COUNTS):
        order = _ORDERS[j]
        limit = _LIMITS[j]
        index = streams[s, S_DNA_ENTRY + j]
        dna[index] = np.uint32(_count(np.int64(dna[index]), base, limit))
        # The other strand: the complements of the last `order` bases, this
        # one included, read backwards, precede the complement of the base
        # `order` back.
        index, after = _entry(bits, order, reverse >> (62 - 2 * order), offset)
        if bases >= order:
            earlier = 3 - ((history >> (2 * (order - 1))) & 3)
            dna[index] = np.uint32(_count(np.int64(dna[index]), earlier, limit))
        offset = after
    history = ((history << 2) | base) & _MASK
    streams[s, S_DNA_HISTORY] = history
    streams[s, S_DNA_REVERSE] = reverse
    streams[s, S_DNA_BASES] = bases + 1
    streams[s, S_DNA_CASE] = byte & 32
    start = streams[s, S_BASE]
    at = start + bases
    dna_bases[at] = base
    _matches(streams, dna_bases, match_table, parameters, s, base, at, history, reverse, start)


@nb.njit(**JIT)
def _matches(streams, dna_bases, match_table, parameters, s, base, at, history, reverse,
             start):
    """Follow stream s's matches past `base` (coded at dna_bases[at]), and where
    one has none, look the last MATCH_BASES bases up (on this strand, or
    their reverse complement); then note where they were."""
    for which in range(DNA_MATCHES):
        length = streams[s, S_DNA_LENGTH + which]
        if length > 0:
            pointer = streams[s, S_DNA_POINTER + which]
            expected = dna_bases[pointer] if which == 0 else 3 - dna_bases[pointer]
            if expected == base:
                length = min(length + 1, 65535)
            else:
                length >>= 2
                if length < _MATCH_START:
                    length = 0
            pointer += 1 if which == 0 else -1
            # (in the lockstep a match may run into another stream's place,
            # not coded yet: zeros there, alike for both coders; never past
            # the buffer)
            if pointer < start or pointer >= dna_bases.shape[0]:
                length = 0
            streams[s, S_DNA_POINTER + which] = pointer
            streams[s, S_DNA_LENGTH + which] = length
    if at + 1 - start < MATCH_BASES:
        return
    mask = (np.int64(1) << parameters[P_MATCH_BITS]) - 1
    width = 2 * MATCH_BASES
    h = context_hash(history & ((np.int64(1) << width) - 1), 77)
    slot = (h >> 8) & mask
    check = (h >> 40) & 0xFFFFFF
    if streams[s, S_DNA_LENGTH] == 0:
        entry = match_table[slot]
        if entry != 0 and (entry & 0xFFFFFF) == check:
            streams[s, S_DNA_POINTER] = entry >> 24
            streams[s, S_DNA_LENGTH] = _MATCH_START
    if streams[s, S_DNA_LENGTH + 1] == 0:
        # the other strand: where the reverse complement of the last bases
        # came, the base before it, complemented, comes next
        r = context_hash(reverse >> (62 - width), 77)
        entry = match_table[(r >> 8) & mask]
        if entry != 0 and (entry & 0xFFFFFF) == ((r >> 40) & 0xFFFFFF):
            pointer = (entry >> 24) - MATCH_BASES - 1
            if pointer >= start:
                streams[s, S_DNA_POINTER + 1] = pointer
                streams[s, S_DNA_LENGTH + 1] = _MATCH_START
    match_table[slot] = ((at + 1) << 24) | check
