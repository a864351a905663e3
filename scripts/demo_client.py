#!/usr/bin/env python3
"""Drive an MCP server with the official ``mcp`` Python client and print every step.

Usage::

    python scripts/demo_client.py [URL] [--tool NAME] [--arguments JSON]
                                  [--prompt NAME] [--prompt-arguments JSON] [--timeout SECONDS]
                                  [--token-file PATH]

URL is the Streamable HTTP endpoint (default ``http://127.0.0.1:8000/mcp``); a base URL such
as ``http://127.0.0.1:8000/`` gets ``mcp`` appended; a URL ending in ``/sse`` (the legacy SSE
endpoint every banner prints) is driven over the legacy SSE transport. A server that requires a token gets it as
``Authorization: Bearer <token>``: from ``$MCP_TOKEN`` (as the server and ``nanohubmcp bridge``
read it), or from ``--token-file PATH`` (a file only its owner can read); ``--token TOKEN``
works too, with a warning (a command line is visible to other users). Every list is read whole, following
``nextCursor`` (at most 100 pages). The steps: initialize, list tools, call a
tool (default ``add`` with ``{"a": 2, "b": 3}``, else the first tool that needs no argument, else the first whose
required arguments :func:`example_arguments` can make up; none: the call is skipped, saying why), list resources and
read each, list resource templates, list prompts and get one (default: the first, with every argument set to "2+2").
A job tool (one that runs as a task, ``execution.taskSupport``, such as an ``@async_tool`` that may start a batch job
on a cluster, and the job tools ``get_job_result`` and ``cancel_job``) is never picked: it runs only when named with
``--tool``, and then its job is polled with ``get_job_result`` until it ends (``--timeout`` running out first
leaves it running, and the failure names it). A picked tool that answers a job handle
all the same (``{"status": "running", "job_id": ...}``) has its job cancelled at once, and the call counts as failed.

Exit status: 0 when every step succeeded, 1 when one failed (the message says which; the tool call answering an error
or skipped counts, after the other steps ran), 2 for bad command-line arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import urllib.parse
import warnings
from typing import Any

# Ctrl-C ends the client at once, as the signal's default does (the shell reports status 130), without Python's
# KeyboardInterrupt traceback from wherever it was (importing the client, waiting on the server; trial71 T71-11):
# it holds nothing to save, and scripts/demo stops its server on the way out. (Not when a test imports this file.)
if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)

try:
    from nanohubmcp.auth.token_option import add_token_options, token_from_options
    from nanohubmcp.errors import ConfigurationError
except ImportError:  # run by another Python than the checkout's environment (./scripts/demo_client.py, python3 ...)
    _VENV_PYTHON = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".venv", "bin", "python")
    if os.path.exists(_VENV_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(_VENV_PYTHON):
        os.execv(_VENV_PYTHON, [_VENV_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])
    sys.exit("demo_client.py needs nanohubmcp and the mcp client: run it with the checkout's environment, "
             ".venv/bin/python scripts/demo_client.py URL (scripts/setup makes .venv), or install nanohub-mcp")

from demo_arguments import example_arguments  # noqa: E402  scripts/, this file's folder, is first on sys.path

DEFAULT_URL = "http://127.0.0.1:8000/mcp"


class DemoFailure(Exception):
    """A step did not give what the demo expects."""


def endpoint(url: str) -> str:
    """The MCP endpoint for ``url``: unchanged when its path ends in ``/mcp`` or ``/sse`` (the legacy SSE
    endpoint), else with ``/mcp`` added to its path (a query and fragment kept after it:
    ``http://h:8000/?x=1`` -> ``http://h:8000/mcp?x=1``)."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path.rstrip("/")
    if path.endswith(("/mcp", "/sse")):
        return url
    return urllib.parse.urlunsplit(parts._replace(path=path + "/mcp"))


def is_legacy_sse(url: str) -> bool:
    """True for the legacy SSE endpoint (a path ending in ``/sse``), driven with the SDK's ``sse_client``."""
    return urllib.parse.urlsplit(url).path.rstrip("/").endswith("/sse")


def step(title: str) -> None:
    print(f"\n=== {title} ===", flush=True)


LONG_LIST = 8
"""A list of more items is shortened to its first ``LIST_SHOWN`` and a count."""
LIST_SHOWN = 4
LONG_TEXT = 240
"""A text of more characters is shortened to its first ``TEXT_SHOWN`` and a count."""
TEXT_SHOWN = 160
ERROR_TEXT_SHOWN = 8000
"""An error result's text (``isError: true``: prose saying how to fix the call) is printed whole up to this many
characters; longer, its first ``ERROR_TEXT_SHOWN`` and its length."""


class Cut(str):
    """What a shortened list or text says in place of the rest (printed as it is, not as a JSON string)."""


def shortened(value: Any, text_shown: int = TEXT_SHOWN) -> Any:
    """``value`` with its long lists and texts cut for the printout (at any depth): a list of more than
    ``LONG_LIST`` items keeps its first ``LIST_SHOWN`` and ends with ``... (201 numbers)`` (``items`` when not all
    numbers); a text of more than ``LONG_TEXT`` characters (and more than ``text_shown``) keeps its first
    ``text_shown`` and says its length (a base64 image, a tool's JSON text)."""
    if isinstance(value, dict):
        return {key: shortened(item, text_shown) for key, item in value.items()}
    if isinstance(value, list):
        if len(value) <= LONG_LIST:
            return [shortened(item, text_shown) for item in value]
        numbers = all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in value)
        rest = Cut(f"... ({len(value)} {'numbers' if numbers else 'items'})")
        return [*(shortened(item, text_shown) for item in value[:LIST_SHOWN]), rest]
    if isinstance(value, str) and len(value) > max(LONG_TEXT, text_shown):
        return Cut(json.dumps(value[:text_shown], ensure_ascii=False)[:-1] + f'..." ({len(value)} characters)')
    return value


