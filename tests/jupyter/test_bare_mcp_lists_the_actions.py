"""``%mcp`` alone (and ``%mcp help``) prints every action with one line on what it does; it was
argparse's "the following arguments are required: action" (and "invalid choice" for help). A
fresh-user trial. A real kernel."""

from __future__ import annotations

from kernels import LiveKernel

from nanohubmcp.jupyter.magics import ACTIONS


def test_bare_mcp_and_help_list_every_action(kernel: LiveKernel) -> None:
    for line in ("%mcp", "%mcp help"):
        cell = kernel.run_ok(line)
        assert "required" not in cell.text
        for action in ACTIONS:
            assert f"%mcp {action} " in cell.stdout, (line, action)
        assert "serve a Rappture tool.xml as a tool" in cell.stdout
