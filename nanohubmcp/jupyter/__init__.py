"""The Jupyter layer: ``%load_ext nanohubmcp``, the ``%%mcp_*`` cell magics and a live server in the kernel.

The only subpackage that imports IPython or ipykernel, and only in the modules that need it
(``extension``, ``magics``, ``kernel_server``); importing this package imports neither.

Modules:

- ``config``: the ``NanohubMCP`` traitlets Configurable (``c.NanohubMCP.port = 8000``).
- ``cellspec``: the magic-line parser shared with the notebook exporter (no IPython); its option
  tables in ``cell_options``, the records a line becomes in ``cell_specs``.
- ``session``: ``KernelSession``, the server a notebook builds cell by cell.
- ``calls``: how a cell-defined function is called (worker pool or kernel loop, timeouts).
- ``output``: routing a tool's ``print``/``display`` output to the cell that defined it.
- ``display``: the rich status shown after the server starts and by ``%mcp status``.
- ``magics``: ``%%mcp_tool``, ``%%mcp_resource``, ``%%mcp_prompt``, ``%%mcp_view`` and ``%mcp``.
- ``extension``: ``load``/``unload``, called by ``nanohubmcp.load_ipython_extension``.
- ``kernel_server``: ``server.run()`` inside a kernel (in the background; a re-run replaces
  the server of the same name or port).
- ``comm`` and ``panel_messages``: the kernel end of the JupyterLab panel, and what it is told.
- ``translate`` and ``exporter``: a notebook to a ``start_mcp.py`` (``nanohubmcp export``,
  ``jupyter nbconvert --to mcp``); where each ``%config NanohubMCP`` setting goes in the script in
  ``export_settings``, the file around the cells (header, ``server`` line, command line) in
  ``script_frame``; the parts ``translate`` composes in ``export_*`` (its docstring lists them).
"""

from __future__ import annotations
