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

An install compiles each composition of the table's models ahead of time
(fade.statistics.ahead, run by setup.py) into an extension module of
fade.statistics.compiled, named by `compiled_name`: `predictor_for` takes
that module where one was built from these very sources for a CPU with
this one's features, without loading numba, and compiles with numba
otherwise.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import platform
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
_LOADED: dict[tuple[int, bool], ModuleType] = {}
_LOCK = threading.Lock()


def composition_of(parts: int) -> int:
    """The composition a model with `parts` is compiled as."""
    return parts & TESTED


def digest_of(package: Path) -> str:
    """A digest of the sources in `package` (every .py file in it and its
    subfolders, by path and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@functools.cache
def source_digest() -> str:
    """The digest of the statistics' sources (this package's): what compiled
    code depends on, both the install's modules and numba's cache
    (kernels.drop_stale_caches)."""
    return digest_of(_SOURCE.parent)


# x86's flags that name instructions (what LLVM's "host" compiles for); the
# others (mitigations, timers, the hypervisor's) change with a kernel or
# microcode update, and would leave an install's modules unused after one.
_INSTRUCTIONS = re.compile(
    r"lm|cx8|cx16|cmov|mmx|sse\w*|pni|ssse3|popcnt|abm|lahf_lm|movbe|avx\w*|amx\w*|fma4?"
    r"|f16c|bmi[12]|adx|aes|v?pclmulqdq|vaes|gfni|sha_ni|rdrand|rdseed|xsave\w*|clflushopt"
    r"|clwb|3dnowprefetch|xop|tbm|movdiri|movdir64b")


@functools.cache
def cpu_digest() -> str | None:
    """A digest of this CPU's kind and instruction sets (`features_digest`
    of /proc/cpuinfo): code compiled for one runs on any other with the
    same; None where they cannot be read."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            return features_digest(info.read())
    except OSError:
        return None


def features_digest(cpuinfo: str) -> str | None:
    """A digest of the machine's kind and of the first processor's flags in
    `cpuinfo` (/proc/cpuinfo's text), on x86 those that name instructions;
    None where it has none."""
    for line in cpuinfo.splitlines():
        field, _, value = line.partition(":")
        if field.strip() in ("flags", "Features"):
            flags = value.split()
            if field.strip() == "flags":
                flags = [flag for flag in flags if _INSTRUCTIONS.fullmatch(flag)]
            text = f"{platform.machine()} {' '.join(sorted(flags))}"
            return hashlib.sha256(text.encode()).hexdigest()
    return None


def compiled_name(composition: int | None) -> str | None:
    """The name (in fade.statistics.compiled) of the extension module of
    `composition` (None: of the kinds' steps, fade.statistics.steps) compiled
    ahead of time from these sources for this CPU; None where this CPU's
    features are unknown (nothing is built for it)."""
    cpu = cpu_digest()
    if cpu is None:
        return None
    kind = "steps" if composition is None else f"p{composition:x}"
    return f"{kind}_{source_digest()[:12]}_{cpu[:8]}"


def _compiled(composition: int | None) -> ModuleType | None:
    """The module built ahead of time for `composition` (None: the kinds'
    steps before and after coding, fade.statistics.steps), if there is one."""
    name = compiled_name(composition)
    if name is None:
        return None
    try:
        return importlib.import_module(f"fade.statistics.compiled.{name}")
    except ImportError:  # (not built: an edited checkout, another CPU, a measured model)
        return None


def predictor_for(parts: int, ahead: bool = True) -> ModuleType:
    """fade.statistics.predictor compiled for `parts` (a model's, from
    fade.statistics.models): its `encode_range`, `decode_range`,
    `code_step`, `begin_streams` and `begin_image`, and the coder's
    `start_decoder` and `flush`: the module compiled at install, else (or
    without `ahead`: the predictor's every function, for a test to call)
    each compiled by numba on its first call or loaded from numba's cache."""
    composition = composition_of(parts)
    module = _LOADED.get((composition, ahead))
    if module is not None:
        return module
    with _LOCK:  # (the lockstep's threads may ask at once)
        module = _LOADED.get((composition, ahead))
        if module is None:
            module = (ahead and _compiled(composition)) or _LOADED.get((composition, False))
        if module is None:
            name = f"fade.statistics.predictor_{composition:x}"
            spec = importlib.util.spec_from_file_location(name, _SOURCE)
            module = importlib.util.module_from_spec(spec)
            module.PARTS = composition
            sys.modules[name] = module  # numba finds a function's module by its name
            spec.loader.exec_module(module)
            _LOADED[composition, False] = module
        _LOADED[composition, ahead] = module
    return module
