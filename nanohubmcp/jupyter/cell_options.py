"""The option tables of the ``%%mcp_tool``, ``%%mcp_resource``, ``%%mcp_prompt``, ``%%mcp_view`` magic lines.

Owns each option's flags, destination, metavar and help text, as :class:`Option` records in
``TOOL_OPTIONS`` / ``RESOURCE_OPTIONS`` / ``PROMPT_OPTIONS`` / ``VIEW_OPTIONS``: the magic-line
parser (:mod:`nanohubmcp.jupyter.cellspec`) builds its ``argparse`` parser from them and the live
magics their ``%%mcp_tool?`` help text. Reading a line and checking its values is the parser's;
what a line asks for, the records of :mod:`nanohubmcp.jupyter.cell_specs`. No IPython, no Tornado.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["PROMPT_OPTIONS", "RESOURCE_OPTIONS", "TOOL_OPTIONS", "VIEW_OPTIONS", "Option"]


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
    _value("--cache-ttl", "cache_ttl", "SECONDS",
           "how long a cached result stays (implies --cache; default: until evicted)"),
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
