"""A served script imports, by its first answer, only what that answer needs.

Cold start (spawn -> first ``initialize`` answered) is mostly imports. A script that builds a
server, registers the usual tools (one with an unannotated ``ctx``, a plain resource) and serves
is probed in a process of its own: a middleware lists ``sys.modules`` as the first request is
answered. Modules a first answer never needs (resource templates, type comments, the import
system's resource readers, ``decimal``, package metadata, skill loading, the handlers of other
methods and the tool-call machinery behind them, ``Context`` and the tqdm and ``input()`` hooks of
calls, the handlers of every route but ``/mcp`` and SSE framing, the stateless era's discovery, the services
the core makes at their first use:
the job store and ``sqlite3``, the result store, provenance records and their layer, the result
cache, the stateless era's ``requestState`` key, task inputs and skills) must not be among them;
each is imported when a server first uses it. Nor may those modules make a ``typing.NamedTuple`` (a tuple
written out costs a fifth as much to make).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support import post_rpc

SCRIPT = textwrap.dedent("""
    import json, re, sys

    compiled = []  # every regular expression compiled or looked up in re's cache, as repr(pattern)
    compile_pattern = re._compile  # (what every function of re calls, on Python 3.10 to 3.13)

    def recording(pattern, flags=0):
        compiled.append(repr(pattern))
        return compile_pattern(pattern, flags)

    re._compile = recording

    def made_by_dataclasses(function):  # what @dataclass compiles from source is named "<string>"
        function = getattr(function, "__wrapped__", function)  # (its __repr__ is wrapped by a recursion guard)
        return getattr(getattr(function, "__code__", None), "co_filename", None) == "<string>"

    from nanohubmcp import MCPServer

    server = MCPServer("lean")

    @server.tool()
    def add(a: float, b: float) -> float:
        "Sum of two numbers."
        return a + b

    @server.tool()
    def report(a: float, ctx) -> float:
        "Report progress, then answer a."
        ctx.report_progress(1, 1)
        return a

    @server.resource("config://settings")
    def settings() -> dict:
        return {"a": 1}

    @server.middleware
    async def snapshot(request, call_next):
        result = await call_next(request)
        if request.method == "initialize":
            named_tuples = sorted(  # typing.NamedTuple classes our modules made (~0.9 M instructions each)
                f"{name}.{value.__name__}" for name, module in list(sys.modules.items())
                if name.startswith("nanohubmcp") for value in list(vars(module).values())
                if isinstance(value, type) and value.__module__ == name and hasattr(value, "_field_defaults"))
            made = sorted(  # dataclass methods compiled from source as the class was made (~1-2 M instructions each)
                f"{name}.{value.__name__}.{method}" for name, module in list(sys.modules.items())
                if name.startswith("nanohubmcp") for value in list(vars(module).values())
                if isinstance(value, type) and value.__module__ == name and hasattr(value, "__dataclass_fields__")
                for method in ("__init__", "__repr__", "__eq__") if made_by_dataclasses(getattr(value, method)))
            print(json.dumps({"modules": sorted(sys.modules), "patterns": compiled, "named_tuples": named_tuples,
                              "made_methods": made}), flush=True)
        return result

    server.start(host="127.0.0.1", port=0)
    print(server.url, flush=True)
    sys.stdin.read()  # serve until the test closes our stdin
    server.stop()