def as_text(value: Any, depth: int = 0) -> str:
    """``value`` as indented JSON, but a list of plain values on one line and a :class:`Cut` as it is."""
    if isinstance(value, Cut):
        return str(value)
    inner = "  " * (depth + 1)
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(key)}: {as_text(item, depth + 1)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if isinstance(value, list) and value:
        if not any(isinstance(item, (dict, list)) for item in value):
            return "[" + ", ".join(as_text(item) for item in value) + "]"
        return "[\n" + ",\n".join(inner + as_text(item, depth + 1) for item in value) + "\n" + "  " * depth + "]"
    return json.dumps(value, ensure_ascii=False)


def show(label: str, value: Any, text_shown: int = TEXT_SHOWN) -> None:
    """Print ``label: value`` with JSON-looking values indented under the label, long lists and texts
    shortened (:func:`shortened`; a text to its first ``text_shown`` characters)."""
    if isinstance(value, (dict, list)):
        text = as_text(shortened(value, text_shown))
        print(f"  {label}:\n" + "\n".join("    " + line for line in text.splitlines()), flush=True)
    elif isinstance(value, str) and len(value) > LONG_TEXT:
        print(f"  {label}: {value[:TEXT_SHOWN]}... ({len(value)} characters)", flush=True)
    else:
        print(f"  {label}: {value}", flush=True)


def blocks(content: list[Any]) -> list[dict[str, Any]]:
    """Content blocks as plain dicts, without the SDK's unset fields."""
    return [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in content]


async def on_log(params: Any) -> None:
    """Print ``notifications/message`` sent by the server during a call."""
    print(f"  [server log, {params.level}] {params.data}", flush=True)


def authorized_client(token: str | None) -> Any:
    """The HTTP client of the session: one sending ``Authorization: Bearer <token>`` (timeouts as
    the SDK's default client: 30 s, 300 s to read a stream), or None (that default) without a token."""
    import httpx2

    if not token:
        return contextlib.nullcontext(None)
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=300))


