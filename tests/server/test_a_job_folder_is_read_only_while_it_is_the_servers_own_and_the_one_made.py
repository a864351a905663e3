"""A folder the server reads a job's pickle (or a stored run) from must be its user's alone and the very folder it
made: a replaced folder (another inode), one open to group or other, a symbolic link, a file of another user, a
link or a FIFO in place of a file are refused with a message naming the folder and what to fix.

Review r41 R41-1/R41-9 (HIGH): in a group-shared ``job_dir`` (``2775``) a member renamed the server's 0700 job
folder, made one of their own under its name holding ``<slurm id>_0_result.pkl``, and the server unpickled it (code
run as the server's user). These are the checks themselves, with real files; the Slurm and Sim2L tests run them
through a server (tests/hpc/test_a_replaced_slurm_job_folder_is_never_read.py, tests/sim2l/
test_a_stored_run_in_a_folder_not_the_servers_own_is_refused.py).
"""

from __future__ import annotations

import logging
import os
import pickle
from pathlib import Path

import pytest

from nanohubmcp.errors import ToolError
from nanohubmcp.server.wire.owned_folders import check_folder, folder_key, read_owned, warn_shared

pytestmark = [pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")]


def made(tmp_path: Path) -> Path:
    folder = tmp_path / "job"
    folder.mkdir(mode=0o700)
    (folder / "1_0_result.pkl").write_bytes(pickle.dumps(("success", 42)))
    return folder


def test_the_folder_made_is_read(tmp_path: Path) -> None:
    folder = made(tmp_path)
    key = folder_key(folder)
    assert check_folder(folder, key) == key
    assert pickle.loads(read_owned(folder, "1_0_result.pkl", key) or b"") == ("success", 42)
    assert read_owned(folder, "2_0_result.pkl", key) is None  # not written yet


def test_a_renamed_and_replaced_folder_is_refused(tmp_path: Path) -> None:
    folder = made(tmp_path)
    key = folder_key(folder)
    folder.rename(tmp_path / "job.old")  # what a group member of a 2775 job_dir may do
    folder.mkdir(mode=0o700)
    (folder / "1_0_result.pkl").write_bytes(pickle.dumps(("success", "planted")))
    for look in (lambda: check_folder(folder, key), lambda: read_owned(folder, "1_0_result.pkl", key)):
        with pytest.raises(ToolError, match=rf"folder {folder} was replaced .*sticky bit"):
            look()


def test_a_folder_open_to_the_group_is_refused(tmp_path: Path) -> None:
    folder = made(tmp_path)
    os.chmod(folder, 0o2770)
    with pytest.raises(ToolError, match=rf"open to group or other \(mode 2770\).*chmod go-rwx {folder}"):
        read_owned(folder, "1_0_result.pkl", folder_key(folder))


def test_a_symbolic_link_for_the_folder_or_the_file_is_not_followed(tmp_path: Path) -> None:
    folder = made(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(folder)
    with pytest.raises(ToolError, match="is a symbolic link"):
        check_folder(link)
    with pytest.raises(ToolError, match="is a symbolic link"):
        read_owned(link, "1_0_result.pkl")
    (folder / "2_0_result.pkl").symlink_to(folder / "1_0_result.pkl")
    with pytest.raises(ToolError, match=r"2_0_result\.pkl cannot be opened"):
        read_owned(folder, "2_0_result.pkl")


def test_a_fifo_in_place_of_the_file_is_refused_at_once(tmp_path: Path) -> None:
    folder = made(tmp_path)
    os.mkfifo(folder / "2_0_result.pkl")
    with pytest.raises(ToolError, match="is not a regular file"):
        read_owned(folder, "2_0_result.pkl")


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make files of another uid (the CI runs as root)")
def test_a_folder_or_file_of_another_user_is_refused(tmp_path: Path) -> None:
    folder = made(tmp_path)
    os.chown(folder / "1_0_result.pkl", 65534, 65534)
    with pytest.raises(ToolError, match=r"1_0_result.pkl is owned by uid 65534, not by the server's user"):
        read_owned(folder, "1_0_result.pkl")
    os.chown(folder, 65534, 65534)
    with pytest.raises(ToolError, match=rf"folder {folder} is owned by uid 65534.*another user made or replaced it"):
        check_folder(folder)


def test_a_root_others_may_write_to_without_the_sticky_bit_is_warned_of_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shared, sticky = tmp_path / "project", tmp_path / "sticky"
    shared.mkdir()
    sticky.mkdir()
    os.chmod(shared, 0o2775)
    os.chmod(sticky, 0o3770)
    with caplog.at_level(logging.WARNING, logger="nanohubmcp.server"):
        assert warn_shared(shared, "slurm job_dir")
        assert warn_shared(shared, "slurm job_dir")
        assert not warn_shared(sticky, "slurm job_dir")
        assert not warn_shared(tmp_path / "missing", "slurm job_dir")
    warned = [r.getMessage() for r in caplog.records]
    assert len(warned) == 1, warned
    assert f"slurm job_dir {shared} (mode 2775) is writable by group or other without the sticky bit" in warned[0]
    assert "chmod +t" in warned[0]
