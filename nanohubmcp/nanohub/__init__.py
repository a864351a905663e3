"""nanoHUB integration: find the weber proxy URL, and the ``start_mcp`` launcher.

Modules: :mod:`~nanohubmcp.nanohub.proxy` (pure detector), :mod:`~nanohubmcp.nanohub.wrwroxy`
(find and command wrwroxy), :mod:`~nanohubmcp.nanohub.plan` (ports and roles),
:mod:`~nanohubmcp.nanohub.pyenv` (conda env interpreter), :mod:`~nanohubmcp.nanohub.supervisor`
(child processes), :mod:`~nanohubmcp.nanohub.child` (the app process) and
:mod:`~nanohubmcp.nanohub.launcher` (``start_mcp``). Importing this package starts nothing.
"""

from __future__ import annotations

from nanohubmcp.nanohub.proxy import ProxyInfo, detect_proxy, override

__all__ = ["ProxyInfo", "detect_proxy", "override"]
