"""``add_sim2l``: a Sim2L notebook as one MCP tool (and its saved files as resources).

The tool's input schema comes from the ``%%yaml INPUTS`` cell (:mod:`.schema`), its description
from the ``DESCRIPTION`` cell and the ``%%yaml OUTPUTS`` cell. A call checks its arguments with
simtool's parameter types (:mod:`.values`), and answers from the stored run with the same inputs
when there is one (:mod:`.store`); otherwise papermill runs the notebook (:mod:`.execute`) and the
outputs it saved become the result (:mod:`.results`). Files the run saved, its input files and
its executed notebook are readable at ``sim2l://<tool>/<run>/<path>`` (a resource template of the
server; see :meth:`Sim2LTool.read_file`).

The optional libraries (papermill, scrapbook, simtool, pint; ``pip install 'nanohub-mcp[sim2l]'``)
are imported when a Sim2L is registered, never when ``nanohubmcp`` is imported.
"""

from __future__ import annotations

import functools
import mimetypes
import os
import re
import tempfile
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import ConfigurationError, RegistrationError, ResourceNotFound, ResultTooLarge, ToolError
from ...protocol.blocks import ResourceContent
from ...protocol.counts import counted
from ...protocol.seconds import limit_seconds
from ...server.calls.context import Context
from ...server.jobs.record import PROVENANCE_META, PROVENANCE_URI_PREFIX
from ...server.provenance.code_files import WATCHED, WatchedCode
from ...server.provenance.handover import CACHE_META
from ...server.registry.components import STOPS_WHEN_CANCELLED
from ...server.results import DEFAULT_MAX_ANSWER_BYTES
from ...server.wire.left_files import LeftFileRefused, read_left_file
from ...server.wire.owned_folders import warn_shared
from .edits import notebook_code, refuse_edited
from .execute import read_outputs, run_notebook
from .kernels import KernelStop, stop_on_cancel
from .notebook import Sim2LSpec, read_sim2l
from .results import shape_result
from .schema import input_schema, outputs_text
from .store import DEFAULT_MAX_RUNS, RUN_FILE, RunStore, run_id, sweep_runs
from .values import prepare

if TYPE_CHECKING:
    from ...runtime import JobRecords, ResultSettings
    from ...server.registry.components import Tool
    from ...server.registry.resources import Resource, ResourceTemplate

NOTEBOOK_MIME = "application/x-ipynb+json"
"""The media type of a Jupyter notebook (an executed run's ``<name>.ipynb``)."""


class Sim2LRuntime(Protocol):
    """What registering and running a Sim2L reads of the server's runtime (``server.runtime``)."""

    @property
    def jobs(self) -> JobRecords:
        """The job store: its state directory holds the runs, when it outlives the process."""
        ...

    @property
    def results(self) -> ResultSettings:
        """How results are shaped: how large an output is inlined, how large a file a read returns."""
        ...

    @property
    def job_executor(self) -> str:
        """The name of the executor a job tool runs on."""
        ...


class Sim2LHost(Protocol):
    """What registering a Sim2L notebook uses of the server (an ``MCPServer``)."""

    @property
    def runtime(self) -> Sim2LRuntime:
        """What the server lets the layers built on it read (its job store names the state directory)."""
        ...

    def add_tool(self, fn: Callable[..., Any], *, background: bool = False, **options: Any) -> Tool:
        """Register ``fn`` as a tool."""
        ...

    def add_resource(self, fn: Callable[..., Any], uri: str, **options: Any) -> Resource | ResourceTemplate:
        """Register ``fn`` as the resource (or template) at ``uri``."""
        ...


__all__ = ["Sim2LTool", "add_sim2l", "tool_name"]


def tool_name(spec: Sim2LSpec) -> str:
    """The Sim2L's name as an MCP tool name (SEP-986 characters; others become ``_``)."""
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", spec.name)[:128] or "sim2l"


def _load_libraries() -> None:
    """Import the ``sim2l`` libraries now: at registration, not in a client's first call (simtool's
    import takes seconds: pint, mendeleev, papermill, scrapbook)."""
    try:
        import papermill  # noqa: F401
        import simtool  # noqa: F401
    except ImportError as exc:
        raise RegistrationError(
            f"serving a Sim2L needs {exc.name or 'the sim2l libraries'}: pip install 'nanohub-mcp[sim2l]'"
        ) from None


