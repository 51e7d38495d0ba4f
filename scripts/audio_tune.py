"""The audio predictor's settings tried side by side: model 22's bytes.

    python scripts/audio_tune.py FILE.wav ... [--set NAME=VALUE ...] [--model N]

Codes each WAV file with statistics model 22 (the default's for audio before
models 53 to 55, so that the tables' commands give their rows; --model
another) in this process and prints the bytes of its statistics stream (the
archive's payload, without the container's few dozen bytes), each file and in
all. --set overrides a constant of fade/statistics/audio.py (OLS_ORDER,
OLS_ORDER64, OLS_DECAY, OLS_EVERY, OLS_RIDGE, OLS_FLOOR, ORDER, STEP, ...)
before its compiled code is built, so a row of docs/statistics.md's tuning
tables is one run: the code is compiled again (tens of seconds) and never
cached. OLS_ORDER=0 on mono files is the sign-sign cascade alone (models
21-23 before the least squares stage). Each file's residuals are undone and
compared, so a setting that breaks the round trip says so.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fade.statistics.audio as audio  # noqa: E402
from fade.config import LEVELS  # noqa: E402
from fade.statistics.coding import encode_file  # noqa: E402
from fade.statistics import steps  # noqa: E402
from fade.statistics.models import MODEL_PARTS  # noqa: E402
from fade.statistics.parts import F_AUDIO, F_OLS64  # noqa: E402


def variant(settings: dict[str, int]):
    """A fresh copy of fade.statistics.audio, not cached, with `settings`."""
    source = Path(audio.__file__).read_text().replace("cache=True", "cache=False")
    spec = importlib.util.spec_from_loader("audio_variant", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, audio.__file__, "exec"), module.__dict__)
    for name, value in settings.items():
        if not hasattr(module, name):
            raise SystemExit(f"audio_tune: fade.statistics.audio has no {name}")
        setattr(module, name, value)
    if "OLS_DECAY" in settings:
        module.OLS_ROUND = 1 << (module.OLS_DECAY - 1)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--model", type=int, default=22)
    args = parser.parse_args()
    settings = {}
    for item in args.set:
        name, _, value = item.partition("=")
        settings[name] = int(value, 0)
    module = variant(settings)
    step = steps.step  # the variant's residuals, what to_residuals and from_residuals call
    steps.step = lambda name: module._residuals if name == "residuals" else step(name)
    config = dataclasses.replace(LEVELS["default"].statistics, model=args.model)
    total = 0
    parts = F_AUDIO | (MODEL_PARTS[args.model] & F_OLS64)
    for path in args.files:
        data = path.read_bytes()
        source = np.frombuffer(data, dtype=np.uint8)
        residuals = steps.to_residuals(source, parts)
        if steps.from_residuals(residuals, parts).tobytes() != data:
            raise SystemExit(f"audio_tune: {path.name}: the residuals do not undo")
        start = time.perf_counter()
        size = len(encode_file(data, config))
        total += size
        print(f"{path.name:32s} {size:10,d}  {time.perf_counter() - start:6.1f} s", flush=True)
    print(f"{'total':32s} {total:10,d}   " + " ".join(args.set))


if __name__ == "__main__":
    main()
