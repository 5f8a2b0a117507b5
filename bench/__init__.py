"""The bench's core: clause catalogue, equipment profiles, evidence journal, command line, run orchestration."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("srij-bench")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"
