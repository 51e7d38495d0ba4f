"""The statistics' shared kernels: what every model and kind of data uses.

Squash and stretch (the logistic function and its inverse, from the integer
tables of fade.statistics.logistic), the network's byte distribution as a
bit's probability, the adaptive probabilities' step, the context hash and
the hash table's slots, and the mixer's weight sets. The contexts of each kind of
data (fade.statistics.contexts, .records) and the per-bit predictor
(fade.statistics.predictor) are built from these; the binary arithmetic
coder is in fade.statistics.coder.

The statistics' kernels are compiled without numba's reference counts
(`JIT`): they allocate nothing, and every array they touch is held by the
caller that made it (fade.statistics.coding's Tables) for as long as they
run. With the counts, each array read out of the Tables and passed on cost
an atomic increment and decrement at every bit, more than half of the
coding's time (model 0 codes 2.4x as fast without them, the same bytes;
docs/history/statistics-0.11.md, "Speed"). The few functions that allocate
(`ALLOCATING`) keep them. Little is inlined by numba (`inline="always"`
copies a function's IR into each caller before typing): LLVM inlines the
small functions into their callers as well after numba links them, and
numba's copies of every kernel cost each model's compile a third of its
time, for no speed (docs/results.md, "The first compress"). What it
inlines (`INLINED`) runs at every bit: the predictor's `predict` and
`update`, into their one caller (called, each passed every array of the
Tables field by field, 16 times a byte; inlined, the default's text codes
1.1x as fast: docs/results.md, "The hot loop"), and the mixer's dot
products and steps and the coder's bit, whose calls pushed each array's
fields on the stack (a tenth of `fast`'s instructions: docs/results.md,
"The next byte's slots a bit ahead"), the further weight sets' outputs,
the final mixers and the runs' inputs and steps (fade.statistics.runs),
which LLVM left as calls (the default's machine code 0.89x the time to
encode, markup 0.93x: docs/results.md, "Every bit's calls inlined").

numba caches this package's compiled code in the user's cache folder
(`~/.cache/fade` on Linux; NUMBA_CACHE_DIR where that is set), not beside
the sources: an installed package's folder may be read-only, and whatever
numba writes there outlives `pip uninstall` (`_cache_in_user_folder`).
numba caches each compiled function by its module and checks only that
module's source for changes, while a kernel here is compiled into its
callers in the other modules: `drop_stale_caches` (run on import, before
anything compiles) clears the package's cache whenever any of its sources
changed, so an edit here never leaves a caller running the old code.
"""

from __future__ import annotations

import os
from pathlib import Path

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic

from fade.statistics.compose import source_digest
from fade.statistics.logistic import RECIPROCAL, SQUASH, STRETCH  # noqa: F401 (the kinds')
from fade.statistics.state import APM_KNOTS, GROWN, INPUTS, NODES, SCRATCH_DOTS

_PACKAGE = Path(__file__).parent
_STAMP = "fade-statistics.stamp"


