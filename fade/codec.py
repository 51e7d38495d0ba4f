"""The online coding loop: compress() and decompress().

The file is split into B contiguous sub-streams coded as one batch. At step t
the model predicts byte t of every sub-stream from that sub-stream's previous
T bytes (zeros before its start), the coder codes those bytes, and the model
takes one Adam step on them. The decoder runs the very same loop, `_run`,
with the coder reading symbols instead of writing them, so both sides get
their probabilities from one function (`Predictor.probabilities`).

Determinism: the model is initialised from `seed` on the CPU, computes in
float32 with deterministic algorithms and no TF32, and runs with the intra-op
thread count recorded in the header (torch 2.13 on CPU gives LayerNorm
weight gradients that differ in the last bits between 1 and 2 threads, so
the decoder restores the encoder's count instead of using its own).
"""

from __future__ import annotations

import contextlib
import os
import platform
import zlib
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

# cuBLAS needs this before its first handle is created to be deterministic.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from fade import __version__  # noqa: E402
from fade import floats, floor  # noqa: E402
from fade.archive import (COMPACT_OVERHEAD, FLOATS, LEARNED, METHODS, CompactHeader,  # noqa: E402
                          FloatHeader, Header, pack, pack_floats, sha256, unpack)
from fade.config import DEFAULT_PRESET, ModelConfig, batch_size_for, preset  # noqa: E402
from fade.entropy import PROB_DTYPE, Decoder, Encoder  # noqa: E402
from fade.errors import ChecksumMismatchError, CorruptArchiveError, FadeError  # noqa: E402
from fade.model import FADE  # noqa: E402

DEVICES = ("auto", "cpu", "cuda")
# "auto": the learned model, unless the size floor (fade.floor) says it cannot win
# or its archive comes out larger than the stored data.
METHOD_CHOICES = ("auto",) + tuple(METHODS.values())
MAX_THREADS = 1024  # the header has 16 bits for it; more would only oversubscribe

# progress(bytes_done, bytes_total, ideal_bits_so_far)
Progress = Callable[[int, int, float], None]


