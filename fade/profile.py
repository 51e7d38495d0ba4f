"""Numeric profiles: which computation an archive's probabilities came from,
and whether this machine can replay it bit for bit.

- **portable** (the default on x86-64 with AVX2): ATen's kernels pinned to
  AVX2 (`ATEN_CPU_CAPABILITY`), oneDNN's to AVX2 (`ONEDNN_MAX_CPU_ISA`), both
  set by fade.environment before torch loads, and the matrix products in
  oneDNN (fade.kernels) instead of MKL, whose kernels depend on the CPU's
  vendor. The same bits on any x86-64 CPU with AVX2, Intel or AMD, with or
  without AVX-512, for one torch build and thread count.
- **native**: torch's own kernels, MKL included: the fastest path, but the
  bits may depend on the CPU's vendor, instruction sets and model, so such
  an archive decodes where it was made (and on machines alike in everything
  `replay_problems` compares). On a GPU, and on CPUs the portable profile
  does not cover (aarch64, x86-64 without AVX2), native is the only one.

Archives of format versions 1 to 4 were made before profiles; they count as
native, with what their header recorded (device, torch version, ATen
capability) and oneDNN unpinned.

Everything here that describes a machine is a `Machine`, recorded in every
learned archive's header, and `replay_problems(recorded, here)` is a pure
function of two of them, so the rules are tested on any machine, GPU ones
included.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import re
from dataclasses import dataclass, fields

from fade.environment import X86_64, machine

PORTABLE = "portable"
NATIVE = "native"
PROFILES = (PORTABLE, NATIVE)

# What the portable profile pins (fade.environment sets them before torch loads).
PORTABLE_CAPABILITY = "AVX2"  # torch.backends.cpu.get_cpu_capability()
PORTABLE_ONEDNN_ISA = "AVX2"  # ONEDNN_MAX_CPU_ISA
# oneDNN's name for "no cap": what a process replaying an unpinned archive sets.
ONEDNN_NO_CAP = "ALL"


@dataclass(frozen=True)
class Machine:
    """What a learned archive's probabilities can depend on besides its own
    header fields; recorded in the header (format v5; earlier versions hold
    device_kind, device_name, torch_version and cpu_capability)."""

    profile: str = NATIVE
    device_kind: str = "cpu"  # "cpu" or "cuda"
    device_name: str = ""  # CPU model or GPU name
    architecture: str = ""  # platform.machine(), x86_64 normalised
    cpu_vendor: str = ""  # Intel, AMD, ...: the operating system's view
    cpu_isa: str = ""  # the CPU's best x86 vector extension: AVX512, AVX2, AVX, none
    cpu_capability: str = ""  # ATen's kernels in effect (torch.backends.cpu)
    onednn_isa: str = ""  # oneDNN's ISA cap in effect, ALL when none
    mkl_cpu: str = ""  # MKL's view of the CPU: vendor and kernel branch
    torch_version: str = ""
    mkl_version: str = ""
    onednn_version: str = ""
    cuda_version: str = ""
    cudnn_version: str = ""


MACHINE_FIELDS = [f.name for f in fields(Machine)]


def _cpuinfo() -> dict[str, str]:
    """The first processor's lines of /proc/cpuinfo ({} where there is none)."""
    info: dict[str, str] = {}
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                info[key.strip()] = value.strip()
    return info


def architecture() -> str:
    name = machine()
    return "x86_64" if name in X86_64 else name


def _processor() -> str:
    """platform.processor(), for a machine whose /proc/cpuinfo does not say
    (platform loads only then: fade.environment.machine)."""
    import platform

    return platform.processor()