def _cache_in_user_folder() -> None:
    """Have numba cache this package's functions in the user's cache folder
    for fade (by numba's own appdirs: `~/.cache/fade` on Linux, XDG_CACHE_HOME
    honoured), in a subfolder named for the package's directory as numba
    names its own, so two installs or checkouts never share one: a locator
    of numba's kind put first in its list, for this package's files only
    (other code's functions cache where numba puts them). Where
    NUMBA_CACHE_DIR is set, or the folder cannot be written, numba's own
    locators decide as before."""
    from numba.core import caching, config
    from numba.misc.appdirs import AppDirs

    # (numba 0.68 dropped the underscore of these names; a numba with
    # neither spelling keeps its own locators rather than fail here)
    user_wide = (getattr(caching, "UserWideCacheLocator", None)
                 or getattr(caching, "_UserWideCacheLocator", None))
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    if user_wide is None or not isinstance(getattr(impl, "_locator_classes", None), list):
        return
    package = str(_PACKAGE.resolve())

    class FadeCacheLocator(user_wide):
        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            folder = AppDirs(appname="fade", appauthor=False).user_cache_dir
            self._cache_path = os.path.join(folder, self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if config.CACHE_DIR or os.path.dirname(os.path.realpath(py_file)) != package:
                return None
            return super().from_function(py_func, py_file)

    if not any(locator.__name__ == "FadeCacheLocator" for locator in impl._locator_classes):
        impl._locator_classes.insert(0, FadeCacheLocator)


def drop_stale_caches() -> None:
    """Remove numba's cached code for this package unless it was compiled
    from these very sources (their digest, kept beside the cache)."""
    stamp = source_digest()
    folder = _cache_folder()
    if folder is None:
        return
    try:
        if (folder / _STAMP).read_text() == stamp:
            return
    except OSError:
        pass
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for path in folder.iterdir():
            if path.suffix in (".nbi", ".nbc"):
                path.unlink(missing_ok=True)
        (folder / _STAMP).write_text(stamp)
    except OSError:  # a folder we may not write: numba does not cache there either
        pass


def _cache_folder() -> Path | None:
    """Where numba caches this package's compiled code: the folder the
    locators pick for a function of the package (NUMBA_CACHE_DIR's folder
    for the package's directory where that is set, else the user's cache
    folder for fade, else numba's own choice), None where numba would
    cache nothing. (Asked of numba, not worked out here: its folders'
    names differ between its versions, and a folder guessed wrong left
    every stale cache in place.)"""
    try:
        from numba.core.caching import FunctionCache
        return Path(FunctionCache(_cache_folder).cache_path)
    except Exception:  # no locator for this file: numba caches nothing from it either
        return None


_cache_in_user_folder()
drop_stale_caches()

# `_nrt` is numba's switch for its reference-counting runtime (one of its
# default target options); without the runtime, a kernel that allocates
# fails to compile, so none can free an array it still uses.
ALLOCATING = dict(nogil=True, cache=True, boundscheck=False)
JIT = dict(ALLOCATING, _nrt=False)
INLINED = dict(JIT, inline="always")


@nb.njit(**JIT)
def unsigned(index):
    """`index`, never negative, as numba reads an array at it as it is: at a
    signed index it first adds the array's length where that is negative,
    instructions in the path of every load from the tables (the default's
    text loop 1.2x faster without them: docs/results.md, "Indices as they
    are")."""
    return np.uint64(index)


COUNTER_LIMIT = 255  # adaptive probabilities slow down to 1/256.5
STATE_LIMIT = 1023  # bit-history maps slow down to 1/1024.5


@intrinsic
def prefetch(typing, array, index):
    """Ask the CPU to bring array[index]'s cache line in (LLVM's prefetch, for
    a read, kept in every cache level); computes nothing."""
    def codegen(context, builder, signature, args):
        kind = signature.args[0]
        item = cgutils.get_item_pointer(context, builder, kind,
                                        context.make_array(kind)(context, builder, args[0]),
                                        [args[1]], wraparound=False)
        byte = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32]),
            "llvm.prefetch.p0i8")
        builder.call(function, [builder.bitcast(item, byte), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return nb.types.void(array, index), codegen


@nb.njit(**JIT)
def squash(d):
    if d > 2047:
        d = 2047
    if d < -2047:
        d = -2047
    return SQUASH[d + 2047]


@nb.njit(**JIT)
def network_bits(distribution, c0, bitpos):
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
    return STRETCH[max(min(p, 65535), 1)]


@nb.njit(**JIT)
def apm_read(table, scratch, at, row, knot, weight):
    """An APM's probability: row `row` of `table`, interpolated between the
    knots `knot` and `knot` + 1 by `weight` (of 4096); the knot nearer the
    mixer's output, which learns the bit, kept in scratch[at]."""
    a = row * APM_KNOTS + knot
    scratch[at] = a if weight < 2048 else a + 1
    return (table[unsigned(a)] * (4096 - weight) + table[unsigned(a + 1)] * weight) >> 12


@nb.njit(**JIT)
def apm_learn(table, knot, bit):
    """An APM's `knot` (apm_read's, kept in the scratch) moves 1/64 of the
    way to the bit."""
    table[unsigned(knot)] += ((bit << 16) - table[unsigned(knot)]) >> 6


@nb.njit(**JIT)
def apm_prefetch(table, row):
    """Ask for row `row` of an APM's `table` (its two ends' cache lines), long
    before apm_read reads it."""
    prefetch(table, row * APM_KNOTS)
    prefetch(table, row * APM_KNOTS + APM_KNOTS - 1)


@nb.njit(**JIT)
def adapt(table, index, bit, limit):
    """An adaptive probability, (p22 << 10) | n: step 1 / (n + 1.5), n capped at limit."""
    value = np.int64(table[unsigned(index)])
    n = value & 1023
    p = value >> 10
    target = bit << 22
    p += ((target - p) * RECIPROCAL[n]) >> 16
    if n < limit:
        n += 1
    table[unsigned(index)] = np.uint32((p << 10) | n)


@nb.njit(**JIT)
def _hash(a, b):
    h = (a + 0x9E3779B97F4A7C15) * 0x2545F4914F6CDD1D + b * 0x632BE59BD9B4E019
    return h ^ (h >> 29)


# The hash of a context `a` (an integer) with `b` (which context, or more of
# it). The arithmetic stays a called function: inlined, numba types it in each
# caller and some hashes come out otherwise, so every archive would change.
# Both go as int64s, its one signature (`typed_once`): with `b` as the
# constant most callers write, numba compiled this wrapper once per constant
# (72 times for the default's text model, 3 of its 16 s first compile); the
# hashes are the same.
@nb.njit(**JIT)
def context_hash(a, b):
    return _hash(a, np.int64(b))


def typed_once() -> None:
    """Give `context_hash` its one signature before numba compiles a model
    (fade.statistics.predictor calls it as it loads), not at import: a
    process that codes with the models compiled at install compiles nothing
    and loads nothing from numba's cache."""
    global _TYPED
    if not _TYPED:
        context_hash.compile("int64(int64, int64)")
        context_hash.disable_compile()
        _TYPED = True


_TYPED = False


@nb.njit(**JIT)
def bit_size(value):
    """How many bits |value| takes, at most 15 (0 for 0): how large a
    coefficient or a prediction's miss is, for a context."""
    value = abs(value)
    n = 0
    while value and n < 15:
        value >>= 1
        n += 1
    return n


@nb.njit(**JIT)
def floor_log2(n):
    """floor(log2(n)), n >= 1."""
    k = np.int64(0)
    while n > 1:
        n >>= 1
        k += 1
    return k


@nb.njit(**JIT)
def bytes_hash(h, byte):
    """A run of bytes' 40-bit hash `h` with `byte` after them (0: no bytes):
    a table's field, an instruction so far."""
    return ((h + byte + 1) * 0x2F0F3A55) & 0xFFFFFFFFFF


@nb.njit(**JIT)
def slot_base(h, bits):
    """The first of the three neighbouring slots where context hash h may be."""
    return (h >> 20) & ((np.int64(1) << bits) - 1)


@nb.njit(**JIT)
def find_slot(nodes, bits, h):
    """The slot of context hash h: one of three neighbours with its check, or the
    least used of them, cleared."""
    base = slot_base(h, bits)
    check = np.uint32(((h >> 32) & 0xFFFFFFFF) | 1)
    victim = base
    least = np.int64(1) << 40
    for probe in range(3):
        slot = base ^ probe
        if nodes[unsigned(slot * NODES)] == check:
            return slot, 1
        used = np.int64(nodes[unsigned(slot * NODES + 1)] & 255)
        if used < least:
            least = used
            victim = slot
    start = victim * NODES
    nodes[unsigned(start)] = check
    for j in range(1, NODES):
        nodes[unsigned(start + j)] = np.uint32(1 << 31)
    return victim, 0


@nb.njit(**INLINED)
def two_dots(inputs, weights, n, set_a, set_b):
    """The outputs of weight sets a and b on the first n inputs, stretched and clipped."""
    dot_a = np.int64(0)
    dot_b = np.int64(0)
    a = weights[set_a * INPUTS:set_a * INPUTS + n]
    b = weights[set_b * INPUTS:set_b * INPUTS + n]
    for j in range(n):
        dot_a += inputs[j] * a[j]
        dot_b += inputs[j] * b[j]
    return max(min(dot_a >> 16, 2047), -2047), max(min(dot_b >> 16, 2047), -2047)


@nb.njit(**INLINED)
def note_sets(scratch, at, set_a, set_b, inputs, weights, n, place):
    """Two more weight sets under the final mixer: their outputs, kept as its inputs `place`
    and `place` + 1, and their indices and probabilities at scratch[at:at + 4] for their update."""
    dot_a, dot_b = two_dots(inputs, weights, n, set_a, set_b)
    scratch[at] = set_a
    scratch[at + 1] = set_b
    scratch[at + 2] = squash(dot_a)
    scratch[at + 3] = squash(dot_b)
    scratch[SCRATCH_DOTS + place] = dot_a
    scratch[SCRATCH_DOTS + place + 1] = dot_b


# F_LAZY: a weight set whose output missed the bit by less than this (of 65536)
# does not learn: about as small and faster (docs/history/statistics-0.11.md, "Models 75 and 76").
LAZY_ERROR = 512


@nb.njit(**INLINED)
def learn(weights, inputs, n, weight_set, p, bit, rate, skip):
    """One weight set's step on the first n inputs, against its own output p;
    none where p missed the bit by less than `skip` (F_LAZY; 0: never).
    True where a weight of 32 bits reached GROWN (fade.statistics.state)."""
    missed = (bit << 16) - p
    if -skip < missed < skip:
        return False
    error = (missed >> 4) * rate
    w = weights[weight_set * INPUTS:weight_set * INPUTS + n]
    largest = np.int64(0)
    for j in range(n):
        value = w[j] + ((inputs[j] * error) >> 16)
        w[j] = value
        largest = max(largest, abs(value))
    return weights.itemsize == 4 and largest >= GROWN


@nb.njit(**INLINED)
def learn_two(weights, inputs, n, scratch, at, bit, rate, skip):
    """`learn` for the two weight sets scratch[at] and scratch[at + 1], their
    outputs at scratch[at + 2] and scratch[at + 3]: True where either grew."""
    first = learn(weights, inputs, n, scratch[at], scratch[at + 2], bit, rate, skip)
    second = learn(weights, inputs, n, scratch[at + 1], scratch[at + 3], bit, rate, skip)
    return first or second


@nb.njit(**INLINED)
def final_mix(final, scratch, at, sets):
    """A final mixer's stretched output, clipped: the weight sets' outputs
    (scratch[SCRATCH_DOTS:]) weighed by its weights at final[scratch[at]:];
    its probability kept at scratch[at + 1] for its step."""
    row = scratch[at]
    mixed = np.int64(0)
    for k in range(sets):
        mixed += scratch[SCRATCH_DOTS + k] * final[unsigned(row + k)]
    mixed = max(min(mixed >> 16, 2047), -2047)
    scratch[at + 1] = squash(mixed)
    return mixed


@nb.njit(**INLINED)
def final_learn(final, scratch, at, sets, bit, rate):
    """final_mix's mixer at `at` learns the bit, against its own output."""
    row = scratch[at]
    error = (((bit << 16) - scratch[at + 1]) >> 4) * rate
    for k in range(sets):
        final[unsigned(row + k)] += (scratch[SCRATCH_DOTS + k] * error) >> 16
