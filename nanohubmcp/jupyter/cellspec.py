"""The options of ``%%mcp_tool``, ``%%mcp_resource``, ``%%mcp_prompt``, ``%%mcp_view`` cells, without IPython.

One parser for the magic line, shared by the live magics (``nanohubmcp.jupyter.magics``) and the
notebook exporter, so a notebook and its exported ``start_mcp.py`` register the same components
with the same options. This module imports neither IPython nor Tornado: it turns text into plain
dataclasses.

- :func:`parse_tool_line` / :func:`parse_resource_line` / :func:`parse_prompt_line` /
  :func:`parse_view_line`: the text after the magic name (``"--name add --tags math,basic"``) ->
  :class:`ToolSpec` / :class:`ResourceSpec` / :class:`PromptSpec` / :class:`ViewSpec`. Quoting
  follows POSIX shell rules (``--description "Adds two numbers"``).
- :func:`split_last_expression`, :func:`pick_function`, :func:`find_functions`: reading the cell's
  source (in :mod:`nanohubmcp.jupyter.cellsource`, importable from here too).
- ``TOOL_OPTIONS`` / ``RESOURCE_OPTIONS`` / ``PROMPT_OPTIONS`` / ``VIEW_OPTIONS``: the option tables both parsers use
  (the magics turn them into ``magic_arguments`` help text).

Every mistake raises :class:`~nanohubmcp.errors.RegistrationError` with a one-line message.

Example:
    ```python
    >>> parse_tool_line("--name add --tags math --read-only").registration_options()
    {'name': 'add', 'tags': frozenset({'math'}), 'annotations': {'readOnlyHint': True}}
    ```
"""

from __future__ import annotations

import argparse
import json
import shlex
from dataclasses import dataclass, field
from typing import Any, NoReturn

from ..errors import RegistrationError
from .cellsource import FunctionInfo, find_functions, pick_function, split_last_expression

__all__ = [
    "PROMPT_OPTIONS",
    "RESOURCE_OPTIONS",
    "TOOL_OPTIONS",
    "VIEW_OPTIONS",
    "FunctionInfo",
    "Option",
    "PromptSpec",
    "ResourceSpec",
    "ToolSpec",
    "ViewSpec",
    "find_functions",
    "parse_prompt_line",
    "parse_resource_line",
    "parse_tool_line",
    "parse_view_line",
    "pick_function",
    "split_last_expression",
]


@dataclass(frozen=True)
class Option:
    """One option of a magic line: the argparse ``flags`` and keyword arguments."""

    flags: tuple[str, ...]
    kwargs: dict[str, Any]


def _flag(flag: str, dest: str, help: str) -> Option:
    return Option((flag,), {"dest": dest, "action": "store_true", "help": help})


def _value(flag: str, dest: str, metavar: str, help: str) -> Option:
    return Option((flag,), {"dest": dest, "metavar": metavar, "default": None, "help": help})


_NAME = _value(
    "--name",
    "name",
    "NAME",
    "the component's name (default: the function's name); with several functions in "
    "the cell it also picks the one to register",
)
_DESCRIPTION = _value("--description", "description", "TEXT", "the description (default: the docstring)")
_TITLE = _value("--title", "title", "TEXT", "a human-readable title (MCP 2025-06-18+)")

