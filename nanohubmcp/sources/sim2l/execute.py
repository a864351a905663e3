"""Running a Sim2L notebook with papermill and reading back what it saved.

The run directory gets the notebook's extra files (a cell tagged ``FILES`` holding
``EXTRA_FILES = [...]`` or ``"*"``, linked from the notebook's directory, as simtool does) and the
call's input files; papermill executes the notebook there with the parameters injected after the
cell tagged ``parameters`` and writes the executed copy as ``<name>.ipynb``. The outputs are the
scrapbook entries ``DB(OUTPUTS).save`` glued, decoded by :mod:`.saved` (never by simtool's jsonpickle) with
the files they name confined to the run directory.
"""

from __future__ import annotations

import functools
import importlib
import io
import json
import math
import os
import sys
import warnings
from dataclasses import dataclass
from typing import Any

from ...errors import ToolError, ToolTimeout
from ...protocol import ast_guard
from ...schema.iri_grammar import deferred_iri_grammar
from ..batch_run import batch_run
from .kernel_output import quiet_kernel_end
from .kernels import KernelStop
from .notebook import Sim2LSpec
from .save_errors import save_failure
from .saved import NotARunFile, Undecodable, decode, read_value_file, run_file
from .store import RUN_FILE
from .values import INPUT_FILES_DIR, Prepared

__all__ = ["Output", "cell_timeout_message", "executed_notebook", "read_outputs", "run_notebook"]


@dataclass
class Output:
    """One saved output.

    Attributes:
        name: its name in ``OUTPUTS``.
        value: the decoded value (numbers, lists, dicts, numpy arrays, PIL images, bytes of a File),
            or None when the output is a file.
        file: the file's path relative to the run directory when the notebook saved it with ``file=``.
    """

    name: str
    value: Any = None
    file: str | None = None


def executed_notebook(spec: Sim2LSpec, directory: str) -> str:
    """Path of the executed copy of ``spec``'s notebook in a run directory."""
    return os.path.join(directory, f"{os.path.basename(spec.name)}.ipynb")


def _extra_files(spec: Sim2LSpec) -> list[str]:
    with deferred_iri_grammar():  # nbformat imports jsonschema: its RFC 3987 grammar waits for an iri check
        import nbformat

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        notebook = nbformat.read(spec.path, as_version=4)
    for cell in notebook.cells:
        if "FILES" not in (cell.get("metadata", {}).get("tags") or ()):
            continue
        for line in str(cell.get("source", "")).splitlines():
            if line.strip().startswith("EXTRA_FILES"):
                _, _, value = line.partition("=")
                try:
                    found = ast_guard.literal_eval(value.strip())
                except (ValueError, SyntaxError):
                    return []
                folder = os.path.dirname(spec.path)
                if found == "*":
                    return [n for n in os.listdir(folder) if n != os.path.basename(spec.path)]
                return [str(n) for n in found] if isinstance(found, (list, tuple)) else []
    return []


