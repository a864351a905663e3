"""trial48 MED: the byte limits followed two rules. ``%config NanohubMCP.max_inline_bytes = np.int64(100)``, ``= 5.0``
and ``= 1e30`` were taken while ``MCPServer(max_inline_bytes=...)`` refused all three ("must be a non-negative number
of bytes, or None", naming no value), so a notebook moved to a script, or exported, did not start. One rule now, in
both places: any whole number (numpy's ints, ``5.0``, ``1e5``, ``1e30``) is the int; a bool (numpy's too), a number
that is not whole, a string or a ``Decimal`` is refused naming the setting, what it takes, the value and what to
write. trial48 NIT: numpy's ``True_`` is refused as ``True`` is, with no "write it as a number: 1.0"."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import pytest
from kernels import LiveKernel
from traitlets import TraitError

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.protocol.byte_limits import BYTE_LIMITS

np = pytest.importorskip("numpy")

WHOLE = [np.int64(100), np.uint8(100), 100.0, np.float32(100.0), Fraction(100, 1), 1e5, 1e30]
WHOLE_MIB = [np.int64(1 << 21), np.float32(1 << 21), float(1 << 21), Fraction(1 << 21, 1), 1e7, 1e30]
"""For a limit whose least is 1 MiB (``max_event_bytes``)."""


def kept_by_the_server(server: MCPServer, setting: str) -> object:
    core = server.core
    return {"max_inline_bytes": lambda: core.result_options.max_inline_bytes,
            "max_result_bytes": lambda: core.result_options.max_result_bytes,
            "max_event_bytes": lambda: core.result_options.max_event_bytes,
            "max_kept_bytes": lambda: core.result_store.max_bytes,
            "max_kept_bytes_per_owner": lambda: core.result_store.max_bytes_per_owner,
            "max_job_result_bytes": lambda: core.job_service.jobs.max_result_bytes,
            "cache_max_bytes": lambda: core.result_cache.max_bytes}[setting]()


@pytest.mark.parametrize(("setting", "value"), [
    (setting, value) for setting in sorted(BYTE_LIMITS)
    for value in (WHOLE_MIB if BYTE_LIMITS[setting][0] > 100 else WHOLE)], ids=repr)
def test_a_whole_number_is_the_int_in_both_places(setting: str, value: object) -> None:
    number = int(value)  # type: ignore[call-overload]
    kept = getattr(NanohubMCP(**{setting: value}), setting)
    assert kept == number
    assert type(kept) is int
    held = kept_by_the_server(MCPServer("whole", **{setting: value}), setting)
    assert held == number
    assert type(held) is int


REFUSED = [(5.5, "not 5.5; write a whole number: 6", "not the float 5.5 (default {}); write a whole number: 6"),
           (Fraction(7, 2), "not Fraction(7, 2); write a whole number: 4",
            "not the Fraction Fraction(7, 2) (default {}); write a whole number: 4"),
           ("5", "not '5'; write it as a number: 5", "not the str '5' (default {}); write it as a number: 5"),
           (Decimal("5"), "not Decimal('5'); write it as a number: 5",
            "not the Decimal Decimal('5') (default {}); write it as a number: 5"),
           (True, "not True", "not the bool True (default {})"),
           (np.True_, "not np.True_", "not the bool np.True_ (default {})")]


@pytest.mark.parametrize("setting", sorted(BYTE_LIMITS))
@pytest.mark.parametrize(("value", "by_the_server", "by_the_notebook"), REFUSED, ids=repr)
def test_anything_else_is_refused_in_the_same_words(setting: str, value: object, by_the_server: str,
                                                   by_the_notebook: str) -> None:
    least, none = BYTE_LIMITS[setting]
    takes = f"{setting} must be a number of bytes >= {least}{none}, "
    with pytest.raises(ConfigurationError) as script:
        MCPServer("refused", **{setting: value})
    assert str(script.value) == takes + by_the_server
    with pytest.raises(TraitError) as notebook:
        NanohubMCP(**{setting: value})
    default = NanohubMCP.class_traits()[setting].default_value
    assert str(notebook.value) == "NanohubMCP." + takes + by_the_notebook.format(default)


@pytest.mark.parametrize("setting", ["tool_timeout", "figure_dpi"])
def test_a_numpy_bool_is_refused_as_a_bool_with_no_number_to_write(setting: str) -> None:
    with pytest.raises(ConfigurationError) as script:
        MCPServer("refused", **{setting: np.True_})
    with pytest.raises(TraitError) as notebook:
        NanohubMCP(**{setting: np.True_})
    for refusal in (str(script.value), str(notebook.value)):
        assert "np.True_" in refusal
        assert "write it as a number" not in refusal


@pytest.mark.slow
def test_the_kernel_takes_and_refuses_what_the_script_does(kernel: LiveKernel) -> None:
    kernel.run_ok("import numpy as np\nfrom fractions import Fraction")
    for line in ("max_inline_bytes = np.int64(100)", "max_kept_bytes = 1e30", "max_result_bytes = 5.0"):
        cell = kernel.run_ok(f"%config NanohubMCP.{line}")
        assert cell.stderr == "", line
    listing = kernel.run_ok("%config NanohubMCP").text
    for setting, value in (("max_inline_bytes", 100), ("max_kept_bytes", int(1e30)), ("max_result_bytes", 5)):
        listed = rf"NanohubMCP\.{setting}=<Limit>\n(?:    .*\n)*?    Current: {value}\n"
        assert re.search(listed, listing), (setting, listing)
    for line, why in {"max_inline_bytes = 5.5": "NanohubMCP.max_inline_bytes must be a number of bytes >= 0, or "
                                                "None to always inline, not the float 5.5 (default 262144); write a "
                                                "whole number: 6",
                      "max_kept_bytes = Fraction(7, 2)": "NanohubMCP.max_kept_bytes must be a number of bytes >= 1, "
                                                         "not the Fraction Fraction(7, 2) (default 536870912); write "
                                                         "a whole number: 4",
                      "tool_timeout = np.True_": "NanohubMCP.tool_timeout must be a positive number of seconds, or "
                                                 "None for no limit, not the bool np.True_ (default 60.0)"}.items():
        cell = kernel.run_ok(f"%config NanohubMCP.{line}")
        assert cell.stderr == f"UsageError: {why}; the setting is unchanged\n", line
