"""What is compared: the server processes, and the request variants sent to each.

A *process* is one server started from a script in ``servers/`` with either this repository's
interpreter (``.venv``: nanohubmcp and the Tornado ceiling) or the peers' (``.venv-peers``).
An *entry* is one row of the tables: a process plus how it is called (Accept header, tool,
progress token, concurrencies). Several entries may share one process.
"""

from __future__ import annotations

from dataclasses import dataclass

BOTH = "application/json, text/event-stream"
JSON_ONLY = "application/json"
PROTOCOL = "2025-11-25"
MODERN = "2026-07-28"  # stateless era: no session, version + capabilities in every request's _meta
TOKEN = "bench-token"  # the static bearer token of the "ours-token" process
PRE_COMMIT = "2ec0d44"  # main before the call pipeline / composed services redesign
PRE_TREE = f"/tmp/nanohubmcp-pre-{PRE_COMMIT}"  # a detached worktree of it (env.pre_tree makes it)


@dataclass(frozen=True)
class Process:
    key: str
    python: str  # "ours" or "peers"
    script: str
    port: int
    flags: tuple[str, ...] = ()
    streams: bool = True  # holds GET /mcp streams per session
    token: str | None = None  # the bearer token every request to it carries
    cold: bool = True  # measured in the cold-start phase (variants of a measured process are not)

    def argv(self, interpreters: dict[str, str]) -> list[str]:
        return [interpreters[self.python], f"servers/{self.script}", "--port", str(self.port), *self.flags]

    @property
    def url_path(self) -> str:
        return "/mcp"


@dataclass(frozen=True)
class Entry:
    name: str
    process: str
    role: str  # "ceiling", "ours" or "peer"
    accept: str = BOTH
    tool: str = "add"
    progress: bool = False  # send _meta.progressToken (the tool reports progress)
    era: str = PROTOCOL  # PROTOCOL: initialize + Mcp-Session-Id; MODERN: per-request _meta + headers
    token: str | None = None  # sent as Authorization: Bearer <token>
    conc: tuple[int, ...] | None = None  # None: every concurrency of the run
    big: bool = True
    note: str = ""


PROCESSES = (
    Process("ceiling", "ours", "ceiling_tornado.py", 8311),
    Process("ours", "ours", "ours.py", 8312),
    Process("ours-token", "ours", "ours.py", 8318, ("--token", TOKEN), streams=False, token=TOKEN),
    Process("legacy", "peers", "legacy.py", 8313),
    Process("sdk", "peers", "sdk.py", 8314),
    Process("sdk-json", "peers", "sdk.py", 8315, ("--json",), streams=False),
    Process("fastmcp", "peers", "fastmcp_peer.py", 8316),
    Process("fastmcp-json", "peers", "fastmcp_peer.py", 8317, ("--json",), streams=False),
    Process("sdk-stateless", "peers", "sdk.py", 8319, ("--stateless", "--json"), streams=False),
    Process("fastmcp-stateless", "peers", "fastmcp_peer.py", 8320, ("--stateless", "--json"), streams=False),
    Process("ours-pre", "ours", "ours.py", 8321, ("--tree", PRE_TREE), streams=False),
    Process("ours-noprov", "ours", "ours.py", 8322, ("--no-provenance",), streams=False, cold=False),
    Process("ours-otel", "ours", "ours.py", 8323, ("--tracing",), streams=False, cold=False),
)

CEILING = "bare Tornado (ceiling)"
OURS = "nanohubmcp"
OURS_MODERN = "nanohubmcp, 2026-07-28 era"
OURS_TOKEN = "nanohubmcp, bearer token"
OURS_MODERN_TOKEN = "nanohubmcp, 2026-07-28 era, bearer token"
OURS_PRE = f"nanohubmcp before the redesign ({PRE_COMMIT})"
OURS_NOPROV = "nanohubmcp, provenance off"
OURS_OTEL = "nanohubmcp, OpenTelemetry SDK on"
OURS_CACHED = "nanohubmcp, cache hit"

ENTRIES = (
    Entry(CEILING, "ceiling", "ceiling"),
    Entry(OURS, "ours", "ours", note="Accept: json + SSE (what MCP clients send)"),
    Entry("nanohubmcp, Accept json only", "ours", "ours", accept=JSON_ONLY, conc=(16,), big=False),
    Entry(
        OURS_MODERN, "ours", "ours", era=MODERN, big=False, note="no session: _meta + Mcp-Method/Mcp-Name per request"
    ),
    Entry(OURS_TOKEN, "ours-token", "ours", token=TOKEN, big=False, note="static token checked on every request"),
    Entry(OURS_MODERN_TOKEN, "ours-token", "ours", era=MODERN, token=TOKEN, conc=(16,), big=False),
    Entry(
        "nanohubmcp, progress, SSE-framed",
        "ours",
        "ours",
        tool="add_progress",
        progress=True,
        conc=(16,),
        big=False,
        note="one progress event, then the result, as text/event-stream",
    ),
    Entry(
        "nanohubmcp, progress, Accept json only",
        "ours",
        "ours",
        accept=JSON_ONLY,
        tool="add_progress",
        progress=True,
        conc=(16,),
        big=False,
        note="progress dropped, JSON answer",
    ),
    Entry(OURS_PRE, "ours-pre", "ours", big=False, note="the same server on main before the redesign"),
    Entry(OURS_NOPROV, "ours-noprov", "ours", conc=(16,), big=False, note="provenance=False (default: on)"),
    Entry(
        OURS_OTEL,
        "ours-otel",
        "ours",
        conc=(16,),
        big=False,
        note="tracing=True, SDK with in-memory span exporter and metric reader",
    ),
    Entry(
        OURS_CACHED,
        "ours",
        "ours",
        tool="add_cached",
        conc=(16,),
        big=False,
        note="add registered with cache=True, same arguments every call",
    ),
    Entry("nanohub-mcp 0.4.7", "legacy", "peer"),
    Entry("mcp SDK (SSE, default)", "sdk", "peer"),
    Entry("mcp SDK (json_response)", "sdk-json", "peer"),
    Entry("fastmcp (SSE, default)", "fastmcp", "peer"),
    Entry("fastmcp (json_response)", "fastmcp-json", "peer"),
    Entry("mcp SDK, 2026-07-28 era (json)", "sdk-json", "peer", era=MODERN, big=False),
    Entry("fastmcp, 2026-07-28 era (json)", "fastmcp-json", "peer", era=MODERN, big=False),
    Entry("mcp SDK (stateless_http, json)", "sdk-stateless", "peer", conc=(16,), big=False),
    Entry("fastmcp (stateless_http, json)", "fastmcp-stateless", "peer", conc=(16,), big=False),
)


def process(key: str) -> Process:
    return next(p for p in PROCESSES if p.key == key)


def select(only: str | None) -> tuple[tuple[Process, ...], tuple[Entry, ...]]:
    """Entries whose process key is listed in ``only`` (comma-separated), plus the ceiling."""
    if not only:
        return PROCESSES, ENTRIES
    keep = {k.strip() for k in only.split(",") if k.strip()} | {"ceiling"}
    unknown = keep - {p.key for p in PROCESSES}
    if unknown:
        raise SystemExit(
            f"unknown server key(s): {', '.join(sorted(unknown))}; known: {', '.join(p.key for p in PROCESSES)}"
        )
    return (tuple(p for p in PROCESSES if p.key in keep), tuple(e for e in ENTRIES if e.process in keep))