def transport(url: str, bearer: str | None) -> Any:
    """The SDK's client streams for ``url``: ``sse_client`` for the legacy SSE endpoint (:func:`is_legacy_sse`),
    else ``streamable_http_client``; either sends ``Authorization: Bearer <bearer>`` when given."""
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client

    if is_legacy_sse(url):
        return sse_client(url, headers={"Authorization": f"Bearer {bearer}"} if bearer else None)

    @contextlib.asynccontextmanager
    async def streamable() -> Any:
        async with authorized_client(bearer) as http_client, streamable_http_client(
            url, http_client=http_client
        ) as streams:
            yield streams

    return streamable()


MAX_PAGES = 100
"""The most pages of one list this script reads (following ``nextCursor``) before it stops, saying so."""


async def listed(lister: Any, field: str) -> list[Any]:
    """Every entry of a ``*/list`` (``lister``: a ``ClientSession.list_*`` method; ``field``: its result's list),
    following ``nextCursor`` page after page (MCP 2025-11-25, Server § Utilities § Pagination), at most
    :data:`MAX_PAGES` pages.

    Raises:
        DemoFailure: the server still gave a ``nextCursor`` after :data:`MAX_PAGES` pages, or the same one twice.
    """
    from mcp.types import PaginatedRequestParams

    entries: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await lister(params=None if cursor is None else PaginatedRequestParams(cursor=cursor))
        entries += getattr(page, field)
        cursor = page.next_cursor
        if not cursor:
            return entries
        if cursor in seen:
            raise DemoFailure(f"the server gave the nextCursor {cursor!r} twice: its list does not end")
        seen.add(cursor)
    raise DemoFailure(f"the server's list still had a nextCursor after {MAX_PAGES} pages; stopped reading it")


async def run(args: argparse.Namespace) -> None:
    from mcp import ClientSession

    url = endpoint(args.url)
    kind = "legacy SSE" if is_legacy_sse(url) else "Streamable HTTP"
    step(f"connect to {url} ({kind})" + (" with a bearer token" if args.bearer else ""))
    async with transport(url, args.bearer) as streams, ClientSession(
        streams[0], streams[1], logging_callback=on_log
    ) as session:
        step("1. initialize")
        init = await session.initialize()
        show("protocolVersion", init.protocol_version)
        show("serverInfo", init.server_info.model_dump(mode="json", exclude_none=True))
        show("capabilities", init.capabilities.model_dump(mode="json", by_alias=True, exclude_none=True))
        if init.capabilities.logging is not None:
            # Ask for the server's log messages (ctx.info(...) in tools) so they show below.
            with warnings.catch_warnings():  # deprecated only for the 2026-07-28 protocol
                warnings.simplefilter("ignore")
                await session.set_logging_level("info")

        step("2. tools/list")
        tools = await listed(session.list_tools, "tools")
        for tool in tools:
            params = ", ".join(tool.input_schema.get("properties", {}))
            print(f"  - {tool.name}({params}): {(tool.description or '').strip().splitlines()[0]}")
        problem = await call_step(session, args, tools)

        step("4. resources/list and resources/read")
        resources = await listed(session.list_resources, "resources")
        if not resources:
            print("  (no resources)")
        for resource in resources:
            kind = resource.mime_type or "no MIME type"
            print(f"  - {resource.uri} ({kind}): {resource.description or ''}")
            read = await session.read_resource(resource.uri)
            for item in read.contents:
                text = getattr(item, "text", None)
                show("    contents", text if text is not None else f"<{len(item.blob)} base64 chars>")

        step("5. resources/templates/list")
        templates = await listed(session.list_resource_templates, "resource_templates")
        if not templates:
            print("  (no resource templates)")
        for template in templates:
            print(f"  - {template.uri_template}: {template.description or ''}")

        step("6. prompts/list and prompts/get")
        prompts = await listed(session.list_prompts, "prompts")
        for prompt in prompts:
            names = ", ".join(a.name for a in prompt.arguments or [])
            print(f"  - {prompt.name}({names}): {prompt.description or ''}")
        if prompts:
            chosen = next((p for p in prompts if p.name == args.prompt), None) if args.prompt else prompts[0]
            if chosen is None:
                raise DemoFailure(f"the server has no prompt named {args.prompt!r}")
            prompt_args = args.prompt_arguments
            if prompt_args is None:
                prompt_args = {a.name: "2+2" for a in chosen.arguments or []}
            got = await session.get_prompt(chosen.name, prompt_args)
            print(f"  prompts/get {chosen.name} {json.dumps(prompt_args)}:")
            for message in got.messages:
                content = message.content.model_dump(mode="json", exclude_none=True)
                print(f"    {message.role}: {content.get('text', content)}")
        else:
            print("  (no prompts)")

    if problem is not None:  # the other steps ran: shown above
        raise DemoFailure(problem)
    step("done: every step succeeded")