def _link_extra_files(spec: Sim2LSpec, directory: str, tool: str) -> None:
    folder = os.path.dirname(spec.path)
    for name in _extra_files(spec):
        source = os.path.normpath(os.path.join(folder, name))
        if not source.startswith(folder + os.sep) or not os.path.exists(source):
            raise ToolError(f"the Sim2L tool '{tool}': its notebook's EXTRA_FILES names {name!r}, which is not a "
                            "file beside the notebook")
        target = os.path.join(directory, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.symlink(source, target)


def run_notebook(
    spec: Sim2LSpec,
    prepared: Prepared,
    directory: str,
    *,
    kernel_name: str | None = None,
    cell_timeout: float | None = None,
    progress: bool = True,
    stop: KernelStop | None = None,
    tool: str | None = None,
) -> str:
    """Execute the Sim2L in ``directory``; returns the executed notebook's path.

    ``stop``, when given, learns the kernel's process (``stop.stop()`` from another thread kills
    it: the run then ends with a ToolError). ``tool``: the name the tool is served under (default:
    the Sim2L's name), which messages name. ``progress``: papermill keeps its cell-by-cell tqdm bar,
    which the call's progress reports follow (:mod:`nanohubmcp.server.calls.tqdm_progress`); the bar is
    drawn nowhere (the server's stderr is its log), but in a Jupyter kernel's cell under a front end. What the
    kernel prints goes to the log (:mod:`.kernel_output`). ``cell_timeout``: seconds any one cell may run, fractions
    kept (``0.5``, ``2.5``: nbclient stops waiting for the cell that long after sending it, to jupyter_client's
    poll, a millisecond); the answer follows once the run's kernel is stopped. None: no limit.

    Raises:
        ToolTimeout: a cell ran longer than ``cell_timeout`` seconds and the run was stopped (the message says
            which cell, the limit and the options raising it), shaped as a call past ``tool_timeout`` is
            answered (REST 504).
        ToolError: the notebook raised (the message names the cell and the exception), the kernel was stopped
            or died, or there is no such kernel.
    """
    import papermill
    from nbclient.exceptions import CellTimeoutError

    tool = tool or spec.name
    _link_extra_files(spec, directory, tool)
    if prepared.files:
        inputs = os.path.join(directory, INPUT_FILES_DIR)
        os.makedirs(inputs, exist_ok=True)
        for name, data in prepared.files.items():
            with open(os.path.join(inputs, name), "wb") as stream:
                stream.write(data)
    output = executed_notebook(spec, directory)
    # The kernel starts in the run's directory (nbclient's `resources` path, the kernel's own working directory);
    # never papermill's `cwd=`, which changes the working directory of this whole process for the run: the
    # server's (or the user's kernel's) other threads saw it, and of two runs at once the second restored the
    # first's directory, which that run had removed meanwhile (FileNotFoundError).
    options: dict[str, Any] = {"resources": {"metadata": {"path": directory}}, "log_output": False,
                               "progress_bar": _unshown_bar() if progress else False}
    if kernel_name:
        options["kernel_name"] = kernel_name
    if cell_timeout is not None:
        # nbclient's `timeout` takes whole seconds (a traitlets Integer: 2.5 or Fraction(5, 2) was a TraitError at
        # every call); its `timeout_func`, asked each cell's limit, takes any number and keeps the limit as given.
        # `timeout`, rounded up (never 0, never shorter), is left for the waits of no cell (the kernel's info reply).
        options["execution_timeout"] = math.ceil(cell_timeout)
        options["timeout_func"] = functools.partial(_cell_limit, cell_timeout)
    # nbclient's trait, passed on by papermill
    options["kernel_manager_class"] = (stop or KernelStop(directory)).manager_class(tool)
    try:
        with warnings.catch_warnings(), quiet_kernel_end(tool):
            warnings.simplefilter("ignore")
            papermill.execute_notebook(spec.path, output, parameters=prepared.parameters, **options)
    except papermill.PapermillExecutionError as exc:
        where = _cell_named(output, exc.exec_count) or f"cell {exc.exec_count}"
        said = save_failure(exc.ename, exc.evalue, exc.traceback or (), directory, output, list(spec.outputs))
        raise ToolError(f"the Sim2L tool '{tool}' failed in {where}: {said or f'{exc.ename}: {exc.evalue}'}") from None
    except CellTimeoutError:
        last = _last_cell_run(output)
        named = _cell_named(output, last) if last is not None else None
        raise ToolTimeout(cell_timeout_message(tool, cell_timeout, named)) from None
    except Exception as exc:  # a kernel that died or was killed (a cancelled call), a missing kernel
        if stop is not None and stop.stopped:
            raise ToolError(f"the Sim2L tool '{tool}' was cancelled: its kernel was stopped") from None
        text = " ".join(str(exc).split())[:500] or type(exc).__name__
        raise ToolError(f"the Sim2L tool '{tool}' failed: {type(exc).__name__}: {text}") from None
    finally:
        if stop is not None:
            stop.finished()
    return output


def cell_timeout_message(tool: str, cell_timeout: float | None, cell: str | None) -> str:
    """The answer of a run whose ``cell`` (:func:`_cell_named`'s words; None: unknown) ran past ``cell_timeout``
    seconds, shaped as a call past ``tool_timeout`` is answered: which limit ran out, what raises it, that the run
    was stopped: "the Sim2L tool 'cool' did not finish within 3 s in code cell 7 (``time.sleep(600)``) (its
    cell_timeout, a cell's limit; raise it with cell_timeout= or --cell-timeout, inf for no limit); its run was
    stopped".
    """
    within = f" within {cell_timeout:g} s" if cell_timeout is not None else ""
    where = f" in {cell}" if cell is not None else ""
    return (f"the Sim2L tool '{tool}' did not finish{within}{where} (its cell_timeout, a cell's limit; raise it "
            "with cell_timeout= or --cell-timeout, inf for no limit); its run was stopped")


def _cell_limit(seconds: float, cell: object) -> float:
    """nbclient's ``timeout_func``: every cell's limit is ``seconds``, fractions kept."""
    return seconds


class _Unshown(io.TextIOBase):
    """Where papermill's progress bar is drawn: nowhere. The bar still counts the cells (its count
    is the call's progress); drawn on stderr it put carriage returns into the server's log."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


def _unshown_bar() -> dict[str, Any]:
    """papermill's options for its bar (``tqdm.auto``'s class): drawn on :class:`_Unshown`. In a Jupyter kernel
    that class is tqdm's widget, which ignores ``file`` and is drawn in the cell (a front end shows it live);
    a batch run (``jupyter nbconvert --execute``) saved it as first shown, ``Executing: 0%``, so there it is
    not displayed."""
    bar = importlib.import_module("tqdm.auto").tqdm  # as papermill imports it (tqdm ships no type information)
    options: dict[str, Any] = {"file": _Unshown()}
    notebook = sys.modules.get("tqdm.notebook")
    if notebook is not None and issubclass(bar, notebook.tqdm_notebook) and batch_run():
        options["display"] = False
    return options


def _last_cell_run(path: str) -> int | None:
    """The execution count of the last cell the kernel started, in the executed notebook papermill
    left at ``path`` (the cell that was running when the run stopped); None when unreadable."""
    try:
        with open(path, encoding="utf-8") as stream:
            cells = json.load(stream).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return None
    counts = [c.get("execution_count") for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    started = [n for n in counts if isinstance(n, int)]
    return started[-1] if started else None


INJECTED = "injected-parameters"
"""The tag of the cell papermill adds after the ``parameters`` cell (the call's values)."""


def _cell_named(path: str, count: int | None) -> str | None:
    """The code cell of execution count ``count`` in the executed notebook at ``path``, in the author's terms:
    ``code cell 7 (`time = np.linspace(...)`)``, its number among the notebook's code cells from 1 (as Jupyter
    numbers them in a Run All: markdown cells and papermill's injected cell not counted) and its first line;
    or ``papermill's injected parameters cell``. None when unreadable or not found."""
    try:
        with open(path, encoding="utf-8") as stream:
            cells = json.load(stream).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return None
    number = 0
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        injected = INJECTED in (cell.get("metadata", {}).get("tags") or ())
        number += 0 if injected else 1
        if count is None or cell.get("execution_count") != count:
            continue
        if injected:
            return "papermill's injected parameters cell (the call's values)"
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        line = next((line.strip() for line in text.splitlines() if line.strip()), "")
        line = line if len(line) <= 60 else line[:59] + "\u2026"
        return f"code cell {number} (`{line}`)" if line else f"code cell {number}"
    return None


def _file_of(data: Any) -> str | None:
    if isinstance(data, str) and data.startswith("file://"):
        return data[len("file://") :]
    return None


def read_outputs(spec: Sim2LSpec, directory: str, tool: str | None = None) -> tuple[list[Output], list[str]]:
    """The declared outputs the run saved, in declaration order, and the names of those it did not.

    The notebook's scrapbook entries are read with scrapbook and each value decoded by :func:`.saved.decode`
    (JSON, numpy numbers and arrays; never simtool's ``jsonpickle.loads``, which calls what the JSON names).
    An output saved as a file (``file://<path>``) keeps its path, relative to ``directory``, once
    :func:`.saved.run_file` found it a regular file inside the run directory; a value saved in a file is read
    from it (at most :data:`.saved.VALUE_FILE_LIMIT` bytes): a ``Text`` as UTF-8 text, the others decoded.
    ``tool``: the name the tool is served under (default: the Sim2L's name), which messages name.

    Raises:
        ToolError: an output names a file that is not one of the run (outside it, a link out, not a regular
            file, too large), or holds a value that is not decoded (a Python object): the message names the
            tool, the output and what to save instead.
    """
    import scrapbook

    tool = tool or spec.name
    scraps = scrapbook.read_notebook(executed_notebook(spec, directory)).scraps
    found: list[Output] = []
    missing: list[str] = []
    for name, item in spec.outputs.items():
        if name not in scraps or scraps[name].data is None:
            missing.append(name)
            continue
        try:
            output = _output(name, item.type, scraps[name].data, directory)
        except (NotARunFile, Undecodable) as exc:
            what = ("names a file that is not the run's:" if isinstance(exc, NotARunFile)
                    else "was saved as a value that is not read:")
            raise ToolError(f"the Sim2L tool '{tool}': its output '{name}' {what} {exc} (an output's file:// "
                            "reference must name a regular file inside the run directory; values are JSON or "
                            "numpy numbers and arrays)") from None
        if output is None:
            missing.append(name)
            continue
        found.append(output)
    return found, missing


def _output(name: str, kind: str, raw: Any, directory: str) -> Output | None:
    """The output ``name`` of declared type ``kind`` from its scrap ``raw``; None when it holds no value."""
    path = _file_of(raw)
    if path is not None:
        relative = run_file(directory, path, excluded=(RUN_FILE,))
        if kind in ("File", "Image"):
            return Output(name, file=relative)
        data = read_value_file(directory, relative)
        value = data.decode("utf-8", errors="replace") if kind == "Text" else decode(data)
        return Output(name, value=value, file=relative)
    try:
        value = decode(raw)
    except Undecodable:
        if kind in ("Text", "Tag", "Choice") and isinstance(raw, str):
            return Output(name, value=raw)  # glued as plain text, not simtool's JSON
        raise
    if value is None:
        return None
    if kind == "Image" and isinstance(value, list) and value:
        import numpy
        import PIL.Image

        value = PIL.Image.fromarray(numpy.array(value, dtype="uint8"))  # as simtool's Image.read_from_data
    return Output(name, value=value)
