"""An executor whose library is not installed is refused when the server (or the tool) is made,
naming the extra to install: a trial found a ``job_executor="dask"`` server without dask serving,
its jobs then failing with the install hint sent to the client instead of the operator."""

from __future__ import annotations

import sys

import pytest

from nanohubmcp import ConfigurationError, MCPServer
from nanohubmcp.errors import RegistrationError


@pytest.mark.parametrize(("executor", "library", "extra"), [("dask", "distributed", "dask"),
                                                            ("slurm", "submitit", "slurm")])
def test_the_server_and_a_tool_refuse_an_executor_whose_library_is_missing(
    monkeypatch: pytest.MonkeyPatch, executor: str, library: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, library, None)  # what importlib reports for a library not installed
    with pytest.raises(ConfigurationError, match=rf"job_executor='{executor}' needs {library}: "
                                                 rf"pip install 'nanohub-mcp\[{extra}\]'"):
        MCPServer("missing", job_executor=executor)
    server = MCPServer("threads-by-default")
    with pytest.raises(RegistrationError, match=rf"tool 'simulate': job_executor='{executor}' needs {library}"):
        @server.async_tool(executor=executor)
        def simulate(steps: int) -> int:
            """A long run."""
            return steps
    monkeypatch.delitem(sys.modules, library)
    assert MCPServer("present", job_executor=executor).core is not None
