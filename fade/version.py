"""The version of fade: recorded in every learned archive it writes (informational)."""

__version__ = "0.15.0.dev0"
