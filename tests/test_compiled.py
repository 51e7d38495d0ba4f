"""The statistics' models compiled at install (fade.statistics.ahead): the
install built one for every composition fade codes with, each codes the
streams numba's compiler at run time makes (which compiles a model for its
own parts alone), and a module built from other sources or for another CPU
is never taken."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import corpus_file, fade_env
from fade.config import StatisticsConfig
from fade.statistics import compose
from fade.statistics.ahead import compositions
from fade.statistics.coding import decode_file
from fade.statistics.models import LEVEL_MODELS


def test_the_install_compiled_every_composition_for_this_machine():
    """Every model fade codes with (the table's, the race's band, the
    candidates) has its module, and the kinds' steps theirs, so no user's
    first compress compiles; a checkout whose statistics were edited since
    its install fails here until they are compiled again."""
    assert compose.cpu_digest() is not None, "this machine's CPU features were not read"
    missing = [f"{composition:x}" if composition is not None else "steps"
               for composition in [None, *compositions()] if compose._compiled(composition) is None]
    assert not missing, (f"no module compiled at install for {missing}: `pip install -e .` "
                         "(or `python -m fade.statistics.ahead fade/statistics/compiled`) "
                         "compiles them for these sources")


def test_a_process_that_codes_loads_no_numba():
    """In a fresh process the default's models for text, for x86 code and
    for audio (with their steps before and after coding: addresses,
    residuals) compress and decompress without loading numba: nothing is
    compiled or loaded from numba's cache."""
    child = r"""
import sys
from fade.config import StatisticsConfig
from fade.statistics.coding import decode_file, encode_file
from fade.statistics.models import LEVEL_MODELS
text, wav = (open(path, "rb").read() for path in sys.argv[1:3])
def round_trip(data, kind):
    config = StatisticsConfig(model=LEVEL_MODELS["default", kind]).sized(len(data))
    assert decode_file(encode_file(data, config), len(data), config) == data
round_trip(text[:3000], "text")
round_trip(text[:3000], "x86")
round_trip(wav[:20000], "audio")
print("numba" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", child, str(corpus_file("alice29.txt")),
                           str(corpus_file("pydub-test1.wav"))],
                          capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[0] == "False"


def test_numba_compiles_a_models_own_parts_and_codes_what_its_module_codes(tmp_path):
    """Where numba compiles at run time (an edited checkout, a measured
    model), in a fresh process with numba's cache empty: fast's text model
    is compiled for its own parts (fade.statistics.compose), one
    composition and none of the x86, image or DNA functions, and writes the
    streams its module compiled at install writes, in file order and in
    lockstep (two sub-streams), each decoding the other's: numba's with its
    weights' limit lowered from 2^30 to 20,000, so that its 32-bit weights
    grow past it and are widened to 64 bits partway through each stream
    (fade.statistics.state.GROWN; the module's never are on 20 KB). Loading
    fast's model for machine code after it adds a second composition, and
    hashing its contexts compiles x86's (so the checks can see both); and
    numba's text stream decodes, from the cache, in a process of its own."""
    child = r"""
import json, sys
import numpy as np
from numba.core.registry import CPUDispatcher
from fade.config import StatisticsConfig
from fade.statistics import compose, dna, image, kernels, x86
from fade.statistics.coding import Statistics, Tables, decode_file, encode_file
from fade.statistics.models import LEVEL_MODELS, MODEL_PARTS
data = open(sys.argv[1], "rb").read()[:20_000]
config = StatisticsConfig(model=LEVEL_MODELS["fast", "text"]).sized(len(data))
lengths = np.array([12_000, 8_000])
widened, widen = [], Tables.widened
Tables.widened = lambda tables: widened.append(1) or widen(tables)

def coded():
    compose._LOADED.clear()
    whole = encode_file(data, config)
    lockstep = Statistics(config, lengths)
    source = np.frombuffer(data, dtype=np.uint8)
    for step in range(lengths.max()):
        active = int((lengths > step).sum())
        lockstep.encode(source[[step, 12_000 + step][:active]], None)
    return whole, lockstep.finish()

def compiled():
    return {module.__name__.split(".")[-1]: sorted(
        name for name, value in vars(module).items()
        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__
        and value.signatures) for module in (dna, image, x86)}

def compositions():
    return len([name for name in sys.modules if name.startswith("fade.statistics.predictor")])

built = coded()
kinds = [type(compose.predictor_for(MODEL_PARTS[config.model]).encode_range).__name__]
counts = [len(widened)]
compose._compiled = lambda composition: None
limit, kernels.GROWN = kernels.GROWN, 20_000
by_numba = coded()
kinds.append(type(compose.predictor_for(MODEL_PARTS[config.model]).encode_range).__name__)
counts.append(len(widened) - counts[0])
assert decode_file(built[0], len(data), config) == data
open(sys.argv[2], "wb").write(by_numba[0])
text = [compositions(), compiled()]
kernels.GROWN = limit
machine = StatisticsConfig(table_bits=14, match_bits=12, model=LEVEL_MODELS["fast", "x86"])
compose.predictor_for(MODEL_PARTS[machine.model])
tables = Tables.build(machine, 1, 3000)
x86.x86_contexts(tables.scratch, tables.streams, 0)
print(json.dumps([built == by_numba, kinds, counts, text, [compositions(), compiled()]]))
"""
    again = r"""
import sys
from fade.config import StatisticsConfig
from fade.statistics import compose
compose._compiled = lambda composition: None
from fade.statistics.coding import decode_file
from fade.statistics.models import LEVEL_MODELS
config = StatisticsConfig(model=LEVEL_MODELS["fast", "text"]).sized(20_000)
print(decode_file(open(sys.argv[2], "rb").read(), 20_000, config)
      == open(sys.argv[1], "rb").read()[:20_000])
"""
    data = corpus_file("alice29.txt").read_bytes()[:20_000]
    args = [str(corpus_file("alice29.txt")), str(tmp_path / "stream")]
    env = fade_env({"NUMBA_CACHE_DIR": str(tmp_path / "numba")})
    done = subprocess.run([sys.executable, "-c", child, *args], capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    same, kinds, counts, text, machine = json.loads(done.stdout)
    assert kinds == ["builtin_function_or_method", "CPUDispatcher"]
    # none widened by the module; numba's widened in both ways, once each
    assert counts == [0, 2] and same
    assert text == [1, {"dna": [], "image": [], "x86": []}]
    assert machine[0] == 2 and "x86_contexts" in machine[1]["x86"]
    assert machine[1]["image"] == machine[1]["dna"] == []
    config = StatisticsConfig(model=LEVEL_MODELS["fast", "text"]).sized(len(data))
    assert decode_file((tmp_path / "stream").read_bytes(), len(data), config) == data
    done = subprocess.run([sys.executable, "-c", again, *args], capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.stdout.strip() == "True", done.stderr


@pytest.mark.parametrize("digest", ["source_digest", "cpu_digest"])
def test_a_module_built_from_other_sources_or_for_another_cpu_is_not_taken(monkeypatch, digest):
    """An edited checkout, or an install copied to a CPU with other
    features, has no module of its name: numba compiles there."""
    assert compose._compiled(0) is not None
    monkeypatch.setattr(compose, digest, lambda: "0" * 64)
    assert compose._compiled(0) is None


def test_the_cpu_digest_follows_instruction_sets_not_a_kernels_flags():
    """A kernel or microcode update that adds a mitigation's flag keeps the
    install's modules; a CPU without one of this one's instruction sets
    does not take them."""
    cpuinfo = Path("/proc/cpuinfo").read_text()
    line = next(line for line in cpuinfo.splitlines() if line.split(":")[0].strip() == "flags")
    flags = line.split(":", 1)[1].split()
    assert compose.features_digest(cpuinfo) == compose.cpu_digest()
    updated = cpuinfo.replace(line, f"{line} md_clear flush_l1d", 1)
    assert compose.features_digest(updated) == compose.cpu_digest()
    fewer = cpuinfo.replace(line, "flags\t: " + " ".join(f for f in flags if f != "sse2"), 1)
    assert compose.features_digest(fewer) != compose.cpu_digest()
