"""``nanohubmcp.sources.units_text``: the one shape of a client's number with units, checked before pint or
Rappture's unit code reads it. The units real tool.xml files and Sim2L notebooks use pass it and still
convert (through Rappture's ``Units`` and through simtool); text pint would evaluate as arithmetic, or that
is not a finite number, is refused with what is wrong and what is accepted. (Over real servers:
``tests/rappture`` and ``tests/sim2l``, ``test_*units_pint_would_compute_are_refused_before_it_reads_them``.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.sources.units_text import (
    ACCEPTED,
    MAX_CHARS,
    UnitTextError,
    check_quantity,
    check_units,
    code_points,
)

UNITS = ["K", "degC", "eV", "cm^-3", "1/cm3", "/cm3", "m/s^2", "kg*m/s**2", "um", "nm", "uW/cm2", "%", "V",
         "cm2/(V*s)", "m^(-1)", "kg m/s^2", "°C", "µm", "μm", "Å", "Ω", "delta_degC", "(m/s)^2", "K^+2"]

QUANTITIES = [
    ("300K", 300.0, "K"),
    ("300 K", 300.0, "K"),
    ("25 degC", 25.0, "degC"),
    ("-300C", -300.0, "C"),
    ("1e18/cm3", 1e18, "/cm3"),
    ("1e18 1/cm3", 1e18, "1/cm3"),
    ("3e-06s", 3e-06, "s"),
    ("1d3K", 1000.0, "K"),  # Rappture's Fortran exponent
    (".5 um", 0.5, "um"),
    ("+2.5 kg*m/s**2", 2.5, "kg*m/s**2"),
    ("50%", 50.0, "%"),
    ("1.5", 1.5, ""),
    ("  7  ", 7.0, ""),
]

REFUSED = [
    ("9**9**9 K", "has a power (^ or **) that does not follow a unit name or a closing parenthesis"),
    ("1 K**9**9**9", "has a power of a power (like K^2^3)"),
    ("1 K^9^9^9", "has a power of a power (like K^2^3)"),
    ("1 K^ -9**9", "has a power of a power (like K^2^3)"),
    ("1 K**10", "has a power whose exponent is not a single digit (-9 to 9)"),
    ("1 K^2.5", "has a power whose exponent is not a single digit (-9 to 9)"),
    ("1 K**", "has a power whose exponent is not a single digit (-9 to 9)"),
    ("1 K^0", "has a power 0 (which leaves no unit: leave the unit out)"),  # pint: KeyError / dimensionless
    ("1 m**(-0)", "has a power 0"),
    ("1 cm10", "has a unit name ending in more than one digit"),
    ("1 K²", "holds '²', which units cannot hold"),  # pint reads superscripts as powers
    ("1e999K", "is not a finite number"),
    ("nan K", "is not a finite number"),
    ("-inf", "is not a finite number"),
    ("K", "does not start with a number"),
    ("(3 kg", "does not start with a number"),
    ("", "does not start with a number"),
    ("3 __import__('os')", "holds '_', which units cannot hold"),
    ("3 m;", "holds ';', which units cannot hold"),
    ("3 K 2", "has a number inside its units (only 1 may stand there, as in 1/cm3)"),
    ("1 2**9", "has a number inside its units"),
    ("1 ((((K))))", "nests parentheses more than 3 deep"),
    ("1 (K", "has a '(' that is never closed"),
    ("1 K)", "has a ')' that closes no '('"),
    ("3 ()", "has a ')' without a unit before it"),
    ("3 */K", "has '*' without a unit before it"),
    ("3 K/", "ends with an operator"),
    ("1" * 300 + " K", f"is 302 characters long; a number with units is at most {MAX_CHARS} characters"),
]


@pytest.mark.parametrize("units", UNITS)
def test_the_units_tools_use_have_the_shape(units: str) -> None:
    assert check_units(units) == units
    assert check_quantity(f"2 {units}") == (2.0, units)


@pytest.mark.parametrize(("text", "number", "units"), QUANTITIES)
def test_a_number_with_units_is_split_as_written(text: str, number: float, units: str) -> None:
    assert check_quantity(text) == (number, units)


@pytest.mark.parametrize(("text", "problem"), REFUSED)
def test_other_text_is_refused_saying_what_is_wrong_and_what_is_accepted(text: str, problem: str) -> None:
    with pytest.raises(UnitTextError) as refused:
        check_quantity(text)
    assert refused.value.problem.startswith(problem), refused.value.problem
    message = str(refused.value)
    assert message.endswith(ACCEPTED)
    assert len(message) < 600  # a long text is quoted cut short
    assert message.startswith(f'"{text}" ' if len(text) <= 40 else f'"{text[:40]}…" ')


def test_rapptures_units_refuse_what_pint_would_compute_and_convert_the_rest() -> None:
    pytest.importorskip("pint")
    from nanohubmcp.sources.rappture.compat.Rappture import Units

    assert Units.number_in("1e18/cm3", "1/cm3") == pytest.approx(1e18)
    assert Units.number_in("1e12 1/m^3", "/cm3") == pytest.approx(1e6)
    assert Units.number_in("2 cm^-3", "/cm3") == pytest.approx(2)
    assert Units.number_in("300K", "K") == 300
    assert Units.number_in("25C", "K") == pytest.approx(298.15)
    assert Units.number_in("9.81 m/s^2", "m/s2") == pytest.approx(9.81)
    assert Units.number_in("1 kg*m/s**2", "N") == pytest.approx(1)
    assert Units.number_in("5 uW/cm2", "W/m2") == pytest.approx(0.05)
    assert Units.number_in("0.5um", "nm") == pytest.approx(500)
    assert Units.number_in("50%", "%") == 50
    assert Units.convert("25C", to="K") == "298.15K"
    for text in ("1 K**9**9**9", "1 K^9^9^9", "1 (K^9)^99"):
        with pytest.raises(Units.UnitError, match=ACCEPTED.split(":")[0]):
            Units.number_in(text, "K")


def test_code_points_name_a_character_that_looks_like_another() -> None:
    assert code_points("K") == ""
    assert code_points("\u212a") == "'\u212a' is U+212A KELVIN SIGN, not the letter K: write K"
    assert code_points("\u212bm") == "'\u212b' is U+212B ANGSTROM SIGN"
    assert code_points("\u00b5m") == "'\u00b5' is U+00B5 MICRO SIGN"
    assert code_points("\u2460\u2461\u2462\u2463").endswith("; ...")


def test_rapptures_unit_refusals_name_the_real_cause() -> None:
    """trial13 F5: an overflowing conversion factor, and the Kelvin sign, were both "unknown unit"."""
    pytest.importorskip("pint")
    from nanohubmcp.sources.rappture.compat.Rappture import Units

    with pytest.raises(Units.UnitError) as overflow:
        Units.number_in("1 ((YK^9)^9)^9/((K^9)^9)^9*K", "K")
    assert str(overflow.value) == (
        "'((YK^9)^9)^9/((K^9)^9)^9*K' cannot be converted to K: the conversion factor is beyond a double's range"
    )
    with pytest.raises(Units.UnitError) as kelvin:
        Units.number_in("100 \u212a", "K")
    assert str(kelvin.value).startswith(
        "unknown unit '\u212a' ('\u212a' is U+212A KELVIN SIGN, not the letter K: write K); units that fit: K"
    )
    with pytest.raises(Units.UnitError) as unknown:
        Units.number_in("1 K*furlongs_x", "K")
    assert str(unknown.value).startswith("unknown unit 'furlongs_x' in 'K*furlongs_x'; units that fit: K")
    with pytest.raises(Units.UnitError, match="has a power 0"):
        Units.number_in("1 K^0", "K")


def test_sim2l_numbers_in_the_units_notebooks_use_still_convert(tmp_path: Path) -> None:
    pytest.importorskip("simtool")
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from nanohubmcp.errors import InvalidArguments
    from nanohubmcp.sources.sim2l.notebook import read_sim2l
    from nanohubmcp.sources.sim2l.values import prepare

    declared = {"temperature": "K", "density": "1/cm**3", "accel": "m/s**2", "flux": "uW/cm**2", "share": "percent",
                "sizes": "nm"}
    inputs = "\n".join(f"{name}:\n    type: {'Array' if name == 'sizes' else 'Number'}\n    units: {units}"
                       for name, units in declared.items())
    notebook = new_notebook()
    notebook.cells = [new_code_cell(f"%%yaml INPUTS\n{inputs}"), new_code_cell("%%yaml OUTPUTS\n"),
                      new_code_cell("temperature = 1")]
    notebook.cells[2].metadata["tags"] = ["parameters"]
    nbformat.write(notebook, tmp_path / "units.ipynb")
    spec = read_sim2l(tmp_path / "units.ipynb")
    given = {"temperature": "25 degC", "density": "1e18/cm^3", "accel": "9.81 m/s^2", "flux": "5 W/m**2",
             "share": "50 %", "sizes": ["2 nm", "0.5 um", 3]}
    values = prepare(spec, given).parameters
    assert values["temperature"] == pytest.approx(298.15)
    assert values["density"] == pytest.approx(1e18)
    assert values["accel"] == pytest.approx(9.81)
    assert values["flux"] == pytest.approx(500)
    assert values["share"] == pytest.approx(50)
    assert values["sizes"] == pytest.approx([2, 500, 3])
    with pytest.raises(InvalidArguments, match=r"input 'temperature': cannot read \"1 K\*\*9\*\*9\" as a number"):
        prepare(spec, {"temperature": "1 K**9**9"})
