"""``%mcp call`` parses its arguments as the server's routes parse a request body: ``NaN``, ``Infinity`` and a
number beyond a double (``1e400``) are refused with a one-line UsageError saying why. Python's lenient
``json.loads`` took them, so a notebook check (``r = %mcp call ...; assert ...``) passed on input no client
can send (trial30 T12)."""

from __future__ import annotations

import pytest
from kernels import LiveKernel

pytestmark = pytest.mark.slow

TOOL = '''%%mcp_tool
def half(a: float) -> float:
    """Half of a."""
    return a / 2
'''


def test_constants_and_overflowing_numbers_are_refused_as_the_server_refuses_them(kernel: LiveKernel) -> None:
    kernel.run_ok(TOOL)
    for line, why in [
        ('%mcp call half {"a": NaN}', "NaN is not valid JSON"),
        ('%mcp call half {"a": Infinity}', "Infinity is not valid JSON"),
        ('%mcp call half {"a": -Infinity}', "-Infinity is not valid JSON"),
        ('%mcp call half {"a": 1e400}', "the number 1e400 is too large for a double-precision float"),
    ]:
        cell = kernel.run(line)
        assert cell.status == "error", line
        assert cell.ename == "UsageError", (line, cell.ename)
        assert cell.evalue == (f"%mcp call half: the arguments are not JSON ({why}); write an object such as "
                               '{"a": 1, "text": "hi"}'), cell.evalue
    kept = kernel.run_ok('r = %mcp call half {"a": 1e300}\nprint(r.text)')
    assert kept.stdout.strip() == "5e+299"
