"""Which directories' locks a sweep trusts across hosts (:func:`nanohubmcp.sources.lock_reach.locks_reach_hosts`).

A file system of one kernel (ext4, tmpfs, a container's overlay) and NFS with its lock manager: yes. NFS mounted
``nolock`` (``local_lock=flock``/``all``), where each client's locks are its own, and file systems not known to
share their locks (FUSE, CIFS, Lustre): no. The file system is the one at the longest mount point holding the
directory, the later of two at one point (mounted on top). Tables in ``/proc/self/mountinfo``'s format (no NFS
mount can be made here), and this machine's own table for ``/proc`` and ``/dev/shm``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.sources.lock_reach import locks_reach_hosts


def _table(root: Path) -> str:
    r = str(root)
    return "\n".join(
        [
            "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro",
            f"30 22 0:40 / {r}/home rw,relatime shared:5 - nfs fs:/home rw,vers=3,hard,proto=tcp,local_lock=none",
            f"31 22 0:41 / {r}/nolock rw,relatime shared:6 - nfs fs:/scratch rw,vers=3,nolock,local_lock=all",
            f"32 22 0:42 / {r}/flocal rw,relatime - nfs4 fs:/p rw,vers=4.2,local_lock=flock",
            f"33 22 0:43 / {r}/v4 rw,relatime - nfs4 fs:/q rw,vers=4.2,hard,local_lock=none",
            f"34 22 0:44 / {r}/sshfs rw,nosuid - fuse.sshfs me@host:/ rw,user_id=1000",
            f"35 30 0:45 / {r}/home/user/lustre rw - lustre 10.0.0.1@tcp:/fs rw,localflock",
            f"36 22 0:46 / {r}/with\\040space rw - tmpfs tmpfs rw",
            f"37 22 0:47 / {r}/stacked rw - tmpfs tmpfs rw",
            f"38 22 0:48 / {r}/stacked rw - cifs //srv/share rw",
            "garbage line",
        ]
    )


@pytest.mark.parametrize(
    ("where", "reach"),
    [
        ("", True),  # the root's ext4
        ("home/user/results", True),  # NFS with its lock manager
        ("home", True),
        ("homework", True),  # not under /home: the root's
        ("nolock/results", False),
        ("flocal", False),
        ("v4/results", True),
        ("sshfs/x", False),
        ("home/user/lustre/x", False),  # the longest mount point holding it
        ("with space/x", True),
        ("stacked/x", False),  # the later mount at one point is the one seen
    ],
)
def test_a_directorys_file_system_and_options_decide(tmp_path: Path, where: str, reach: bool) -> None:
    root = tmp_path.resolve()
    assert locks_reach_hosts(root / where, mountinfo=_table(root)) is reach


def test_no_table_or_no_mount_holding_it_cannot_tell(tmp_path: Path) -> None:
    assert locks_reach_hosts(tmp_path, mountinfo="") is False
    assert locks_reach_hosts(tmp_path, mountinfo="22 1 8:1 / /nowhere-else rw - ext4 /dev/sda1 rw") is False


@pytest.mark.skipif(not Path("/proc/self/mountinfo").exists(), reason="Linux's mount table")
def test_this_machines_table() -> None:
    assert locks_reach_hosts("/proc") is False  # proc: not a file system one knows to share locks
    table = Path("/proc/self/mountinfo").read_text()
    if " /dev/shm " in table and " - tmpfs " in next(line for line in table.splitlines() if " /dev/shm " in line):
        assert locks_reach_hosts("/dev/shm") is True
