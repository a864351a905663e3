"""orjson, the optional accelerator (the ``fast`` extra): found on first use, and a switch to leave it out.

It is used only where its output is the standard library's to the byte: the text of a numeric array
(``server.results.convert.arrays``: numbers in Python's ``repr`` spelling, as ``jsonenc.dumps`` writes them), the
parse of a large body (``protocol.large_json``: read as ``jsondec.loads`` reads it), and a provenance record's
arguments and result texts (``server.provenance.record_arguments``, ``server.provenance.result_fast``: values it
spells as the wire's encoder does). Everything else is written and read without it.

This module owns finding it (imported at the first :func:`accelerator` call, never at ``import nanohubmcp``
nor at a server's start) and the switch (:func:`use_accelerator`) that benchmarks and tests turn to compare
both ways. It imports nothing of the package.
"""

from __future__ import annotations

from types import ModuleType

__all__ = ["accelerator", "use_accelerator"]

_accelerator: ModuleType | None = None
_looked: bool = False
_wanted: bool = True


def accelerator() -> ModuleType | None:
    """The ``orjson`` module when it is installed (the ``fast`` extra) and not switched off, else None.

    Imported on first use, never at ``import nanohubmcp``. Callers use it only for values whose
    spelling they know to match ``jsonenc.dumps`` (numeric arrays: ``results.convert.arrays``) and texts
    it reads as ``jsondec.loads`` does (large bodies: ``protocol.large_json``).
    """
    global _accelerator, _looked
    if not _wanted:
        return None
    if not _looked:
        try:
            import orjson

            _accelerator = orjson
        except ImportError:
            _accelerator = None
        _looked = True
    return _accelerator


def use_accelerator(enabled: bool) -> bool:
    """Switch the accelerator on (the default, when installed) or off; returns whether it is in use.

    For benchmarks and tests that compare both encoders (and both parsers of a large body); the output
    is the same either way.
    """
    global _wanted
    _wanted = enabled
    return accelerator() is not None
