"""``MCPExporter``: ``jupyter nbconvert --to mcp NOTEBOOK`` writes the notebook as an MCP server script.

Registered under the ``nbconvert.exporters`` entry point ``mcp`` (``pyproject.toml``), so after
``pip install nanohub-mcp[export]`` nbconvert, JupyterLab's "Save and Export Notebook As..."
menu and ``nbconvert.get_exporter("mcp")`` find it. The translation itself is
:func:`nanohubmcp.jupyter.translate.translate` (see its rules); this class only adapts it to
nbconvert. The script is named ``start_mcp.py`` (beside the notebook), the name nanoHUB tools and
``start_mcp --app`` use and ``nanohubmcp export`` writes; ``--output NAME`` chooses another.

Configuration: ``--MCPExporter.format_code=False`` keeps the cells' code as written (by default
an installed ``ruff``/``black`` formats it). A file already where nbconvert would write (a hand-written
``start_mcp.py``, say, or another notebook's export: ``--to mcp A.ipynb B.ipynb`` writes both to
``start_mcp.py`` unless ``--output '{notebook_name}_mcp'``) is replaced only when it is an earlier export of
the same notebook, as ``nanohubmcp export`` does (:mod:`.earlier_export`); ``--MCPExporter.force=True``
replaces it anyway.

Errors: an untranslatable cell, a notebook that would serve nothing (no ``%%mcp_*`` cell), or an output
file that is not an earlier export of this notebook, is logged
as one line naming what is wrong, and the conversion fails with
``nbconvert.utils.exceptions.ConversionException``; under ``jupyter nbconvert`` (its application's
exporter) with ``SystemExit(1)`` instead, which ends the command as nbconvert's own handling of the
exception does (exit status 1, nothing written) without the traceback it logs with it.

Example:
    ```python
    >>> from nbconvert import get_exporter
    >>> text, resources = get_exporter("mcp")().from_filename("analysis.ipynb")
    >>> resources["mcp"]["tools"]
    ['mean', 'fit']
    ```
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NoReturn

from nbconvert.exporters import Exporter
from nbconvert.utils.exceptions import ConversionException
from traitlets import Bool, default

from ..errors import NanohubMCPError
from .earlier_export import refusal
from .translate import translate

if TYPE_CHECKING:
    from nbformat import NotebookNode

__all__ = ["DEFAULT_STEM", "MCPExporter"]

DEFAULT_STEM = "start_mcp"
"""The script's name without ``.py`` when nbconvert is given no ``--output``."""


class MCPExporter(Exporter):
    """nbconvert exporter: a notebook -> a runnable ``start_mcp.py`` (``text/x-python``).

    ``resources["mcp"]`` receives ``{"tools", "resources", "prompts", "dropped", "formatter"}``
    (lists of names / URIs, the dropped IPython-only lines, the formatter used or None).
    """

    export_from_notebook = "MCP server script"
    output_mimetype = "text/x-python"

    format_code = Bool(
        True, help="Format the script with an installed ruff or black (False: keep the code as written)."
    ).tag(config=True)

    force = Bool(
        False, help="Replace the output file even if it is not an earlier export of this notebook (a hand-written "
        "start_mcp.py, another notebook's export)."
    ).tag(config=True)

    def _section(self, name: str) -> Any:
        """The config section ``name`` (a traitlets Config), or None; never creates one."""
        return self.config.get(name)

    def _destination(self, resources: dict[str, Any]) -> str | None:
        """The file nbconvert's ``FilesWriter`` will write the script to, or None when the text goes
        elsewhere (``--stdout``, or the exporter used from Python, which writes nothing)."""
        app = self._section("NbConvertApp")
        writer = app["writer_class"] if app is not None and "writer_class" in app else "FilesWriter"
        if "unique_key" not in resources or not isinstance(writer, str) \
                or writer.lower().rsplit(".", 1)[-1] != "fileswriter":
            return None
        files = self._section("FilesWriter")
        directory = files["build_directory"] if files is not None and "build_directory" in files else ""
        return os.path.join(directory or (resources.get("metadata") or {}).get("path") or "",
                            resources["unique_key"] + self.file_extension)

    def _output_given(self) -> bool:
        """Whether nbconvert was given ``--output`` (``NbConvertApp.output_base``), even one equal to the
        notebook's own name; the ``unique_key`` alone cannot tell the two apart."""
        app = self._section("NbConvertApp")
        base = app["output_base"] if app is not None and "output_base" in app else None
        return isinstance(base, str) and base not in ("", "{notebook_name}")

    def _refuse(self, message: str) -> NoReturn:
        """Log ``message`` (one line) and fail: ``SystemExit(1)`` for ``jupyter nbconvert``, whose handler of a
        ``ConversionException`` logs its traceback (the message again, with both modules' frames) and then
        exits 1 itself; ``ConversionException`` for any other caller."""
        from nbconvert.nbconvertapp import NbConvertApp

        self.log.error("%s", message)
        if NbConvertApp.initialized() and NbConvertApp.instance().exporter is self:
            raise SystemExit(1)
        raise ConversionException(message)

    @default("file_extension")
    def _file_extension_default(self) -> str:
        return ".py"

    # nbconvert annotates the base method as returning a notebook; every text exporter returns a str.
    def from_notebook_node(  # type: ignore[override]
        self, nb: NotebookNode, resources: dict[str, Any] | None = None, **kw: Any
    ) -> tuple[str, dict[str, Any]]:
        """Translate ``nb``; returns ``(script text, resources)``.

        Raises:
            ConversionException: a cell cannot be translated (the message names it).
        """
        nb_copy, resources = super().from_notebook_node(nb, resources, **kw)
        metadata = resources.get("metadata") or {}
        name = metadata.get("name") or "notebook"
        source = os.path.join(metadata.get("path") or "", f"{name}.ipynb")
        stem = resources.get("unique_key") or name  # nbconvert's --output, when given
        if not self._output_given():  # the script's usual name (nbconvert writes unique_key + ".py")
            stem = resources["unique_key"] = DEFAULT_STEM
        output = os.path.join(metadata.get("path") or "", stem)
        output += "" if output.endswith(self.file_extension) else self.file_extension
        destination = self._destination(resources)  # --output-dir DIR: the script runs its cells in the notebook's
        try:
            script = translate(nb_copy, source=source, output=destination or output, format_code=self.format_code,
                               refuse_empty=True)
        except NanohubMCPError as exc:
            self._refuse(str(exc))
        if destination and not self.force and os.path.isfile(destination):
            with open(destination, encoding="utf-8", errors="replace") as existing:
                refused = refusal(existing.read(4000), source)
            if refused is not None:
                message = f"{destination} {refused.reason}; " + (
                    "pass --output NAME to write another file (several notebooks: --output '{notebook_name}_mcp'), "
                    "or --MCPExporter.force=True to replace it" if refused.other_notebook else
                    "pass --MCPExporter.force=True to replace it (or --output NAME to write another file)")
                self._refuse(message)
        for line in script.dropped:
            self.log.info("dropped (IPython only): %s", line)
        for line in script.notes:
            self.log.warning("%s", line)
        resources["mcp"] = {
            "tools": list(script.tools),
            "sources": list(script.sources),
            "resources": list(script.resources),
            "prompts": list(script.prompts),
            "dropped": list(script.dropped),
            "formatter": script.formatter,
        }
        return script.text, resources
