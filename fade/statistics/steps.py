"""The kinds' steps before and after coding, as Python calls them: x86
code's distances made addresses (fade.statistics.x86) and audio's samples
made residuals (fade.statistics.audio), and back.

Each step's work is a compiled function of its kind's module (`STEPS`);
`step(name)` takes the install's build of it (fade.statistics.ahead, the
module of the kinds' steps), and imports the kind's module, and with it
numba, only where there is none (an edited checkout, another CPU): a
process that codes machine code or audio with the install's modules loads
no numba, as one that codes text does not.
"""

from __future__ import annotations

import importlib

import numpy as np

from fade.statistics import compose
from fade.statistics.parts import F_AUDIO, F_E8E9, F_OLS64, F_X86
from fade.statistics.wav import wav_layout

# Each step's name in the install's module: its kind's module and function.
STEPS = {"e8e9": ("x86", "_e8e9"), "rip_relative": ("x86", "_rip_relative"),
         "residuals": ("audio", "_residuals")}


def step(name: str):
    """The step `name` (STEPS): the install's build, else numba's function."""
    module = compose._compiled(None)
    if module is not None:
        return getattr(module, name)
    kind, function = STEPS[name]
    return getattr(importlib.import_module(f"fade.statistics.{kind}"), function)


def to_addresses(data: np.ndarray, parts: int) -> np.ndarray:
    """`data` (uint8) as a model with `parts` codes it: with F_X86, each
    RIP-relative displacement (ModRM mode 0, r/m 5: 4 bytes counted from the
    next instruction, as x86-64 code reaches its data) made the address it
    points at, as the instruction contexts parse the bytes (a parse reads no
    displacement, so the one back reads the same); then, with F_E8E9, each
    call's and jump's distance. `data` itself where neither applies."""
    if parts & F_X86:
        data = step("rip_relative")(np.ascontiguousarray(data, dtype=np.uint8), True)
    if parts & F_E8E9:
        data = e8e9(data, True, big=bool(parts & F_X86))
    return data


def from_addresses(data: np.ndarray, parts: int) -> np.ndarray:
    """The bytes `to_addresses` took: its steps undone, last first."""
    if parts & F_E8E9:
        data = e8e9(data, False, big=bool(parts & F_X86))
    if parts & F_X86:
        data = step("rip_relative")(np.ascontiguousarray(data, dtype=np.uint8), False)
    return data


def e8e9(data: np.ndarray, forward: bool, big: bool = False) -> np.ndarray:
    """`data` (uint8) with each call's and jump's distance made its target's
    address (`forward`), or back; a new array. `big`: the address's low three
    bytes written most significant first (F_X86), so that a call's target is
    coded from its high bytes down, each known when the next is predicted."""
    return step("e8e9")(np.ascontiguousarray(data, dtype=np.uint8), forward, big)


def to_residuals(data: np.ndarray, parts: int) -> np.ndarray:
    """`data` (uint8) as a model with `parts` codes it: with F_AUDIO, the
    samples of a WAV file as residuals (fade.statistics.audio); else `data`
    itself."""
    return _recoded(data, parts, True)


def from_residuals(data: np.ndarray, parts: int) -> np.ndarray:
    """The bytes `to_residuals` took: the samples rebuilt from the residuals."""
    return _recoded(data, parts, False)


def _recoded(data: np.ndarray, parts: int, forward: bool) -> np.ndarray:
    """`data` with its samples made residuals (`forward`) or back; itself
    where there are none (or no F_AUDIO). Byte for byte in compiled code:
    beside the input and the result, only the first channel's samples are
    held (where there are more channels)."""
    layout = wav_layout(data) if parts & F_AUDIO else None
    if layout is None:
        return data
    samples = slice(layout.start, layout.start + layout.size)
    out = np.array(data, dtype=np.uint8)
    step("residuals")(out[samples].copy(), out[samples], layout.channels, layout.width, forward,
                      bool(parts & F_OLS64))
    return out
