"""The state of a folder's disk, for errors about writes that failed (a full disk, a quota)."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

__all__ = ["disk_space", "is_no_space"]


def disk_space(folder: str | os.PathLike[str]) -> str:
    """A sentence on the disk of ``folder``: its mount point, free and total space."""
    where = Path(folder).resolve()
    while not where.exists() and where != where.parent:
        where = where.parent
    mount = where
    while not os.path.ismount(mount) and mount != mount.parent:
        mount = mount.parent
    try:
        usage = shutil.disk_usage(where)
    except OSError as err:
        return f"the free space of the disk of {folder} is unknown ({err.strerror})"
    return (f"the disk of {folder} (mounted at {mount}) has {_bytes(usage.free)} free of "
            f"{_bytes(usage.total)}")


def _bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover - the loop always returns


def is_no_space(err: BaseException) -> bool:
    """Whether ``err`` reports a full disk (or quota), as an `OSError` or in torch's words."""
    return (isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)) or \
        "No space left" in str(err)
