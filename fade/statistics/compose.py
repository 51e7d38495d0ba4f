"""Each model's own compiled code: fade.statistics.predictor, loaded once
per composition of parts.

`predictor_for(parts)` runs predictor.py's source as a module of its own,
`fade.statistics.predictor_<hex>`, whose global `PARTS` is the composition:
the model's parts that predictor.py tests (`TESTED`, every `F_` name its
source mentions). numba reads a module's globals as constants, so that
module's tests of its parts are decided at its compile: a part the model
lacks is left out before typing (it costs the model nothing at run time and
nothing to compile), and a process compiles only the compositions it codes
with. Models whose parts differ only in bits predictor.py never tests (a
transform's, a kind module's own) share one composition; the kind modules'
functions that it calls take the model's whole parts at run time and are
shared by all compositions, each compiled once. numba caches each
composition in files of its own (predictor._jit names them);
kernels.drop_stale_caches clears them all when a source changes.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import threading
from pathlib import Path
from types import ModuleType

from fade.statistics import parts as _parts

_SOURCE = Path(__file__).with_name("predictor.py")
TESTED = 0
for _name in set(re.findall(r"\bF_[A-Z0-9]+\b", _SOURCE.read_text())):
    TESTED |= getattr(_parts, _name)
_LOADED: dict[int, ModuleType] = {}
_LOCK = threading.Lock()


def predictor_for(parts: int) -> ModuleType:
    """fade.statistics.predictor compiled for `parts` (a model's, from
    fade.statistics.models): its `encode_range`, `decode_range`,
    `code_step`, `begin_streams` and `begin_image`, each compiled on its
    first call or loaded from numba's cache."""
    composition = parts & TESTED
    module = _LOADED.get(composition)
    if module is not None:
        return module
    with _LOCK:  # (the lockstep's threads may ask at once)
        module = _LOADED.get(composition)
        if module is None:
            name = f"fade.statistics.predictor_{composition:x}"
            spec = importlib.util.spec_from_file_location(name, _SOURCE)
            module = importlib.util.module_from_spec(spec)
            module.PARTS = composition
            sys.modules[name] = module  # numba finds a function's module by its name
            spec.loader.exec_module(module)
            _LOADED[composition] = module
    return module
