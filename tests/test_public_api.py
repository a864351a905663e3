"""The public surface of ``nanohubmcp``: a sorted ``__all__`` whose names all resolve, an import
with no side effects (it runs inside users' Jupyter kernels), and the names and keywords of
the 0.4.x package it replaces, so code written for that package runs unchanged.

The exports resolve lazily, so ``import nanohubmcp`` stays cheap inside a kernel.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import re
import subprocess
import sys
import textwrap

import pytest
from support import banner_of

import nanohubmcp
from nanohubmcp import Context, MCPServer


def test_all_is_sorted_and_unique() -> None:
    assert nanohubmcp.__all__ == sorted(nanohubmcp.__all__)
    assert len(set(nanohubmcp.__all__)) == len(nanohubmcp.__all__)


@pytest.mark.parametrize("name", nanohubmcp.__all__)
def test_every_exported_name_resolves(name: str) -> None:
    assert getattr(nanohubmcp, name) is not None


def test_dir_lists_the_exports_and_unknown_names_raise() -> None:
    assert set(nanohubmcp.__all__) <= set(dir(nanohubmcp))
    with pytest.raises(AttributeError, match="no_such_name"):
        nanohubmcp.no_such_name  # noqa: B018


def test_the_version_is_the_distributions() -> None:
    assert nanohubmcp.__version__ == importlib.metadata.version("nanohub-mcp")


# -- no side effects ---------------------------------------------------------------------------
PROBE = textwrap.dedent("""
    import io, json, logging, sys, threading, warnings
    filters = list(warnings.filters)
    root = logging.getLogger()
    before = {"handlers": list(root.handlers), "level": root.level, "last_resort": logging.lastResort}
    threads = {t.ident for t in threading.enumerate()}
    captured = io.StringIO()
    sys.stdout, real_stdout = captured, sys.stdout
    import nanohubmcp
    {after_import}
    sys.stdout = real_stdout
    heavy = ("tornado", "IPython", "ipykernel", "traitlets", "nbformat", "nbconvert", "comm",
             "jupyter_client", "redis", "orjson")
    loggers = [logging.getLogger(name) for name in logging.root.manager.loggerDict
               if name.startswith("nanohubmcp")]
    print(json.dumps({
        "new_threads": [t.name for t in threading.enumerate() if t.ident not in threads],
        "heavy_modules": sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in heavy}),
        "root_changed": [k for k, v in before.items()
                         if v != {"handlers": list(root.handlers), "level": root.level,
                                  "last_resort": logging.lastResort}[k]],
        "package_handlers": [repr(h) for lg in loggers for h in lg.handlers],
        "package_levels": {lg.name: lg.level for lg in loggers if lg.level},
        "filters_changed": warnings.filters != filters,
        "printed": captured.getvalue(),
    }))