""")

NOT_BEFORE_FIRST_USE = (
    "decimal",  # a table cell holding a Decimal: the caller imported it
    "orjson",  # the fast extra: at the first large body's parse or numeric array's text (installed here)
    "importlib.abc",  # imports importlib.resources; tqdm's import hook is a loader by protocol
    "importlib.metadata",  # provenance's package inventory, read at the first record
    "importlib.resources",
    "nanohubmcp.schema.comments",  # PEP 484 type comments: only for a source file that has one
    "nanohubmcp.server.registry.uri_template",  # only for resource templates
    "nanohubmcp.server.registry.skills",  # loading skill folders: at the first add_skill
    "nanohubmcp.server.handlers.tools",  # every handler but the lifecycle's: at its method's first request
    "nanohubmcp.server.stateless.handlers",
    "nanohubmcp.server.executors.service",  # running tools and jobs, shaping results: at the first call
    "nanohubmcp.server.calls.tool_checks",  # the tool a call names and its arguments: at the first call
    "nanohubmcp.server.results.shape",
    "nanohubmcp.server.results.resources",
    "nanohubmcp.server.results.plain",
    "nanohubmcp.server.results.convert",
    "nanohubmcp.protocol.escaped_text",  # a table's text block: with the result converters, not with the encoder
    "nanohubmcp.server.stateless.tasks",  # the tasks extension's handlers: at the first task request
    "nanohubmcp.server.direct",  # server.call() from the serving program
    "nanohubmcp.server.calls.context",  # Context (and the asks behind it): at a call, or an annotation naming it
    "nanohubmcp.server.asks.context_asks",
    "nanohubmcp.server.calls.tqdm_progress",  # the tqdm and input() hooks: with the first handler that calls functions
    "nanohubmcp.server.calls.stdin_guard",
    # The core's services, made at their first use (the job store at start only when one is on disk):
    "sqlite3",
    "nanohubmcp.server.jobs.service",
    "nanohubmcp.server.jobs.stores",
    "nanohubmcp.server.jobs.backend",
    "nanohubmcp.server.jobs.sqlite_store",
    "nanohubmcp.server.jobs.sqlite_file",
    "nanohubmcp.server.jobs.record",
    "nanohubmcp.server.jobs.runs",
    "nanohubmcp.server.jobs.visibility",
    "nanohubmcp.server.jobs.ends",
    "nanohubmcp.server.jobs.settle",
    "nanohubmcp.server.jobs.writes",
    "nanohubmcp.server.jobs.elsewhere",
    "nanohubmcp.server.results.store",
    "nanohubmcp.server.results.index",
    "nanohubmcp.server.results.shared_folder",
    "nanohubmcp.server.results.deferred",
    "nanohubmcp.server.results.evictions",
    "nanohubmcp.server.results.spool",
    "nanohubmcp.server.results.kept_size",
    "nanohubmcp.server.results.options",
    "nanohubmcp.server.results.sink",
    "nanohubmcp.server.provenance.layer",
    "nanohubmcp.server.provenance.records",
    "nanohubmcp.server.provenance.writer",
    "nanohubmcp.server.provenance.capture",
    "nanohubmcp.server.provenance.handover",
    "nanohubmcp.server.provenance.result_text",
    "nanohubmcp.server.provenance.job_record",
    "nanohubmcp.server.provenance.session_names",
    "nanohubmcp.server.provenance.tool_facts",
    "nanohubmcp.server.provenance.code_facts",
    "nanohubmcp.server.provenance.cache_layer",
    "nanohubmcp.server.provenance.cache_store",
    "nanohubmcp.server.provenance.cache_front",
    "nanohubmcp.server.asks.request_state",
    "nanohubmcp.server.asks.task_inputs",
    "nanohubmcp.server.asks.input_requests",
    "nanohubmcp.server.registry.skill_catalog",
    "nanohubmcp.server.registry.prompts",  # the Prompt record: with the first prompt
    "nanohubmcp.server.wire.replication",  # several processes: with a shared state store only
    "nanohubmcp.server.wire.relay_streams",
    "nanohubmcp.server.wire.principal",  # the Principal dataclass: made by a verifier (no authorization here)
    "nanohubmcp.server.calls.invoke",  # running a function (and its progress): at the first call or job
    "nanohubmcp.server.calls.progress",
    "nanohubmcp.processes.supervisor",  # forking workers: --workers only
    "mmap",  # the workers' shared counters: --workers only
    "importlib.util",  # is OpenTelemetry installed: asked for tracing=true only
    "nanohubmcp.server.registry.mcp_apps",  # MCP Apps views: with view= or add_app_view, or a tool's _meta over REST
    "nanohubmcp.protocol.client_answers",  # the shapes of a client's answers: with the first answer to an ask
    "nanohubmcp.schema.compiled",  # the schema compilers: at a tool's first call (or an input_schema= given)
    "nanohubmcp.schema.fastpath",
    "nanohubmcp.server.wire.store_link",  # a shared (Redis) state store only
    "nanohubmcp.processes.process_exit",  # when serving has ended
    "nanohubmcp.transports.redaction",  # a line of the access log
    "nanohubmcp.protocol.credentials",
    "nanohubmcp.transports.public_url",  # a public URL or a list of allowed origins given
    # Every route's handler but /mcp's and the 404's: with its route's first request (routes.HandlerAtFirstUse)
    "nanohubmcp.transports.sse",
    "nanohubmcp.transports.rest",
    "nanohubmcp.server.results.named_blocks",
    "nanohubmcp.transports.health",
    "nanohubmcp.transports.discovery",
    "nanohubmcp.transports.documents",
    "nanohubmcp.transports.sse_writer",  # the first answer sent as an SSE stream (a first answer is JSON)
    "nanohubmcp.transports.stateless",  # the stateless era (2026-07-28): with its first request
    "nanohubmcp.server.stateless.discover",
    "nanohubmcp.protocol.large_json",  # a body of 1 MiB or more
    "nanohubmcp.transports.limit_option",  # the command line's limits and the most workers: run(workers=N > 1) only
    "pathlib",  # a busy port's note reads /proc with open() (processes.port_holders)
    "nanohubmcp.processes.port_holders",  # what holds a busy port: only when the bind fails
    "nanohubmcp.transports.served",  # the transports' seam with the facade: for type checkers only
)


NOT_COMPILED_BEFORE_FIRST_USE = (
    # (module, name of a pattern's text): ``re`` compiles each at its first use, which a first answer is not
    ("nanohubmcp.transports.origin", "_ORIGIN"),  # a request with an Origin header (a browser's)
    ("nanohubmcp.transports.origin", "_FINAL_DOT"),
    ("nanohubmcp.protocol.nesting", "_ESCAPES"),  # a long JSON text with escapes or strings
    ("nanohubmcp.protocol.nesting", "_STRINGS"),
    ("nanohubmcp.schema.paths", "_INDEX"),  # a violation's JSON pointer
    ("nanohubmcp.server.stateless.headers", "_FIELD_VALUE"),  # a mirrored Mcp-Param header
    ("nanohubmcp.server.registry.listed_text", "_MIME"),  # a resource's mime_type= (the probe gives none)
    ("nanohubmcp.schema.ecma_pattern", "_INLINE_FLAG"),  # a JSON Schema pattern holding a "$", or given by Field()
    ("nanohubmcp.errors.sent_text", "_CUT_NOTE"),  # a text longer than a client is sent
)

NOT_COMPILED_ROUTES = ("/?$", "/sse/?$", "/tools/([^/]+)/?$", "/healthz$", "/readyz$", r"/openapi\.json$")


def test_the_first_answer_imports_nothing_it_does_not_need(tmp_path: Path) -> None:
    script = tmp_path / "served.py"  # a file, as a served script is (its source can be read)
    script.write_text(SCRIPT)
    # A state directory of its own: no job store left there by another run (that one is opened at start).
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}
    child = subprocess.Popen(
        [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout is not None
        url = child.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        answer = post_rpc(
            url,
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}},
        )
        assert answer["result"]["serverInfo"]["name"] == "lean"
        seen = json.loads(child.stdout.readline())
        loaded = set(seen["modules"])
    finally:
        child.communicate(input="", timeout=30)
    assert "nanohubmcp.serving.runner" in loaded or "tornado.web" in loaded  # the probe did serve
    assert sorted(loaded.intersection(NOT_BEFORE_FIRST_USE)) == []
    # No ``NamedTuple`` is made by a module a first answer loads: each cost ~0.5 M instructions plus ~0.1 M a field
    # (its string annotations compiled into ForwardRefs); the eight there were written out as tuples
    assert seen["named_tuples"] == []
    # Nor a dataclass whose methods ``@dataclass`` compiles from source as the class is made (the ``Tool`` record's
    # ``__init__`` and ``__repr__``, ~2.8 M instructions, are written out). The resource records are made with the
    # probe's first resource (not yet written out; a server without resources never loads them).
    resource_records = "nanohubmcp.server.registry.resources."
    assert [made for made in seen["made_methods"] if not made.startswith(resource_records)] == []
    patterns = [(f"{module}.{name}", getattr(importlib.import_module(module), name))
                for module, name in NOT_COMPILED_BEFORE_FIRST_USE]
    assert all(isinstance(text, (str, bytes)) for _, text in patterns)  # text, compiled by ``re`` when used
    assert [where for where, text in patterns if repr(text) in seen["patterns"]] == []
    from nanohubmcp.schema.ecma_pattern import _MASKED_RULES  # the ECMA-262 checks of a Field(pattern=...)

    assert [rule for rule, _ in _MASKED_RULES if not isinstance(rule, str) or repr(rule) in seen["patterns"]] == []
    # Routes: a request to /mcp compiles that route's pattern only (transports.routes.FirstUsePath)
    assert "'/mcp/?$'" in seen["patterns"]
    assert [route for route in NOT_COMPILED_ROUTES if repr(route) in seen["patterns"]] == []
