"""Whether a lock taken in a directory is seen by every host that sees the directory (Linux): what lets a
sweep of run folders (:mod:`.run_folders`) judge another host's folder by its lock alone.

A free lock says its holder ended only where every process that could hold it takes its locks through the same
place. So it is on a file system of one kernel (a local disk, ``tmpfs``, a container's ``overlay``): whoever sees
it — containers of other host names included — locks in that kernel. So it is on NFS with its lock manager
(``lockd``, NFSv4's own locks): the client sends ``flock`` to the server as a whole-file record lock. It is not
on NFS mounted ``nolock`` (or ``local_lock=flock``/``all``), where each client's locks are its own — another
host's held lock looks free here — nor, as far as this module knows, on other shared file systems (Lustre's
``localflock``, BeeGFS without global locks, FUSE, CIFS): those answer False, as does any system without
``/proc/self/mountinfo``. The file system is the one mounted at the longest mount point that holds the
directory's real path (``/proc/self/mountinfo``, read at each call: a sweep asks once).
"""

from __future__ import annotations

import os
import re

__all__ = ["ONE_KERNEL_FILE_SYSTEMS", "locks_reach_hosts"]

ONE_KERNEL_FILE_SYSTEMS = frozenset(
    {
        "bcachefs", "btrfs", "exfat", "ext2", "ext3", "ext4", "f2fs", "hfsplus", "jfs", "msdos", "nilfs2", "ntfs",
        "ntfs3", "overlay", "ramfs", "reiserfs", "tmpfs", "vfat", "xfs", "zfs",
    }
)  # fmt: skip
"""File systems whose locks one kernel keeps, for every process that sees them (Linux's names)."""

_NFS = frozenset({"nfs", "nfs4"})
_LOCAL_LOCKS = frozenset({"nolock", "local_lock=flock", "local_lock=all"})  # flock kept by each client
_ESCAPE = re.compile(r"\\([0-7]{3})")


def locks_reach_hosts(directory: str | os.PathLike[str], *, mountinfo: str | None = None) -> bool:
    """Whether a ``flock`` taken in ``directory`` is seen by every host (and container) that sees it: its file
    system is one kernel's, or NFS with its lock manager. False when it cannot tell (no such table, a file
    system not known to share its locks).

    ``mountinfo``: the table to read (the text of ``/proc/self/mountinfo``, the default); given by tests only.
    """
    if mountinfo is None:
        try:
            with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as table:
                mountinfo = table.read()
        except OSError:
            return False
    path = os.path.realpath(directory)
    best: tuple[int, str, set[str]] | None = None  # (length of its mount point, file system, options)
    for line in mountinfo.splitlines():
        mount = _parse(line)
        if mount is None:
            continue
        point, kind, options = mount
        within = path == point or path.startswith(point.rstrip("/") + "/")
        if within and (best is None or len(point) >= best[0]):  # the later of two at one point is on top
            best = (len(point), kind, options)
    if best is None:
        return False
    _, kind, options = best
    if kind in _NFS:
        return not (options & _LOCAL_LOCKS)
    return kind in ONE_KERNEL_FILE_SYSTEMS


def _parse(line: str) -> tuple[str, str, set[str]] | None:
    """A mountinfo line's mount point, file system type and options (the mount's and the file system's); None
    for a line not of that shape."""
    fields = line.split(" ")
    try:
        end = fields.index("-", 6)  # after the optional fields
        point, kind = fields[4], fields[end + 1]
    except (ValueError, IndexError):
        return None
    options = set(fields[5].split(","))
    if len(fields) > end + 3:
        options |= set(fields[end + 3].split(","))
    return _ESCAPE.sub(lambda m: chr(int(m[1], 8)), point), kind, options
