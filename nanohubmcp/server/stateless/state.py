"""What one server keeps for the stateless era: the ``requestState`` key, tasks' inputs, skills.

Nothing here belongs to a client: 2026-07-28 requests carry everything they need. The
:class:`ModernState` of a server is created on first use with a random ``requestState`` key,
or by :func:`configure` (the facade's ``state_secret=``) before serving.

The HMAC key signing ``requestState`` is random per process unless ``state_secret=`` is given
(then several processes behind one URL accept each other's state, and a restart keeps it valid).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from ..asks.request_state import RequestStateCodec
from ..asks.task_inputs import TaskInputs
from ..registry.skills import SkillCatalog


class ModernState:
    """Per-server state of the stateless era.

    Attributes:
        codec: signs and verifies ``requestState``.
        task_inputs: outstanding input requests and status watchers of tasks.
        skills: the published skills.
    """

    def __init__(self, state_secret: str | bytes | None = None) -> None:
        self.codec = RequestStateCodec(state_secret)
        self.task_inputs = TaskInputs()
        self.skills = SkillCatalog()


_STATES: weakref.WeakKeyDictionary[Any, ModernState] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def state_for(core: Any) -> ModernState:
    """The :class:`ModernState` of ``core`` (a ``ServerCore``), created on first use."""
    state = _STATES.get(core)
    if state is None:
        with _LOCK:
            state = _STATES.get(core)
            if state is None:
                state = _STATES[core] = ModernState()
    return state


def configure(core: Any, *, state_secret: str | bytes | None = None) -> ModernState:
    """Give ``core`` a fresh :class:`ModernState` (``state_secret``: the shared HMAC key, or None).

    Raises:
        ConfigurationError: a secret shorter than 16 bytes.
    """
    state = ModernState(state_secret)
    with _LOCK:
        _STATES[core] = state
    return state
