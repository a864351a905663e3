"""What a refused setting of a configurable leaves in the shell's config (nothing), and which settings a load refuses.

IPython's ``%config NanohubMCP.figure_dpi = 5000`` hands the line's one ``Config`` to every configurable of the
shell in turn, by class name: ``NanohubMCP`` refuses it, then the shell (``ZMQInteractiveShell``,
``TerminalInteractiveShell``) merges it into its own config (``get_ipython().config``) all the same, and the next
``NanohubMCP(parent=shell)`` (``%reload_ext nanohubmcp``) read its values from there: a value refused with "the
setting is unchanged" came back at the next load, which then refused to load naming it.
:func:`drop_refused` takes the refused section out of the line, so the configurables after the refusing one merge
none of it, and puts the parent's (the shell's) entries back as they were in case it merged first.
:func:`refusals` names every value of a config a configurable refuses, for a load to say all at once.

It owns no setting and knows no class: :mod:`.config` and :mod:`.extension` call it with ``NanohubMCP``.
"""

from __future__ import annotations

from copy import deepcopy
from typing import TYPE_CHECKING

from traitlets import TraitError
from traitlets.config import Config, Configurable

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["drop_refused", "refusals"]


def _section(config: Config, name: str) -> Config:
    """``config``'s section ``name``, or an empty one (``config[name]`` would add it)."""
    return config[name] if name in config else Config()


def drop_refused(line: Config, name: str, parent: Config | None, in_force: Config) -> None:
    """Forget the refused section ``name`` of ``line``: removed from ``line`` itself (the one ``Config`` ``%config``
    hands to each configurable), and each of its entries in ``parent[name]`` made what it is in ``in_force[name]``,
    or removed where ``in_force`` has none. Changed in place.

    Args:
        line: the refused ``%config`` line's config.
        name: the refusing configurable's section (its class name).
        parent: the config of the refusing configurable's parent (the shell's), or None without a parent.
        in_force: the refusing configurable's own config, as it was before the line.
    """
    refused = line.pop(name, None)
    if not refused or parent is None or name not in parent:
        return
    kept, section = _section(in_force, name), parent[name]
    for key in refused:
        if key in kept:
            section[key] = deepcopy(kept[key])
        else:
            section.pop(key, None)


def refusals(make: Callable[[], Configurable], config: Config) -> list[str]:
    """Why a configurable refuses each value of ``config`` it refuses: one message per setting (no final period),
    in the order ``config`` has them; ``[]`` when it takes them all (unknown names are not counted: traitlets
    warns of those).

    Each value is tried alone on ``make()`` (a fresh instance with its defaults); a value refused next to another
    that is not set yet (``max_request_bytes`` above the default ``max_buffered_bytes``, raised on another line) is
    tried again once the others are in, as a load takes them all together.
    """
    probe = make()
    name = type(probe).__name__
    known = set(probe.trait_names(config=True))
    pending = {key: value for key, value in _section(config, name).items() if key in known}
    why: dict[str, str] = {}
    progress = True
    while pending and progress:
        progress = False
        for key, value in list(pending.items()):
            try:  # the base class's update_config: it raises where NanohubMCP's reports
                Configurable.update_config(probe, Config({name: {key: deepcopy(value)}}))
            except TraitError as exc:
                why[key] = str(exc).rstrip(".")
            else:
                del pending[key]
                progress = True
    return [why[key] for key in pending]
