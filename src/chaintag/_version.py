"""The package version, kept apart so that every layer may read it."""

__version__ = "0.1.0"