@dataclass(frozen=True)
class Layout:
    """How N bytes split into B contiguous sub-streams.

    The first N mod B sub-streams are one byte longer than the rest, so every
    byte belongs to a sub-stream (no uncoded tail) and all sub-streams are
    active on every step but possibly the last.
    """

    length: int
    batch_size: int

    @property
    def steps(self) -> int:
        return -(-self.length // self.batch_size)  # ceil

    @property
    def starts(self) -> np.ndarray:
        base, longer = divmod(self.length, self.batch_size)
        sizes = np.full(self.batch_size, base, dtype=np.int64)
        sizes[:longer] += 1
        return np.concatenate(([0], np.cumsum(sizes)[:-1]))

    def active(self, step: int) -> int:
        """Sub-streams that still have a byte at `step` (always a prefix)."""
        longer = self.length % self.batch_size
        return longer if longer and step == self.steps - 1 else self.batch_size


def resolve_device(device: str) -> torch.device:
    if device not in DEVICES:
        raise FadeError(f"unknown device {device!r} (choose from {', '.join(DEVICES)})")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise FadeError("CUDA is not available on this machine (use --device cpu)")
    return torch.device(device)


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def environment_differences(header: Header, device: torch.device) -> list[str]:
    """What differs between the encoding and this machine in ways that can
    change the model's probabilities (and so break the decode)."""
    here = {
        "device": device.type,
        "device name": device_name(device),
        "torch": torch.__version__,
        "CPU capability": torch.backends.cpu.get_cpu_capability(),
    }
    there = {
        "device": header.device_kind,
        "device name": header.device_name,
        "torch": header.torch_version,
        "CPU capability": header.cpu_capability,
    }
    return [f"{key} {there[key]!r} (archive) vs {here[key]!r} (here)"
            for key in here if here[key] != there[key]]


@contextlib.contextmanager
def deterministic(threads: int) -> Iterator[None]:
    """Pin the numerics that the archive records, restoring them afterwards."""
    saved = (torch.get_num_threads(), torch.are_deterministic_algorithms_enabled(),
             torch.get_float32_matmul_precision(), torch.backends.cudnn.deterministic,
             torch.backends.cudnn.benchmark, torch.backends.cudnn.allow_tf32)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    torch.set_float32_matmul_precision("highest")
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.set_num_threads(saved[0])
        torch.use_deterministic_algorithms(saved[1])
        torch.set_float32_matmul_precision(saved[2])
        (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark,
         torch.backends.cudnn.allow_tf32) = saved[3:]


class Predictor:
    """The online model: probabilities for a step, then one Adam step on it."""

    def __init__(self, cfg: ModelConfig, batch_size: int, seed: int, device: torch.device):
        with torch.random.fork_rng(devices=[]):  # seeded init on the CPU, global RNG untouched
            torch.manual_seed(seed)
            model = FADE(cfg, batch_size)
        self.model = model.to(device)
        self.optimizer = torch.optim.Adam(
            self.model.parameters(), lr=cfg.learning_rate, betas=(cfg.adam_beta1, cfg.adam_beta2),
            eps=cfg.adam_eps, weight_decay=cfg.weight_decay, fused=True)
        self.device = device
        self._logits: torch.Tensor | None = None

    def probabilities(self, context: torch.Tensor) -> np.ndarray:
        """(B, 256) float32 next-byte probabilities for a (B, T) context.

        The single source of probabilities for encoder and decoder alike.
        """
        self._logits = self.model(context)
        probs = torch.softmax(self._logits.detach(), dim=-1)
        return probs.to("cpu", torch.float32).numpy().astype(PROB_DTYPE, copy=False)

    def learn(self, targets: torch.Tensor) -> None:
        """One Adam step on the cross-entropy of the last prediction."""
        loss = F.cross_entropy(self._logits, targets)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self._logits = None


# code_step(step, probabilities of the active rows) -> the step's bytes (uint8)
CodeStep = Callable[[int, np.ndarray], np.ndarray]


def _run(layout: Layout, cfg: ModelConfig, seed: int, device: torch.device,
         code_step: CodeStep, progress: Progress | None) -> None:
    """The coding loop shared by compress and decompress."""
    predictor = Predictor(cfg, layout.batch_size, seed, device)
    context = torch.zeros(layout.batch_size, cfg.timesteps, dtype=torch.long, device=device)
    done, bits = 0, 0.0
    for step in range(layout.steps):
        probs = predictor.probabilities(context)
        active = layout.active(step)
        symbols = code_step(step, probs[:active])
        done += active
        if progress is not None:
            bits -= float(np.log2(probs[np.arange(active), symbols]).sum())
            progress(done, layout.length, bits)
        if step + 1 < layout.steps:  # all rows are active on every step but the last
            targets = torch.from_numpy(symbols.astype(np.int64)).to(device)
            predictor.learn(targets)
            context = torch.cat((context[:, 1:], targets[:, None]), dim=1)


def compress(data: bytes, *, model: ModelConfig | None = None, preset_name: str | None = None,
             batch_size: int | None = None, device: str = "auto", threads: int | None = None,
             seed: int = 0, method: str = "auto", dtype: str = "auto", float_mode: str = "off",
             float_codec: str = "auto", progress: Progress | None = None) -> bytes:
    """Compress `data` into a self-describing archive (see docs/format.md).

    `model` or `preset_name` picks the predictor (default: the default
    preset); `batch_size` defaults to `config.default_batch_size` for the
    size, preset and device; `threads` defaults to torch's current intra-op
    thread count. Cost: one forward, backward and Adam step per
    ceil(len(data) / batch_size) bytes.

    `method` "auto" runs the model unless the input is too small or looks
    random (then, and whenever the model's archive would be larger than the
    stored data, the smallest compact archive is written, at most 23 bytes
    over the input); "fade" always runs the model; "stored", "deflate",
    "bzip2" and "xz" force that compact method.

    Float data: with `float_mode` "fast" or "strong", methods "auto" and
    "floats" look for floats (`dtype`: "auto" finds .npy and .safetensors
    files by content, a type name reads a raw array, "none" never splits) and
    write a "floats" archive: "fast" codes the exponents with `float_codec`
    and keeps sign and mantissa raw; "strong" codes byte planes with the
    model (a nested archive). "off" (the default: on the real float files
    measured, the model on the plain bytes compresses best) codes float
    data as bytes. A broken container header counts as plain bytes.
    """
    if method not in METHOD_CHOICES:
        raise FadeError(f"unknown method {method!r} (choose from {', '.join(METHOD_CHOICES)})")
    if float_mode not in floats.MODES:
        raise FadeError(f"unknown float mode {float_mode!r} (choose from "
                        f"{', '.join(floats.MODES)})")
    if model is None:
        preset_name = preset_name or DEFAULT_PRESET
        model = preset(preset_name)
    model.validate()
    torch_device = resolve_device(device)
    threads = threads or torch.get_num_threads()
    if not 1 <= threads <= MAX_THREADS:
        raise FadeError(f"threads must be between 1 and {MAX_THREADS}")
    batch = batch_size_for(len(data), batch_size, preset_name, torch_device.type)
    if method == FLOATS and float_mode == "off":
        raise FadeError("method floats needs float mode fast or strong (--floats)")
    if method in ("auto", FLOATS) and float_mode != "off":
        try:
            found = floats.find(data, dtype)
        except floats.NotAContainer:
            found = None
        if found is not None:
            archive = _compress_floats(data, *found, float_mode, float_codec, dict(
                model=model, preset_name=preset_name, batch_size=batch_size, device=device,
                threads=threads, seed=seed, progress=progress))
            if method == "auto" and len(archive) >= len(data) + COMPACT_OVERHEAD:
                return floor.compress(data, "stored")
            return archive
        if method == FLOATS:
            raise FadeError("no float data found (use --dtype for a raw array)")
    if method not in ("auto", LEARNED):
        return floor.compress(data, method)
    if method == "auto" and not floor.model_worthwhile(data):
        return floor.compress(data)
    archive = _compress_learned(data, model, preset_name or "", batch, torch_device, threads,
                                seed, progress)
    if method == "auto" and len(archive) >= len(data) + COMPACT_OVERHEAD:
        return min(archive, floor.compress(data), key=len)
    return archive


def _compress_floats(data: bytes, source: str, segments: list, mode: str, codec: str,
                     settings: dict) -> bytes:
    """A "floats" archive; strong mode nests an archive of the byte planes
    made with `settings` (the caller's model settings, method auto)."""
    if mode == "fast":
        segments, payload = floats.encode_fast(data, segments, codec,
                                               resolve_device(settings["device"]))
    else:
        payload = compress(floats.to_planes(data, segments), method="auto", dtype="none",
                           **settings)
    return pack_floats(mode, source, tuple(segments), data, payload)


def _compress_learned(data: bytes, model: ModelConfig, preset_name: str, batch: int,
                      torch_device: torch.device, threads: int, seed: int,
                      progress: Progress | None) -> bytes:
    length = len(data)
    header = Header(
        original_size=length, original_sha256=sha256(data), batch_size=batch, seed=seed,
        model=model, threads=threads, device_kind=torch_device.type,
        device_name=device_name(torch_device), torch_version=torch.__version__,
        cpu_capability=torch.backends.cpu.get_cpu_capability(), fade_version=__version__,
        preset=preset_name,
    )
    encoder = Encoder()
    if length:
        layout = Layout(length, batch)
        symbols_by_step = np.frombuffer(data, dtype=np.uint8)
        starts = layout.starts

        def encode_step(step: int, probs: np.ndarray) -> np.ndarray:
            symbols = symbols_by_step[starts[:len(probs)] + step]
            encoder.encode(symbols, probs)
            return symbols

        with deterministic(threads):
            _run(layout, model, seed, torch_device, encode_step, progress)
    return pack(header, encoder.finish())


def read_header(archive: bytes) -> Header | CompactHeader | FloatHeader:
    """Parse and check an archive's header (and a learned one's payload checksum)."""
    return unpack(archive)[0]


def model_header(archive: bytes) -> Header | None:
    """The learned header that decoding `archive` runs the model with: its
    own, or a strong floats archive's nested one; None if no model runs."""
    header, payload = unpack(archive)
    if isinstance(header, FloatHeader) and header.mode == "strong":
        header = _unpack_nested(payload)[0]
    return header if isinstance(header, Header) else None


def _unpack_nested(payload: bytes) -> tuple[Header | CompactHeader, bytes]:
    """unpack() of a strong floats archive's nested archive, which is never
    another floats archive (so damage cannot make decoding recurse)."""
    header, nested_payload = unpack(payload)
    if isinstance(header, FloatHeader):
        raise CorruptArchiveError("a floats archive nests another floats archive")
    return header, nested_payload


def decode_device(header: Header | CompactHeader | FloatHeader,
                  device: str = "auto") -> torch.device:
    """The device to decode on: by default the archive's kind, where present;
    the CPU for an archive that runs no model."""
    if not isinstance(header, Header):
        return resolve_device("cpu")
    if device == "auto":
        device = header.device_kind if header.device_kind != "cuda" or torch.cuda.is_available() \
            else "cpu"
    return resolve_device(device)


def decompress(archive: bytes, *, device: str = "auto",
               progress: Progress | None = None) -> bytes:
    """Decode an archive made by `compress`, verified against its SHA-256
    (a compact or floats archive: against its length and CRC-32)."""
    return _decode(*unpack(archive), device, progress)


def _decode(header: Header | CompactHeader | FloatHeader, payload: bytes, device: str,
            progress: Progress | None) -> bytes:
    """Decode an unpacked archive: its header and payload."""
    if isinstance(header, CompactHeader):
        return floor.decompress(header, payload)
    if isinstance(header, FloatHeader):
        return _decompress_floats(header, payload, device, progress)
    return _decompress_learned(header, payload, device, progress)


def _decompress_learned(header: Header, payload: bytes, device: str,
                        progress: Progress | None) -> bytes:
    torch_device = decode_device(header, device)
    decoder = Decoder(payload)
    out = np.zeros(header.original_size, dtype=np.uint8)
    if header.original_size:
        layout = Layout(header.original_size, header.batch_size)
        starts = layout.starts

        def decode_step(step: int, probs: np.ndarray) -> np.ndarray:
            symbols = decoder.decode(probs)
            out[starts[:len(probs)] + step] = symbols
            return symbols

        with deterministic(header.threads):
            _run(layout, header.model, header.seed, torch_device, decode_step, progress)
    data = out.tobytes()
    if sha256(data) != header.original_sha256:
        differences = environment_differences(header, torch_device)
        cause = ("this machine computes different probabilities than the encoding one: "
                 + "; ".join(differences)) if differences else \
            "the archive is damaged, or this build of torch is not deterministic here"
        raise ChecksumMismatchError(f"decoded data fails the SHA-256 check; likely cause: {cause}")
    return data


def _decompress_floats(header: FloatHeader, payload: bytes, device: str,
                       progress: Progress | None) -> bytes:
    if header.mode == "fast":  # on the CPU unless a GPU is asked for
        data = floats.decode_fast(header.segments, payload,
                                  None if device == "auto" else resolve_device(device))
    else:
        planes = _decode(*_unpack_nested(payload), device, progress)
        data = floats.from_planes(planes, header.segments)
    if len(data) != header.original_size or zlib.crc32(data) != header.original_crc32:
        raise ChecksumMismatchError("decoded data fails its CRC-32 (the archive is damaged)")
    return data

