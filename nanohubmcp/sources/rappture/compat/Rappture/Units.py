"""``Rappture.Units``: numbers with units as Rappture writes them (``300K``, ``10g``, ``2nm``,
``1e15/cm3``), read with pint.

Both sides use this module: the server, to read a tool's limits and defaults and the units a client
gives (as ``nanohubmcp.sources.rappture.units``), and a tool's own program, as
``Rappture.Units.convert("300K", to="K", units="off")``. It needs only the standard library and pint
(``pip install 'nanohub-mcp[rappture]'``), imported on first use: pint's unit registry is made once
per process, under a lock (two threads converting at once wait for one registry; a forked child
starts with the lock free). It takes about a second: a caller that must not wait for it (an event
loop) asks :func:`registry_ready` first and has :func:`load_registry` run on a thread of its own.

Rappture's spellings that pint reads otherwise are translated first, by the dimension of the
units the tool declares: with a temperature, ``C``, ``F`` and ``R`` are degrees Celsius,
Fahrenheit and Rankine (pint: coulomb, farad, roentgen); with a length, ``A`` is the ångström
(pint: ampere). A trailing power is an exponent (``cm3`` = cm³, ``/cm3`` = 1/cm³). Units run together
are a product, as Rappture's ``RpUnits`` reads them (``cm2/Vs``, a mobility, is cm²/(V·s); ``kVns`` is kV·ns): a
name pint does not know is split from its end into the longest names it does know, and a power written after
them is the last one's (``Vs2`` is V·s²).

pint reads unit text as arithmetic (``K**9**9**9`` is a power that runs for hours), so units to
convert are first held to the shape :mod:`nanohubmcp.sources.units_text` accepts (unit names, ``*``,
``/``, parentheses, single-digit powers) and refused as a :class:`UnitError` otherwise. A tool's
program run by a Python without nanohubmcp installed converts without that check.
"""

from __future__ import annotations

import math
import os
import re
import threading
from functools import lru_cache
from typing import Any

__all__ = ["UnitError", "UnitsUnavailable", "convert", "fitting_units", "load_registry", "number_in",
           "registry_ready", "split_number", "to_units"]

_NUMBER = re.compile(r"^\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eEdD][-+]?[0-9]+)?)\s*(.*?)\s*$")
"""A number in ASCII digits (Rappture reads no other), then its units."""
_FACTOR = re.compile(r"^([A-Za-z]+)(\d*)$")
_TEMPERATURE = {"C": "degC", "F": "degF", "R": "degR"}
_COMMON = (
    "K",
    "C",
    "F",
    "eV",
    "meV",
    "J",
    "V",
    "mV",
    "m",
    "cm",
    "mm",
    "um",
    "nm",
    "A",
    "s",
    "ms",
    "us",
    "ns",
    "ps",
    "fs",
    "kg",
    "g",
    "Hz",
    "kHz",
    "MHz",
    "GHz",
    "THz",
    "Pa",
    "bar",
    "atm",
    "W",
    "mW",
    "N",
    "T",
    "ohm",
    "F/m",
    "/cm3",
    "/m3",
    "cm2/(V*s)",
    "deg",
    "rad",
    "mol",
)


class UnitError(ValueError):
    """A value's units are unknown, or of another dimension than the declared ones."""


class UnitsUnavailable(UnitError):
    """Units other than the declared ones need pint, which is not installed."""


_made: Any = None
"""pint's registry, once made."""
_settled = False
"""True once a making of the registry ended (made, or pint is not installed)."""
_making = threading.Lock()


def _registry() -> Any:
    registry = _made
    return registry if registry is not None else _make()


def _make() -> Any:
    global _made, _settled
    with _making:  # one registry per process: a second thread waits for the first's
        try:
            if _made is None:
                _made = _new_registry()
            return _made
        finally:
            _settled = True


def _new_registry() -> Any:
    try:
        import pint
    except ImportError:  # pragma: no cover - the extra is part of the test environment
        raise UnitsUnavailable("numbers with units need pint: pip install 'nanohub-mcp[rappture]'") from None
    registry: Any = pint.UnitRegistry()
    registry.autoconvert_offset_to_baseunit = True
    return registry


def _forked() -> None:
    """In a forked child the lock is new: a thread of the parent holding it is not there to free it."""
    global _making
    _making = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def registry_ready() -> bool:
    """True once converting between units waits for nothing: pint's registry is made (or pint was
    found missing, and :class:`UnitsUnavailable` comes at once)."""
    return _settled


def load_registry() -> None:
    """Make pint's registry now, or wait for the thread making it (about a second, once per process;
    for a thread of its own, never an event loop). Never raises: converting says what failed."""
    try:
        _registry()
    except Exception:
        return


