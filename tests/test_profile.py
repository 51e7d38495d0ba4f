"""Numeric profiles (fade.profile): portable archives decode on simulated
other machines, native ones are refused up front there, and the rules that
decide it, for CPUs and GPUs alike."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

import fade
from fade import profile
from fade.device import check_replay
from fade.errors import ProfileMismatchError, ReplayEnvironmentError

from conftest import REPO, corpus_file, fade_env, one_error_line, run_fade

AMD_AVX2 = profile.Machine(
    profile=profile.PORTABLE, device_kind="cpu", device_name="AMD EPYC", architecture="x86_64",
    cpu_vendor="AMD", cpu_isa="AVX2", cpu_capability="AVX2", onednn_isa="AVX2",
    mkl_cpu="zen:0", torch_version="2.13.0+cpu", mkl_version="2024.2-Product",
    onednn_version="3.12.0")
INTEL_AVX512 = dataclasses.replace(AMD_AVX2, device_name="Intel Xeon", cpu_vendor="Intel",
                                   cpu_isa="AVX512", mkl_cpu="intel:7")
GPU = dataclasses.replace(AMD_AVX2, profile=profile.NATIVE, device_kind="cuda",
                          device_name="NVIDIA H100 80GB HBM3", cuda_version="12.4",
                          cudnn_version="90100", torch_version="2.13.0+cu124")


def test_portable_archives_replay_on_any_x86_64_with_avx2():
    for here in (AMD_AVX2, INTEL_AVX512, dataclasses.replace(INTEL_AVX512, cpu_isa="AVX2")):
        assert profile.replay_problems(AMD_AVX2, here) == profile.Replay((), {})


def test_portable_archives_are_refused_where_they_cannot_replay():
    arm = dataclasses.replace(AMD_AVX2, architecture="aarch64", cpu_isa="none")
    assert "x86-64 with AVX2" in profile.replay_problems(AMD_AVX2, arm).refusals[0]
    old = dataclasses.replace(AMD_AVX2, cpu_isa="AVX")
    assert profile.replay_problems(AMD_AVX2, old).refusals
    other_torch = dataclasses.replace(INTEL_AVX512, torch_version="2.14.1+cpu")
    assert profile.replay_problems(AMD_AVX2, other_torch).refusals == \
        ("torch 2.13.0+cpu (archive) vs 2.14.1+cpu (here)",)


def test_native_archives_replay_only_on_machines_alike():
    native = dataclasses.replace(AMD_AVX2, profile=profile.NATIVE)
    assert profile.replay_problems(native, AMD_AVX2) == profile.Replay((), {})
    refusals = profile.replay_problems(native, INTEL_AVX512).refusals
    assert "CPU vendor AMD (archive) vs Intel (here)" in refusals
    assert "CPU AVX2 (archive) vs AVX512 (here)" in refusals
    assert "MKL kernels zen:0 (archive) vs intel:7 (here)" in refusals
    # the same CPU, another MKL branch (what the vendor shim below simulates)
    shimmed = dataclasses.replace(AMD_AVX2, mkl_cpu="intel:5")
    assert profile.replay_problems(native, shimmed).refusals == \
        ("MKL kernels zen:0 (archive) vs intel:5 (here)",)


def test_gpu_archives_need_the_same_gpu_and_versions():
    assert profile.replay_problems(GPU, GPU) == profile.Replay((), {})
    on_cpu = profile.replay_problems(GPU, AMD_AVX2).refusals
    assert on_cpu == ("a GPU archive cannot be decoded on a CPU",)
    assert "decode it on the CPU" in profile.replay_problems(AMD_AVX2, GPU).refusals[0]
    other = dataclasses.replace(GPU, device_name="NVIDIA A100", cudnn_version="90000")
    assert profile.replay_problems(GPU, other).refusals == (
        "GPU NVIDIA H100 80GB HBM3 (archive) vs NVIDIA A100 (here)",
        "cuDNN 90100 (archive) vs 90000 (here)")


def test_archives_before_profiles_replay_in_their_own_settings():
    # v1-v4: native, oneDNN unpinned, ATen at the CPU's best; only the
    # device, torch and ATen capability recorded
    legacy = profile.Machine(device_name="AMD EPYC", cpu_capability="AVX512",
                             torch_version="2.13.0+cpu")
    assert profile.replay_problems(legacy, INTEL_AVX512, version=4) == profile.Replay(
        (), {"ATEN_CPU_CAPABILITY": "avx512", "ONEDNN_MAX_CPU_ISA": "ALL"})
    refusals = profile.replay_problems(legacy, AMD_AVX2, version=4).refusals
    assert refusals == ("ATen kernels AVX512 (archive) need a CPU with AVX512; this one has "
                        "AVX2",)


def test_check_replay_names_what_differs_and_what_would_decode_it(monkeypatch):
    header = fade.read_header(fade.compress(b"profile check " * 40, preset_name="tiny",
                                            method="fade", native=True))
    monkeypatch.setattr(profile, "here", lambda *args, **kwargs: INTEL_AVX512)
    mine = dataclasses.replace(header, cpu_vendor="AMD", cpu_isa="AVX2", mkl_cpu="zen:0",
                               torch_version=INTEL_AVX512.torch_version,
                               mkl_version=INTEL_AVX512.mkl_version, architecture="x86_64")
    with pytest.raises(ProfileMismatchError) as refused:
        check_replay(mine, __import__("torch").device("cpu"))
    message = str(refused.value)
    assert message.startswith("archive made in profile native on AMD AVX2; this machine "
                              "differs: CPU vendor AMD (archive) vs Intel (here)")
    assert message.endswith("decode on the encoding machine, or re-compress there with the "
                            "default portable profile")
    gpu = dataclasses.replace(mine, device_kind="cuda", device_name=GPU.device_name)
    with pytest.raises(ProfileMismatchError, match="cannot be decoded on a CPU"):
        check_replay(gpu, __import__("torch").device("cpu"))
    monkeypatch.setattr(profile, "here", lambda *args, **kwargs: dataclasses.replace(
        AMD_AVX2, cpu_capability="DEFAULT", torch_version=mine.torch_version,
        onednn_version=mine.onednn_version))
    portable = dataclasses.replace(mine, profile=profile.PORTABLE)
    with pytest.raises(ReplayEnvironmentError) as replay:
        check_replay(portable, __import__("torch").device("cpu"))
    assert replay.value.environment == {"ATEN_CPU_CAPABILITY": "avx2"}


@pytest.fixture(scope="module")
def vendor_shim(tmp_path_factory) -> tuple[Path, str]:
    """A library that makes MKL believe the CPU is of the other vendor than
    this one (an Intel one on AMD, an AMD one on Intel: its kernels then
    differ), and the vendor MKL then names ("intel" or "zen")."""
    folder = tmp_path_factory.mktemp("shim")
    other = "zen" if profile.mkl_cpu().startswith("intel") else "intel"
    intel = int(other == "intel")
    source = folder / f"{other}.c"
    source.write_text(f"int mkl_serv_intel_cpu_true(void){{return {intel};}}\n"
                      f"int mkl_serv_intel_cpu(void){{return {intel};}}\n"
                      f"int mkl_serv_cpuiszen(void){{return {1 - intel};}}\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(folder / f"{other}.so"), str(source)],
                   check=True)
    return folder / f"{other}.so", other


# The simulated machines: MKL believing the CPU is of the other vendor, with ATen
# and oneDNN told to use AVX2 or AVX-512 (the user's own settings, which fade
# must overrule by replaying in its own where they differ from the archive's).
SIMULATED = {
    "other-mkl-avx2-settings": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"},
    "other-mkl-avx512-settings": {"ATEN_CPU_CAPABILITY": "avx512",
                                  "ONEDNN_MAX_CPU_ISA": "AVX512_CORE"},
}


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("profiles")
    path = folder / "alice.txt"
    path.write_bytes(corpus_file("alice29.txt").read_bytes()[:1200])
    return path


def test_other_vendor_mkl_is_simulated(vendor_shim):
    """The shim changes what MKL sees (else the tests below prove nothing)."""
    vendor_shim, other = vendor_shim
    probe = "import fade; from fade import profile; print(profile.mkl_cpu())"
    plain = subprocess.run([sys.executable, "-c", probe], env=fade_env(), cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.strip()
    shimmed = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                             env=fade_env({"LD_PRELOAD": str(vendor_shim)}), text=True,
                             check=True).stdout.strip()
    assert shimmed.startswith(f"{other}:") and shimmed != plain


@pytest.mark.parametrize("threads", [1, 2])
def test_portable_archive_decodes_on_every_simulated_machine(sample, vendor_shim, threads,
                                                              tmp_path):
    vendor_shim, _ = vendor_shim
    archive = tmp_path / "alice.fade"
    made = run_fade("compress", "-q", "--preset", "tiny", "--batch-size", "16", "--threads",
                    str(threads), "-o", str(archive), str(sample), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert fade.read_header(archive.read_bytes()).profile == "portable"
    for name, settings in SIMULATED.items():
        result = run_fade("decompress", "-c", str(archive), cwd=tmp_path,
                          env={**settings, "LD_PRELOAD": str(vendor_shim)})
        assert result.returncode == 0, (name, result.stderr)
        assert result.stdout == sample.read_bytes(), name


def test_native_archive_is_refused_up_front_on_another_vendor(sample, vendor_shim, tmp_path):
    vendor_shim, other = vendor_shim
    archive = tmp_path / "alice.fade"
    made = run_fade("compress", "-q", "--native", "--preset", "tiny", "--batch-size", "16",
                    "-o", str(archive), str(sample), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert fade.read_header(archive.read_bytes()).profile == "native"
    here = run_fade("decompress", "-c", str(archive), cwd=tmp_path)
    assert here.returncode == 0 and here.stdout == sample.read_bytes()
    out = tmp_path / "out.txt"
    refused = run_fade("decompress", "-o", str(out), str(archive), cwd=tmp_path,
                       env={"LD_PRELOAD": str(vendor_shim)}, timeout=60)
    line = one_error_line(refused, "archive made in profile native on", "MKL kernels",
                          f"(archive) vs {other}:", "re-compress there with the default portable")
    assert "SHA-256" not in line
    assert not out.exists() and list(tmp_path.iterdir()) == [archive]


def test_other_settings_are_replayed_in_a_fresh_process(sample, tmp_path):
    """A native archive made with ATen at its generic kernels (the user's
    setting) decodes from a default process: fade starts one with that
    setting. Without the setting, the default profile cannot be made."""
    generic = {"ATEN_CPU_CAPABILITY": "default"}
    refused = run_fade("compress", "--method", "fade", "-o", str(tmp_path / "x.fade"),
                       str(sample), cwd=tmp_path, env=generic)
    one_error_line(refused, "this process runs ATen at DEFAULT", "--native")
    archive = tmp_path / "alice.fade"
    made = run_fade("compress", "-q", "--native", "--preset", "tiny", "--batch-size", "16",
                    "-o", str(archive), str(sample), cwd=tmp_path, env=generic)
    assert made.returncode == 0, made.stderr
    assert fade.read_header(archive.read_bytes()).cpu_capability == "DEFAULT"
    result = run_fade("decompress", "-vv", "-c", str(archive), cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == sample.read_bytes()
    assert "replaying in a process with ATEN_CPU_CAPABILITY=default" in result.stderr.decode()
    with pytest.raises(ReplayEnvironmentError, match="ATEN_CPU_CAPABILITY=default"):
        fade.decompress(archive.read_bytes())
    # a replay that fails: one line, from the replay process, naming the file
    from fade.format import archive as layout

    header, payload = layout.unpack(archive.read_bytes())
    wrong = tmp_path / "wrong.fade"
    wrong.write_bytes(layout.pack(dataclasses.replace(header, seed=7), payload))
    failed = run_fade("decompress", str(wrong), cwd=tmp_path)
    line = one_error_line(failed, f"fade: {wrong}: ")
    assert any(reason in line for reason in ("SHA-256", "the payload holds",
                                             "range-coded stream is damaged")), line
    assert sorted(path.name for path in tmp_path.iterdir()) == ["alice.fade", "wrong.fade"]


def test_library_refuses_the_default_profile_in_a_process_set_up_otherwise():
    probe = ("import torch, fade\n"
             "try:\n    fade.compress(b'abc' * 400, preset_name='tiny', method='fade')\n"
             "except fade.FadeError as error:\n    print('refused:', error)\n"
             "print(fade.read_header(fade.compress(b'abc' * 400, preset_name='tiny', "
             "method='fade', native=True)).profile)\n")
    env = {key: value for key, value in fade_env().items()
           if key not in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA")}
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                            text=True, env={**env, "ONEDNN_MAX_CPU_ISA": "AVX512_CORE"})
    assert result.returncode == 0, result.stderr
    refused, made = result.stdout.strip().splitlines()
    assert refused.startswith("refused: this process runs ATen at ")
    assert "oneDNN at AVX512_CORE" in refused and "--native" in refused
    assert made == "native"


def test_a_failed_old_archive_names_the_cpu_it_was_made_on(monkeypatch):
    """Before v5 nothing was pinned: a v4 archive's capability was its CPU's
    best, so a decode that fails on another CPU names that, even where the
    pinned capability here is the same."""
    import torch

    from fade.device import environment_differences

    header = fade.read_header((REPO / "tests" / "golden" / "v4-tiny.fade").read_bytes())
    assert header.cpu_capability == "AVX2"
    monkeypatch.setattr(profile, "here", lambda *args, **kwargs: dataclasses.replace(
        INTEL_AVX512, device_name=header.device_name, torch_version=header.torch_version))
    assert environment_differences(header, torch.device("cpu")) == [
        "CPU capability 'AVX2' (archive, unpinned) vs a CPU with 'AVX512' (here)"]