""")


def probe(after_import: str = "") -> dict:
    code = PROBE.replace("{after_import}", textwrap.dedent(after_import).strip() or "pass")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stderr == "", done.stderr
    return json.loads(done.stdout)


CLEAN = {"new_threads": [], "heavy_modules": [], "root_changed": [], "package_handlers": [],
         "package_levels": {}, "filters_changed": False, "printed": ""}


def test_importing_the_package_has_no_side_effects() -> None:
    assert probe() == CLEAN


def test_resolving_every_export_has_no_side_effects() -> None:
    # Names resolve lazily; even all of them together start nothing and import no Tornado or IPython.
    assert probe("for name in nanohubmcp.__all__: getattr(nanohubmcp, name)") == CLEAN


def test_a_redis_state_url_imports_and_connects_nothing_until_serving() -> None:
    # The redis package is imported (and Redis reached) only when a server with a redis:// URL serves.
    assert probe('nanohubmcp.MCPServer("shared", state_url="redis://127.0.0.1:1/0")') == CLEAN


def test_building_a_server_without_serving_has_no_side_effects() -> None:
    built = probe("""
        server = nanohubmcp.MCPServer("quiet")

        @server.tool()
        def add(a: float, b: float) -> float:
            "Add (a described, typed tool draws no registration warning)."
            return a + b

        @server.async_tool()
        def slow(n: int) -> int:
            "Return n."
            return n

        @server.resource("config://x")
        def settings() -> dict:
            return {"a": 1}

        @server.prompt()
        def explain(topic: str) -> str:
            return f"Explain {topic}"
    """)
    assert built == CLEAN


# -- the 0.4.x names -----------------------------------------------------------------------------
EARLIER_EXPORTS = [
    "MCPServer", "tool", "async_tool", "resource", "prompt", "Context", "Tool", "Resource",
    "ResourceTemplate", "Prompt", "ToolResult", "ResourceResult", "ResourceContent", "PromptResult",
    "Message", "TextContent", "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource", "Image",
    "Role", "CallToolResult", "ReadResourceResult", "GetPromptResult", "PromptMessage", "__version__",
    "Skill", "InputRequired",
]


@pytest.mark.parametrize("name", EARLIER_EXPORTS)
def test_the_earlier_packages_exports_exist(name: str) -> None:
    assert name in nanohubmcp.__all__
    assert getattr(nanohubmcp, name) is not None


def test_the_result_aliases_are_the_same_classes() -> None:
    assert nanohubmcp.CallToolResult is nanohubmcp.ToolResult
    assert nanohubmcp.ReadResourceResult is nanohubmcp.ResourceResult
    assert nanohubmcp.GetPromptResult is nanohubmcp.PromptResult
    assert nanohubmcp.PromptMessage is nanohubmcp.Message


def keywords(fn: object) -> set[str]:
    return set(inspect.signature(fn).parameters)  # type: ignore[arg-type]


def test_the_constructor_takes_the_documented_and_earlier_options() -> None:
    params = inspect.signature(MCPServer).parameters
    assert list(params)[:3] == ["name", "version", "instructions"]
    assert params["version"].default == "1.0.0"
    assert params["instructions"].default is None
    assert {"list_page_size", "list_changed", "argument_errors"} <= set(params)
    server = MCPServer("kw", version="2.0", instructions="hi", list_page_size=None, list_changed=True)
    assert (server.name, server.version) == ("kw", "2.0")


def test_run_and_start_take_the_documented_keywords() -> None:
    for method in (MCPServer.run, MCPServer.start):
        params = inspect.signature(method).parameters
        assert list(params)[1:4] == ["host", "port", "path_prefix"], method
        assert params["path_prefix"].default == ""
        assert {"allowed_origins", "max_request_bytes", "public_url"} <= set(params)
    # None means 127.0.0.1: loopback by default, as the ecosystem does; see below.
    assert inspect.signature(MCPServer.run).parameters["host"].default is None
    assert {"token"} <= set(inspect.signature(MCPServer.run).parameters)
    assert {"token"} <= set(inspect.signature(MCPServer.start).parameters)
    assert {"auth"} <= set(inspect.signature(MCPServer).parameters)
    assert inspect.signature(MCPServer.run).parameters["max_request_bytes"].default == 16 * 1024 * 1024
    app_options = {"path_prefix", "public_url", "allowed_origins", "max_request_bytes"}
    assert app_options <= keywords(MCPServer.make_app)


def test_run_in_a_script_listens_on_loopback_by_default() -> None:
    script = 'from nanohubmcp import MCPServer\nMCPServer("default-host").run(port=0)\n'
    out, err = banner_of(script, "listening on")
    assert "MCP Server 'default-host' v1.0.0 listening on 127.0.0.1:" in out
    assert "no authorization" not in err  # loopback: no warning


def test_the_earlier_run_keywords_are_accepted() -> None:
    server = MCPServer("compat")
    server.start(host="127.0.0.1", port=0, path_prefix="", require_session_header=False,
                 max_request_bytes=1024 * 1024, require_route_headers="auto", allowed_origins=None)
    try:
        assert server.running
        assert server.port
        assert server.url == f"http://127.0.0.1:{server.port}/"
        assert server.mcp_url == f"http://127.0.0.1:{server.port}/mcp"  # what clients connect to
    finally:
        server.stop()
    assert not server.running
    assert server.mcp_url is None


def test_make_app_returns_a_tornado_application() -> None:
    import tornado.web

    assert isinstance(MCPServer("app").make_app(path_prefix="/p"), tornado.web.Application)


@pytest.mark.parametrize("method", ["tool", "resource", "prompt", "make_app", "run"])
def test_the_serving_and_decorator_docstrings_describe_every_option(method: str) -> None:
    """Trial19 F12: make_app's docstring was one line, resource's and prompt's had no Args."""
    doc = inspect.getdoc(getattr(MCPServer, method)) or ""
    assert "\nArgs:\n" in doc, method
    args = doc.split("\nArgs:\n", 1)[1]
    missing = [name for name in keywords(getattr(MCPServer, method)) - {"self", "compat"}
               if not re.search(rf"^\s+{name}:", args, re.MULTILINE)]
    assert not missing, (method, missing)