async def call_step(session: Any, args: argparse.Namespace, tools: list[Any]) -> str | None:
    """Step 3: call the tool :func:`choose_call` picks and show its result. Raises :class:`DemoFailure` for an
    error from a tool the user named (or ``add``); returns what went wrong (the demo fails once the other steps
    ran) for an error from a tool this script picked, or for no tool it could call; None when the call succeeded."""
    chosen = choose_call(args, tools)
    if isinstance(chosen, str):
        step("3. tools/call (skipped)")
        print(f"  ({chosen})")
        return f"tools/call skipped: {chosen}"
    tool, arguments = chosen
    step(f"3. tools/call {tool.name} {json.dumps(arguments)}")
    result = await session.call_tool(tool.name, arguments)
    # An error's text says how to fix the call: shown whole (up to ERROR_TEXT_SHOWN characters).
    show("content", blocks(result.content), ERROR_TEXT_SHOWN if result.is_error else TEXT_SHOWN)
    if result.structured_content is not None:
        show("structuredContent", result.structured_content)
    show("isError", result.is_error)
    handle = job_handle(result)
    if handle is not None:
        if args.tool is None:  # a job this script started by its own choice: not run
            if any(t.name == "cancel_job" for t in tools):
                await session.call_tool("cancel_job", {"job_id": handle})
                stopped = "cancelled at once"
            else:
                stopped = "not cancelled: the server has no cancel_job"
            print(f"  ({tool.name} started a job, which may queue work on a cluster: {stopped})")
            return (f"tool {tool.name!r}, picked by this script, started a job ({stopped}): run it with "
                    f"--tool {tool.name} --arguments JSON to wait for its result")
        result = await polled(session, handle)
    if not result.is_error:
        return None
    if args.tool is not None or tool.name == "add":
        raise DemoFailure(f"tool {tool.name!r} reported an error")
    if not tool.input_schema.get("properties"):
        return f"tool {tool.name!r}, which takes no arguments, answered an error (above)"
    print(f"  ({tool.name} answered an error (above); it may want other arguments: "
          f"pass --tool {tool.name} --arguments JSON)")
    return (f"tool {tool.name!r} answered an error (above) to {json.dumps(arguments)}, arguments this script "
            f"chose: pass --tool {tool.name} --arguments JSON")


JOB_TOOLS = ("get_job_result", "cancel_job")
"""The tools a server with job tools adds to poll and cancel their jobs (they need a job id)."""


def is_job_tool(tool: Any) -> bool:
    """Whether ``tool`` runs as a job (it takes tasks: ``execution.taskSupport`` optional or required) or is one of
    :data:`JOB_TOOLS`: what this script never calls unless the user names it."""
    execution = getattr(tool, "execution", None)
    return tool.name in JOB_TOOLS or getattr(execution, "task_support", None) in ("optional", "required")


def job_handle(result: Any) -> str | None:
    """The job id of a result that is a job handle (``{"status": "running", "job_id": ...}``: the job runs on), or
    None."""
    answer = result.structured_content
    if result.is_error or not isinstance(answer, dict) or answer.get("status") != "running":
        return None
    return answer["job_id"] if isinstance(answer.get("job_id"), str) else None