class Sim2LTool:
    """What a Sim2L tool does when called, and where its runs are kept: the function registered for
    it (``tool(ctx, **arguments)``).

    It pickles as the notebook's declarations and its settings (the stored runs' directory among
    them), so a job may run it in another process or on another machine (the ``processes``,
    ``dask`` and ``slurm`` executors), which makes its run store and reads the notebook's code
    there; the run directory must then be one both reach (the state directory is, for Slurm).

    Attributes:
        spec: the notebook's declarations.
        name: the tool's name.
        store: its stored runs (``store.runs`` counts the papermill runs made in this process).
    """

    def __init__(
        self,
        spec: Sim2LSpec,
        name: str,
        store: RunStore,
        *,
        kernel_name: str | None,
        cell_timeout: float | None,
        cache: bool,
        description: str | None = None,
    ) -> None:
        self.spec = spec
        self.name = name
        self.store = store
        self.kernel_name = kernel_name
        self.cell_timeout = cell_timeout
        self.cache = cache
        self.max_inline_bytes: int | None = None  # the server's, set by add_sim2l
        self.code: WatchedCode | None = None  # the notebook, watched (set by add_sim2l): its digest now
        self.__name__ = name
        self.__doc__ = description
        # Provenance's code (code_facts.code_of): the notebook's code cells and kernel, named by its path
        self.__module__, self.__qualname__ = spec.path, name
        self.described = f"the Sim2L notebook {spec.path}"  # (a warning naming what a tool replaced says this)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        store: RunStore = state.pop("store")
        state["_store"] = (store.root, store.max_runs)  # its locks are this process's
        state["code"] = self.code is not None  # watched again where it runs
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        root, max_runs = state.pop("_store")
        watched = state.pop("code")
        self.__dict__.update(state)
        self.store = RunStore(root, self.spec.name, self.spec.revision, max_runs=max_runs)
        self.code = WatchedCode(functools.partial(notebook_code, self.spec.path)) if watched else None

    def check(self, arguments: dict[str, Any]) -> None:
        """Refuse what the run would refuse (raises ``InvalidArguments``, worded as the run's): a job
        tool's arguments are checked with simtool's types (units, limits, File and Image names)
        before the job is made. The server runs it on a worker thread (``check_off_loop``): pint
        converts a large array's units one element at a time."""
        prepare(self.spec, arguments, self.name)

    def __call__(self, ctx: Context, **arguments: Any) -> Any:
        """Run (or answer from the stored run); the ``CallToolResult`` of :mod:`.results`."""
        digest = self.spec.digest
        if self.code is not None:  # an edited INPUTS/OUTPUTS cell is refused, as Rappture's edited <input>
            now = self.code.current().detail
            refuse_edited(self.spec, now, self.name)
            digest = now["digest"]
        prepared = prepare(self.spec, arguments, self.name)
        identity = {
            "sim2l": self.spec.name,
            "revision": self.spec.revision,
            "notebook": digest,
            "inputs": prepared.identity,
        }
        run = run_id(identity)
        with self.store.claim(run):
            found = self.store.find(run) if self.cache else None
            if found is not None:
                ctx.info(f"Sim2L {self.spec.name}: the stored run {run[:12]} has these inputs")
                recorded = getattr(ctx, "provenance_id", None) is not None
                return self._answer(run, found, cached=True, produced=self.store.record_of(found) if recorded else None)
            if ctx.is_cancelled():  # while it waited for an identical call's run (stopped, not stored): none of its own
                raise ToolError(f"the Sim2L tool '{self.name}' was cancelled before its run started")
            # papermill's cell-by-cell progress bar (tqdm) reaches the client as MCP progress
            ctx.info(f"Sim2L {self.spec.name}: running the notebook with papermill (run {run[:12]})")
            scratch, started = self.store.scratch(), time.time()
            stop = KernelStop(scratch)
            unwatch = stop_on_cancel(ctx, stop)  # a cancelled call's kernel is killed, not left computing its cell
            try:
                run_notebook(self.spec, prepared, scratch, kernel_name=self.kernel_name, cell_timeout=self.cell_timeout,
                             stop=stop, tool=self.name)
                self.store.runs += 1
                record = getattr(ctx, "provenance_id", None)  # (a job run elsewhere: its ctx keeps no record)
                directory = self.store.keep(scratch, run, identity, started, replace=not self.cache,
                                            record=PROVENANCE_URI_PREFIX + record if record else None)
            except BaseException:
                self.store.discard(scratch)
                raise
            finally:
                unwatch()
            return self._answer(run, directory, cached=False)

    def _answer(self, run: str, directory: str, *, cached: bool, produced: str | None = None) -> Any:
        """The result of the run in ``directory``. An answer from a stored run says so as the result
        cache's does (``_meta`` ``{"hit": true}``; a run kept for later calls ``{"hit": false}``) and names
        the record of the call that ran it (``produced``), which the provenance layer takes for this call's
        record (``cached_from``)."""
        outputs, missing = read_outputs(self.spec, directory, self.name)
        meta: dict[str, Any] | None = None
        if cached:
            meta = {CACHE_META: {"hit": True}, **({PROVENANCE_META: produced} if produced else {})}
        elif self.cache:  # a run kept for the next identical call: the record's cache is "miss" (cache=False: none)
            meta = {CACHE_META: {"hit": False}}
        return shape_result(
            self.spec,
            self.name,
            run,
            directory,
            outputs,
            missing,
            cached=cached,
            max_inline_bytes=self.max_inline_bytes,
            meta=meta,
        )

    def read_file(self, run: str, path: str, limit: int | None = DEFAULT_MAX_ANSWER_BYTES) -> Any:
        """A file of a stored run (the ``sim2l://`` resource template's function): one the
        notebook saved, ``outputs.json`` when the result links it, or the executed notebook
        (``<name>.ipynb``, as ``application/x-ipynb+json`` text). The run's own record
        (``run.json``: identity and times) is the store's, not a file of the run. ``limit``: its most
        bytes (the server's ``max_result_bytes`` when the read comes; None: any size).

        Raises:
            ResourceNotFound: no such run, or no such file in it (-32002; MCP 2025-11-25,
                Server § Resources § Error handling).
            ResultTooLarge: the file is over ``limit`` bytes (looked at before it is read).
        """
        try:
            directory = self.store.find(run)
        except ValueError as exc:
            raise ResourceNotFound(str(exc)) from None
        if directory is None:
            raise ResourceNotFound(f"no stored run {run} of the Sim2L tool '{self.name}'")
        if "\x00" in path:  # "%00" in the URI: no file name holds NUL (realpath raises ValueError)
            raise ResourceNotFound(f"the run {run[:12]} saved no file {path!r}")
        root = os.path.realpath(directory)
        target = os.path.realpath(os.path.join(directory, path))
        if (not target.startswith(root + os.sep) or not os.path.isfile(target)
                or target == os.path.join(root, RUN_FILE)):
            raise ResourceNotFound(f"the run {run[:12]} saved no file {path!r}")
        try:  # (the real path: no link is left to follow; a file swapped for one meanwhile is refused)
            data = read_left_file(target, limit)  # sized before it is read: a run's files follow its arguments
        except LeftFileRefused as exc:
            if exc.reason != "size":
                raise ResourceNotFound(f"the run {run[:12]} saved no file {path!r}") from None
            raise ResultTooLarge(f"the file {path!r} of the run {run[:12]} is {exc.size} bytes, more than the "
                                 f"{limit} a resources/read returns (the server's max_result_bytes; raise it to "
                                 "read the file)") from None
        except FileNotFoundError:
            raise ResourceNotFound(f"the run {run[:12]} saved no file {path!r}") from None
        mime = NOTEBOOK_MIME if target.endswith(".ipynb") else mimetypes.guess_type(target)[0]
        mime = mime or "application/octet-stream"
        if mime.startswith("text/") or mime in ("application/json", "application/xml", NOTEBOOK_MIME):
            try:
                return ResourceContent(text=data.decode("utf-8"), mime_type=mime)  # the type its link names
            except UnicodeDecodeError:
                pass
        return ResourceContent(blob=data, mime_type=mime)


