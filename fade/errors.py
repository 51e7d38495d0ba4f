"""Errors a user can cause. The CLI turns each into one line and an exit code."""


class FadeError(Exception):
    """A problem with the user's input or request, reported without a traceback."""


class FormatError(FadeError):
    """The input is not a fade archive, or one this version cannot read."""


class CorruptArchiveError(FadeError):
    """The archive is damaged: truncated, a flipped byte, a bad checksum."""


class ChecksumMismatchError(CorruptArchiveError):
    """The decoded bytes do not match the checksum stored in the archive."""