TOOL_OPTIONS: tuple[Option, ...] = (
    _NAME,
    _DESCRIPTION,
    _value("--tags", "tags", "A,B", "comma-separated tags for your own grouping (not sent to clients)"),
    _TITLE,
    _flag(
        "--async",
        "background",
        "a long-running job: calls answer at once with a job id, polled with get_job_result",
    ),
    Option(
        ("--executor",),
        {
            "dest": "executor",
            "metavar": "NAME",
            "default": None,
            "choices": ("threads", "processes", "dask", "slurm", "submit"),
            "help": "where an --async tool's jobs run: threads, processes, dask, slurm (a Slurm batch job "
            "each) or submit (nanoHUB's submit) (default: the server's job_executor, c.NanohubMCP.job_executor)",
        },
    ),
    _value("--slurm-time", "slurm_time", "TIME", "Slurm: the job's time limit (sbatch --time), e.g. 30 or 2:00:00"),
    _value("--slurm-partition", "slurm_partition", "NAME", "Slurm: the partition (sbatch --partition)"),
    _value("--slurm-cpus-per-task", "slurm_cpus_per_task", "N", "Slurm: CPUs for the job (sbatch --cpus-per-task)"),
    _value("--slurm-mem", "slurm_mem", "SIZE", "Slurm: memory for the job (sbatch --mem), e.g. 4G"),
    _value("--slurm-gpus", "slurm_gpus", "N", "Slurm: GPUs for the job (sbatch --gpus)"),
    _value("--slurm-account", "slurm_account", "NAME", "Slurm: the account charged (sbatch --account)"),
    _value("--submit-venue", "submit_venue", "VENUE", "submit: where runs go (submit -v)"),
    _value("--submit-walltime", "submit_walltime", "TIME", "submit: wall time, minutes or hh:mm:ss (submit -w)"),
    _value("--submit-cores", "submit_cores", "N", "submit: processors for an MPI run (submit -n)"),
    _flag("--submit-local", "submit_local", "submit: run in the tool's own container (submit --local)"),
    Option(
        ("--executor-option",),
        {
            "dest": "executor_option",
            "metavar": "KEY=VALUE",
            "action": "append",
            "default": None,
            "help": "any option of the tool's executor (repeatable); VALUE is read as JSON when it is, e.g. "
            "--executor-option sbatch='{\"constraint\": \"haswell\"}'",
        },
    ),
    _flag("--cache", "cache", "answer a repeated call (same arguments, same caller) from its stored result"),
    _flag("--cache-shared", "cache_shared", "like --cache, one stored result for every caller"),
    _value("--cache-ttl", "cache_ttl", "SECONDS", "how long a cached result stays (default: until evicted)"),
    _flag("--no-provenance", "no_provenance", "calls of this tool leave no provenance record"),
    _flag("--read-only", "read_only", "hint: the tool does not change anything (readOnlyHint)"),
    _flag("--destructive", "destructive", "hint: the tool may destroy data (destructiveHint)"),
    _flag("--idempotent", "idempotent", "hint: repeating a call has no further effect (idempotentHint)"),
    _flag("--open-world", "open_world", "hint: the tool reaches outside systems (openWorldHint)"),
    _flag(
        "--main",
        "main",
        "run on the kernel's own thread and event loop (for code that is not thread-safe: "
        "widgets, pyplot); calls wait while a cell runs",
    ),
    _value("--view", "view", "URI", "the ui:// view (a %%mcp_view cell) that shows the result (MCP Apps)"),
)
"""Options of ``%%mcp_tool``."""

RESOURCE_OPTIONS: tuple[Option, ...] = (
    Option(("uri",), {"metavar": "URI", "help": "the resource URI; {placeholders} make a template"}),
    _value("--mime-type", "mime_type", "TYPE", "the MIME type of the content (e.g. application/json)"),
    _NAME,
    _DESCRIPTION,
    _TITLE,
)
"""Options of ``%%mcp_resource``."""

PROMPT_OPTIONS: tuple[Option, ...] = (_NAME, _DESCRIPTION, _TITLE)
"""Options of ``%%mcp_prompt``."""

VIEW_OPTIONS: tuple[Option, ...] = (
    Option(("uri",), {"metavar": "URI", "help": "the view's ui:// URI, named by tools with --view URI"}),
    _value("--name", "name", "NAME", "the resource's name (default: the URI without ui://)"),
    _DESCRIPTION,
    _TITLE,
    _flag("--border", "border", "the view prefers a border drawn around it (prefersBorder)"),
    _value("--connect-domains", "connect_domains", "A,B", "origins the view may fetch from (CSP)"),
    _value(
        "--resource-domains",
        "resource_domains",
        "A,B",
        "origins the view may load scripts, styles, images and fonts from (CSP)",
    ),
)
"""Options of ``%%mcp_view`` (the cell's last expression is the view's HTML)."""


