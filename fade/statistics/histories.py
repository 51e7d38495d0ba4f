"""Nonstationary bit histories: a context's bits as a state of one byte.

A state stands for how many zeros and ones a context has seen (n0, n1),
and, while both are small, which came last. A bit adds one to its own
count; the other count, if more than two, keeps only half its excess over
two, so a context whose bits change forgets old evidence fast, and one
whose bits stay the same grows sure of them. Counts are held inside a
region (a larger count may grow only as far as the smaller allows; past
it, the count of the bit that did not come gives way, or, where the bit
broke a run, the run's count is cut to fit), so the states number fewer
than 256 and fit the byte a node keeps for its history. The ideas are
those of the paq8 family's bit-history states (Mahoney); this table is
built here from the rules above. State 0 is the empty history: no bit
seen yet.

A context's node keeps its state where older models keep its last seven
bits (fade.statistics.parts.F_STATES), and the context's state map turns
it into a probability as before.
"""

from __future__ import annotations

import numpy as np

# The largest count beside a smaller count of 0, 1, 2, ...: a longer run of
# one bit is believed only while the other bit is rare.
_BOUNDS = (60, 30, 20, 14, 10, 8, 7, 6)
_LAST_TOTAL = 4  # which bit came last is kept while both counts are seen and sum to this


def _bound(smaller: int) -> int:
    return _BOUNDS[smaller] if smaller < len(_BOUNDS) else -1


def _held(n0: int, n1: int, last: int) -> tuple[int, int, int]:
    """(n0, n1, last) brought inside the region: where the bit that came
    (`last`) ran on, the other count gives way; where it broke a run, the
    run's count is cut to the most the region allows beside it."""
    while max(n0, n1) > _bound(min(n0, n1)):
        grew = n1 if last else n0
        if grew == max(n0, n1) and min(n0, n1) > 0:
            if last:
                n0 -= 1
            else:
                n1 -= 1
        else:
            if n0 > n1:
                n0 = _bound(n1)
            else:
                n1 = _bound(n0)
    keep = n0 > 0 and n1 > 0 and n0 + n1 <= _LAST_TOTAL
    return n0, n1, last if keep else 0


def _after(state: tuple[int, int, int], bit: int) -> tuple[int, int, int]:
    n0, n1, _ = state
    if bit:
        n1 += 1
        if n0 > 2:
            n0 = (n0 + 2) // 2
    else:
        n0 += 1
        if n1 > 2:
            n1 = (n1 + 2) // 2
    return _held(n0, n1, bit)


def _table() -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """NEXT (state * 2 + bit -> state) over the states reachable from the
    empty one, numbered in the order they are reached."""
    states = [(0, 0, 0)]
    number = {states[0]: 0}
    transitions = []
    i = 0
    while i < len(states):
        for bit in (0, 1):
            after = _after(states[i], bit)
            if after not in number:
                number[after] = len(states)
                states.append(after)
            transitions.append(number[after])
        i += 1
    assert len(states) <= 256
    return np.array(transitions + [0] * (512 - len(transitions)), dtype=np.int64), states


NEXT, STATES = _table()


def prior(state: int) -> int:
    """A state's starting probability of a 1 in its map, (n1 + 0.4) / (n + 0.8),
    as the maps hold it (p16 << 16, no updates counted)."""
    if state == 0 or state >= len(STATES):
        return 1 << 31
    n0, n1, _ = STATES[state]
    p16 = (5 * n1 + 2) * 65536 // (5 * (n0 + n1) + 4)
    return min(max(p16, 64), 65472) << 16


# Per state: 1 where it has seen bits of one value only (F_SURE's input fires).
ONE_SIDED = np.array([1 if k and min(STATES[k][:2]) == 0 else 0 for k in range(len(STATES))]
                     + [0] * (256 - len(STATES)), dtype=np.int64)
