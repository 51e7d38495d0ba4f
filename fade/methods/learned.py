"""Method fade: the learned model's archives (the network, or the hybrid).

A header that holds every parameter the decoder needs, sealed by its CRC-32
(its fixed part, strings and group table; `header_size` long), then the
coders' payloads, one per group (`payload_size` in all): where it ends is
in the header, so reading one decodes nothing. Decoding replays the
network's lockstep (fade.lockstep) on the device the header allows, and
checks the SHA-256 of what comes out.
"""

from __future__ import annotations

from fade import lockstep
from fade import profile as profiles
from fade.codings import coding_for
from fade.config import LEVELS
from fade.device import decode_device, failure_cause
from fade.errors import ChecksumMismatchError, CorruptArchiveError
from fade.format.binary import U32, U64, layout, sealed
from fade.format.headers import READABLE_VERSIONS, Header, sha256
from fade.format.legacy import fixed_fields
from fade.lockstep import Layout
from fade.statistics.choice import model_level


def _offset(fields: list[tuple[str, str]], name: str) -> int:
    names = [field for field, _ in fields]
    return layout(fields[:names.index(name)]).size


# The fixed part of a learned header in each version: its size, and where
# the header's and the payload's sizes are in it.
_FIXED = {version: (layout(fixed_fields(version)).size,
                    _offset(fixed_fields(version), "header_size"),
                    _offset(fixed_fields(version), "payload_size"))
          for version in READABLE_VERSIONS}


def read(source, prefix: bytes, version: int, method: str, reading) -> tuple[bytes, None]:
    """A learned archive: its header (checked before its sizes are trusted),
    then its payload (fade.methods.Method.read)."""
    fixed, header_at, payload_at = _FIXED[version]
    head = prefix + source.read(fixed - len(prefix))
    if len(head) < fixed:
        return head, None
    (header_size,) = U32.unpack_from(head, header_at)
    (payload_size,) = U64.unpack_from(head, payload_at)
    head += source.read(max(header_size - len(head), 0))
    if header_size < fixed + U32.size or len(head) < header_size or \
            not sealed(head, header_size - U32.size):
        return head, None  # unpack reports the damage
    return head + source.read(payload_size), None


def decode(header: Header, payload: bytes, decoding) -> bytes:
    torch_device = decode_device(header, decoding.device)
    data = b""
    if header.original_size:
        bounds = [0]
        for size in header.group_payload_sizes:
            bounds.append(bounds[-1] + size)
        payloads = [payload[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        try:
            data = lockstep.decode(
                payloads, Layout(header.original_size, header.batch_size, header.groups),
                header.model, header.seed, torch_device, header.threads,
                header.profile == profiles.PORTABLE, coding_for(header.statistics),
                decoding.coder_threads, decoding.progress, decoding.timings)
        except CorruptArchiveError as error:
            # Every CRC held, so where the encoding machine differs from
            # this one the likelier cause is other probabilities.
            cause = failure_cause(header, torch_device)
            if cause is None:
                raise
            raise ChecksumMismatchError(f"decoding failed ({error}); likely cause: {cause}"
                                        ) from None
    if sha256(data) != header.original_sha256:
        cause = failure_cause(header, torch_device) or (
            "the archive is damaged, or this build of torch is not deterministic here"
            if header.profile != profiles.PORTABLE else
            "the archive is damaged in a way its CRC-32s missed, or a bug in fade: a portable "
            "archive replays on any machine that passed the profile check (please report it)")
        raise ChecksumMismatchError(f"decoded data fails the SHA-256 check; likely cause: {cause}")
    return data


def listing(header: Header) -> str:
    """The level whose network and statistics model the header names, else
    the coding and preset."""
    if header.statistics is None:
        return f"network/{header.preset or 'custom'}"
    level = model_level(header.statistics.model)
    if level and LEVELS[level].preset == header.preset:
        return f"{level}/hybrid"
    return f"hybrid/{header.preset or 'custom'}"