@dataclass(frozen=True)
class ToolSpec:
    """What a ``%%mcp_tool`` line asks for.

    Attributes:
        name / description / title: listing fields (None: from the function).
        tags: tags given with ``--tags a,b``.
        background: ``--async``: register as a job tool (``server.async_tool``).
        executor: ``--executor NAME``: where its jobs run (None: the server's job executor).
        executor_options: the executor's options the line gave (``--slurm-time``,
            ``--submit-venue``, ``--executor-option KEY=VALUE``...).
        read_only / destructive / idempotent / open_world: the annotation hints that were given.
        main: ``--main``: run calls on the kernel's own thread (live notebooks only; the
            exporter ignores it).
        cache / cache_ttl: ``--cache`` (``"private"``) or ``--cache-shared`` (``"shared"``), and
            ``--cache-ttl SECONDS``.
        provenance: False with ``--no-provenance``.
        source: the defining cell's text (set by the live magic; its code hash in provenance
            records; never part of the registration options).
    """

    name: str | None = None
    description: str | None = None
    title: str | None = None
    tags: frozenset[str] = field(default_factory=frozenset)
    background: bool = False
    executor: str | None = None
    executor_options: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False
    main: bool = False
    view: str | None = None
    cache: str | None = None
    cache_ttl: float | None = None
    provenance: bool | None = None
    source: str | None = None

    def annotations(self) -> dict[str, bool] | None:
        """The MCP tool annotations the flags give (only the hints that were set), or None."""
        hints = {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }
        chosen = {key: True for key, value in hints.items() if value}
        return chosen or None

    def registration_options(self) -> dict[str, Any]:
        """Keyword arguments for ``MCPServer.add_tool`` / ``@server.tool(...)`` (only those given)."""
        options: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "title": self.title,
            "tags": self.tags or None,
            "annotations": self.annotations(),
            "executor": self.executor,
            "executor_options": dict(self.executor_options) or None,
            "view": self.view,
            "cache": {"private": True, "shared": "shared"}.get(self.cache or ""),
            "cache_ttl": self.cache_ttl,
            "provenance": self.provenance,
        }
        return {key: value for key, value in options.items() if value is not None}


@dataclass(frozen=True)
class ResourceSpec:
    """What a ``%%mcp_resource URI`` line asks for (``uri`` may be a ``{template}``)."""

    uri: str
    mime_type: str | None = None
    name: str | None = None
    description: str | None = None
    title: str | None = None

    def registration_options(self) -> dict[str, Any]:
        """Keyword arguments for ``MCPServer.add_resource`` after the URI (only those given)."""
        options = {
            "mime_type": self.mime_type,
            "name": self.name,
            "description": self.description,
            "title": self.title,
        }
        return {key: value for key, value in options.items() if value is not None}


@dataclass(frozen=True)
class PromptSpec:
    """What a ``%%mcp_prompt`` line asks for."""

    name: str | None = None
    description: str | None = None
    title: str | None = None

    def registration_options(self) -> dict[str, Any]:
        """Keyword arguments for ``MCPServer.add_prompt`` (only those given)."""
        options = {"name": self.name, "description": self.description, "title": self.title}
        return {key: value for key, value in options.items() if value is not None}


