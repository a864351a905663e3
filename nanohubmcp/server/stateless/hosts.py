"""What the 2026-07-28 era's handlers read of their server, one protocol per family (as :mod:`..handlers.host` for
the handshake era's): :class:`TaskHost` (the tasks extension), :class:`ListenHost` (``subscriptions/listen``),
:class:`ModernHost` (its ``tools/call``, ``prompts/get``, ``resources/read``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..calls.hosts import CheckHost
from ..executors.service import JobHost
from ..handlers.host import AnsweredHost, PromptsHost, ResourcesHost

if TYPE_CHECKING:
    from ..asks.task_inputs import TaskInputs
    from ..wire.notifier import Notifier

__all__ = ["ListenHost", "ModernHost", "TaskHost"]


class TaskHost(JobHost, AnsweredHost, Protocol):
    """What :mod:`.tasks` reads: the job service's, a done job's answer, and the input requests of running tasks."""

    @property
    def task_inputs(self) -> TaskInputs:
        """The input requests of running tasks."""
        ...


class ListenHost(TaskHost, Protocol):
    """What :mod:`.listen` reads: a task's, whether list changes are sent, and the notifier while serving."""

    list_changed: bool
    notifier: Notifier | None


class ModernHost(CheckHost, TaskHost, PromptsHost, ResourcesHost, Protocol):
    """What :mod:`.handlers` reads: a task's, the checks before a call, and the prompt and resource handlers'."""
