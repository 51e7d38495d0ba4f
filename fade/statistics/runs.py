"""Each context's run (part F_RUNS, model 3 on): the byte it saw last and
how many times in a row.

A context's hash finds an entry in `Tables.runs` (check << 16 | count << 8
| byte, and with F_RUNKEYS a flag at bit 40: the context has seen another
byte); while the bits coded so far agree with that byte, the run predicts
its next bit through the context's run map, a probability per run length
(up to 15) and expected bit, and with F_RUNKEYS also per bit's place (0,
1, 2-4, 5-7) and flag: a run that is all a context has seen is surer than
one that broke an earlier (paq8's run and byte history; the cells here are
chosen and measured in docs/history/statistics-0.11.md, "Model 131").
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fade.statistics.kernels import INLINED, JIT, STATE_LIMIT, STRETCH, adapt, unsigned
from fade.statistics.parts import F_RUNKEYS
from fade.statistics.state import P_ACTIVE, P_COUNT, SCRATCH_HASHES, S_RUN, S_RUN_BYTE

_CHECK = 0xFFFFFF  # the entry's check: 24 bits of the context's hash
_SEEN = np.int64(1) << 40  # F_RUNKEYS: the context has seen another byte than its run's
_PLACES = 0x33322210  # the bit's place, 4 bits per bit position: 0, 1, 2-4, 5-7


@nb.njit(**JIT)
def find_runs(streams, runs, scratch, parameters, s, bits):
    """Stream s's contexts' run entries for its next byte (their hashes in
    the scratch): each entry's index, and the byte | count << 8 (| the
    flag at bit 16) it holds for this context, -1 if none."""
    mask = (np.int64(1) << bits) - 1
    for k in range(parameters[P_COUNT]):
        i = parameters[P_ACTIVE + k]
        h = scratch[SCRATCH_HASHES + i]
        index = (h >> 8) & mask
        check = (h >> 40) & _CHECK
        streams[s, unsigned(S_RUN + i)] = index | (check << 32)
        entry = runs[unsigned(index)]
        found = -1
        if ((entry >> 16) & _CHECK) == check:
            found = (entry & 0xFFFF) | (((entry >> 40) & 1) << 16)
        streams[s, unsigned(S_RUN_BYTE + i)] = found


@nb.njit(**JIT)
def run_cell(run, c0, bitpos, i, parts):
    """Context i's run map cell for the next bit after the bits c0 (-1:
    no run, or its byte went another way)."""
    if run < 0:
        return -1
    predicted = (run & 255) | 256
    if (predicted >> (8 - bitpos)) != c0:
        return -1
    bit = (predicted >> (7 - bitpos)) & 1
    count = min((run >> 8) & 255, 15)
    if parts & F_RUNKEYS:
        place = (_PLACES >> (bitpos << 2)) & 15
        return i * 256 + ((count * 4 + place) * 2 + ((run >> 16) & 1)) * 2 + bit
    return i * 64 + count * 2 + bit


@nb.njit(**INLINED)
def run_inputs(inputs, n, streams, run_map, parameters, s, c0, bitpos, parts, quiet):
    """Each active context's run input from inputs[n] on (0 where it has none),
    shifted right by `quiet`."""
    for k in range(parameters[P_COUNT]):
        i = parameters[P_ACTIVE + k]
        cell = run_cell(streams[s, unsigned(S_RUN_BYTE + i)], c0, bitpos, i, parts)
        inputs[n + k] = STRETCH[run_map[unsigned(cell)] >> 16] >> quiet if cell >= 0 else 0


@nb.njit(**INLINED)
def runs_learn(streams, run_map, parameters, s, c0, bitpos, bit, parts):
    """Each run map cell that predicted learns the bit; a run the bit broke
    is -1 for the rest of its byte (as run_cell would find it), so that the
    byte's next bits pass it at once."""
    for k in range(parameters[P_COUNT]):
        i = parameters[P_ACTIVE + k]
        cell = run_cell(streams[s, unsigned(S_RUN_BYTE + i)], c0, bitpos, i, parts)
        if cell >= 0:
            adapt(run_map, cell, bit, STATE_LIMIT)
            if (cell & 1) != bit:
                streams[s, unsigned(S_RUN_BYTE + i)] = -1


@nb.njit(**JIT)
def note_runs(streams, runs, parameters, s, byte, parts):
    """Stream s's contexts' runs after `byte`: one longer where it was the
    run's byte, else a new run of it (with F_RUNKEYS, flagged as having seen
    another byte when its context had)."""
    for k in range(parameters[P_COUNT]):
        i = parameters[P_ACTIVE + k]
        index = unsigned(streams[s, unsigned(S_RUN + i)] & 0xFFFFFFFF)
        check = streams[s, unsigned(S_RUN + i)] >> 32
        entry = runs[index]
        count = 1
        seen = np.int64(0)
        if ((entry >> 16) & _CHECK) == check:
            if (entry & 255) == byte:
                count = min(((entry >> 8) & 255) + 1, 255)
                seen = entry & _SEEN
            elif parts & F_RUNKEYS:
                seen = _SEEN
        runs[index] = (check << 16) | (count << 8) | byte | seen
