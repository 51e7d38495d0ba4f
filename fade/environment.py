"""Process settings that torch's native libraries and numpy's OpenBLAS read once, as they load.

`fade/__init__.py` imports this module before anything imports torch, and
`apply()` puts fade's settings into the environment then. A program that
imports torch before fade keeps whatever its environment said: the wait
settings change speed only; without the numeric pins such a process cannot
compute the portable profile, and fade says so (fade.profile) rather than
write an archive in another one.

Numeric pins (fade.profile). On x86-64, ATen's vectorised kernels and
oneDNN's are pinned to AVX2 (ATEN_CPU_CAPABILITY=avx2,
ONEDNN_MAX_CPU_ISA=AVX2), so that an AVX-512 machine computes what an AVX2
one does: the portable profile, and native archives too (the pins cost
nothing measurable: docs/results.md). A value the user set wins; a decoder replaying an archive made otherwise
starts a process with the archive's settings (cli: `_replay_elsewhere`).

OpenMP's wait. torch's CPU wheels run their intra-op threads (ATen, MKL,
oneDNN) on GNU OpenMP (libgomp), whose threads spin between parallel
regions for up to GOMP_SPINCOUNT iterations before they sleep: 300,000 by
default, milliseconds. fade's steps are many small parallel regions, so on
a machine whose cores are shared with other work a spinning thread holds a
core while the thread it waits for is not scheduled, and a step takes many
times as long (scripts/load_bench.py). Not spinning at all
(OMP_WAIT_POLICY=PASSIVE) fixes that but wakes a sleeping thread for every
small op, slower on an idle machine. A short spin keeps both: 300
iterations (tens of microseconds) cover the gaps between the ops of one
step on an idle machine and give a busy core back long before a scheduler
tick (docs/results.md has the measurements).

OpenBLAS's wait. numpy's OpenBLAS starts a thread for each further core
as numpy loads, and each spins for 2^28 cycles (about 0.1 s) waiting for
work before it sleeps. fade calls no BLAS routine, so that spin only takes
a core from the coding threads: where a kind's model and the general model
that guards it code side by side on two cores, the compress took 0.89x
the time with fade's setting (docs/results.md, "numpy's idle BLAS thread"). fade
asks for 2^16 cycles (tens of microseconds, as libgomp's) where numpy is
not loaded yet and the user set none.
"""

from __future__ import annotations

import os
import sys

# libgomp's spin before a waiting thread sleeps (see the module docstring).
GOMP_SPIN_COUNT = "300"
# A user's own choice of wait policy wins over fade's.
USER_WAIT_SETTINGS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
# The numeric pins (x86-64 only), each kept where the user set it.
NUMERIC_PINS = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
X86_64 = ("x86_64", "AMD64", "amd64")
# OpenBLAS's spin before a waiting thread sleeps: 2^16 cycles (see above).
BLAS_WAIT = ("OPENBLAS_THREAD_TIMEOUT", "16")


def machine() -> str:
    """platform.machine() without importing platform (which compiles regular
    expressions as it loads: a few ms of every process's start)."""
    if hasattr(os, "uname"):
        return os.uname().machine
    import platform

    return platform.machine()


def apply() -> bool:
    """Set fade's defaults for what torch and numpy's OpenBLAS read at load
    time; False (and nothing set) if torch is already loaded, when they
    could not take effect."""
    if "torch" in sys.modules:
        return False
    if "numpy" not in sys.modules:
        os.environ.setdefault(*BLAS_WAIT)
    if not any(name in os.environ for name in USER_WAIT_SETTINGS):
        os.environ["GOMP_SPINCOUNT"] = GOMP_SPIN_COUNT
    if machine() in X86_64:
        for name, value in NUMERIC_PINS.items():
            os.environ.setdefault(name, value)
    return True