@dataclass(frozen=True)
class ViewSpec:
    """What a ``%%mcp_view URI`` line asks for (an MCP Apps view)."""

    uri: str
    name: str | None = None
    description: str | None = None
    title: str | None = None
    border: bool = False
    connect_domains: tuple[str, ...] = ()
    resource_domains: tuple[str, ...] = ()

    def registration_options(self) -> dict[str, Any]:
        """Keyword arguments for ``MCPServer.add_app_view`` after the URI and HTML (only those given)."""
        csp = {
            key: list(value)
            for key, value in (("connect_domains", self.connect_domains), ("resource_domains", self.resource_domains))
            if value
        }
        options = {
            "name": self.name,
            "description": self.description,
            "title": self.title,
            "csp": csp or None,
            "prefers_border": True if self.border else None,
        }
        return {key: value for key, value in options.items() if value is not None}


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting the kernel."""

    def error(self, message: str) -> NoReturn:
        raise RegistrationError(f"%%{self.prog}: {message}")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise RegistrationError(f"%%{self.prog}: {(message or 'invalid options').strip()}")


def _parse(magic: str, options: tuple[Option, ...], line: str) -> argparse.Namespace:
    try:
        words = shlex.split(line)
    except ValueError as exc:  # an unclosed quote
        raise RegistrationError(f"%%{magic}: cannot read the options: {exc}") from None
    parser = _Parser(prog=magic, add_help=False, allow_abbrev=False)
    for option in options:
        parser.add_argument(*option.flags, **option.kwargs)
    return parser.parse_args(words)


def _text(magic: str, flag: str, value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise RegistrationError(f"%%{magic}: {flag} needs a non-empty value")
    return value


def parse_tool_line(line: str) -> ToolSpec:
    """Parse the options of ``%%mcp_tool``.

    Raises:
        RegistrationError: an unknown option, a missing value, or an empty name/tag list.
    """
    args = _parse("mcp_tool", TOOL_OPTIONS, line)
    tags: frozenset[str] = frozenset()
    if args.tags is not None:
        tags = frozenset(tag.strip() for tag in args.tags.split(",") if tag.strip())
        if not tags:
            raise RegistrationError("%%mcp_tool: --tags needs at least one tag, e.g. --tags math,basic")
    if args.executor is not None and not args.background:
        raise RegistrationError("%%mcp_tool: --executor is for job tools; add --async, e.g. --async --executor dask")
    executor_options = _executor_options(args)
    return ToolSpec(
        name=_text("mcp_tool", "--name", args.name),
        description=args.description,
        title=_text("mcp_tool", "--title", args.title),
        tags=tags,
        background=args.background,
        executor=args.executor,
        executor_options=executor_options,
        read_only=args.read_only,
        destructive=args.destructive,
        idempotent=args.idempotent,
        open_world=args.open_world,
        main=args.main,
        view=_text("mcp_tool", "--view", args.view),
        cache="shared" if args.cache_shared else ("private" if args.cache else None),
        cache_ttl=_seconds(args.cache_ttl),
        provenance=False if args.no_provenance else None,
    )


def _seconds(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise RegistrationError(f"%%mcp_tool: --cache-ttl needs a positive number of seconds, not {text!r}")
    return seconds


_SLURM = {"slurm_time": "time", "slurm_partition": "partition", "slurm_cpus_per_task": "cpus_per_task",
          "slurm_mem": "mem", "slurm_gpus": "gpus", "slurm_account": "account"}
_SUBMIT = {"submit_venue": "venue", "submit_walltime": "walltime", "submit_cores": "cores", "submit_local": "local"}
_COUNTS = ("cpus_per_task", "gpus", "cores")


def _executor_options(args: argparse.Namespace) -> dict[str, Any]:
    """The executor options of a ``%%mcp_tool`` line (counts as numbers, ``--executor-option`` values
    read as JSON when they are)."""
    chosen: dict[str, Any] = {}
    for family, table in (("slurm", _SLURM), ("submit", _SUBMIT)):
        values = {option: getattr(args, dest) for dest, option in table.items()}
        given = {option: value for option, value in values.items() if value not in (None, False)}
        if not given:
            continue
        flag = "--" + next(d for d in table if table[d] in given).replace("_", "-")
        if args.executor not in (None, family):
            raise RegistrationError(f"%%mcp_tool: {flag} is for --executor {family}, not {args.executor}")
        chosen.update(given)
    for option in _COUNTS:
        if option in chosen:
            try:
                chosen[option] = int(chosen[option])
            except ValueError:
                raise RegistrationError(f"%%mcp_tool: {option} needs a whole number, not {chosen[option]!r}") from None
    for item in args.executor_option or []:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise RegistrationError(f"%%mcp_tool: --executor-option needs KEY=VALUE, not {item!r}")
        try:
            chosen[key.strip()] = json.loads(text)
        except ValueError:
            chosen[key.strip()] = text
    if chosen and not args.background:
        raise RegistrationError("%%mcp_tool: executor options are for job tools; add --async")
    return chosen


def parse_resource_line(line: str) -> ResourceSpec:
    """Parse the options of ``%%mcp_resource URI``.

    Raises:
        RegistrationError: no URI, an unknown option or a missing value.
    """
    args = _parse("mcp_resource", RESOURCE_OPTIONS, line)
    return ResourceSpec(
        uri=args.uri,
        mime_type=_text("mcp_resource", "--mime-type", args.mime_type),
        name=_text("mcp_resource", "--name", args.name),
        description=args.description,
        title=_text("mcp_resource", "--title", args.title),
    )


def parse_prompt_line(line: str) -> PromptSpec:
    """Parse the options of ``%%mcp_prompt``.

    Raises:
        RegistrationError: an unknown option or a missing value.
    """
    args = _parse("mcp_prompt", PROMPT_OPTIONS, line)
    return PromptSpec(
        name=_text("mcp_prompt", "--name", args.name),
        description=args.description,
        title=_text("mcp_prompt", "--title", args.title),
    )


def parse_view_line(line: str) -> ViewSpec:
    """Parse the options of ``%%mcp_view URI``.

    Raises:
        RegistrationError: no URI or not a ``ui://`` one, an unknown option or a missing value.
    """
    args = _parse("mcp_view", VIEW_OPTIONS, line)
    if not args.uri.startswith("ui://") or args.uri == "ui://":
        raise RegistrationError(f"%%mcp_view: a view's URI starts with ui://, e.g. ui://plots/chart (not {args.uri!r})")

    def domains(value: str | None) -> tuple[str, ...]:
        return tuple(d.strip() for d in (value or "").split(",") if d.strip())

    return ViewSpec(
        uri=args.uri,
        name=_text("mcp_view", "--name", args.name),
        description=args.description,
        title=_text("mcp_view", "--title", args.title),
        border=args.border,
        connect_domains=domains(args.connect_domains),
        resource_domains=domains(args.resource_domains),
    )