@functools.lru_cache(maxsize=1)
def cpu() -> tuple[str, str, str]:
    """(model name, vendor, best vector ISA) of this CPU."""
    info = _cpuinfo()
    vendor = {"GenuineIntel": "Intel", "AuthenticAMD": "AMD"}.get(
        info.get("vendor_id", ""), info.get("vendor_id", "") or _processor() or "unknown")
    flags = set(info.get("flags", "").split())
    if architecture() != "x86_64":
        isa = "none"
    elif not flags:  # no /proc/cpuinfo: ATen runs AVX2 kernels only where the CPU has them
        import torch

        isa = {"AVX512": "AVX512", "AVX2": "AVX2"}.get(torch.backends.cpu.get_cpu_capability(), "")
    elif {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        isa = "AVX512"
    elif {"avx2", "fma"} <= flags:
        isa = "AVX2"
    elif "avx" in flags:
        isa = "AVX"
    else:
        isa = "none"
    name = info.get("model name") or _processor() or machine()
    return name, vendor, isa


@functools.lru_cache(maxsize=1)
def library_versions() -> tuple[str, str]:
    """(MKL, oneDNN) versions of this torch build, "" where it has none."""
    import torch

    config = torch.__config__.show()
    mkl = re.search(r"Math Kernel Library Version (\S+)", config)
    onednn = re.search(r"MKL-DNN v(\S+)", config)
    return (mkl.group(1) if mkl else "", onednn.group(1) if onednn else "")


@functools.lru_cache(maxsize=1)
def mkl_cpu() -> str:
    """The CPU as MKL's dispatcher sees it ("intel:5", "zen:0", ...), read
    from MKL's own service functions in torch's library: MKL picks its
    kernels by vendor and branch, so a native archive records them. "" where
    torch has no MKL or the functions are not exported. MKL decides once per
    process, so this is read once."""
    import torch

    path = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so")
    try:
        library = ctypes.CDLL(path)
    except OSError:
        return ""

    def call(name: str) -> int | None:
        # The process's global scope first: that is where MKL's own calls
        # resolve too (an LD_PRELOADed definition wins there).
        for scope in (ctypes.CDLL(None), library):
            function = getattr(scope, name, None)
            if function is not None:
                return function()
        return None

    intel, zen, branch = (call(name) for name in
                          ("mkl_serv_intel_cpu_true", "mkl_serv_cpuiszen", "mkl_serv_cpu_detect"))
    if branch is None:
        return ""
    return f"{'intel' if intel else 'zen' if zen else 'other'}:{branch}"


def capability_setting(capability: str) -> str:
    """ATEN_CPU_CAPABILITY's value for a capability name ("AVX512" -> "avx512")."""
    return capability.lower().replace(" ", "")


def onednn_cap() -> str:
    """oneDNN's ISA cap as this process set it (oneDNN reads it once, at its
    first primitive), ALL when none."""
    value = os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA")
    return value.upper() if value else ONEDNN_NO_CAP


def machine_lacks_portable() -> str | None:
    """Why this machine's CPU cannot compute in the portable profile, or None."""
    if architecture() != "x86_64":
        return f"the portable profile needs x86-64 with AVX2; this is {architecture()}"
    if cpu()[2] in ("AVX", "none"):
        return "the portable profile needs AVX2; this CPU lacks it"
    return None


def portable_unavailable(device_kind: str = "cpu") -> str | None:
    """Why this process cannot compute in the portable profile, or None."""
    import torch

    if device_kind != "cpu":
        return "the portable profile runs on the CPU only"
    lacks = machine_lacks_portable()
    if lacks:
        return lacks
    capability = torch.backends.cpu.get_cpu_capability()
    cap = onednn_cap()
    if capability != PORTABLE_CAPABILITY or cap != PORTABLE_ONEDNN_ISA:
        return (f"this process runs ATen at {capability} and oneDNN at {cap}, where the "
                f"portable profile pins both to AVX2 (import fade before torch, or leave "
                f"ATEN_CPU_CAPABILITY and ONEDNN_MAX_CPU_ISA unset)")
    mode = os.environ.get("ONEDNN_DEFAULT_FPMATH_MODE", "strict").lower()
    if mode != "strict":
        return f"ONEDNN_DEFAULT_FPMATH_MODE={mode} changes oneDNN's products; unset it"
    return None


def here(device_kind: str = "cpu", device_name: str = "", profile: str = NATIVE) -> Machine:
    """This process, as a header records it, for an archive in `profile`."""
    import torch

    _, vendor, isa = cpu()
    mkl, onednn = library_versions()
    cuda = device_kind == "cuda"
    return Machine(
        profile=profile, device_kind=device_kind, device_name=device_name,
        architecture=architecture(), cpu_vendor=vendor, cpu_isa=isa,
        cpu_capability=torch.backends.cpu.get_cpu_capability(), onednn_isa=onednn_cap(),
        mkl_cpu=mkl_cpu(), torch_version=torch.__version__, mkl_version=mkl,
        onednn_version=onednn, cuda_version=(torch.version.cuda or "") if cuda else "",
        cudnn_version=str(torch.backends.cudnn.version() or "") if cuda else "")


# An ATen capability, and the CPU extension it needs.
_CAPABILITY_NEEDS = {"AVX512": ("AVX512",), "AVX2": ("AVX2", "AVX512")}


@dataclass(frozen=True)
class Replay:
    """What replaying an archive here takes: `refusals` (this machine cannot:
    each names what differs) and `environment` (settings a fresh process
    needs, where this one differs only in them)."""

    refusals: tuple[str, ...]
    environment: dict[str, str]


def replay_problems(recorded: Machine, here: Machine, version: int = 5) -> Replay:
    """Compare the machine an archive records with this one (`here`, as
    `here()` describes it, profile ignored) by the rules of its profile."""
    refusals: list[str] = []

    def differ(field: str, label: str) -> None:
        there, mine = getattr(recorded, field), getattr(here, field)
        if version < 5 and not there:  # not recorded before v5
            return
        if there != mine:
            refusals.append(f"{label} {there or 'none'} (archive) vs {mine or 'none'} (here)")

    if recorded.device_kind == "cuda":
        if here.device_kind != "cuda":
            refusals.append("a GPU archive cannot be decoded on a CPU")
        else:
            differ("device_name", "GPU")
            differ("cuda_version", "CUDA")
            differ("cudnn_version", "cuDNN")
            differ("torch_version", "torch")
        return Replay(tuple(refusals), {})
    if here.device_kind != "cpu":
        return Replay((f"made on a CPU; decode it on the CPU (--device cpu), not on the "
                       f"{here.device_kind} device",), {})
    environment = {}
    if recorded.profile == PORTABLE:
        if here.architecture != "x86_64" or here.cpu_isa not in ("AVX2", "AVX512"):
            refusals.append(f"the portable profile needs x86-64 with AVX2; this machine is "
                            f"{here.architecture} {here.cpu_isa}")
        differ("torch_version", "torch")
        differ("onednn_version", "oneDNN")
    else:
        differ("architecture", "architecture")
        differ("torch_version", "torch")
        if version >= 5:
            differ("cpu_vendor", "CPU vendor")
            differ("cpu_isa", "CPU")
            differ("mkl_version", "MKL")
            differ("mkl_cpu", "MKL kernels")
    if refusals:
        return Replay(tuple(refusals), {})
    # The same machine: what is left are the settings this process runs with.
    capability = recorded.cpu_capability
    if capability != here.cpu_capability:
        if here.cpu_isa not in _CAPABILITY_NEEDS.get(capability, (here.cpu_isa,)):
            return Replay((f"ATen kernels {capability} (archive) need a CPU with "
                           f"{capability}; this one has {here.cpu_isa}",), {})
        environment["ATEN_CPU_CAPABILITY"] = capability_setting(capability)
    onednn = recorded.onednn_isa or ONEDNN_NO_CAP  # before v5: unpinned
    if onednn != here.onednn_isa:
        environment["ONEDNN_MAX_CPU_ISA"] = onednn
    return Replay((), environment)


def decoded_by(machine: Machine) -> str:
    """What decodes a learned archive made on `machine`, as `fade -l` and
    `fade info` say it: the torch build and the CPU class or GPU model its
    profile's rules ask for (`replay_problems`)."""
    torch_build = f"torch {machine.torch_version or 'of the encoder'}"
    if machine.device_kind == "cuda":
        return (f"{torch_build} with CUDA {machine.cuda_version or 'none'} on the GPU "
                f"{machine.device_name}")
    if machine.profile == PORTABLE:
        return f"{torch_build} on any x86-64 CPU with AVX2 (portable profile)"
    cpu = " ".join(filter(None, (machine.cpu_vendor, machine.cpu_isa, machine.architecture)))
    return (f"{torch_build} on a {cpu or machine.device_name or 'CPU'} like the encoder's "
            f"(native profile{', MKL ' + machine.mkl_version if machine.mkl_version else ''})")


def describe(machine: Machine) -> str:
    """A few words for a message: 'portable', 'native on AMD AVX2', 'native
    on the GPU NVIDIA H100'."""
    if machine.device_kind == "cuda":
        return f"{machine.profile} on the GPU {machine.device_name}"
    if machine.profile == PORTABLE:
        return PORTABLE
    if machine.cpu_vendor:
        return f"{machine.profile} on {machine.cpu_vendor} {machine.cpu_isa}"
    return f"{machine.profile} on {machine.device_name or 'a CPU'} ({machine.cpu_capability})"
