"""The testing clients (``nanohubmcp/testing``) start and stop the server's core through the in-memory transport
(``transports/memory.MemoryPeer``), as architecture.md says, never by themselves.

Review r43 (R43-4) and r44: ``testing/sync.py`` detached and closed the core itself when its background loop ended
(``core.detach()``, ``core.job_service.loop_ending``, ``core.close()``, typed ``ServerCore``), and
``testing/client.py`` handed its jobs over through ``core.job_service``. An ``ast`` scan: no module of ``testing/``
names ``ServerCore``, reads the core's lifecycle members (``attach``, ``detach``, ``close_store``,
``close_streams``, ``shutdown``), the job service or its ``loop_ending``, or a core's ``close``/``loop``.
(``testing/scratch`` gives a server a temporary state directory, ``core.use_state_dir``: where its state lives, no
step of its serving.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import nanohubmcp

TESTING = Path(nanohubmcp.__file__).parent / "testing"
LIFECYCLE = {"attach", "detach", "close_store", "close_streams", "shutdown", "job_service", "loop_ending"}
"""Members of the core (and its job service) that start, stop or settle its serving."""
ON_A_CORE = {"close", "loop"}
"""Members read on something named ``core`` that are its lifecycle too (``core.close()``, ``core.loop``)."""


def _reached(source: str) -> list[str]:
    """Where ``source`` drives a core itself, as ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            on_core = (isinstance(node.value, ast.Name) and node.value.id == "core") or (
                isinstance(node.value, ast.Attribute) and node.value.attr == "core")
            if node.attr in LIFECYCLE or (on_core and node.attr in ON_A_CORE):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Name) and node.id == "ServerCore":
            found.append(f"{node.lineno}: ServerCore")
        elif isinstance(node, ast.alias) and node.name == "ServerCore":
            found.append("import ServerCore")
    return found


def test_no_testing_client_drives_the_core_itself() -> None:
    reached = {path.name: found for path in sorted(TESTING.glob("*.py"))
               if (found := _reached(path.read_text(encoding="utf-8")))}
    assert not reached, f"testing modules driving the core past transports/memory: {reached}"


def test_the_scan_finds_what_the_blocking_client_did() -> None:
    source = ("from ..server.core import ServerCore\n"
              "def end(core: ServerCore, loop):\n"
              "    if core.loop is loop:\n        core.detach()\n        core.close()\n"
              "    core.job_service.loop_ending(loop)\n    server.core.close()\n")
    found = _reached(source)
    assert "import ServerCore" in found
    assert {"3: core.loop", "4: core.detach", "5: core.close", "6: core.job_service", "7: server.core.close"} \
        <= set(found)
