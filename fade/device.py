"""Where the model runs and how it replays: the device, the numeric profile,
the pinned numerics, and the checks a decoder makes before it replays.

A learned archive decodes only where the model computes bit-identical
probabilities. The encoder picks the numeric profile its model computes in
(`choose_profile`) and records the machine (fade.profile); a decoder refuses
up front where this machine or process cannot replay it (`check_replay`),
pins the same numerics while it runs (`deterministic`: float32 with
deterministic algorithms, no TF32, and the intra-op thread count the header
records, since LayerNorm's weight gradients on a CPU differ in the last bits
between thread counts), and names the machine differences when a decode
fails anyway (`failure_cause`).
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator

# cuBLAS needs this before its first handle is created to be deterministic.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

from fade import profile as profiles  # noqa: E402
from fade.errors import FadeError, ProfileMismatchError, ReplayEnvironmentError  # noqa: E402
from fade.format.headers import AnyHeader, Header  # noqa: E402
from fade.lazy import torch  # noqa: E402

DEVICES = ("auto", "cpu", "cuda")


def resolve_device(device: str) -> torch.device:
    """The torch device for a DEVICES name ("auto": a GPU where there is one)."""
    if device not in DEVICES:
        raise FadeError(f"unknown device {device!r} (choose from {', '.join(DEVICES)})")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise FadeError("CUDA is not available on this machine (use --device cpu)")
    return torch.device(device)


def device_name(device: torch.device) -> str:
    """The GPU's or CPU's model name, as a header records it."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return profiles.cpu()[0]


def environment_differences(header: Header, device: torch.device) -> list[str]:
    """Everything recorded about the encoding machine that differs here
    (fields the archive does not record left out): the likely causes when a
    decode fails after the up-front check passed."""
    there = header.machine()
    mine = profiles.here(device.type, device_name(device))
    differences = [f"{name.replace('_', ' ')} {getattr(there, name)!r} (archive) vs "
                   f"{getattr(mine, name)!r} (here)"
                   for name in profiles.MACHINE_FIELDS
                   if name != "profile" and getattr(there, name) and
                   getattr(there, name) != getattr(mine, name)]
    if header.version < 5 and device.type == "cpu" and there.cpu_capability != mine.cpu_isa:
        # Before v5 nothing was pinned: the capability recorded was the CPU's best.
        differences.append(f"CPU capability {there.cpu_capability!r} (archive, unpinned) vs "
                           f"a CPU with {mine.cpu_isa!r} (here)")
    return differences


def choose_profile(device: torch.device, native: bool) -> str:
    """The profile an archive made here is computed in: portable unless asked
    for native, on a GPU, or where the CPU cannot run it (aarch64, x86-64
    without AVX2); a process that could but is set up otherwise is an error
    (fade.profile.portable_unavailable)."""
    if native or device.type != "cpu" or profiles.machine_lacks_portable():
        return profiles.NATIVE
    reason = profiles.portable_unavailable(device.type)
    if reason is None:
        return profiles.PORTABLE
    raise FadeError(f"{reason}; or make a native archive (--native), which decodes only on "
                    "machines like this one")


def check_replay(header: Header, device: torch.device) -> None:
    """Raise unless this process can replay `header`'s numeric profile:
    ProfileMismatchError where this machine cannot (one line naming what
    differs and what would decode it), ReplayEnvironmentError where only a
    process with other settings can."""
    recorded = header.machine()
    replay = profiles.replay_problems(recorded, profiles.here(device.type, device_name(device)),
                                     header.version)
    if replay.refusals:
        if recorded.profile == profiles.PORTABLE:
            advice = f"decode with torch {recorded.torch_version} on an x86-64 machine with AVX2"
        elif recorded.device_kind == "cuda":
            advice = (f"decode on a machine with the GPU {recorded.device_name}, torch "
                      f"{recorded.torch_version} and CUDA {recorded.cuda_version or 'none'}")
        else:
            advice = ("decode on the encoding machine, or re-compress there with the default "
                      "portable profile")
        raise ProfileMismatchError(f"archive made in profile {profiles.describe(recorded)}; "
                                   f"this machine differs: {'; '.join(replay.refusals)}: {advice}")
    environment = dict(replay.environment)
    if os.environ.get("ONEDNN_DEFAULT_FPMATH_MODE", "strict").lower() != "strict":
        environment["ONEDNN_DEFAULT_FPMATH_MODE"] = "strict"
    if environment:
        settings = " ".join(f"{key}={value}" for key, value in sorted(environment.items()))
        raise ReplayEnvironmentError(
            f"this archive replays only in a process started with {settings} (the fade "
            "command starts one itself; in a program, set them before importing fade)",
            environment)


@contextlib.contextmanager
def deterministic(threads: int) -> Iterator[None]:
    """Pin the numerics that the archive records, restoring them afterwards."""
    saved = (torch.get_num_threads(), (torch.are_deterministic_algorithms_enabled(),
                                       torch.is_deterministic_algorithms_warn_only_enabled()),
             torch.get_float32_matmul_precision(), torch.backends.cudnn.deterministic,
             torch.backends.cudnn.benchmark, torch.backends.cudnn.allow_tf32)
    torch.set_num_threads(threads)
    # torch.use_deterministic_algorithms(True) less its one other effect, a
    # setting of torch's compiler (inductor), which fade never runs: importing
    # the compiler's configuration loads torch._dynamo, about 3 s of every
    # process that runs the network.
    torch._C._set_deterministic_algorithms(True, warn_only=False)
    torch.set_float32_matmul_precision("highest")
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.set_num_threads(saved[0])
        torch._C._set_deterministic_algorithms(saved[1][0], warn_only=saved[1][1])
        torch.set_float32_matmul_precision(saved[2])
        (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark,
         torch.backends.cudnn.allow_tf32) = saved[3:]


def decode_device(header: AnyHeader, device: str = "auto") -> torch.device:
    """The device to decode on: by default the archive's kind, where present;
    the CPU for an archive that runs no model."""
    if not isinstance(header, Header):
        return resolve_device("cpu")
    if device == "auto":
        device = header.device_kind if header.device_kind != "cuda" or torch.cuda.is_available() \
            else "cpu"
    return resolve_device(device)


def failure_cause(header: Header, device: torch.device) -> str | None:
    """The machine differences that may explain a failed decode of `header`
    on `device`, as a cause to print; None for a portable archive (its
    up-front check says they do not matter) or where nothing differs."""
    if header.profile == profiles.PORTABLE:
        return None
    differences = environment_differences(header, device)
    if not differences:
        return None
    return ("this machine computes different probabilities than the encoding one: "
            + "; ".join(differences))