POLLED: list[str] = []
"""The job this run polls, until it ended: named when ``--timeout`` runs out first (the job runs on)."""
POLL_SECONDS = 1.0
"""Seconds between two ``get_job_result`` polls of a job the user started (its ``--timeout`` bounds them all)."""


async def polled(session: Any, job_id: str) -> Any:
    """``get_job_result`` of job ``job_id`` until the job ended (its status message shown when it changes), shown;
    its last answer (an ``isError`` result for a job that failed, was cancelled or is unknown)."""
    print(f"  (the call started a job: get_job_result every {POLL_SECONDS:g} s until it ends)", flush=True)
    said = None
    POLLED.append(job_id)  # (--timeout running out while this polls: the job runs on, and the failure says so)
    while True:
        answer = await session.call_tool("get_job_result", {"job_id": job_id})
        status = answer.structured_content if isinstance(answer.structured_content, dict) else {}
        if answer.is_error or status.get("status") != "running":
            break
        now = status.get("message") or (status.get("progress") or {}).get("message")
        if now and now != said:
            said = now
            print(f"  [job] {said}", flush=True)
        await asyncio.sleep(POLL_SECONDS)
    POLLED.remove(job_id)
    print(f"  get_job_result {json.dumps({'job_id': job_id})}:")
    show("content", blocks(answer.content), ERROR_TEXT_SHOWN if answer.is_error else TEXT_SHOWN)
    if answer.structured_content is not None:
        show("structuredContent", answer.structured_content)
    failed = answer.is_error or status.get("status") != "done"
    show("isError", answer.is_error)
    return answer.model_copy(update={"is_error": failed})


def choose_call(args: argparse.Namespace, tools: list[Any]) -> tuple[Any, dict[str, Any]] | str:
    """The tool to call and its arguments: --tool/--arguments when given; else, of the tools that are no job tools
    (:func:`is_job_tool`), add(a=2, b=3) when the server has it, else the first that needs no argument (called with
    none), else the first whose required arguments :func:`example_arguments` can make up; else why none can be
    called (a string)."""
    by_name = {t.name: t for t in tools}
    if args.tool is not None:
        if args.tool not in by_name:
            raise DemoFailure(f"the server has no tool named {args.tool!r}; pick one with --tool")
        return by_name[args.tool], args.arguments if args.arguments is not None else {}
    if "add" in by_name and not is_job_tool(by_name["add"]):
        return by_name["add"], args.arguments if args.arguments is not None else {"a": 2, "b": 3}
    plain = [tool for tool in tools if not is_job_tool(tool)]
    for tool in plain:
        if not tool.input_schema.get("required"):
            return tool, args.arguments if args.arguments is not None else {}
    for tool in plain:
        made_up = example_arguments(tool.input_schema)
        if made_up is not None:
            return tool, args.arguments if args.arguments is not None else made_up
    if not tools:
        return "the server has no tools"
    jobs = [tool.name for tool in tools if is_job_tool(tool) and tool.name not in JOB_TOOLS]
    if jobs and not plain:
        return (f"the server's tools run as jobs ({', '.join(jobs)}), which may queue work on a cluster: this "
                "script starts none by itself; run one with --tool NAME --arguments JSON (its job is then polled)")
    return ("every tool of the server needs arguments this script cannot make up"
            + (f" (its job tools, {', '.join(jobs)}, it starts only when named)" if jobs else "")
            + ": pick one with --tool NAME --arguments JSON")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Drive an MCP server with the official mcp client.")
    parser.add_argument("url", nargs="?", default=DEFAULT_URL,
                        help=f"MCP endpoint: Streamable HTTP .../mcp, or legacy SSE .../sse (default {DEFAULT_URL})")
    parser.add_argument("--tool", default=None,
                        help="tool to call; a job tool named here is polled until its job ends (default, picked "
                        "among the tools that are no job tools: add when the server has it, else the first that "
                        "needs no argument, else the first whose required arguments it can make up)")
    parser.add_argument("--arguments", type=json.loads, default=None,
                        help='tool arguments as JSON (default: {"a": 2, "b": 3} for add, else {}, or example '
                        'values for the required ones of a tool it picks)')
    parser.add_argument("--prompt", default=None, help="prompt to get (default: the first listed)")
    parser.add_argument("--prompt-arguments", type=json.loads, default=None,
                        help='prompt arguments as JSON (default: every argument set to "2+2")')
    parser.add_argument("--timeout", type=float, default=60.0, help="give up after this many seconds (60)")
    add_token_options(parser, "bearer token for a server that requires one")
    args = parser.parse_args(argv)
    try:
        args.bearer = token_from_options(args) or os.environ.get("MCP_TOKEN") or None
    except ConfigurationError as exc:
        parser.error(str(exc))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        asyncio.run(asyncio.wait_for(run(args), args.timeout))
    except DemoFailure as exc:
        print(f"\nDEMO FAILED: {exc}", file=sys.stderr)
        return 1
    except (asyncio.TimeoutError, TimeoutError) as exc:
        running = "".join(f" (job {job} runs on: get_job_result {json.dumps({'job_id': job})} polls it, cancel_job "
                          "stops it)" for job in POLLED)
        print(f"\nDEMO FAILED: no answer within {args.timeout:g} s{running}{tls_hint(exc, args.url)}", file=sys.stderr)
        return 1
    except Exception as exc:  # connection refused, protocol errors: say what, not a traceback
        detail = exc
        while getattr(detail, "exceptions", None):  # unwrap anyio's exception groups
            detail = detail.exceptions[0]
        kind = "" if isinstance(detail, DemoFailure) else f"{type(detail).__name__}: "
        where = tls_hint(detail, args.url) or connect_hint(detail, endpoint(args.url))
        hints = token_hint(detail, args.bearer) + where
        print(f"\nDEMO FAILED: {kind}{detail}{hints}", file=sys.stderr)
        return 1
    return 0


