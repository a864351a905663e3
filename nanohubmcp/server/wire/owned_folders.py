"""Trusting a folder on a shared filesystem: it is this process's user's, no one else's, and still the one made.

A batch job's folder (``<job_dir>/<job id>/``) and a stored Sim2L run (``<results_dir>/<name>/...``) can sit in a
folder a group shares (a project space, ``chmod 2775``). A member of that group cannot open the server's owner-only
folders, but without the sticky bit on their parent they can *rename* one (a rename needs write access to the
parent only) and make a folder of their own under its name, holding a pickle or a stored run of their choosing. So
before the server reads what such a folder holds, it checks the folder as it is now:

- :func:`check_folder`: a folder (``lstat``: a symbolic link is refused, never followed), owned by this process's
  effective uid, granting nothing to group or other (``mode & 0o077 == 0``), and, when the identity recorded when
  it was made is given (:func:`folder_key`: its device and inode), that very folder — a renamed-and-replaced
  folder has another inode;
- :func:`read_owned`: a file of such a folder read through the folder's descriptor (``dir_fd``, ``O_NOFOLLOW``),
  so the check and the read are of the same folder, the file a regular one owned by this uid.

Anything else is a :class:`~nanohubmcp.errors.ToolError` naming the folder and what to fix. :func:`warn_shared`
logs once per folder (at a server's start) when a root is writable by group or other without the sticky bit
(``S_ISVTX``): in such a root the checks stop the server reading a planted file, but a job on a compute node may
still read one (submitit unpickles ``<slurm id>_submitted.pkl`` by path); with the sticky bit only a folder's
owner (or the root's owner) may rename or remove it (``rename(2)``, ``EPERM``).
"""

from __future__ import annotations

import logging
import os
import stat

from ...errors import ToolError

__all__ = ["FolderKey", "check_folder", "folder_key", "read_owned", "warn_shared"]

log = logging.getLogger("nanohubmcp.server")

FolderKey = tuple[int, int]
"""A folder's identity: ``(st_dev, st_ino)``."""

_warned: set[str] = set()


def folder_key(folder: str | os.PathLike[str]) -> FolderKey:
    """The identity of ``folder`` (not following a link), to give :func:`check_folder` later.

    Raises:
        OSError: it cannot be looked at.
    """
    found = os.lstat(folder)
    return found.st_dev, found.st_ino


def check_folder(folder: str | os.PathLike[str], recorded: FolderKey | None = None) -> FolderKey:
    """Check that ``folder`` may be trusted (the module docstring); returns its identity.

    Args:
        folder: the folder's path.
        recorded: its identity when it was made (:func:`folder_key`), or None (not recorded: an earlier version's).

    Raises:
        ToolError: it is missing, a link or not a folder, another user's, open to group or other, or not the folder
            recorded ("job folder /p/x was replaced (another folder is at its path now) ...").
    """
    try:
        found = os.lstat(folder)
    except OSError as exc:
        raise ToolError(f"folder {os.fspath(folder)} cannot be looked at ({exc.strerror})") from None
    return _checked(os.fspath(folder), found, recorded)


def read_owned(folder: str | os.PathLike[str], name: str, recorded: FolderKey | None = None) -> bytes | None:
    """The bytes of the file ``name`` in ``folder`` (None when it is not there), read only when the folder passes
    :func:`check_folder` and the file is a regular file (not a link, not a FIFO) owned by this process's uid.

    Raises:
        ToolError: the folder or the file fails a check (what is wrong, and the path).
    """
    where = os.fspath(folder)
    try:
        directory = os.open(where, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        if os.path.islink(where):
            raise ToolError(f"folder {where} is a symbolic link; the server reads only its own folders") from None
        raise ToolError(f"folder {where} cannot be opened ({exc.strerror})") from None
    try:
        _checked(where, os.fstat(directory), recorded)
        try:
            handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ToolError(f"file {os.path.join(where, name)} cannot be opened ({exc.strerror}); the server "
                            f"reads only regular files of its own there") from None
        with open(handle, "rb") as source:
            found = os.fstat(source.fileno())
            path = os.path.join(where, name)
            if not stat.S_ISREG(found.st_mode):
                raise ToolError(f"{path} is not a regular file; the server reads only its own files there")
            if found.st_uid != os.geteuid():
                raise ToolError(f"{path} is owned by uid {found.st_uid}, not by the server's user "
                                f"(uid {os.geteuid()}); it was not written by the server's job: not read")
            return source.read()
    finally:
        os.close(directory)


def warn_shared(root: str | os.PathLike[str], what: str) -> bool:
    """Log a warning (once per folder and process) when ``root`` exists and group or other may write to it without
    the sticky bit; returns whether it is so. ``what`` names the option (``"slurm job_dir"``)."""
    where = os.path.abspath(os.fspath(root))
    try:
        mode = os.stat(where).st_mode
    except OSError:
        return False
    if not mode & 0o022 or mode & stat.S_ISVTX:
        return False
    if where not in _warned:
        _warned.add(where)
        log.warning(
            "%s %s (mode %o) is writable by group or other without the sticky bit: a user who may write there can "
            "rename the server's folders and put their own in their place (the server refuses to read those, "
            "but a job may fail); set the sticky bit: chmod +t %s (a project space: chmod 3770)",
            what, where, stat.S_IMODE(mode), where,
        )
    return True


def _checked(where: str, found: os.stat_result, recorded: FolderKey | None) -> FolderKey:
    if stat.S_ISLNK(found.st_mode):
        raise ToolError(f"folder {where} is a symbolic link; the server reads only its own folders")
    if not stat.S_ISDIR(found.st_mode):
        raise ToolError(f"{where} is not a folder")
    if found.st_uid != os.geteuid():
        raise ToolError(
            f"folder {where} is owned by uid {found.st_uid}, not by the server's user (uid {os.geteuid()}): "
            f"another user made or replaced it; nothing in it is read. Set the sticky bit on its parent "
            f"(chmod +t) so others cannot rename the server's folders"
        )
    if found.st_mode & 0o077:
        raise ToolError(
            f"folder {where} is open to group or other (mode {stat.S_IMODE(found.st_mode):o}); the server reads "
            f"only from folders of its user alone: chmod go-rwx {where}"
        )
    key = (found.st_dev, found.st_ino)
    if recorded is not None and tuple(recorded) != key:
        raise ToolError(
            f"folder {where} was replaced (another folder is at its path now, not the one the server made); "
            f"nothing in it is read. Set the sticky bit on its parent (chmod +t) so others cannot rename it"
        )
    return key
