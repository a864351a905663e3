"""What the 2026-07-28 era's handlers read of their server, one protocol per family (as :mod:`..handlers.host` for
the handshake era's): :class:`TaskHost` (the tasks extension), :class:`ListenHost` (``subscriptions/listen``),
:class:`ModernHost` (its ``tools/call``, ``prompts/get``, ``resources/read``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..calls.hosts import CheckHost
from ..handlers.host import PromptsHost, ResourcesHost

if TYPE_CHECKING:
    from ..calls.call_parts import CallParts
    from ..executors.job_service import JobService
    from ..registry.registry import Registry
    from ..results.options import ResultOptions
    from ..wire.notifier import Notifier

__all__ = ["ListenHost", "ModernHost", "TaskHost"]


class TaskHost(Protocol):
    """What :mod:`.tasks` reads: the job service (its jobs, a done job's answer, the input requests of running
    tasks)."""

    job_service: JobService


class ListenHost(TaskHost, Protocol):
    """What :mod:`.listen` reads: a task's, whether list changes are sent, the notifier while serving, and what
    bounds a task's status as one event (the registry: its tool's output schema; the result options)."""

    list_changed: bool
    notifier: Notifier | None
    registry: Registry

    @property
    def result_options(self) -> ResultOptions:
        """How results are shaped (``max_event_bytes`` bounds a task's status as one event)."""
        ...


class ModernHost(CheckHost, TaskHost, PromptsHost, ResourcesHost, Protocol):
    """What :mod:`.handlers` reads: a task's, the checks before a call, what its run reads (the core's
    :class:`~..calls.call_parts.CallParts`), and the prompt and resource handlers'."""

    call_parts: CallParts
