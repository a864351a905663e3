"""Sim2L notebooks (nanoHUB's simulation notebooks, run by ``simtool``) as MCP tools.

``server.add_sim2l("tool.ipynb")`` (or ``nanohubmcp sim2l tool.ipynb``, ``%mcp sim2l tool.ipynb``)
serves the notebook as one tool: its ``%%yaml INPUTS`` become the input schema, a call runs the
notebook with papermill and its ``DB(OUTPUTS).save`` entries become the result; a run is identified
by a hash of its inputs, so an identical call is answered from the stored run.

Modules: :mod:`.notebook` (reading the declarations), :mod:`.schema` (JSON Schema),
:mod:`.values` (checking arguments with simtool), :mod:`.execute` (papermill, scrapbook),
:mod:`.store` (stored runs), :mod:`.results` (MCP content), :mod:`.tool` (``add_sim2l``).
"""

from __future__ import annotations

from .tool import Sim2LTool, add_sim2l

__all__ = ["Sim2LTool", "add_sim2l"]
