"""A refused ``%%mcp_tool`` cell leaves the kernel's names as they were: ``add(1, 2)`` in the notebook is the ``add``
clients still call, and a name the refused cell introduced is unbound again.

Found by a fresh-user trial (trial74 F13): a cell redefining ``add`` as a generator was refused ("tool 'add' is a
generator function"), yet the next cell's ``add(1, 2)`` gave a generator object while ``%mcp call add`` answered 3
(the old tool); the same with a refused ``--view notui`` (the notebook's ``add`` returned -1, clients got 3), and
with a cell whose code raised after its ``def`` ran.
"""

from __future__ import annotations

import pytest
from kernels import LiveKernel

pytestmark = pytest.mark.slow

ADD = '%%mcp_tool\ndef add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n'
REFUSED = {
    "a generator": "%%mcp_tool\nhelper_made = 1\ndef add(a: int, b: int):\n    yield a + b\n",
    "a view that is not ui://": '%%mcp_tool --view notui\nhelper_made = 1\ndef add(a: int, b: int) -> int:\n'
                                '    """Subtract."""\n    return a - b\n',
    "code that raised": '%%mcp_tool\ndef add(a: int, b: int) -> int:\n    """Subtract."""\n    return a - b\n'
                        "helper_made = 1\nraise RuntimeError('late')\n",
}


def test_a_refused_cell_puts_back_the_names_its_code_bound(kernel: LiveKernel) -> None:
    kernel.run_ok(ADD)
    for what, cell in REFUSED.items():
        refused = kernel.run(cell)
        assert (refused.status, refused.ename) == ("error", "UsageError"), (what, refused.evalue)
        seen = kernel.run_ok("print(add(1, 2), 'helper_made' in globals())")
        assert seen.stdout.split() == ["3", "False"], (what, seen.stdout)  # was: a generator object / -1, True
        served = kernel.run_ok('%mcp call add {"a": 1, "b": 2}')
        assert [r["text/plain"] for r in served.results] == ["3"], what


def test_a_refused_cell_leaves_a_name_it_defined_first_unbound(kernel: LiveKernel) -> None:
    refused = kernel.run("%%mcp_tool\ndef fresh(n: int):\n    yield n\n")
    assert refused.ename == "UsageError", refused.evalue
    assert kernel.run_ok("print('fresh' in globals())").stdout.strip() == "False"
