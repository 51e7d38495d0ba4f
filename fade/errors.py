"""Errors a user can cause. The CLI turns each into one line and an exit code."""


class FadeError(Exception):
    """A problem with the user's input or request, reported without a traceback."""


class FormatError(FadeError):
    """The input is not a fade archive, or one this version cannot read."""


class CorruptArchiveError(FadeError):
    """The archive is damaged: truncated, a flipped byte, a bad checksum."""


class ChecksumMismatchError(CorruptArchiveError):
    """The decoded bytes do not match the checksum stored in the archive."""


class ProfileMismatchError(FadeError):
    """This machine cannot replay the archive's numeric profile (fade.profile)."""


class ReplayEnvironmentError(FadeError):
    """This machine can replay the archive, but only in a process started with
    other numeric settings: `environment` (the fade command starts one)."""

    def __init__(self, message: str, environment: dict[str, str]):
        super().__init__(message)
        self.environment = environment
