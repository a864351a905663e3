"""``MCPServer``: the public facade — decorators to register tools, and ``run``/``start``/``stop``.

It holds the public signatures and their documentation, and hands each call to one of three
objects it composes: the core (``server.core``), a :class:`~nanohubmcp.registration.Registrar`
that turns functions into component records on the core's registry, and a
:class:`~nanohubmcp.serving.Serving` that owns the runner while serving (the
transports are imported when serving starts, so building a server imports no Tornado code). It hands
out a fourth, ``server.runtime`` (:class:`~nanohubmcp.runtime.Runtime`): what the notebook layer and the
sources of tools read and set of the core, so they reach nothing through ``server.core``.
The facade sits below the Jupyter layer (which builds ``MCPServer`` objects for notebooks) and
never names it; ``run()`` reaches it lazily, in a kernel only (see ``nanohubmcp.serving``).

Its length is the public reference, not work: about two thirds of it are signatures and
docstrings, which stay in the class body because the API reference (mkdocstrings) reads them from
the source there; each method's body is a line or two handing the call on. Splitting the class
across mixins or forwarding attributes would divide that text without dividing any responsibility.

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

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

from .auth.verifiers import resolve as resolve_auth
from .errors import ConfigurationError, RegistrationError
from .registration import Registrar, decorating
from .runtime import Runtime
from .server.app_import import command_line
from .server.calls.workers import MAX_ABANDONED
from .server.core import ServerCore
from .server.provenance.tool_options import CACHE
from .server.provenance.tool_options import resolve_enabled as resolve_provenance
from .server.registry.components import Tool
from .server.results import (
    DEFAULT_MAX_ANSWER_BYTES,
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_INLINE_BYTES,
    DEFAULT_STORE_BYTES,
    DEFAULT_STORE_BYTES_PER_OWNER,
)
from .serving import (
    DEFAULT_EXIT_GRACE_SECONDS,
    DEFAULT_MAX_BUFFERED_BYTES,
    DEFAULT_MAX_REQUEST_BYTES,
    DEFAULT_MAX_UNSENT_BYTES,
    Serving,
)
from .serving.banner import one_line_if_uncaught
from .state import resolve as resolve_state_url

if TYPE_CHECKING:
    from pathlib import Path

    import tornado.web

    from .server.direct import CallResult
    from .server.executors import JobExecutor
    from .server.middleware import Middleware
    from .server.registry.prompts import Prompt
    from .server.registry.resources import Resource, ResourceTemplate
    from .server.wire.events import EventBus

_Self = TypeVar("_Self", bound="MCPServer")


class MCPServer:
    """An MCP server built from decorated Python functions.

    Each byte limit (``max_inline_bytes``, ``max_result_bytes``, ``max_event_bytes``, ``max_kept_bytes``,
    ``max_kept_bytes_per_owner``, ``max_job_result_bytes``, ``cache_max_bytes``) and each count (``max_jobs``,
    ``max_jobs_per_owner``, ``max_stuck_calls``, ``workers``, ``job_workers``, ``list_page_size``; ``run(workers=)``)
    takes any whole number as the int, as ``%config NanohubMCP`` does: numpy's ``int64``, ``5.0``, ``1e5``, ``1e30`` (an
    int past a float's range: a bound nothing reaches); a bool, ``5.5``, NaN, inf, a string or a ``Decimal`` is refused
    naming the setting, what it takes, the value and what to write (:mod:`nanohubmcp.protocol.whole_numbers`). Only
    ``max_inline_bytes``, ``max_result_bytes`` and ``max_event_bytes``, whose None is no limit, take ``float("inf")``:
    as None.

    .. versionchanged:: 1.0
       The counts take any whole number (``max_jobs=5.0``, ``numpy.int64(5)``), as the byte limits did; they were
       refused as "must be a positive integer". ``float("inf")`` is no limit where None is (it was refused).

    Args:
        name: server name (``serverInfo.name``, discovery documents).
        version: server version string.
        instructions: text for the client about how to use this server (``initialize``).
        argument_errors: ``"auto"`` | ``"protocol"`` | ``"tool"`` — how invalid tool arguments
            are reported (auto: -32602 up to 2025-06-18, ``isError`` from 2025-11-25, SEP-1303;
            protocol: always -32602; tool: always ``isError``).
        list_page_size: page size of ``tools/list``, ``resources/list``, ``resources/templates/list``,
            ``prompts/list`` and ``tasks/list`` results, each page's ``nextCursor`` leading to the next; at least 1.
            None (the default): a registry list is one page by count, and ``tasks/list`` (the tasks clients made, up
            to ``max_jobs_per_owner`` a principal) pages 100 tasks. Every list page, page size or not and on every
            transport, also ends within ``max_event_bytes`` (1 MiB; None: 1 MiB still) of JSON, with ``nextCursor``
            (so 1,000 failed tasks with long messages come ~15 a page, not as one 65 MB answer); one entry alone
            larger is a page of its own, or, answered as one SSE event, -32603 naming it. A cursor is opaque and sealed
            (:mod:`~nanohubmcp.server.handlers.cursors`): one the server did not issue for that list (and, for
            ``tasks/list``, that session), or whose entry was removed or registered again since, is -32602.
        list_changed: advertise and send ``notifications/*/list_changed``.
        workers: thread pool size for sync tools (default ``min(32, cpu + 4)``); two more
            threads serve the functions known to return quickly (a quick lane). A positive integer or None.
        job_workers: jobs run at once: threads of the "threads" executor, processes of "processes"
            (no more than the CPUs there); a positive integer, None for ``workers``.
        tool_timeout: seconds before a call is answered with a tool error: a number of at least 0.001
            (a millisecond, the shortest wait the event loop times; any real number, a ``Fraction`` or
            numpy's too, read as a float), or None (or ``float("inf")``) for no limit; anything else (0, a
            negative number, NaN, ``1e-300``, a string, a ``Decimal``) is a ``ConfigurationError`` here. A
            sync function still running then is abandoned: its worker serves other calls and the function
            finishes on a thread of its own; an ``async def`` one is cancelled at its next ``await``. An
            ``async def`` function must not block (``time.sleep``, a solver call): that holds the event loop,
            every call waits, and no timeout can interrupt it; it is answered as timed out when it ends, and
            logged (write it as a plain ``def``, or ``await asyncio.to_thread(...)`` the blocking part).
        max_stuck_calls: most such abandoned calls still running at once (default 64;
            ``server.runtime.stuck_calls`` counts them). At the limit a timed-out call keeps its
            worker, and new calls of sync functions are refused at once as busy (``ToolBusy``:
            REST 503 with ``Retry-After``) until one of them returns. 0: no call is abandoned (a
            timed-out call keeps its worker; no thread beyond the pool).
        inline_quick_calls: let a sync function run on the event loop itself, not a worker thread, for
            arguments it already answered quickly on the pool (its last 5 calls there each under 0.1 ms of CPU;
            the arguments' JSON text, up to 512 characters, compared type and all: ``1``, ``true`` and ``1.0``
            differ). It gains a trivial call the hand-over to a thread and back. The risk: a function that then
            blocks or waits on something outside its arguments (a lock, a ``threading.Event``, a file, the
            network) holds every client, and ``tool_timeout`` does not bound it. False (the default): every sync
            tool, prompt, resource and completer runs on a worker thread, within ``tool_timeout``.
        session_idle_seconds: expiry of idle sessions.
        job_ttl_seconds: how long a finished job stays readable (a positive number of seconds, at least
            0.001 and at most ten years: 315,576,000).
        state_secret: key (str or bytes, >= 16 bytes) signing the 2026-07-28 ``requestState``;
            default a random key per process. Servers sharing one URL must share it.
        max_inline_bytes: a tool result whose JSON (or image) is larger than this many bytes
            (default 256 KiB) is kept as a resource of the server, readable by its caller for
            ``job_ttl_seconds``; the result then carries a ``resource_link`` and a preview. None
            (or ``float("inf")``, as for ``tool_timeout``; an int past a float's range, ``10**400``, is
            a bound nothing reaches): always inline.
        max_result_bytes: most bytes of JSON one tool result may put in an answer (default 256 MiB;
            None or ``float("inf")``: no limit): every REST answer (it carries all of the
            data), and an MCP result not kept as a resource (``max_inline_bytes=None``, a tool with an
            output schema). A larger result fails the call with a message naming the limit (``isError``;
            REST 500), found before an array or table is encoded when its size is already known to be over.
        max_event_bytes: most bytes of one server-sent event an answer or a question to the client goes in
            (default 1 MiB, 1048576: the official ``mcp`` Python client drops a larger event, and the call with it;
            at least 1 MiB; None or ``float("inf")``: no bound). An answer goes as an event over the legacy SSE
            transport, and over Streamable HTTP once a progress or log message of the request went first. Such an
            answer links its data over a quarter of the bound (even with a larger ``max_inline_bytes``); one still
            over the bound (a tool with an output schema, a ``tasks/result``, a ``resources/read``, a listen's
            completed task) is answered as an error naming its size, and an elicitation or sampling request over it
            is refused in the tool. Raise it, or set None, for clients reading larger events (the TypeScript SDK,
            most others): a 3 MiB resource then reads whole over legacy SSE. Progress, log and error texts are cut
            at 65,536 characters whatever it is (a separate rule, within 1 MiB).
        max_kept_bytes: most bytes of large results the server keeps as resources, for all
            callers (default 512 MiB): also the largest one result kept (a larger one fails its
            call saying so). When it is full, the oldest kept results are evicted.
        max_kept_bytes_per_owner: most bytes of large results one caller keeps (a principal, else
            a session; default 128 MiB): their own oldest results are evicted to keep a newer one,
            and reading an evicted link answers "Resource evicted: ..." (-32002). Also the most bytes of
            inputs (arguments pickled) its waiting batch jobs (``slurm``, ``submit``) keep in their folders:
            a call past it makes no job and answers as a full ``max_jobs_per_owner`` share does.
        figure_dpi: dots per inch of returned matplotlib figures, from 1 to 2400 (None: each figure's
            own dpi); a bool, NaN or a number outside the range is a ``ConfigurationError``.
        state_dir: directory of what outlives the process (the job store ``jobs.sqlite3``).
            Default: ``NANOHUBMCP_STATE_DIR``, else ``$SESSIONDIR/nanohubmcp/<name>`` on nanoHUB,
            else ``~/.local/share/nanohubmcp/<name>`` (the per-user data directory).
        job_store: ``"sqlite"`` (default: finished results survive a restart) or ``"memory"``
            (jobs are lost with the process).
        max_jobs: jobs the store keeps in total (default 10,000); a full store refuses new jobs
            with a message saying so.
        max_jobs_per_owner: jobs the store keeps per client (default 1,000).
        max_job_result_bytes: largest job result kept (as JSON; default 16 MiB).
        job_executor: where ``@async_tool`` jobs run: ``"threads"`` (default), ``"processes"``,
            ``"dask"``, ``"slurm"`` (Slurm batch jobs), ``"submit"`` (nanoHUB's ``submit``; the
            tool returns a ``nanohubmcp.nanohub.SubmitRun``), or a
            ``nanohubmcp.server.executors.JobExecutor``.
        dask_address: Dask scheduler address for ``job_executor="dask"`` (default the
            ``DASK_SCHEDULER_ADDRESS`` environment variable, else a ``LocalCluster`` started on
            first use and closed when the server stops).
        executor_options: options of the job executors, by executor name
            (``{"slurm": {"partition": "debug", "time": "1:00:00"}}``); options at the top level
            are for ``job_executor``. A tool's own ``executor_options=`` go over these. The
            options of each executor are in its module (``nanohubmcp.server.executors.slurm``,
            ``...submit_run``); an unknown one is a ``ConfigurationError``.
        auth: authorization for every HTTP route (MCP 2025-06-18+, Authorization): a verifier
            (``StaticTokenVerifier``, ``JWTVerifier``, or any object with ``verify(token) ->
            Principal | None``, sync or async), a function of the token (returns a Principal,
            a subject string, or None), or a token string. None: ``run(token=...)`` or the
            ``MCP_TOKEN`` environment variable, else no authorization. Over stdio (no HTTP
            request to carry a token) a server with ``auth`` takes the caller's token from
            ``$MCP_TOKEN``, checks it once before serving and refuses to start without a valid
            one; every request then has that principal and its scopes (MCP 2025-11-25, Basic §
            Authorization: stdio takes credentials from the environment), until the token's
            expiry (a JWT's ``exp`` plus the verifier's leeway), after which requests are refused
            with -32600 "Unauthorized: ...".
        state_url: where what several processes share lives: None (default:
            ``NANOHUBMCP_STATE_URL``, else this process's memory, jobs in the state directory),
            ``"sqlite:///DIR"`` (the job store in DIR) or ``"redis://[:password@]HOST:6379/0"``
            (also ``rediss://`` for TLS): sessions, stream event logs, pending server→client
            requests and subscriptions in Redis, so many processes serve one endpoint without
            sticky sessions (``run(workers=N)``, a load balancer). Needs the ``redis`` extra.
        tracing: OpenTelemetry spans and metrics for every request (the MCP semantic
            conventions): ``True``, ``False``, or ``"auto"`` — on when the application has
            configured an OpenTelemetry tracer provider (or runs under ``opentelemetry-instrument``)
            by the time the server starts serving. None (default): the
            ``NANOHUBMCP_TRACING`` environment variable, else ``"auto"``. Needs the ``otel``
            extra; the server never configures exporters (see docs/how-to/tracing.md).
        provenance: record every tool call and job in the state store, named in each result's
            ``_meta["io.nanohub/provenance"]`` (default: ``NANOHUBMCP_PROVENANCE``, else on); a
            tool's own ``provenance=False`` turns it off for that tool. See
            ``docs/how-to/provenance.md``.
        cache_max_bytes: bytes of results the result cache keeps for tools registered with
            ``cache=True`` (default 256 MiB; least recently used dropped first).

    Raises:
        ConfigurationError: an option is out of range (the message says which). A byte limit's or a count's
            names the value and what to write: "max_inline_bytes must be a number of bytes >= 0, or None to
            always inline, not 5.5; write a whole number: 6", "max_jobs must be a number of jobs >= 1, not '5';
            write it as a number: 5" (a bool, numpy's too, NaN, inf or a ``Decimal`` alike).
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
        max_stuck_calls: int = MAX_ABANDONED,
        inline_quick_calls: bool = False,
        session_idle_seconds: float = 3600.0,
        job_ttl_seconds: float = 3600.0,
        state_secret: str | bytes | None = None,
        max_inline_bytes: int | None = DEFAULT_MAX_INLINE_BYTES,
        max_result_bytes: int | None = DEFAULT_MAX_ANSWER_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_kept_bytes: int = DEFAULT_STORE_BYTES,
        max_kept_bytes_per_owner: int = DEFAULT_STORE_BYTES_PER_OWNER,
        figure_dpi: float | None = None,
        state_dir: str | None = None,
        job_store: str = "sqlite",
        max_jobs: int = 10_000,
        max_jobs_per_owner: int = 1_000,
        max_job_result_bytes: int = 16 * 1024 * 1024,
        job_executor: str | JobExecutor = "threads",
        dask_address: str | None = None,
        executor_options: dict[str, Any] | None = None,
        auth: object = None,
        state_url: str | None = None,
        tracing: bool | str | None = None,
        provenance: bool | None = None,
        cache_max_bytes: int = 256 * 1024 * 1024,
    ) -> None:
        self.state_secret = state_secret
        # `nanohubmcp run APP --state-dir/--state-url` importing this file: the command line wins.
        state_dir = command_line("state_dir", state_dir)
        state_url = command_line("state_url", state_url)
        try:
            self.core = ServerCore(
                name,
                version,
                instructions,
                argument_errors=argument_errors,
                list_page_size=list_page_size,
                list_changed=list_changed,
                workers=workers,
                job_workers=job_workers,
                tool_timeout=tool_timeout,
                max_stuck_calls=max_stuck_calls,
                inline_quick_calls=inline_quick_calls,
                session_idle_seconds=session_idle_seconds,
                job_ttl_seconds=job_ttl_seconds,
                max_inline_bytes=max_inline_bytes,
                max_result_bytes=max_result_bytes,
                max_event_bytes=max_event_bytes,
                max_kept_bytes=max_kept_bytes,
                max_kept_bytes_per_owner=max_kept_bytes_per_owner,
                figure_dpi=figure_dpi,
                state_dir=state_dir,
                job_store=job_store,
                max_jobs=max_jobs,
                max_jobs_per_owner=max_jobs_per_owner,
                max_job_result_bytes=max_job_result_bytes,
                job_executor=job_executor,
                dask_address=dask_address,
                state_url=resolve_state_url(state_url),
                executor_options=executor_options,
                state_secret=state_secret,
                tracing=tracing,
                provenance=resolve_provenance(provenance),
                cache_max_bytes=cache_max_bytes,
            )
        except ConfigurationError as exc:  # a bad environment variable: one line, exit status 2, when uncaught
            if exc.variable is not None:
                one_line_if_uncaught(exc, status=2)
            raise
        self._registrar = Registrar(self.core)
        self._runtime = Runtime(self.core)
        self._serving = Serving()
        self._token_requirement: str | None = None
        self.auth = auth
        if auth is not None:
            resolve_auth(auth)  # a wrong kind of value fails here, not when serving starts

    @property
    def name(self) -> str:
        """The server name."""
        return self.core.name

    @property
    def version(self) -> str:
        """The server version."""
        return self.core.version

    @property
    def events(self) -> EventBus:
        """The event bus (``subscribe(callback)``); see ``nanohubmcp.server.wire.events``."""
        return self.core.bus

    @property
    def runtime(self) -> Runtime:
        """What the notebook layer and the sources of tools read and set of the server: its components, jobs,
        provenance records and stuck calls, and the settings a notebook changes while serving (see
        :class:`~nanohubmcp.runtime.Runtime`)."""
        return self._runtime

    @property
    def public_url(self) -> str | None:
        """The public URL advertised while serving (``run(public_url=...)``) as the banner and the discovery
        documents write it: stripped, one trailing ``/``, a zero-padded port as its number
        (``" https://h.example:0443/me"`` → ``"https://h.example:443/me/"``); None when none was given or
        not serving.

        .. versionchanged:: 1.0
           The normalised URL, and None once stopped; it was the argument as given, kept after ``stop()``.
        """
        return self._serving.public_url

    # -- tools -------------------------------------------------------------------------

    def add_tool(self, fn: Callable[..., Any], *, background: bool = False, **options: Any) -> Tool:
        """Register ``fn`` as a tool (replacing one of the same name); returns the record.

        Options are those of :meth:`tool`, and ``check_arguments(arguments)``: a check of the
        arguments the input schema accepted, run before the function (or a job) is started, that
        raises ``InvalidArguments`` (see ``Tool.from_function``; ``check_off_loop=True`` runs it
        on a worker thread, for a check that may take long). Raises ``RegistrationError`` naming
        the tool.
        """
        return self._registrar.add_tool(fn, background=background, **options)

    def tool(
        self,
        fn: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        tags: Iterable[str] | None = None,
        meta: dict[str, Any] | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        annotations: dict[str, Any] | None = None,
        title: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        x_mcp_headers: dict[str, str] | None = None,
        task_support: str | None = None,
        scopes: str | Iterable[str] | None = None,
        view: str | None = None,
        view_visibility: Iterable[str] | None = None,
        provenance: bool | None = None,
        cache: bool | str = False,
        cache_ttl: float | None = None,
    ) -> Any:
        """Decorator: register a function as an MCP tool. Usable bare (``@server.tool``) or called.

        The name defaults to the function's, the description to its docstring (without the
        Args section, whose entries describe the parameters), and the input schema is
        generated from the signature (see ``nanohubmcp.schema.describe_function``).

        A plain ``def`` runs on a worker thread; an ``async def`` runs on the event loop and must not
        block (``time.sleep``, a solver, file I/O without ``await``): a blocking step holds every
        client's calls and ``tool_timeout`` cannot interrupt it (a step over 1 s is logged at WARNING, a
        task's it starts too). Write blocking code as a ``def``, or ``await asyncio.to_thread(...)`` it.
        A generator function (``yield``) is refused: return the values as a list.

        Args:
            fn: the function, when used bare.
            name: the tool's name, 1-128 of ``[A-Za-z0-9_.-]`` (SEP-986; default, ``None``: the
                function's); ``""`` is refused like any other invalid name.
            description: its description (default: the docstring).
            title: its display title.
            icons: ``[{"src": URL, "mimeType"?, "sizes"?}, ...]``, sent to clients of versions
                that have icons (MCP 2025-11-25); each ``src`` an ``https:`` URL or a ``data:`` URI,
                the only icons a client may show.
            tags: a set of strings for your own grouping (not sent on the wire).
            meta: ``_meta`` of the tool definition.
            input_schema: a JSON Schema replacing the generated one.
            output_schema: a JSON Schema every result must satisfy (``structuredContent``; a list's
                is ``{"result": [...]}``); one not of type ``object`` is listed to 2026-07-28 clients only.
            annotations: ``title``, ``readOnlyHint``, ``destructiveHint``, ``idempotentHint``,
                ``openWorldHint`` (MCP 2025-03-26+).
            x_mcp_headers: ``{"param": "Name"}``: 2026-07-28 clients mirror the parameter as the
                ``Mcp-Param-Name`` HTTP header (string/integer/boolean parameters only).
            task_support: ``"forbidden"`` (default), ``"optional"`` or ``"required"``: whether a
                2026-07-28 call may go on as a task (``ctx.start_task()``); "required" refuses
                clients without the tasks extension.
            scopes: OAuth scopes a caller's token must carry to call the tool (a list, or a
                space-separated string); others get HTTP 403 ``insufficient_scope`` (over stdio,
                JSON-RPC error -32003). Checked only when the server has authorization configured.
            view: the ``ui://`` URI of a view (see :meth:`app_view`) that shows this tool's
                result: the definition gets ``_meta.ui.resourceUri`` (MCP Apps, SEP-1865).
            view_visibility: ``["model", "app"]`` (host default), ``["app"]`` for a tool only the
                view calls, ``["model"]`` for one the view may not call.
            provenance: False: calls of this tool leave no provenance record.
            cache: True: a repeated call with the same arguments (by the same caller) is answered
                from the stored result without running; ``"shared"``: one stored result for
                every caller. Keyed by the function's code, so a changed function runs again.
            cache_ttl: seconds a cached result stays (default: until evicted).
        Raises:
            RegistrationError: at decoration time, naming the tool (a generator function, an invalid name
                or option).
        """
        options: dict[str, Any] = {
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
            "provenance": provenance,
            "cache": cache,
            "cache_ttl": cache_ttl,
        }
        return decorating(lambda func: self.add_tool(func, **options), fn)

    def async_tool(self, fn: Callable[..., Any] | None = None, **options: Any) -> Any:
        """Decorator: a long-running tool that answers at once with a job id.

        The call returns ``{"status": "running", "job_id": ..., "message": ...}``; clients poll
        the built-in ``get_job_result(job_id)`` tool (or use MCP Tasks). Takes the options of
        :meth:`tool`, plus ``executor=`` (``"threads"``, ``"processes"``, ``"dask"``, ``"slurm"``,
        ``"submit"`` or a ``JobExecutor``) to run this tool's jobs somewhere other than the server's
        ``job_executor``, and ``executor_options=`` for this tool's jobs (e.g.
        ``{"time": "2:00:00", "partition": "gpu"}`` on Slurm) over the server's.
        """
        return decorating(lambda func: self.add_tool(func, background=True, **options), fn)

    def add_sim2l(self, path: str, **options: Any) -> Tool:
        """Serve a Sim2L notebook as a tool; returns the tool record.

        Options: ``name``, ``description``, ``background``, ``results_dir``, ``kernel_name``,
        ``cell_timeout``, ``cache``, ``max_stored_runs`` (see
        :func:`nanohubmcp.sources.sim2l.add_sim2l`, which also says how inputs, outputs and stored
        runs work). Needs ``pip install 'nanohub-mcp[sim2l]'``.

        Raises:
            RegistrationError: not a Sim2L notebook (the message says what is missing), or the
                ``sim2l`` libraries are not installed.
        """
        from .sources.sim2l import add_sim2l

        return add_sim2l(self, path, **options)

    def add_rappture_tool(self, path: str | Path, *, name: str | None = None, background: bool | None = None,
                          async_: bool | None = None, timeout: float | None = None, rappture: str | None = None,
                          **options: Any) -> Tool:
        """Register a Rappture tool (nanoHUB's ``tool.xml``) as a tool; returns the record.

        Its inputs become the input schema (numbers accept other units, converted with pint:
        ``pip install 'nanohub-mcp[rappture]'``); a call writes the driver, runs the tool
        (``rappture -execute`` on a hub, else its ``<command>``, with a time limit) and returns the
        run file's outputs: curves as data and PNG plots, numbers with units, logs, images.
        See ``nanohubmcp.sources.rappture``.

        Args:
            path: tool.xml, or a directory holding ``tool.xml`` or ``rappture/tool.xml``.
            name: the tool name (default: ``<tool><id>``, else the tool's directory name).
            background: run calls as jobs (``@async_tool``; ``async_`` is the same); default when the time
                limit in force (``timeout``, ``inf`` included, else ``<limits><cputime>``) allows runs longer
                than a proxy waits (30 s).
            timeout: seconds a run may take (left out: the tool's ``<limits><cputime>``; ``inf``: no limit of
                ours); a run past it is stopped, answered ``ToolTimeout`` (REST 504).
            rappture: the ``rappture`` program (default ``rappture`` on PATH; ``""``: never use it).
            options: ``plot=False`` (curves as data, without PNG plots), and options of :meth:`tool`
                (``title``, ``annotations``, ``scopes``, ``executor``...).
        Raises:
            RegistrationError: the file cannot be read as a Rappture tool (the message says why).
        """
        from .sources.rappture import add_rappture_tool

        return add_rappture_tool(self, path, name=name, async_=async_ if background is None else background,
                                 timeout=timeout, rappture=rappture, **options)

    def remove_tool(self, name: str) -> bool:
        """Unregister the tool ``name``.

        Returns True when it was registered, False when no tool had that name (nothing changes).
        Connected clients get ``notifications/tools/list_changed`` (MCP 2025-11-25, Server § Tools
        § List Changed Notification); a call of it already running finishes, and later calls get
        -32602 "Unknown tool".
        """
        return self._registrar.remove_tool(name)

    # -- provenance ----------------------------------------------------------------------
    def export_provenance(
        self, call_id: str, path: str | Path, *, force: bool = False, license: str | None = None
    ) -> Path:
        """Write the provenance record ``call_id`` as an RO-Crate (Process Run Crate profile) into
        the directory ``path``: the tool's code, the inputs, the result and a ``CreateAction``
        naming them, when it ran, who called and where it ran. Returns the directory.

        ``call_id`` is a record's id or its URI (``_meta["io.nanohub/provenance"]`` of a result).
        ``path`` must be new, empty or an earlier crate (whose listed files are removed first)
        unless ``force``. ``license`` (an identifier
        on the SPDX License List such as ``"CC-BY-4.0"``, in any case: stated as the list spells it; or
        the license's URI) is stated as the crate's license; without it the crate states none.
        Needs ``pip install 'nanohub-mcp[provenance]'`` (the ``rocrate`` and ``packaging`` libraries).
        See ``docs/how-to/provenance.md``.

        Raises:
            NanohubMCPError: ``license`` is malformed, not on the SPDX License List, an expression or a
                ``LicenseRef-`` identifier (checked first); no such record (unknown, or expired), or
                ``path`` holds other files or cannot be written.
            ConfigurationError: ``rocrate`` (or ``packaging``, for a license) is not installed.
        """
        from .server.provenance.crate import export

        return export(self.core.provenance, call_id, path, force=force, license=license)

    def clear_cache(self, tool: str | None = None) -> int:
        """Drop the result cache's entries of ``tool`` (every tool's with None) and return how many.

        The cache key covers a tool's code, the helpers and plain constants it reaches and its
        arguments, not a file it reads, a value changed in place or the environment: after changing
        those, clear. The entries live in ``cache.sqlite3`` of the state directory, shared by the
        processes using it (see ``docs/how-to/cache.md``).

        Raises:
            ValueError: ``tool`` names no tool of this server and has no entries (a misspelt
                name); the message lists the tools registered with a cache.
        """
        dropped = self.core.result_cache.invalidate(tool)
        if tool is not None and not dropped and tool not in self.core.registry.tools:
            cached = sorted(t.name for t in self.core.registry.tools.values() if t.extra.get(CACHE))
            raise ValueError(f"no tool {tool!r} on this server; the tools with a result cache: "
                             f"{', '.join(map(repr, cached)) or 'none'}")
        return dropped

    # -- the call pipeline ---------------------------------------------------------------
    def add_middleware(self, fn: Middleware, *, stream_kept_text: bool = False) -> Middleware:
        """Add a layer to the call pipeline every request passes before its handler.

        ``fn`` is ``async def fn(request, call_next)``: ``request`` has ``method``, ``params``
        (a dict), ``principal``, ``session_id`` (None in the 2026-07-28 era and over REST) and
        ``protocol_version``; ``await call_next(request)`` runs the rest of the chain and returns
        the result dict as it goes on the wire. A layer may answer itself (return a dict
        without calling ``call_next``) or raise :class:`~nanohubmcp.ProtocolError` to answer with
        that JSON-RPC error. Layers run in the order added, the first outermost, for every
        request on every transport and in both eras; notifications do not pass them.

        Args:
            fn: the layer. ``call_next`` hands it plain values: a ``tools/call`` of an array or a
                table has its ``structuredContent`` as lists and dicts, a ``resources/read`` of a large
                kept result its ``result["contents"][0]["text"]`` as a ``str`` (the file read whole).
                A numpy or pandas value it puts into a result is written as the same value returned
                by a tool (a record array as objects keyed by field name, complex as ``[real, imag]``).
            stream_kept_text: ``fn`` passes a kept read's text on untouched, so the server may send it
                from its file a piece at a time (a few MiB held, not the text about three times). Where
                the transport writes it so (Streamable HTTP, legacy SSE in one process, stdio) and every
                middleware of the server has ``stream_kept_text=True``, that ``text`` is then a
                :class:`~nanohubmcp.protocol.text_pieces.TextPieces`: equal to the text, ``str(text)`` reads
                it whole, ``text.size`` is its JSON's bytes, no ``len`` or slicing; return it as it is.
                Elsewhere (a batch, REST, in memory) it is a ``str``; other values are as without it.

        Returns ``fn``. Raises ``TypeError`` when ``fn`` is not an ``async def`` of two arguments
        or ``stream_kept_text`` is not a bool.
        """
        self.core.dispatcher.pipeline.add(fn, stream_kept_text=stream_kept_text)
        return fn

    @overload
    def middleware(self, fn: Middleware, *, stream_kept_text: bool = False) -> Middleware: ...

    @overload
    def middleware(self, fn: None = None, *, stream_kept_text: bool = False) -> Callable[[Middleware], Middleware]: ...

    def middleware(self, fn: Middleware | None = None, *,
                   stream_kept_text: bool = False) -> Middleware | Callable[[Middleware], Middleware]:
        """Decorator form of :meth:`add_middleware`: ``@server.middleware`` above ``async def``, or
        ``@server.middleware(stream_kept_text=True)`` for a layer that passes a kept read's text on untouched.

        .. versionchanged:: 1.0
           Takes ``stream_kept_text`` as :meth:`add_middleware` does (only that form could).
        """
        if fn is None:
            return lambda layer: self.add_middleware(layer, stream_kept_text=stream_kept_text)
        return self.add_middleware(fn, stream_kept_text=stream_kept_text)

    def include(self, obj: object) -> int:
        """Register every function marked with the module-level decorators in ``obj``.

        ``obj`` may be a module, a class or instance, or an iterable of functions. Returns how
        many components were registered.
        """
        return self._registrar.include(obj)

    # -- resources, views, prompts, completions, skills --------------------------------

    def add_resource(self, fn: Callable[..., Any], uri: str, **options: Any) -> Resource | ResourceTemplate:
        """Register ``fn`` as the resource at ``uri``, or as a resource template when ``uri`` holds
        RFC 6570 variables (``"data://runs/{run_id}"``); returns the record.

        The plain-call form of :meth:`resource`, whose keyword options it takes (``name``,
        ``description``, ``mime_type``, ``tags``, ``meta``, ``title``, ``annotations``, ...). A URI
        registered before is replaced; clients get ``notifications/resources/list_changed``.

        Raises:
            RegistrationError: ``uri`` is not a URI or not a valid template, or a template variable
                is not a parameter of ``fn``; the message names the resource.

        Source: MCP 2025-11-25, Server § Resources.
        """
        return self._registrar.add_resource(fn, uri, **options)

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        tags: Iterable[str] | None = None,
        meta: dict[str, Any] | None = None,
        title: str | None = None,
        annotations: dict[str, Any] | None = None,
        size: int | None = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: register a function as the resource at ``uri``.

        A URI with ``{placeholders}`` registers a resource template; each placeholder matches
        one path segment (``{+path}``, ``{path*}`` and ``{/segs*}``: several, RFC 6570) and is passed
        to the function by name, percent-decoded, as one string: an exploded value is its segments
        joined by ``/`` (``"a/b/c"``), never a list, and ``{/segs*}`` with no segment gives ``""``.
        ``{?q,limit}`` takes optional query parameters; one the template does not name makes the URI
        not match it (-32002 naming it when no other template does), one given twice is -32602 naming
        it. The scheme is compared without regard to case (``CONFIG://lab`` reads ``config://lab``).
        Return a dict (JSON), a string (text), bytes (a blob),
        or a ``ResourceResult``. A one-segment value stays one segment once decoded: it never
        holds ``/``, ``\\`` or NUL and is never ``.`` or ``..`` (a URI that would give one, such as
        ``..%2Fetc%2Fpasswd``, does not match the template: "resource not found", -32002). A
        multi-segment or query value may hold them (``a/../../etc/passwd``, ``/etc/passwd``): a
        function that opens files with one must keep the path inside its directory itself
        (resolve it and refuse what lands outside; docs/api/summary.md shows how).

        Two placeholders need literal text (``{a}-{b}``) or an operator (``{name}{.ext}``,
        ``{x}{?q}``) between them: ``{a}{b}`` is refused, as where one ends and the next begins
        cannot be told; where several splits fit, the earlier placeholder takes as much as it can.

        Args:
            uri: the resource's URI (any scheme, e.g. ``"config://settings"``), or an RFC 6570
                template (``"file://data/{name}"``); a client's URI of more than 8192 characters is
                refused (-32602) before any template sees it.
            name: its name in ``resources/list`` (default: the function's name).
            description: its description (default: the docstring).
            mime_type: the ``mimeType`` of its contents, ``type/subtype`` with any ``; name=value``
                parameters (default: by the value returned: ``text/plain`` for a string or number,
                ``application/json`` for a dict or list, none for bytes; a content object's own type
                wins). ``resources/list`` gives it before a read when the function's return annotation
                makes it certain: ``-> dict``, a numpy array or pint Quantity (``application/json``), a
                pandas DataFrame/Series/Index (``text/csv``), a matplotlib Figure/Axes or PIL Image
                (``image/png``).
            tags: a set of strings for your own grouping (not sent on the wire).
            meta: ``_meta`` of the resource's definition.
            title: its display title (MCP 2025-06-18+).
            annotations: ``audience`` (``["user", "assistant"]``), ``priority`` (0.0-1.0),
                ``lastModified`` (an ISO 8601 date and time, ``"2025-01-12T15:00:58Z"``), no other
                key, as MCP 2025-11-25, Server § Resources § Annotations.
            size: its size in bytes, when known, for the client's display (``resources/list``; not
                checked against what the function returns; not for templates).
        Returns:
            A decorator that registers the function and returns it unchanged.
        Raises:
            RegistrationError: a missing URI (``@server.resource`` without parentheses), a
                malformed template, two placeholders with nothing between them, or a
                placeholder the function does not take; a listed value a client cannot use (a
                UTF-16 surrogate in the URI or a name, a MIME type that is not ``type/subtype``,
                a ``lastModified`` that is no date, a parameter default of ``nan``).

        Source: MCP 2025-11-25, Server § Resources.

        .. versionchanged:: 1.0
           ``{/segs*}`` matches no segment; a query parameter the template does not name or one given
           twice is refused, not ignored; the scheme is compared without regard to case; a surrogate
           in the URI, a ``mime_type`` that is not one, an unknown annotation and a ``lastModified``
           that is no ISO 8601 date are refused.
        """
        if callable(uri):
            raise RegistrationError("@resource needs a URI: write @server.resource('scheme://path')")
        options: dict[str, Any] = {
            "name": name,
            "description": description,
            "mime_type": mime_type,
            "tags": tags,
            "meta": meta,
            "title": title,
            "annotations": annotations,
            "size": size,
        }
        return decorating(lambda func: self.add_resource(func, uri, **options), None)

    def add_app_view(
        self,
        uri: str,
        html: object,
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        csp: Mapping[str, Iterable[str]] | None = None,
        domain: str | None = None,
        permissions: Iterable[str] | None = None,
        prefers_border: bool | None = None,
    ) -> Resource:
        """Register a view (MCP Apps): ``html`` served at ``uri`` as ``text/html;profile=mcp-app``.

        Args:
            uri: ``ui://...``; a tool shows its result there with ``@server.tool(view=uri)``.
            html: an HTML string, an object with ``_repr_html_()`` (e.g. a plotly figure), or a
                function of no arguments returning one (called at each read).
            csp: ``{"connect_domains": [...], "resource_domains": [...]}``, origins the view may fetch
                from or load scripts, styles and images from (the resource's ``_meta.ui.csp``).
            domain: the view's dedicated origin (``_meta.ui.domain``).
            permissions: ``camera``, ``microphone``, ``geolocation``, ``clipboardWrite``
                (``_meta.ui.permissions``).
            prefers_border: whether the host draws a border around the view (``_meta.ui.prefersBorder``).

        See ``nanohubmcp.server.registry.mcp_apps.view_resource_meta`` for how these become ``_meta.ui``.
        The served document gets an inline script speaking the view side of the Apps protocol:
        the view's scripts get the tool's result with ``mcpApp.onToolResult(result => ...)``
        (``mcpApp.data(result)`` is its ``structuredContent``, else its text parsed as JSON).

        Raises:
            RegistrationError: not a ``ui://`` URI, or a bad ``_meta.ui`` option.
        """
        return self._registrar.add_app_view(uri, html, name=name, description=description, title=title, csp=csp,
                                            domain=domain, permissions=permissions, prefers_border=prefers_border)

    def app_view(self, uri: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: the function (no arguments) returns the HTML of the view at ``uri``.

        Options are those of :meth:`add_app_view`, e.g.::

            @server.app_view("ui://plots/chart", csp={"resource_domains": ["https://cdn.example.org"]})
            def chart() -> str:
                return "<svg id='plot'></svg><script>mcpApp.onToolResult(r => ...)</script>"
        """
        if callable(uri):
            raise RegistrationError("@app_view needs a URI: write @server.app_view('ui://name')")
        return decorating(lambda func: self.add_app_view(uri, func, **options), None)

    def remove_resource(self, uri: str) -> bool:
        """Unregister the resource at ``uri``, or the template written exactly as ``uri``
        (``"data://runs/{run_id}"``, not a URI it matches).

        Returns True when one was registered, False otherwise. Connected clients get
        ``notifications/resources/list_changed``; a later ``resources/read`` of it gets -32002.
        """
        return self._registrar.remove_resource(uri)

    def resource_updated(self, uri: str) -> None:
        """Tell subscribed clients that the resource at ``uri`` changed (thread-safe)."""
        self._registrar.resource_updated(uri)

    def add_prompt(self, fn: Callable[..., Any], **options: Any) -> Prompt:
        """Register ``fn`` as a prompt (replacing one of the same name); returns the record.

        The plain-call form of :meth:`prompt`, whose keyword options it takes (``name``,
        ``description``, ``tags``, ``meta``, ``title``). Clients get
        ``notifications/prompts/list_changed``.

        Raises:
            RegistrationError: ``fn`` is not a function, or a parameter cannot be a prompt
                argument; the message names the prompt.

        Source: MCP 2025-11-25, Server § Prompts.
        """
        return self._registrar.add_prompt(fn, **options)

    def prompt(
        self,
        fn: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        tags: Iterable[str] | None = None,
        meta: dict[str, Any] | None = None,
        title: str | None = None,
    ) -> Any:
        """Decorator: register a function as a prompt template.

        Its parameters become the prompt's arguments (strings, as clients send them; a parameter
        without a default is a required argument). Return a list of messages
        (``{"role", "content"}`` dicts or ``Message``), a string (one user message), or a
        ``PromptResult``. Usable bare (``@server.prompt``) or called (``@server.prompt(...)``).

        Args:
            fn: the function, when used bare.
            name: the prompt's name in ``prompts/list`` (default: the function's name).
            description: its description (default: the docstring; its Args describe the arguments).
            tags: a set of strings for your own grouping (not sent on the wire).
            meta: ``_meta`` of the prompt's definition.
            title: its display title (MCP 2025-06-18+).
        Returns:
            The function (bare), or a decorator that registers the function and returns it unchanged.
        Raises:
            RegistrationError: at decoration time, naming the prompt (a string given as the
                function, an unusable signature).

        Source: MCP 2025-11-25, Server § Prompts.
        """
        options: dict[str, Any] = {"name": name, "description": description, "tags": tags, "meta": meta, "title": title}
        return decorating(lambda func: self.add_prompt(func, **options), fn)

    def remove_prompt(self, name: str) -> bool:
        """Unregister the prompt ``name``.

        Returns True when it was registered, False otherwise. Connected clients get
        ``notifications/prompts/list_changed``; a later ``prompts/get`` of it gets -32602.
        """
        return self._registrar.remove_prompt(name)

    def completion(
        self, *, argument: str, prompt: str | None = None, template: str | None = None
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: suggest values for a prompt argument or a template variable.

        The function takes ``value`` (what the user typed so far, a string) and optionally
        ``context`` (the other arguments already given, ``{name: string}``) and returns a list of
        strings — or any iterable of values, or one string (one suggestion); an ``async def`` one may
        ``yield`` them. The first 100 are sent; a value is a string, or an int or a float (sent as its
        text): anything else is refused naming its type. An iterable is read to its 101st value at
        most, never counted: ``total`` is the answer's ``len()`` (a list's), or the count of an iterable
        that ended within those values; else none, and ``hasMore`` true. A ``def`` function runs, and
        what it returns is read, on a worker thread within ``tool_timeout``; an ``async def`` one on the
        event loop (an async generator too; an iterable it returns that is not a list is read on a
        worker), cancelled by its client's cancel. One that raises, runs past ``tool_timeout`` or gives
        a value it may not is answered -32603 saying so, and logged once on ``nanohubmcp.tool``.
        A request whose ``value`` or ``context`` is not of those shapes is refused with -32602 before
        the function runs.

        Source: MCP 2025-11-25, Server § Utilities § Completion.
        """
        return self._registrar.completion(argument=argument, prompt=prompt, template=template)

    def skill(self, path: str | Any, *, prefix: str | None = None) -> Any:
        """Publish the skill folder at ``path`` (holding a ``SKILL.md``) as ``skill://`` resources.

        Every file becomes a resource (``skill://<name>/SKILL.md`` and the rest below it), and
        2026-07-28 clients get ``skills/list``, ``skills/get`` and directory reads (extension
        ``io.modelcontextprotocol/skills``). Publishing the same skill again replaces it.

        Args:
            path: the skill folder; its ``SKILL.md`` front matter gives ``name`` and
                ``description`` (Agent Skills format).
            prefix: leading URI segments, e.g. ``"nanohub"`` → ``skill://nanohub/<name>/SKILL.md``.
        Returns:
            The loaded ``Skill`` (name, URIs, front matter, files).
        Raises:
            RegistrationError: no ``SKILL.md``, bad front matter or name, too many or too large
                files (512 files, 16 MiB).

        Source: MCP skills extension (SEP-2640).
        """
        return self._registrar.publish_skill(path, prefix)

    # -- serving -----------------------------------------------------------------------

    def make_app(
        self,
        *,
        path_prefix: str = "",
        public_url: str | None = None,
        allowed_origins: str | Iterable[str] | None = None,
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
        max_buffered_bytes: int = DEFAULT_MAX_BUFFERED_BYTES,
        max_unsent_bytes: int = DEFAULT_MAX_UNSENT_BYTES,
        max_buffered_bytes_per_principal: int | None = None,
        max_unsent_bytes_per_principal: int | None = None,
        token: str | None = None,
    ) -> tornado.web.Application:
        """Return the ``tornado.web.Application`` serving this server, for an ``HTTPServer`` of your own.

        It has every route :meth:`run` serves (``/mcp``, legacy SSE, ``POST /``, REST, OpenAPI,
        discovery, ``/healthz``) under ``path_prefix``; you bind, start and stop the HTTP server.
        Tornado is imported by this call, not before.

        Args:
            path_prefix: path to serve under (``"/calc"``: ``/calc/mcp``); ``""`` for the root. A URL
                path as written (RFC 3986 § 3.3: percent-encode a space or a non-ASCII character), with
                no ``.``/``..`` segment: anything else raises ``ConfigurationError``, as ``--path-prefix``
                refuses it.
            public_url: the URL clients use (behind a proxy); without it, URLs are built from each
                request, and a ``JWTVerifier`` needs ``audience=``.
            allowed_origins: None (loopback plus the public URL's origin), a list of origins, or ``"*"``.
            max_request_bytes: request body limit in bytes (16 MiB; 413 above it). Each byte limit is a
                whole number: an int, or a float holding one (``16e6`` is taken as 16000000).
            max_buffered_bytes: the most bytes of request bodies received at once over every
                connection (256 MiB; at least ``max_request_bytes``); a body beyond it gets 503
                with ``Retry-After`` before it is read.
            max_buffered_bytes_per_principal: the most of them one authenticated principal's bodies
                take (None: an eighth of ``max_buffered_bytes``, at least ``max_request_bytes``);
                beyond it that principal's body gets 503 with ``Retry-After`` before it is read. At least
                ``max_request_bytes``; ``max_buffered_bytes`` or more turns the share off.
            max_unsent_bytes: the most response bytes held in all for clients that have not read
                them (256 MiB); beyond it connections are closed, those of a principal over its
                ``max_unsent_bytes_per_principal`` first, then the others, oldest first.
            max_unsent_bytes_per_principal: the share of them one authenticated principal holds
                before its connections are the first closed (None: an eighth of ``max_unsent_bytes``,
                at least 1 MiB). At least 1 MiB; ``max_unsent_bytes`` or more turns the share off.
            token: a static bearer token every request must carry; overrides ``auth``; ``""``
                turns authorization off. Default: ``$MCP_TOKEN`` when ``auth`` is None.
        Returns:
            The application (pass it to ``tornado.httpserver.HTTPServer``).
        Raises:
            ConfigurationError: an unusable option (the message says which).
        """
        return self._serving.make_app(
            self,
            path_prefix=path_prefix,
            public_url=public_url,
            allowed_origins=allowed_origins,
            max_request_bytes=max_request_bytes,
            max_buffered_bytes=max_buffered_bytes,
            max_unsent_bytes=max_unsent_bytes,
            max_buffered_bytes_per_principal=max_buffered_bytes_per_principal,
            max_unsent_bytes_per_principal=max_unsent_bytes_per_principal,
            token=token,
        )

    @property
    def token(self) -> str | None:
        """The static bearer token clients must send while serving with one (``run(token=...)``,
        ``MCP_TOKEN``), else None."""
        return self._serving.token

    def require_token(self, why: str = "") -> None:
        """Never serve this server over HTTP without authorization, however it is started.

        ``run()``, ``start()`` and ``make_app()`` then raise ``ConfigurationError`` when no bearer
        token is configured (no ``token=``, ``$MCP_TOKEN`` unset or empty, no ``auth=``; ``token=""``
        counts as none), instead of serving every tool to whoever reaches the port: so do
        ``nanohubmcp run FILE`` and ``start_mcp --app FILE``, which import the file and serve its
        ``server`` without running its command line. Over stdio (the client is the process that
        started the server) it changes nothing. A script exported from a notebook whose server
        required a token calls it.

        Args:
            why: why this server requires one, said in the error after "this server requires a
                bearer token" (e.g. ``"as the notebook's server did"``).

        Example:
            ```python
            from nanohubmcp import MCPServer
            from nanohubmcp.errors import ConfigurationError

            server = MCPServer("calc")
            server.require_token("its tools change the instrument")
            try:
                server.make_app(token="")
            except ConfigurationError as exc:
                assert "requires a bearer token, its tools change the instrument" in str(exc)
            ```
        """
        self._token_requirement = why

    @property
    def token_requirement(self) -> str | None:
        """Why this server serves over HTTP only with authorization (:meth:`require_token`), else None."""
        return self._token_requirement

    def run(
        self,
        host: str | None = None,
        port: int | None = None,
        path_prefix: str = "",
        *,
        allowed_origins: str | Iterable[str] | None = None,
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
        max_buffered_bytes: int = DEFAULT_MAX_BUFFERED_BYTES,
        max_unsent_bytes: int = DEFAULT_MAX_UNSENT_BYTES,
        max_buffered_bytes_per_principal: int | None = None,
        max_unsent_bytes_per_principal: int | None = None,
        public_url: str | None = None,
        quiet: bool = False,
        token: str | None = None,
        transport: str | None = None,
        workers: int = 1,
        proxy_headers: bool | None = None,
        exit_grace: float = DEFAULT_EXIT_GRACE_SECONDS,
        **compat: Any,
    ) -> None:
        """Serve until interrupted (Ctrl-C / SIGTERM), printing the endpoints first; a Ctrl-C while it is still
        starting returns too, saying nothing.

        With ``transport="stdio"`` (or ``$MCP_TRANSPORT=stdio``) it serves one client on
        stdin/stdout instead, as desktop clients launch servers, until the client closes stdin;
        stdout then carries only protocol messages (``print()`` goes to stderr) and the HTTP
        options are ignored, but for ``workers`` above 1: one process serves the one client, so that is
        refused (``ConfigurationError``). With ``auth=`` the caller is the one whose token ``$MCP_TOKEN``
        holds, checked once before serving (``ConfigurationError`` when it is unset, refused or
        expired); requests read after its expiry (a JWT's ``exp`` plus the verifier's leeway)
        are refused (-32600 "Unauthorized: the bearer token is invalid or expired").

        In a Jupyter kernel it serves in the background and returns instead of blocking the
        kernel (no "event loop is already running"): on 127.0.0.1 unless ``host`` is given,
        and re-running the cell replaces the earlier ``run()`` server of the same name (or on the
        same port), so the old one stops instead of lingering on its port. Inside any
        other running event loop it behaves like :meth:`start`.

        Args:
            host: interface to bind; default "127.0.0.1" (this machine only). Binding another
                interface with no authorization configured logs a warning once listening succeeded.
            port: TCP port; default ``$MCP_PORT`` or 8000; 0 = any free port. Any whole number is the int
                (``8000.0``, numpy's ``int64``); a bool, ``8000.5``, NaN or inf is a ``ConfigurationError``.
            path_prefix: path to serve under (behind a proxy that does not strip it); checked as for
                :meth:`make_app`.
            allowed_origins: None (loopback plus the public URL's origin), a list, or "*".
            max_request_bytes: request body limit (413 above it).
            max_buffered_bytes: the most bytes of request bodies received at once over every
                connection (default 256 MiB; at least ``max_request_bytes``); a body beyond
                it is answered 503 with ``Retry-After`` before it is read.
            max_buffered_bytes_per_principal: the most of them one authenticated principal's bodies
                take (None: an eighth of ``max_buffered_bytes``, at least ``max_request_bytes``, so
                32 MiB by default); beyond it that principal's body is answered 503 with
                ``Retry-After`` before it is read, and other principals' bodies are not. At least
                ``max_request_bytes``; ``max_buffered_bytes`` or more turns the share off.
            max_unsent_bytes: most bytes of responses the server holds in all for clients that
                have not read them (256 MiB); beyond it connections are closed, oldest first,
                and a response not read within 30 s plus a second per 64 KiB closes its connection.
            max_unsent_bytes_per_principal: the share of them one authenticated principal holds
                (None: an eighth of ``max_unsent_bytes``, at least 1 MiB, so 32 MiB by default):
                beyond ``max_unsent_bytes`` the connections of a principal over its share are closed
                first (oldest first), so one token holder's unread responses do not cut another's
                download. At least 1 MiB; ``max_unsent_bytes`` or more turns the share off.
            public_url: the URL to advertise (the weber URL behind nanoHUB's proxy).
            quiet: do not print the endpoint banner.
            token: the static bearer token every HTTP request must carry
                (``Authorization: Bearer <token>``); overrides ``auth``; ``""`` turns
                authorization off. Default: ``$MCP_TOKEN`` when ``auth`` is None.
            transport: ``"http"`` (default) or ``"stdio"``; default ``$MCP_TRANSPORT``.
            workers: processes serving the one port (HTTP, blocking ``run`` only): any whole number
                of at least 1 (``4.0``, numpy's ``int64`` too), as every count; above 1 the
                server needs a shared ``state_url`` (Redis), so that every process serves every
                session, and the banner says how many serve ("... listening on 127.0.0.1:8000, served by
                4 processes"). Over stdio (``transport="stdio"`` or ``$MCP_TRANSPORT=stdio``) above 1 is
                refused, as ``nanohubmcp run --transport stdio --workers 2`` is: "workers=2 serves HTTP only:
                over stdio one process serves its one client; leave workers= out, or serve with
                transport='http'".
            proxy_headers: trust the ``X-Forwarded-Proto`` / ``X-Scheme`` and ``X-Real-Ip`` /
                ``X-Forwarded-For`` headers a reverse proxy sets (Tornado's ``xheaders``): URLs built
                from the request (without ``public_url``) take the client's scheme, and the access log
                its address. Only behind a proxy that sets (or strips) them: any client reaching the
                port directly could claim another scheme or address. Default ``$MCP_PROXY_HEADERS``
                (``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off``), else off.
            exit_grace: seconds from the stop (SIGTERM, Ctrl-C, SIGHUP, stdio's end of input) to the
                process's exit at most, whatever still runs: what a process supervisor can count on (give its
                stop timeout, systemd's ``TimeoutStopSec``, at least this). A number from 2 to 86400; default
                10. Running calls have it less 2 s to answer with their result (those still running then are
                answered :class:`~nanohubmcp.errors.ServerStopping`); the calls' drain and the wait for sync calls
                end 1 s before it; with ``workers`` above 1
                the parent kills a worker still running 5 s after it. Blocking serves only (a kernel's or a
                running loop's background serve has no such bound). Served by the ``nanohubmcp`` command, the
                bound is the process's whole exit (its ``atexit`` handlers run, its heap not freed:
                :mod:`~nanohubmcp.processes.process_end`); in a script of one's own it is ``run()``'s return, what
                follows it and the interpreter's exit coming on top.
        Raises:
            ConfigurationError: the port is busy or invalid, ``exit_grace`` outside 2-86400, the transport unknown,
                ``workers`` above 1 without a shared state URL or over stdio, or, over stdio with ``auth=``,
                ``$MCP_TOKEN`` unset, empty or refused by the verifier (the message says which).
        """
        self._serving.run(
            self,
            host,
            port,
            path_prefix,
            allowed_origins=allowed_origins,
            max_request_bytes=max_request_bytes,
            max_buffered_bytes=max_buffered_bytes,
            max_unsent_bytes=max_unsent_bytes,
            max_buffered_bytes_per_principal=max_buffered_bytes_per_principal,
            max_unsent_bytes_per_principal=max_unsent_bytes_per_principal,
            public_url=public_url,
            quiet=quiet,
            token=token,
            transport=transport,
            compat=compat,
            workers=workers,
            proxy_headers=proxy_headers,
            exit_grace=exit_grace,
        )

    def start(
        self: _Self,
        host: str = "127.0.0.1",
        port: int | None = None,
        path_prefix: str = "",
        *,
        allowed_origins: str | Iterable[str] | None = None,
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
        max_buffered_bytes: int = DEFAULT_MAX_BUFFERED_BYTES,
        max_unsent_bytes: int = DEFAULT_MAX_UNSENT_BYTES,
        max_buffered_bytes_per_principal: int | None = None,
        max_unsent_bytes_per_principal: int | None = None,
        public_url: str | None = None,
        quiet: bool = True,
        loop: str = "thread",
        token: str | None = None,
        proxy_headers: bool | None = None,
        **compat: Any,
    ) -> _Self:
        """Serve in the background and return once listening (takes the options of :meth:`run`).

        Args:
            loop: ``"thread"`` (an event loop of its own in a daemon thread) or ``"current"``
                (the running loop of the calling thread, e.g. a Jupyter kernel's).
        Returns:
            self, so ``server.start().url`` works.
        """
        self._serving.start(
            self,
            host,
            port,
            path_prefix,
            allowed_origins=allowed_origins,
            max_request_bytes=max_request_bytes,
            max_buffered_bytes=max_buffered_bytes,
            max_unsent_bytes=max_unsent_bytes,
            max_buffered_bytes_per_principal=max_buffered_bytes_per_principal,
            max_unsent_bytes_per_principal=max_unsent_bytes_per_principal,
            public_url=public_url,
            quiet=quiet,
            loop=loop,
            token=token,
            compat=compat,
            proxy_headers=proxy_headers,
        )
        return self

    def stop(self, *, within: float | None = None) -> None:
        """Stop serving (if serving) and free the port. Safe to call twice and from any thread.

        Args:
            within: seconds the stop takes at most (the running calls' moment to answer, the stopping server's
                error to those still running then, the connections' closing), e.g. when the process ends next;
                None (or ``inf``): 2 s for each of those steps. A ``start()`` server's stop returns once that
                drain is over (``within`` plus 2 s at most); a blocking ``run()`` stopped from another thread
                returns by then too, or by its exit grace if that comes first.

        Raises:
            ValueError: ``within`` is no number of seconds above 0 ("within must be a positive number of
                seconds, ..., not 0"); nothing is stopped.
        """
        self._serving.stop(within=within)

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallResult:
        """Call tool ``name`` through the running server, as a client would, and wait.

        The call takes the path of a client's ``tools/call`` (lookup, argument validation,
        the tool on its thread, result shaping). In a notebook the result shows as a client
        would show it (images as images). There is no client on the other end: a tool that asks
        the client (``ctx.elicit``, ``ctx.sample``, ``ctx.list_roots``) gets an error saying so;
        test such a tool with :func:`nanohubmcp.testing.in_memory` and a handler.

        Args:
            name: the tool's name.
            arguments: its arguments, as JSON values.
        Returns:
            The ``CallToolResult`` as a client receives it: a mapping of JSON values (numbers, text,
            lists, dicts, None; a numpy value a middleware put in as its numbers, as a tool's), with
            ``.text``, ``.structured``, ``.is_error``.
        Raises:
            ProtocolError: the JSON-RPC error a client would get (-32602 for an unknown tool, or
                ``arguments`` that are no dict, ``[]`` and ``0`` too: None is no arguments; -32603 for
                a result a middleware put a value JSON cannot hold into).
            ConfigurationError: the server is not running, or this thread runs its event loop
                (a "kernel" mode notebook): use ``await server.call_async(...)`` there.
        """
        return self._serving.call(self.core, name, arguments, server=self)

    async def call_async(self, name: str, arguments: dict[str, Any] | None = None) -> CallResult:
        """:meth:`call` for a coroutine (or a notebook cell's top-level ``await``).

        Awaits the call on the server's event loop when it runs on another thread, on the calling
        loop otherwise (a "kernel" mode notebook, or a server that is not serving: the tool still
        runs through the same call path). Returns the ``CallToolResult`` and raises as
        :meth:`call` does.
        """
        return await self._serving.call_async(self.core, name, arguments, server=self)

    @property
    def running(self) -> bool:
        """True while the server is serving."""
        return self._serving.running

    @property
    def port(self) -> int | None:
        """The bound port while serving (useful with ``port=0``)."""
        return self._serving.port

    @property
    def url(self) -> str | None:
        """The base URL clients use (the public URL when set), with a trailing slash; the MCP endpoint
        is :attr:`mcp_url`. None while not serving."""
        return self._serving.url

    @property
    def mcp_url(self) -> str | None:
        """The Streamable HTTP endpoint clients connect to: :attr:`url` + ``mcp`` (e.g.
        ``http://127.0.0.1:8000/mcp``). None while not serving over HTTP."""
        base = self._serving.url
        return None if base is None else base + "mcp"