def test_make_app_names_its_return_type_and_token_verifier_documents_verify() -> None:
    from nanohubmcp import TokenVerifier

    # a string (from __future__ import annotations): naming it imports no Tornado
    assert inspect.signature(MCPServer.make_app).return_annotation == "tornado.web.Application"
    doc = inspect.getdoc(TokenVerifier.verify) or ""
    for section in ("Args:", "Returns:", "Raises:", "ServerBusy", "401"):
        assert section in doc, section


@pytest.mark.parametrize(("method", "expected"), [
    ("tool", {"name", "description", "tags", "meta", "input_schema", "output_schema", "annotations",
              "title"}),
    ("resource", {"uri", "name", "description", "mime_type", "tags", "meta", "title", "annotations"}),
    ("prompt", {"name", "description", "tags", "meta"}),
])
def test_the_decorators_take_the_documented_options(method: str, expected: set[str]) -> None:
    assert expected <= keywords(getattr(MCPServer, method))


def test_async_tool_takes_the_options_of_tool() -> None:
    server = MCPServer("async-options")

    @server.async_tool(name="long_job", description="A long job.", tags={"slow"}, meta={"k": 1},
                       input_schema={"type": "object", "properties": {"n": {"type": "integer"}}})
    def job(n):  # type: ignore[no-untyped-def]
        return n

    tool = server.core.registry.tools.get("long_job")
    assert tool is not None
    assert tool.description == "A long job."
    assert "get_job_result" in server.core.registry.tools  # registered with the first async tool


def test_the_module_level_decorators_mark_functions_for_include() -> None:
    @nanohubmcp.tool(description="Add.")
    def add(a: float, b: float) -> float:
        return a + b

    @nanohubmcp.resource("config://settings")
    def settings() -> dict:
        return {"precision": 10}

    @nanohubmcp.prompt()
    def explain(topic: str) -> str:
        return f"Explain {topic}"

    server = MCPServer("include")
    assert server.include([add, settings, explain]) == 3
    registry = server.core.registry
    assert "add" in registry.tools
    assert "explain" in registry.prompts
    assert add(1, 2) == 3  # marking leaves the function usable


CONTEXT_NAMES = ["debug", "info", "warning", "error", "report_progress", "elicit", "elicit_url", "sample",
                 "list_roots", "is_cancelled", "on_cancel", "server", "request_id", "session_id", "meta",
                 "progress_token", "job_id", "cancel_event", "task_metadata", "set_task_metadata",
                 "get_log_messages"]


@pytest.mark.parametrize("name", CONTEXT_NAMES)
def test_context_keeps_the_earlier_members(name: str) -> None:
    assert hasattr(Context, name), f"Context.{name} (earlier-package-study § c) is missing"
