"""The version of fade: recorded in every learned archive it writes (informational)."""

__version__ = "0.14.0"
