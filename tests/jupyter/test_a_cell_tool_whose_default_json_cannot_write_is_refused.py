"""A ``%%mcp_tool`` cell whose function has a default JSON cannot write (``n: int = 10**5000``) is refused in one
line naming the tool and where, and the kernel's server goes on serving its other tools.

trial42 T42-2: the cell said "MCP tool ... is ready", after which every tools/list of the kernel's server
answered -32603, for every client.
"""

from __future__ import annotations

import pytest
from kernels import LiveKernel

pytestmark = pytest.mark.slow

TOOL = "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b"
BIG = "%%mcp_tool\ndef big(n: int = 10**5000) -> int:\n    '''Give n back.'''\n    return n"


def test_the_cell_is_refused_and_the_other_tools_serve(kernel: LiveKernel) -> None:
    kernel.run_ok(TOOL)
    cell = kernel.run(BIG)
    assert cell.ename == "UsageError"
    assert cell.evalue == ("tool 'big': invalid input schema: an int of over 4,300 digits at schema.properties.n."
                           "default has no JSON form; write a number of at most 4,300 digits, or leave it out")
    assert "ready" not in cell.text
    listed = kernel.run_ok("from nanohubmcp.testing import in_memory\n"
                           "from nanohubmcp.jupyter.extension import current\n"
                           "with in_memory(current().server) as c:\n"
                           "    print(sorted(t['name'] for t in c.list_tools()))")
    assert listed.text.strip() == "['add']", (listed.stderr, listed.text)
    assert kernel.run_ok('r = %mcp call add {"a": 2, "b": 3}\nprint(r.text)').text.strip() == "5"
