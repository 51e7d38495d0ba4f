"""The top16 codec (and the BF16 split) in torch, for a GPU.

The same bytes as the numpy path (`codecs.encode_top16` after
`layout.split`), computed on any torch device: the tensor never leaves the
device until its coded streams are copied to the host. The calibration
sample uses the very indices the numpy path draws, and the codebook the same
stable sort, so the archive does not depend on where it was made; decoding
is likewise exact on either path. Tests run it on the CPU against numpy.
"""

from __future__ import annotations

from fade.lazy import numpy as np, torch

from fade.floats.codecs import SAMPLE, SPARSE_BLOCK, TOP
from fade.floats.layout import FloatType


def _sample_indices(count: int) -> np.ndarray | None:
    """codecs._sample's indices (None: every value)."""
    if count <= SAMPLE:
        return None
    return np.random.default_rng(0).integers(0, count, SAMPLE)


def split(words: torch.Tensor, ftype: FloatType) -> tuple[torch.Tensor, torch.Tensor]:
    """(exponents, sign+mantissa) of BF16 `words` (int32 holding the 16-bit patterns)."""
    if ftype.name != "bf16":
        raise ValueError("the device path handles bf16 only")
    exponents = (words >> 7) & 0xFF
    rest = ((words >> 8) & 0x80) | (words & 0x7F)
    return exponents, rest


def encode_top16(words: torch.Tensor, ftype: FloatType) -> tuple[bytes, bytes]:
    """(exponent stream, sign/mantissa bytes) of BF16 `words` on their device."""
    exponents, rest = split(words, ftype)
    count = exponents.numel()
    picks = _sample_indices(count)
    sample = exponents if picks is None else exponents[torch.from_numpy(picks).to(words.device)]
    counts = torch.bincount(sample, minlength=ftype.alphabet)
    book = torch.sort(torch.argsort(-counts, stable=True)[:TOP]).values  # as codecs.top16_book
    lut = torch.full((ftype.alphabet,), TOP, dtype=torch.int32, device=words.device)
    lut[book] = torch.arange(TOP, dtype=torch.int32, device=words.device)
    codes = lut[exponents]
    escaped = torch.nonzero(codes == TOP).flatten()
    codes[escaped] = 0
    if count % 2:
        codes = torch.cat((codes, codes.new_zeros(1)))
    pairs = codes.view(-1, 2)
    nibbles = (pairs[:, 0] << 4) | pairs[:, 1]
    blocks = -(-count // SPARSE_BLOCK)
    block_of = escaped // SPARSE_BLOCK
    per_block = torch.bincount(block_of, minlength=blocks)
    offsets = escaped - block_of * SPARSE_BLOCK
    parts = [book, per_block, offsets, exponents[escaped], nibbles]
    stream = b"".join(part.to(torch.uint8).cpu().numpy().tobytes() for part in parts)
    return stream, rest.to(torch.uint8).cpu().numpy().tobytes()


def decode_top16(stream: bytes, rest: bytes, count: int, ftype: FloatType,
                 device: torch.device) -> np.ndarray:
    """BF16 words (uint16, on the host) from encode_top16's two outputs."""
    raw = np.frombuffer(stream, np.uint8)
    blocks = -(-count // SPARSE_BLOCK)
    book = torch.from_numpy(raw[:TOP].astype(np.int32)).to(device)
    per_block = raw[TOP:TOP + blocks].astype(np.int64)
    total = int(per_block.sum())
    at = TOP + blocks
    offsets, values = raw[at:at + total], raw[at + total:at + 2 * total]
    nibbles = raw[at + 2 * total:]
    if len(rest) != count or nibbles.size != -(-count // 2) or int(book.max()) >= ftype.alphabet:
        raise ValueError("top16 stream has the wrong length")
    packed = torch.from_numpy(nibbles.astype(np.int32)).to(device)
    codes = torch.stack((packed >> 4, packed & 15), dim=1).flatten()[:count]
    exponents = book[codes]
    positions = (np.repeat(np.arange(blocks, dtype=np.int64) * SPARSE_BLOCK, per_block)
                 + offsets)
    if total and int(positions.max()) >= count:
        raise ValueError("escape position out of range")
    exponents[torch.from_numpy(positions).to(device)] = torch.from_numpy(
        values.astype(np.int32)).to(device)
    tail = torch.from_numpy(np.frombuffer(rest, np.uint8).astype(np.int32)).to(device)
    words = ((tail & 0x80) << 8) | (exponents << 7) | (tail & 0x7F)
    return words.cpu().numpy().astype(np.uint16)
