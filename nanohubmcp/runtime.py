"""``MCPServer.runtime``: what the layers built on a server read and set of it beyond its decorators.

The notebook layer (``jupyter/``: ``%mcp status``, ``%mcp jobs``, ``%mcp history``, the lab panel, the
``%config`` settings that apply live) and the sources of tools (``sources/``: a Sim2L's runs folder and
result limits, a Rappture tool's figure settings) use a few parts of the server's core. :class:`Runtime`
names them, each as a small method or a read-only view typed by a protocol below, so those layers reach
no ``ServerCore`` attribute through ``server.core`` (a test scans them for it:
``tests/docs/test_the_notebook_and_the_sources_reach_no_core_internals.py``).

It owns no state: every member reads or sets the core's part when asked (a job store or a provenance
store is made at its first use, as through the core). It does not register components (the facade's
decorators do) nor serve (``serving``).

Example:
    ```python
    from nanohubmcp import MCPServer

    server = MCPServer("demo", job_store="memory")
    server.runtime.set_tool_timeout(30)
    print(sorted(server.runtime.tools), server.runtime.stuck_calls)
    ```
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from .server.core import ServerCore
    from .server.registry.components import Tool
    from .server.registry.prompts import Prompt
    from .server.registry.resources import Resource, ResourceTemplate

__all__ = ["JobRecords", "ProvenanceRecords", "ResultSettings", "Runtime"]


class JobRecords(Protocol):
    """The server's job store as the notebook reads it (a ``JobStore``)."""

    @property
    def process(self) -> str:
        """The token of this job store (one per server object): the jobs it ran carry it."""
        ...

    @property
    def directory(self) -> str:
        """The state directory the store uses."""
        ...

    @property
    def persistent(self) -> bool:
        """Whether job records outlive the process (False with ``job_store="memory"``)."""
        ...

    def listing(self, limit: int = 100, *, processes: Collection[str] | None = None) -> list[dict[str, Any]]:
        """The newest ``limit`` jobs (of the stores whose tokens are in ``processes``, when given) as table rows,
        never their arguments or results."""
        ...

    def count_elsewhere(self, processes: Collection[str]) -> int:
        """How many stored jobs were run by stores whose tokens are not in ``processes``."""
        ...


class ProvenanceRecords(Protocol):
    """The server's provenance records as the notebook's owner reads them (a ``ProvenanceStore``)."""

    def find(self, record_id: str) -> dict[str, Any] | None:
        """Record ``record_id`` whoever the call's principal was; None when unknown or expired (``TypeError``: an
        id that is no ``str``)."""
        ...

    def recent(self, limit: int = 50) -> list[dict[str, Any]]:
        """The newest ``limit`` records, of every principal (``TypeError``: a ``limit`` that is no ``int``;
        ``ValueError``: one below 0)."""
        ...


class ResultSettings(Protocol):
    """How results are shaped, read-only (a ``ResultOptions``; :meth:`Runtime.set_result_option` changes it)."""

    @property
    def max_inline_bytes(self) -> int | None:
        """Results larger than this are kept as a resource and linked; None inlines everything."""
        ...

    @property
    def max_result_bytes(self) -> int | None:
        """Most bytes of JSON a result may put in an answer; None: no limit."""
        ...

    @property
    def figure_dpi(self) -> float | None:
        """Dots per inch of figures turned into PNG; None: each figure's own."""
        ...


class Runtime:
    """What the notebook layer and the sources of tools read and set of a server (``server.runtime``).

    Args:
        core: the server's core, whose parts each member reads or sets when asked.
    """

    def __init__(self, core: ServerCore) -> None:
        self._core = core

    # -- components ----------------------------------------------------------------------------------
    @property
    def tools(self) -> Mapping[str, Tool]:
        """The registered tools by name: a read-only view of a snapshot (a change replaces the snapshot, never
        alters it; the view takes no assignment, ``TypeError``: register with the server's decorators). The records
        are the server's own: read them, change nothing in them (what ``tools/list`` publishes is made from them)."""
        return MappingProxyType(self._core.registry.tools.by_name)

    @property
    def resources(self) -> Mapping[str, Resource]:
        """The registered resources by URI (a read-only view, as :attr:`tools`)."""
        return MappingProxyType(self._core.registry.resources.by_name)

    @property
    def templates(self) -> Mapping[str, ResourceTemplate]:
        """The registered resource templates by URI template (a read-only view, as :attr:`tools`)."""
        return MappingProxyType(self._core.registry.templates.by_name)

    @property
    def prompts(self) -> Mapping[str, Prompt]:
        """The registered prompts by name (a read-only view, as :attr:`tools`)."""
        return MappingProxyType(self._core.registry.prompts.by_name)

    # -- calls and jobs ------------------------------------------------------------------------------
    @property
    def jobs(self) -> JobRecords:
        """The job store (made at its first use, as by a first job)."""
        return self._core.job_service.jobs

    @property
    def job_executor(self) -> str:
        """The name of the executor a job tool runs on unless it names its own (``"threads"``, ``"dask"``, ...)."""
        return self._core.job_service.runners.default.name

    def worker_pool(self) -> Executor:
        """The pool a tool's function runs on now (a stopped server gets a fresh one: ask again per call)."""
        return self._core.executor

    @property
    def stuck_calls(self) -> int:
        """Calls abandoned at ``tool_timeout`` whose functions have not returned yet (each holds a thread)."""
        return self._core.stuck_calls

    def end_jobs_now(self) -> int:
        """The process ends now (a notebook kernel's shutdown, after ``server.stop``): store every job of this
        server still running in it as cut short, and write their provenance records at once; returns how many."""
        ended = self._core.job_service.process_ended()
        if ended:
            records = self._core.first_use.provenance_made
            if records is not None:
                records.stopping()
        return ended

    # -- provenance and results ----------------------------------------------------------------------
    @property
    def provenance(self) -> ProvenanceRecords:
        """The provenance records (made at their first use)."""
        return self._core.provenance

    @property
    def results(self) -> ResultSettings:
        """How results are shaped now (read when each call's result is shaped)."""
        return self._core.result_options

    # -- settings a notebook changes while serving ---------------------------------------------------
    def set_tool_timeout(self, seconds: object) -> None:
        """Bound the next call of every tool by ``seconds`` (None, ``inf`` or a number past any wait: no limit).

        Raises:
            ConfigurationError: not a number of seconds above 0 (the rule of ``MCPServer(tool_timeout=)``).
        """
        self._core.set_tool_timeout(seconds)

    def set_result_option(self, setting: str, value: object) -> None:
        """Change ``max_inline_bytes``, ``figure_dpi``, ``max_result_bytes`` or ``max_event_bytes``, checked by the
        rule ``MCPServer(...)`` applies to it (a byte limit a whole number of bytes at or above its least, or None /
        ``inf`` for no limit; a dpi from 1 to 2400, or None); the next call's result is shaped with it.

        Raises:
            ConfigurationError: a value the rule refuses (the message says what to write).
            ValueError: another setting name.
        """
        from .server.options import checked_byte_limit, checked_dpi

        if setting == "figure_dpi":
            checked: float | None = checked_dpi(value)
        elif setting in ("max_inline_bytes", "max_result_bytes", "max_event_bytes"):
            checked = checked_byte_limit(setting, value)
        else:
            checked = None  # (update names the settings it takes)
        self._core.result_options.update(setting, checked)
