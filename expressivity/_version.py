"""The installed version of expressivity (a leaf module: anything may import it)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("expressivity")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+local"
