"""``MCPServer``: the public facade — decorators to register tools, and ``run``/``start``/``stop``.

It only wires collaborators together: component records (``server.components``), the core
(``server.core``), and the transports' runner (imported when serving starts, so building a
server imports no Tornado code paths it does not use).

The serving verbs (``run``, ``start``, ``stop``, ``make_app``, ``call``) are inherited from
:class:`nanohubmcp.serving_verbs.ServingVerbs`; the registration of resources, views, prompts,
completions and skills from :class:`nanohubmcp.resource_verbs.ResourceVerbs`. The facade sits
below the Jupyter layer (which builds ``MCPServer`` objects for notebooks) and never names it;
``run()`` reaches it lazily, in a kernel only (see ``serving_verbs``).

Example:
    ```python
    from nanohubmcp import MCPServer

    server = MCPServer("my-calculator", version="1.0.0")

    @server.tool()
    def add(a: float, b: float) -> float:
        \"\"\"Add two numbers together.\"\"\"
        return a + b

    if __name__ == "__main__":
        server.run(port=8000)
    ```
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .auth.verifiers import resolve as resolve_auth
from .decorators import marked
from .errors import RegistrationError, RegistrationWarning
from .resource_verbs import ResourceVerbs
from .server import apps, registration_checks
from .server.components import Tool
from .server.context import Context
from .server.core import ServerCore
from .server.executors import EXECUTORS, JobExecutor
from .server.methods import install
from .server.modern import state as modern_state
from .server.modern.tool_options import apply_tool_options
from .server.principal import TOOL_SCOPES, parse_scopes
from .server.result_store import DEFAULT_MAX_INLINE_BYTES
from .server.toolcalls import JOB_EXECUTOR, job_result_tool
from .serving_verbs import ServingVerbs

if TYPE_CHECKING:
    from .transports.runner import Runner


def _user_frame() -> int:
    """The ``stacklevel`` of the first caller outside nanohubmcp, so a warning names the user's line."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "nanohubmcp":
        frame, level = frame.f_back, level + 1
    return level