def connect_hint(failure: BaseException, url: str) -> str:
    """Which host and port could not be reached, and what to check, for a refused or failed connection
    (``httpx.ConnectError``, ``ConnectionRefusedError``); "" otherwise."""
    if not (isinstance(failure, OSError) or type(failure).__name__ == "ConnectError"):
        return ""
    from urllib.parse import urlsplit

    place = urlsplit(url)
    authority = f"{place.hostname}:{place.port or (443 if place.scheme == 'https' else 80)}"
    return (f"\n  cannot connect to {authority} (is the server running? start it, e.g. "
            "nanohubmcp run start_mcp.py --port 8000 or scripts/demo, and give its URL with that port)")


TLS_FAILURES = ("ConnectTimeout", "ReadTimeout", "ReadError", "RemoteProtocolError", "TimeoutError", "SSLError")
"""What a TLS client meeting a plain-HTTP server fails with (httpx's names; ``ssl``'s): with an ``https://`` URL."""


def tls_hint(failure: BaseException, url: str) -> str:
    """For an ``https://`` URL whose connection timed out, broke or failed its TLS handshake: that the server may
    speak plain HTTP (nanohubmcp serves ``http://``; TLS comes from a proxy in front), and the ``http://`` URL;
    "" otherwise."""
    if not url.startswith("https://"):
        return ""
    if type(failure).__name__ not in TLS_FAILURES and "SSL" not in str(failure) and "TLS" not in str(failure):
        return ""
    return (f"\n  (https:// to a plain-HTTP server? a nanohubmcp server speaks http:// unless a TLS proxy is in front:"
            f" try http://{url[len('https://'):]})")


def token_hint(failure: BaseException, bearer: str | None) -> str:
    """What to do about a 401 (the server's "Unauthorized: ..." or an HTTP client's "401 Unauthorized"):
    how this script takes a token when none was sent, else that the one sent was refused; "" otherwise."""
    if "Unauthorized" not in str(failure):
        return ""
    if not bearer:
        return "\n  this server requires a bearer token: set MCP_TOKEN or pass --token-file PATH (readable by you only)"
    return "\n  the server refused the token sent (from $MCP_TOKEN or --token-file): check that it is the server's"


if __name__ == "__main__":
    sys.exit(main())