def split_number(text: str) -> tuple[float, str] | None:
    """``"300K"`` -> ``(300.0, "K")``; ``"1.5"`` -> ``(1.5, "")``; None when it is not a number."""
    match = _NUMBER.match(text)
    if match is None:
        return None
    return float(match.group(1).replace("d", "e").replace("D", "e")), match.group(2)


@lru_cache(maxsize=512)
def _dimension(declared: str) -> str:
    return str(_registry().parse_units(_declared(declared)).dimensionality)


def _declared(units: str) -> str:
    """The declared units in pint's spelling: alone, ``C``/``F``/``R`` are temperatures and ``A`` is
    the ångström, as in Rappture."""
    text = units.strip()
    if text in _TEMPERATURE:
        return _TEMPERATURE[text]
    return "angstrom" if text == "A" else _spelled(text, "")


def _kind(declared: str) -> str:
    try:
        dimension = _dimension(declared)
    except Exception:
        return ""
    return {"[temperature]": "temperature", "[length]": "length"}.get(dimension, "")


def _spelled(units: str, context: str) -> str:
    """Rappture's ``units`` string in pint's spelling (``context``: the declared units' kind)."""
    text = units.strip()
    if not text:
        return ""
    if context == "temperature" and text in _TEMPERATURE:
        return _TEMPERATURE[text]
    if context == "length" and text == "A":
        return "angstrom"
    out = []
    for part in re.split(r"(/|\*)", text):
        match = _FACTOR.match(part)
        if match is None:
            out.append(part)
            continue
        names = _run_together(match.group(1))
        if match.group(2):
            names[-1] = f"{names[-1]}**{match.group(2)}"
        # Run-together names are one factor: "cm2/Vs" is cm**2/(V*s), not (cm**2/V)*s.
        out.append(f"({'*'.join(names)})" if len(names) > 1 else names[0])
    spelled = "".join(out)
    return f"1{spelled}" if spelled.startswith("/") else spelled


@lru_cache(maxsize=512)
def _known(name: str) -> bool:
    """Whether pint reads ``name`` (a unit with or without a prefix) as one unit."""
    registry = _registry()
    try:
        registry.parse_units(name)
    except Exception:
        return False
    return True


def _run_together(name: str) -> list[str]:
    """``name`` as the units it runs together, read from its end, the longest known name first (Rappture's
    ``RpUnits::units2list``): ``"Vs"`` -> ``["V", "s"]``; ``[name]`` when pint knows it, or when it does not
    split into known names (pint then says which one it does not know)."""
    if _known(name):
        return [name]
    parts: list[str] = []
    rest = name
    while rest:
        start = next((i for i in range(len(rest)) if _known(rest[i:])), None)
        if start is None:
            return [name]
        parts.insert(0, rest[start:])
        rest = rest[:start]
    return parts


def _unreadable(declared: str) -> str:
    """Why the ``declared`` units cannot be read (``""`` when they can)."""
    try:
        _dimension(declared)
    except UnitsUnavailable:
        raise
    except Exception as exc:
        names = getattr(exc, "unit_names", ())
        unknown = ", ".join(repr(n) for n in ((names,) if isinstance(names, str) else names))
        return f"unknown unit {unknown}" if unknown else f"{type(exc).__name__}: {exc}"
    return ""


def _shape_refused(units: str) -> str:
    """Why ``units`` is not of the shape the server accepts (``""`` when it is, or when this runs in a
    program whose Python has no nanohubmcp: then this module is all of ``Rappture`` there is)."""
    try:
        from nanohubmcp.sources.units_text import UnitTextError, check_units
    except ImportError:  # pragma: no cover - the tests' programs run with nanohubmcp importable
        return ""
    try:
        check_units(units)
    except UnitTextError as exc:
        return str(exc)
    return ""


def _number_problem(text: str) -> str:
    """Why ``text`` is no number as written (``"\u0663"``: not ASCII digits; ``"0x10"``: hexadecimal), with what to
    write; ``""`` when nothing is wrong with it, or without nanohubmcp (as above)."""
    try:
        from nanohubmcp.sources.units_text import number_problem
    except ImportError:  # pragma: no cover - the tests' programs run with nanohubmcp importable
        return ""
    problem = number_problem(text)
    return f"{text!r} {problem[0]}; {problem[1]}" if problem else ""


def _code_points(units: str) -> str:
    """Non-ASCII characters of ``units`` named by code point (``""`` without nanohubmcp, as above)."""
    try:
        from nanohubmcp.sources.units_text import code_points
    except ImportError:  # pragma: no cover - the tests' programs run with nanohubmcp importable
        return ""
    return code_points(units)


