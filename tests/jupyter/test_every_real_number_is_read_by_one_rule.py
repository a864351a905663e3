"""trial47 NIT: the notebook's ``tool_timeout`` refused a ``numpy.float64`` in the package's words but a
``Fraction(1, 2000)``, a ``Decimal('0.0005')`` or ``'0.0005'`` in traitlets' generic template ("The 'tool_timeout'
trait of a NanohubMCP instance expected ..."), and a ``Fraction(1, 10)``, which ``MCPServer(tool_timeout=)`` takes,
was refused. One rule now, for every real-number setting: any real number (a ``Fraction``, numpy's ``int64``) is read
as a float, as ``MCPServer(...)`` reads it; anything else is refused in one line naming the setting and the value and
how to write it. And ``max_inline_bytes = 10**400`` was kept as given: an int past a float's range is no limit, as
None is, for the byte limits whose None is no limit (the rule ``tool_timeout`` follows)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from traitlets import TraitError
from traitlets.config import Config

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.server.results.options import ResultOptions

np = pytest.importorskip("numpy")


@pytest.mark.parametrize(("setting", "value", "read"), [
    ("tool_timeout", Fraction(1, 10), 0.1), ("tool_timeout", np.int64(2), 2.0),
    ("figure_dpi", Fraction(301, 2), 150.5), ("figure_dpi", np.int64(300), 300.0),
    ("switch_interval", Fraction(1, 2000), 0.0005), ("switch_interval", np.float64(0.002), 0.002),
], ids=repr)
def test_a_real_number_is_read_as_a_float(setting: str, value: object, read: float) -> None:
    kept = getattr(NanohubMCP(**{setting: value}), setting)
    assert kept == read
    assert type(kept) is float
    if setting != "switch_interval":  # (no MCPServer option)
        MCPServer("real", **{setting: value})


@pytest.mark.parametrize(("value", "why"), [
    (Fraction(1, 2000), "NanohubMCP.tool_timeout must be at least 0.001 s (a millisecond: the event loop times no "
                        "shorter wait), or None for no limit, not Fraction(1, 2000)"),
    (Decimal("0.0005"), "NanohubMCP.tool_timeout must be a positive number of seconds, or None for no limit, not the "
                        "Decimal Decimal('0.0005') (default 60.0); write it as a number: 0.0005"),
    ("0.0005", "NanohubMCP.tool_timeout must be a positive number of seconds, or None for no limit, not the str "
               "'0.0005' (default 60.0); write it as a number: 0.0005"),
    ("soon", "NanohubMCP.tool_timeout must be a positive number of seconds, or None for no limit, not the str "
             "'soon' (default 60.0)"),
], ids=repr)
def test_anything_else_is_refused_in_the_packages_words(value: object, why: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(TraitError) as refused:
        NanohubMCP(tool_timeout=value)
    assert str(refused.value) == why
    settings = NanohubMCP()  # as %config NanohubMCP.tool_timeout = ... reports it
    config = Config()
    config.NanohubMCP.tool_timeout = value
    settings.update_config(config)
    assert capsys.readouterr().err == f"UsageError: {why}; the setting is unchanged\n"
    assert settings.tool_timeout == 60.0


@pytest.mark.parametrize("value", [Decimal("0.0005"), "0.0005"], ids=repr)
def test_the_server_says_how_to_write_it_too(value: object) -> None:
    with pytest.raises(ConfigurationError, match=r"^tool_timeout must be a positive number of seconds, or None for "
                                                 r"no limit, not .*; write it as a number: 0\.0005$"):
        MCPServer("refused", tool_timeout=value)


@pytest.mark.parametrize("setting", ["max_inline_bytes", "max_result_bytes"])
def test_a_byte_limit_past_a_floats_range_is_no_limit(setting: str) -> None:
    assert getattr(MCPServer("huge", **{setting: 10**400}).core.result_options, setting) is None
    options = ResultOptions()  # as a notebook's %config applies it to the next call
    options.update(setting, getattr(NanohubMCP(**{setting: 10**400}), setting))
    assert getattr(options, setting) is None
    options.update(setting, 10**300)  # within a float's range: a bound, as given
    assert getattr(options, setting) == 10**300
