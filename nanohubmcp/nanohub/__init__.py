"""nanoHUB integration: find the weber proxy URL, and the ``start_mcp`` launcher.

Modules: :mod:`~nanohubmcp.nanohub.proxy` (pure detector), :mod:`~nanohubmcp.nanohub.wrwroxy`
(find and command wrwroxy), :mod:`~nanohubmcp.nanohub.plan` (ports and roles),
:mod:`~nanohubmcp.nanohub.pyenv` (conda env interpreter), :mod:`~nanohubmcp.nanohub.supervisor`
(child processes), :mod:`~nanohubmcp.nanohub.child` (the app process) and
:mod:`~nanohubmcp.nanohub.launcher` (``start_mcp``). Importing this package starts nothing.

:class:`SubmitRun` is what a tool on the ``submit`` job executor returns (the run ``submit`` makes).
"""

from __future__ import annotations

from nanohubmcp.nanohub.proxy import ProxyInfo, detect_proxy, override
from nanohubmcp.server.executors.submit_run import SubmitRun

__all__ = ["ProxyInfo", "SubmitRun", "detect_proxy", "override"]
