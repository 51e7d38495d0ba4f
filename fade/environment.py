"""Process settings that torch's native libraries read once, when they load.

`fade/__init__.py` imports this module before anything imports torch, and
`apply()` puts fade's settings into the environment then. A program that
imports torch before fade keeps whatever its environment said (the settings
here change speed only, never an archive's bits).

OpenMP's wait. torch's CPU wheels run their intra-op threads (ATen, MKL,
oneDNN) on GNU OpenMP (libgomp), whose threads spin between parallel
regions for up to GOMP_SPINCOUNT iterations before they sleep: 300,000 by
default, milliseconds. fade's steps are many small parallel regions, so on
a machine whose cores are shared with other work a spinning thread holds a
core while the thread it waits for is not scheduled: a 3,000-byte tiny
compress took 80x its time beside two busy loops on two cores, and the
balanced model's step over 30x (issue 16, scripts/load_bench.py). Not
spinning at all (OMP_WAIT_POLICY=PASSIVE) fixes that but wakes a sleeping
thread for every small op, 1.3-1.8x slower on an idle machine. A short spin
keeps both: 300 iterations (tens of microseconds) cover the gaps between the
ops of one step on an idle machine and give a busy core back long before a
scheduler tick. Measured with the step loop alone (median of three rounds,
ms per step, 2 threads, idle machine): balanced batch 128: libgomp's
default 25.2, 300 24.1, PASSIVE 26.1; tiny batch 6: 3.0, 3.3, 5.0.
"""

from __future__ import annotations

import os
import sys

# libgomp's spin before a waiting thread sleeps (see the module docstring).
GOMP_SPIN_COUNT = "300"
# A user's own choice of wait policy wins over fade's.
USER_WAIT_SETTINGS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def apply() -> bool:
    """Set fade's defaults for what torch reads at load time; False (and
    nothing set) if torch is already loaded, when they could not take effect."""
    if "torch" in sys.modules:
        return False
    if not any(name in os.environ for name in USER_WAIT_SETTINGS):
        os.environ["GOMP_SPINCOUNT"] = GOMP_SPIN_COUNT
    return True
