"""The files through which a kernel and the Jupyter server extension find each other are read strictly:
a stale marker (its process gone), another format version, a mismatched port or an oversized file
counts as absent, and a registration is removed only by the kernel that wrote it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nanohubmcp.jupyter.serverext import registry


def test_a_marker_counts_only_while_its_server_process_lives(tmp_path: Path) -> None:
    me = os.getpid()
    registry.write_json(registry.marker_path(tmp_path, me), {"version": 1, "pid": me, "base_url": "/"})
    assert registry.read_marker(tmp_path, me) == {"version": 1, "pid": me, "base_url": "/"}
    assert oct(registry.marker_path(tmp_path, me).stat().st_mode & 0o777) == "0o600"

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    dead = int(gone.stdout)
    registry.write_json(registry.marker_path(tmp_path, dead), {"version": 1, "pid": dead, "base_url": "/"})
    assert registry.read_marker(tmp_path, dead) is None


def test_another_version_a_wrong_port_or_an_oversized_file_is_no_registration(tmp_path: Path) -> None:
    registry.write_json(registry.port_path(tmp_path, 8001), {"version": 2, "port": 8001, "kernel_id": "k"})
    registry.write_json(registry.port_path(tmp_path, 8002), {"version": 1, "port": 9999, "kernel_id": "k"})
    registry.port_path(tmp_path, 8003).write_text('{"version": 1, "port": 8003, "kernel_id": "' + "k" * 5000 + '"}')
    registry.port_path(tmp_path, 8004).write_text("not json")
    for port in (8001, 8002, 8003, 8004, 8005):
        assert registry.read_port(tmp_path, port) is None, port
    registry.write_json(registry.port_path(tmp_path, 8006), {"version": 1, "port": 8006, "kernel_id": "k"})
    assert registry.read_port(tmp_path, 8006) == {"version": 1, "port": 8006, "kernel_id": "k"}


def test_a_registration_is_removed_only_by_the_kernel_that_holds_it(tmp_path: Path) -> None:
    path = registry.port_path(tmp_path, 8000)
    registry.write_json(path, {"version": 1, "port": 8000, "kernel_id": "new-kernel"})
    registry.remove_if_owned(path, "kernel_id", "old-kernel")
    assert path.exists()
    registry.remove_if_owned(path, "kernel_id", "new-kernel")
    assert not path.exists()


def test_the_kernel_id_comes_from_a_jupyter_server_connection_file_name() -> None:
    assert registry.kernel_id_of("/run/kernel-474c61df-1944-4088-b345-b11b4d0d186e.json") == (
        "474c61df-1944-4088-b345-b11b4d0d186e"
    )
    assert registry.kernel_id_of("/tmp/tmpabc.json") is None
