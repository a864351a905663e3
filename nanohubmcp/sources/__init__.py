"""Where tools come from, besides decorated functions and notebook cells.

Each subpackage reads one format of nanoHUB tool and registers the same ``Tool`` records that
``@server.tool()`` makes, through the server's public registration API; none of them touches
transports or method handlers:

- :mod:`nanohubmcp.sources.rappture` — a Rappture ``tool.xml`` (``server.add_rappture_tool``);
- :mod:`nanohubmcp.sources.sim2l` — a Sim2L notebook.

Their optional libraries (pint for Rappture units, papermill for Sim2Ls) are imported only when a
tool of that format is loaded.
"""

from __future__ import annotations
