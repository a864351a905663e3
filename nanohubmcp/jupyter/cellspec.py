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
  (the magics turn them into ``magic_arguments`` help text), in :mod:`nanohubmcp.jupyter.cell_options`.
- The spec records are :mod:`nanohubmcp.jupyter.cell_specs`'s. This module owns the parsing: a
  line's words, the checks of their values (non-empty names, tags, ``--cache-ttl``, the executor
  options of ``--async`` tools) and the one-line errors; every name above is importable from here.

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
import math
import shlex
from typing import Any, NoReturn

from ..errors import RegistrationError
from ..protocol.whole_numbers import MOST_DIGITS, text_number, text_number_refusal, text_refusal, text_whole
from .cell_options import PROMPT_OPTIONS, RESOURCE_OPTIONS, TOOL_OPTIONS, VIEW_OPTIONS, Option
from .cell_specs import PromptSpec, ResourceSpec, ToolSpec, ViewSpec
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


_CONTRADICTIONS = (
    (("cache", "--cache"), ("cache_shared", "--cache-shared"), "one stored result per caller, or one for every caller"),
    (("read_only", "--read-only"), ("destructive", "--destructive"),
     "a tool that changes nothing destroys nothing: MCP reads destructiveHint only without readOnlyHint"),
    (("background", "--async"), ("main", "--main"),
     "a job runs where --executor says, a --main tool on the kernel's thread"),
)
"""``%%mcp_tool`` options ((argparse name, flag) pairs) that cannot be given together, and why: the notebook refuses
them, and the exporter with it, rather than pick one silently."""


def parse_tool_line(line: str) -> ToolSpec:
    """Parse the options of ``%%mcp_tool``.

    Raises:
        RegistrationError: an unknown option, a missing value, an empty name/tag list, or two options
            that contradict each other (``--cache --cache-shared``, ``--read-only --destructive``,
            ``--async --main``).
    """
    args = _parse("mcp_tool", TOOL_OPTIONS, line)
    tags: frozenset[str] = frozenset()
    if args.tags is not None:
        tags = frozenset(tag.strip() for tag in args.tags.split(",") if tag.strip())
        if not tags:
            raise RegistrationError("%%mcp_tool: --tags needs at least one tag, e.g. --tags math,basic")
    if args.executor is not None and not args.background:
        raise RegistrationError("%%mcp_tool: --executor is for job tools; add --async, e.g. --async --executor dask")
    for (first, first_flag), (second, second_flag), why in _CONTRADICTIONS:
        if getattr(args, first) and getattr(args, second):
            raise RegistrationError(f"%%mcp_tool: {first_flag} and {second_flag} contradict each other ({why}); "
                                    "give one of them")
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
        cache="shared" if args.cache_shared else ("private" if args.cache or args.cache_ttl is not None else None),
        cache_ttl=_seconds(args.cache_ttl),
        provenance=False if args.no_provenance else None,
    )


def _seconds(text: str | None) -> float | None:
    if text is None:
        return None
    seconds = text_number(text)  # (ASCII digits, no "_": every option's number)
    if seconds is None or not seconds > 0:
        raise RegistrationError(f"%%mcp_tool: --cache-ttl {text_number_refusal('a positive number of seconds', text)}")
    return seconds


_SLURM = {"slurm_time": "time", "slurm_partition": "partition", "slurm_cpus_per_task": "cpus_per_task",
          "slurm_mem": "mem", "slurm_gpus": "gpus", "slurm_account": "account"}
_SUBMIT = {"submit_venue": "venue", "submit_walltime": "walltime", "submit_cores": "cores", "submit_local": "local"}
_COUNTS = ("cpus_per_task", "gpus", "cores")
_COUNT_TAKES = f"a whole number of at most {MOST_DIGITS} digits"


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
            number = text_whole(str(chosen[option]))  # "4.0" and "4e0" too, as every count reads a whole number
            if number is None or number == math.inf:
                raise RegistrationError("%%mcp_tool: " + text_refusal(option, _COUNT_TAKES, str(chosen[option])))
            chosen[option] = int(number)
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