def _runs_root(server: Sim2LHost, results_dir: str | os.PathLike[str] | None) -> str:
    if results_dir is not None:
        return os.path.abspath(os.fspath(results_dir))
    jobs = server.runtime.jobs
    if jobs.persistent:
        return os.path.join(jobs.directory, "sim2l")
    return tempfile.mkdtemp(prefix="nanohubmcp-sim2l-")  # job_store="memory": nothing outlives the process


def add_sim2l(
    server: Sim2LHost,
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    description: str | None = None,
    background: bool = False,
    results_dir: str | os.PathLike[str] | None = None,
    kernel_name: str | None = None,
    cell_timeout: float | None = None,
    cache: bool = True,
    max_stored_runs: int | None = DEFAULT_MAX_RUNS,
) -> Tool:
    """Serve the Sim2L notebook at ``path`` as a tool of ``server``; returns the tool record.

    Args:
        server: the ``MCPServer``.
        path: the notebook (``.ipynb`` with ``%%yaml INPUTS``/``OUTPUTS`` cells and a
            ``parameters`` cell).
        name: the tool's name (default: the Sim2L's name).
        description: the tool's description (default: the notebook's ``DESCRIPTION`` and its
            outputs).
        background: run each call as a durable job (``@async_tool``: answered at once with a job
            id; the result from ``get_job_result`` or MCP Tasks). For Sim2Ls that run long. The job
            runs on the server's ``job_executor`` (threads, processes, Dask, Slurm; not ``submit``).
        results_dir: where runs are stored (default ``<state dir>/sim2l``, kept across restarts;
            a temporary directory with ``job_store="memory"``).
        kernel_name: the Jupyter kernel papermill runs the notebook in (default: the notebook's).
        cell_timeout: seconds one cell may run (default None, ``inf`` or one past any wait, ``1e308``: no
            limit, as a Sim2L may compute for hours); any real number above 0, fractions kept (``2.5``,
            ``Fraction(5, 2)``, ``0.5``: the cell is stopped once it has run that long, not a whole second later).
            A cell over it stops the run (its kernel) and ends the call
            with :class:`~nanohubmcp.errors.ToolTimeout` (REST 504), naming the cell, the limit and the options
            raising it. A cancelled call's kernel is killed whatever the limit.
        cache: answer identical inputs from the stored run (default True); False runs every call.
        max_stored_runs: stored runs kept (default, or None, 1,000; any whole number, ``5.0`` too, as every
            count); more removes the least recently used.

    Raises:
        RegistrationError: not a Sim2L (the message says what is missing), the ``sim2l``
            libraries are not installed, a ``cell_timeout`` or ``max_stored_runs`` it cannot take, or
            ``background=True`` on a server whose ``job_executor`` is ``"submit"`` (its tools
            return the command ``submit`` runs; a Sim2L runs its notebook itself).
    """
    cell_timeout = limit_seconds(cell_timeout, f"Sim2L {path}: cell_timeout", RegistrationError)
    try:
        kept_runs = counted("max_stored_runs", max_stored_runs)
    except ConfigurationError as exc:
        raise RegistrationError(f"Sim2L {path}: {exc}") from None
    spec = read_sim2l(path)
    _load_libraries()
    tool_id = name or tool_name(spec)
    executor = server.runtime.job_executor
    if background and executor == "submit":
        raise RegistrationError(
            f"Sim2L tool '{tool_id}': a job tool (background=True, --async) cannot run on the server's 'submit' "
            "executor, whose tools return the command that submit runs; serve it with job_executor 'threads', "
            "'processes', 'dask' or 'slurm', or without background=True")
    try:
        store = RunStore(_runs_root(server, results_dir), spec.name, spec.revision,
                         max_runs=kept_runs or DEFAULT_MAX_RUNS)
    except ValueError as exc:
        raise RegistrationError(f"Sim2L {spec.name}: {exc}") from None
    sweep_runs(store.root)  # the kernels killed servers (or workers) left running
    warn_shared(store.root, "Sim2L results_dir")  # a group may rename this server's runs away: logged at start
    if description is None:
        revision = "" if spec.revision == "local" else f" {spec.revision}"
        description = (
            f"{spec.description or 'A Sim2L notebook'} (Sim2L {spec.name}{revision}, run with papermill).\n"
            f"Outputs:\n{outputs_text(spec)}"
        )
    runner = Sim2LTool(spec, tool_id, store, kernel_name=kernel_name, cell_timeout=cell_timeout, cache=cache,
                       description=description)
    runner.code = watched = WatchedCode(functools.partial(notebook_code, spec.path))
    runner.max_inline_bytes = server.runtime.results.max_inline_bytes
    # Every call's arguments are held to simtool's types before it runs: a refusal is the argument check's
    # (traced as validate_arguments), a job tool's before its job is made; on a worker thread (pint)
    checks = {"check_arguments": runner.check, "check_off_loop": True}
    record = server.add_tool(
        runner,
        name=tool_id,
        description=description,
        input_schema=input_schema(spec),
        background=background,
        annotations={
            "title": spec.name,
            "readOnlyHint": True,
            "idempotentHint": True,
            "destructiveHint": False,
            "openWorldHint": False,
        },
        **checks,
    )

    def read_file(run: str, path: str) -> Any:
        return runner.read_file(run, path, server.runtime.results.max_result_bytes)

    server.add_resource(
        read_file,
        f"sim2l://{tool_id}/{{run}}/{{+path}}",
        name=f"{tool_id}-files",
        description=(f"Files of stored runs of the Sim2L {spec.name}: those the notebook saved (linked from "
                     f"results), its input files, and the executed notebook {os.path.basename(spec.name)}.ipynb"),
    )
    record.extra["sim2l"] = runner
    record.extra[STOPS_WHEN_CANCELLED] = True  # a cancel (tool_timeout's too) kills the run's kernel
    record.extra[WATCHED] = watched  # the code hash follows the notebook when it is edited
    return record