def to_units(value: float, given: str, declared: str) -> float:
    """``value`` in ``given`` units, expressed in the ``declared`` units.

    Raises:
        UnitError: an unknown unit, or one of another dimension (the message names the units
            that fit); or a value beyond a double's range once converted (``1e308 km`` in m).
    """
    if not given or given == declared:
        return value
    refused = _shape_refused(given)
    if refused:
        raise UnitError(refused)
    registry = _registry()
    unreadable = _unreadable(declared)
    if unreadable:  # the tool's own units, not the value's: say so, and what can still be given
        raise UnitError(
            f"the declared units {declared!r} cannot be read ({unreadable}), so nothing given "
            f"in other units converts to them: give the number in {declared}"
        )
    context = _kind(declared)
    try:
        quantity = registry.Quantity(value, _spelled(given, context))
        converted = float(quantity.to(_declared(declared)).magnitude)
    except OverflowError:  # "1 YK/K*YK/K*...": the units are known; the factor between them is not a double
        raise UnitError(
            f"{given!r} cannot be converted to {declared}: the conversion factor is beyond a double's range"
        ) from None
    except Exception as exc:
        fit = f"units that fit: {', '.join(fitting_units(declared))}"
        name = type(exc).__name__
        if name == "DimensionalityError":
            raise UnitError(f"{given!r} is not a unit of the same kind as {declared!r}; {fit}") from None
        if name == "UndefinedUnitError":
            names = getattr(exc, "unit_names", ())
            unknown = ", ".join(repr(n) for n in ((names,) if isinstance(names, str) else names))
            of = f" {unknown} in {given!r}" if unknown and unknown != repr(given) else f" {given!r}"
            points = _code_points(given)
            raise UnitError(f"unknown unit{of}{' (' + points + ')' if points else ''}; {fit}") from None
        raise UnitError(f"{given!r} cannot be converted to {declared} ({name}: {exc}); {fit}") from None
    if not math.isfinite(converted):  # 1e308 km is inf m: the program would be given "infm"
        raise UnitError(
            f"{_fmt(value)} {given} is out of range once converted to {declared}: beyond a double's range "
            f"(about 1.8e308 {declared}); give a smaller number"
        )
    # A conversion factor is rarely exact in binary (1um is 999.9999999999999nm): rounded to the 15
    # significant digits a double always holds, a limit written as 1um is 1000nm and a value at it passes.
    return float(f"{converted:.15g}")


def _fmt(value: float) -> str:
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def number_in(text: str, declared: str) -> float:
    """A number as Rappture writes it (``"300K"``, ``"10g"``, ``"4"``) in the ``declared`` units.

    Raises:
        UnitError: not a number, or units that do not fit (the message says which do).
    """
    problem = _number_problem(text)
    if problem:
        raise UnitError(problem)
    parsed = split_number(text)
    if parsed is None:
        raise UnitError(f"{text!r} is not a number (write it like 300K or 1.5e-6)")
    number, given = parsed
    if given and not declared:
        raise UnitError(f"{text!r} has units, but this number takes none; give a plain number")
    return to_units(number, given, declared)


@lru_cache(maxsize=256)
def fitting_units(declared: str) -> tuple[str, ...]:
    """A few units of the same dimension as ``declared`` (itself first), for messages."""
    try:
        wanted = _dimension(declared)
    except Exception:
        return (declared,)
    context = _kind(declared)
    fits = [declared]
    for candidate in _COMMON:
        if candidate == declared or len(fits) >= 8:
            continue
        try:
            spelled = _declared(candidate) if candidate in ("C", "F", "A") else _spelled(candidate, context)
            if str(_registry().parse_units(spelled).dimensionality) == wanted:
                fits.append(candidate)
        except Exception:
            continue
    return tuple(fits)


def convert(value: str, to: str | None = None, units: str = "on", context: str | None = None) -> float | str:
    """Rappture's ``Units.convert``: ``value`` (``"300K"``, or a bare number in ``context`` units)
    in the units ``to``; ``units="off"`` returns the number alone, else the text with units.

    Without ``to`` the value keeps its own units. Raises ``ValueError`` (a :class:`UnitError`) for
    a value that is not a number or units that do not fit.
    """
    parsed = split_number(str(value))
    if parsed is None:
        raise UnitError(f"bad value {value!r}: should be a real number with units")
    number, given = parsed
    given = given or (context or "")
    target = to if to is not None else given
    result = to_units(number, given, target) if given and target else number
    if str(units).lower() in ("off", "no", "false", "0"):
        return result
    return f"{_fmt(result)}{target}"