class MCPServer(ResourceVerbs, ServingVerbs):
    """An MCP server built from decorated Python functions.

    Args:
        name: server name (``serverInfo.name``, discovery documents).
        version: server version string.
        instructions: text for the client about how to use this server (``initialize``).
        argument_errors: ``"auto"`` | ``"protocol"`` | ``"tool"`` — how invalid tool arguments
            are reported (auto: -32602 up to 2025-06-18, ``isError`` from 2025-11-25, SEP-1303).
        list_page_size: page size of list results (None: no paging).
        list_changed: advertise and send ``notifications/*/list_changed``.
        workers / job_workers: thread pool sizes for sync tools and async-tool jobs.
        tool_timeout: seconds before a call is answered with a tool error (None: no limit).
        session_idle_seconds / job_ttl_seconds: expiry of idle sessions and finished jobs.
        state_secret: key (str or bytes, >= 16 bytes) signing the 2026-07-28 ``requestState``;
            default a random key per process. Servers sharing one URL must share it.
        max_inline_bytes: a tool result whose JSON (or image) is larger than this many bytes
            (default 256 KiB) is kept as a resource of the server, readable by its caller for
            ``job_ttl_seconds``; the result then carries a ``resource_link`` and a preview. None:
            always inline.
        figure_dpi: dots per inch of returned matplotlib figures (None: each figure's own dpi).
        state_dir: directory of what outlives the process (the job store ``jobs.sqlite3``).
            Default: ``NANOHUBMCP_STATE_DIR``, else ``$SESSIONDIR/nanohubmcp/<name>`` on nanoHUB,
            else ``~/.local/share/nanohubmcp/<name>`` (the per-user data directory).
        job_store: ``"sqlite"`` (default: finished results survive a restart) or ``"memory"``
            (jobs are lost with the process).
        max_jobs / max_jobs_per_owner: jobs the store keeps in total / per client (default
            10,000 / 1,000); a full store refuses new jobs with a message saying so.
        max_job_result_bytes: largest job result kept (as JSON; default 16 MiB).
        job_executor: where ``@async_tool`` jobs run: ``"threads"`` (default), ``"processes"``,
            ``"dask"``, or a ``nanohubmcp.server.executors.JobExecutor``.
        dask_address: Dask scheduler address for ``job_executor="dask"`` (default the
            ``DASK_SCHEDULER_ADDRESS`` environment variable, else a ``LocalCluster`` started on
            first use and closed when the server stops).
        auth: authorization for every HTTP route (MCP 2025-06-18+, Authorization): a verifier
            (``StaticTokenVerifier``, ``JWTVerifier``, or any object with ``verify(token) ->
            Principal | None``, sync or async), a function of the token (returns a Principal,
            a subject string, or None), or a token string. None: ``run(token=...)`` or the
            ``MCP_TOKEN`` environment variable, else no authorization.

    Raises:
        ConfigurationError: an option is out of range (the message says which).
    """

    def __init__(
        self,
        name: str,
        version: str = "1.0.0",
        instructions: str | None = None,
        *,
        argument_errors: str = "auto",
        list_page_size: int | None = None,
        list_changed: bool = True,
        workers: int | None = None,
        job_workers: int | None = None,
        tool_timeout: float | None = None,
        session_idle_seconds: float = 3600.0,
        job_ttl_seconds: float = 3600.0,
        state_secret: str | bytes | None = None,
        max_inline_bytes: int | None = DEFAULT_MAX_INLINE_BYTES,
        figure_dpi: float | None = None,
        state_dir: str | None = None,
        job_store: str = "sqlite",
        max_jobs: int = 10_000,
        max_jobs_per_owner: int = 1_000,
        max_job_result_bytes: int = 16 * 1024 * 1024,
        job_executor: Any = "threads",
        dask_address: str | None = None,
        auth: Any = None,
    ) -> None:
        self.core = ServerCore(
            name,
            version,
            instructions,
            facade=self,
            argument_errors=argument_errors,
            list_page_size=list_page_size,
            list_changed=list_changed,
            workers=workers,
            job_workers=job_workers,
            tool_timeout=tool_timeout,
            session_idle_seconds=session_idle_seconds,
            job_ttl_seconds=job_ttl_seconds,
            max_inline_bytes=max_inline_bytes,
            figure_dpi=figure_dpi,
            state_dir=state_dir,
            job_store=job_store,
            max_jobs=max_jobs,
            max_jobs_per_owner=max_jobs_per_owner,
            max_job_result_bytes=max_job_result_bytes,
            job_executor=job_executor,
            dask_address=dask_address,
        )
        install(self.core)
        modern_state.configure(self.core, state_secret=state_secret)
        self._runner: Runner | None = None
        self.public_url: str | None = None
        self.auth = auth
        if auth is not None:
            resolve_auth(auth)  # a wrong kind of value fails here, not when serving starts

    # -- identity ------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The server name."""
        return self.core.name

    @property
    def version(self) -> str:
        """The server version."""
        return self.core.version

    @property
    def events(self) -> Any:
        """The event bus (``subscribe(callback)``); see ``nanohubmcp.server.events``."""
        return self.core.bus

    # -- registration --------------------------------------------------------------------
    def add_tool(self, fn: Callable[..., Any], *, background: bool = False, **options: Any) -> Tool:
        """Register ``fn`` as a tool (replacing one of the same name); returns the record.

        Options are those of :meth:`tool`. Raises ``RegistrationError`` naming the tool.
        """
        x_mcp_headers, task_support = options.pop("x_mcp_headers", None), options.pop("task_support", None)
        scopes = options.pop("scopes", None)
        executor = options.pop("executor", None)
        view, visibility = options.pop("view", None), options.pop("view_visibility", None)
        if view is not None:
            who = f"tool {options.get('name') or getattr(fn, '__name__', fn)!r}"
            options["meta"] = apps.tool_view_meta(options.get("meta"), view, who, visibility)
        tool = Tool.from_function(fn, background=background, context_types=(Context,), **options)
        tool = apply_tool_options(tool, x_mcp_headers=x_mcp_headers, task_support=task_support)
        if scopes:
            try:
                tool.extra[TOOL_SCOPES] = parse_scopes(scopes)
            except ValueError as exc:
                raise RegistrationError(f"tool {tool.name!r}: {exc}") from None
        if executor is not None:
            if not background:
                raise RegistrationError(f"tool '{tool.name}': executor= is for @async_tool (job) tools only")
            if not isinstance(executor, JobExecutor) and executor not in EXECUTORS:
                raise RegistrationError(
                    f"tool '{tool.name}': executor must be one of {', '.join(EXECUTORS)} or a JobExecutor, "
                    f"not {executor!r}"
                )
            tool.extra[JOB_EXECUTOR] = executor
        registration_checks.refuse_reserved(tool.name, fn)
        for message in registration_checks.tool_warnings(tool, self.core.registry.tools.get(tool.name)):
            warnings.warn(message, RegistrationWarning, stacklevel=_user_frame())
        if background and "get_job_result" not in self.core.registry.tools:
            # The poll tool exists once there is something to poll (earlier package's behaviour).
            self.add_tool(
                job_result_tool(self.core),
                name="get_job_result",
                annotations={"readOnlyHint": True, "idempotentHint": True, "destructiveHint": False},
            )
        self.core.registry.add_tool(tool)
        return tool

    def tool(
        self,
        fn: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        tags: Any = None,
        meta: dict[str, Any] | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        annotations: dict[str, Any] | None = None,
        title: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        x_mcp_headers: dict[str, str] | None = None,
        task_support: str | None = None,
        scopes: Any = None,
        view: str | None = None,
        view_visibility: Any = None,
    ) -> Any:
        """Decorator: register a function as an MCP tool. Usable bare (``@server.tool``) or called.

        The name defaults to the function's, the description to its docstring (without the
        Args section, whose entries describe the parameters), and the input schema is
        generated from the signature (see ``nanohubmcp.schema.describe_function``).

        Args:
            name / description / title: listing fields.
            tags: a set of strings for your own grouping (not sent on the wire).
            meta: ``_meta`` of the tool definition.
            input_schema: a JSON Schema replacing the generated one.
            output_schema: a JSON Schema every result must satisfy (``structuredContent``).
            annotations: ``title``, ``readOnlyHint``, ``destructiveHint``, ``idempotentHint``,
                ``openWorldHint`` (MCP 2025-03-26+).
            x_mcp_headers: ``{"param": "Name"}``: 2026-07-28 clients mirror the parameter as the
                ``Mcp-Param-Name`` HTTP header (string/integer/boolean parameters only).
            task_support: ``"forbidden"`` (default), ``"optional"`` or ``"required"``: whether a
                2026-07-28 call may go on as a task (``ctx.start_task()``); "required" refuses
                clients without the tasks extension.
            scopes: OAuth scopes a caller's token must carry to call the tool (a list, or a
                space-separated string); others get HTTP 403 ``insufficient_scope``. Checked
                only when the server has authorization configured.
            view: the ``ui://`` URI of a view (see :meth:`app_view`) that shows this tool's
                result: the definition gets ``_meta.ui.resourceUri`` (MCP Apps, SEP-1865).
            view_visibility: ``["model", "app"]`` (host default), ``["app"]`` for a tool only the
                view calls, ``["model"]`` for one the view may not call.
        Raises:
            RegistrationError: at decoration time, naming the tool.
        """
        options = {
            "name": name,
            "description": description,
            "tags": tags,
            "meta": meta,
            "input_schema": input_schema,
            "output_schema": output_schema,
            "annotations": annotations,
            "title": title,
            "icons": icons,
            "x_mcp_headers": x_mcp_headers,
            "task_support": task_support,
            "scopes": scopes,
            "view": view,
            "view_visibility": view_visibility,
        }
        if fn is not None:
            self.add_tool(fn, **options)
            return fn

        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            self.add_tool(func, **options)
            return func

        return decorate

    def async_tool(self, fn: Callable[..., Any] | None = None, **options: Any) -> Any:
        """Decorator: a long-running tool that answers at once with a job id.

        The call returns ``{"status": "running", "job_id": ..., "message": ...}``; clients poll
        the built-in ``get_job_result(job_id)`` tool (or use MCP Tasks). Takes the options of
        :meth:`tool`, plus ``executor=`` (``"threads"``, ``"processes"``, ``"dask"`` or a
        ``JobExecutor``) to run this tool's jobs somewhere other than the server's
        ``job_executor``.
        """
        if fn is not None:
            self.add_tool(fn, background=True, **options)
            return fn

        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            self.add_tool(func, background=True, **options)
            return func

        return decorate

    def remove_tool(self, name: str) -> bool:
        """Unregister a tool; True when it existed (clients get ``list_changed``)."""
        return self.core.registry.tools.remove(name)

    def include(self, obj: Any) -> int:
        """Register every function marked with the module-level decorators in ``obj``.

        ``obj`` may be a module, a class or instance, or an iterable of functions. Returns how
        many components were registered.
        """
        if isinstance(obj, (list, tuple, set)):
            candidates = list(obj)
        else:
            candidates = [getattr(obj, n) for n in dir(obj) if not n.startswith("__")]
        count = 0
        for fn in candidates:
            mark = marked(fn)
            if mark is None:
                continue
            kind, options = mark
            if kind == "tool":
                self.add_tool(fn, **options)
            elif kind == "async_tool":
                self.add_tool(fn, background=True, **options)
            elif kind == "resource":
                opts = dict(options)
                self.add_resource(fn, opts.pop("uri"), **opts)
            elif kind == "prompt":
                self.add_prompt(fn, **options)
            count += 1
        return count
