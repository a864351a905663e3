"""examples/simulator: every physics tool checked against closed-form results and conservation
laws, the constants resource and the prompt — through the official ``mcp`` client and REST."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from client_logs import ask_for_logs
from example_process import ExampleProcess, run_example
from json_posts import post_json
from support import mcp_client

pytestmark = pytest.mark.slow

G = 9.81
C = 299792458.0
H = 6.62607015e-34
EV = 1.602176634e-19
R = 8.314462618


@pytest.fixture(scope="module")
def example() -> Iterator[ExampleProcess]:
    with run_example("simulator") as running:
        yield running


async def call(url: str, name: str, arguments: dict[str, Any], *, error: bool = False) -> Any:
    with anyio.fail_after(20):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool(name, arguments)
    assert result.is_error is error, result.content
    if error:
        return result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


@pytest.mark.anyio
async def test_the_tools_resource_and_prompt_are_listed(example: ExampleProcess) -> None:
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp") as client:
            assert client.server_info.name == "physics-simulator"
            tools = {t.name: t for t in (await client.list_tools()).tools}
            resources = (await client.list_resources()).resources
            templates = (await client.list_resource_templates()).resource_templates
            prompts = (await client.list_prompts()).prompts
    assert set(tools) == {"projectile_motion", "harmonic_oscillator", "wave_properties", "ideal_gas",
                          "relativistic_energy"}
    projectile = tools["projectile_motion"].input_schema
    assert sorted(projectile["required"]) == ["angle", "v0"]
    assert projectile["properties"]["h0"]["default"] == 0
    assert projectile["properties"]["v0"]["description"] == "Initial velocity (m/s)"
    assert tools["ideal_gas"].input_schema.get("required", []) == []
    assert set(tools["relativistic_energy"].input_schema["properties"]) == {"rest_mass", "velocity"}
    assert [str(r.uri) for r in resources] == ["constants://physics"]
    assert [t.uri_template for t in templates] == ["nanohubmcp://results/{id}{?part}"]  # the server's own
    assert [p.name for p in prompts] == ["physics_problem"]


@pytest.mark.anyio
async def test_projectile_on_flat_ground_matches_the_range_formula(example: ExampleProcess) -> None:
    got = await call(example.url, "projectile_motion", {"v0": 50, "angle": 45})
    assert got == {
        "range": round(50 ** 2 / G, 3),
        "max_height": round((50 * math.sin(math.pi / 4)) ** 2 / (2 * G), 3),
        "time_of_flight": round(2 * 50 * math.sin(math.pi / 4) / G, 3),
    }


@pytest.mark.anyio
async def test_projectile_from_a_height_lands_at_the_end_of_its_flight(example: ExampleProcess) -> None:
    v0, angle, h0 = 20.0, 30.0, 10.0
    got = await call(example.url, "projectile_motion", {"v0": v0, "angle": angle, "h0": h0})
    vx, vy = v0 * math.cos(math.radians(angle)), v0 * math.sin(math.radians(angle))
    t = got["time_of_flight"]
    assert h0 + vy * t - G * t * t / 2 == pytest.approx(0, abs=0.02)
    assert got["range"] == pytest.approx(vx * t, abs=0.01)
    assert got["max_height"] == pytest.approx(h0 + vy ** 2 / (2 * G), abs=1e-3)
    level = await call(example.url, "projectile_motion", {"v0": 10, "angle": 0, "h0": 5})
    assert level["range"] == pytest.approx(10 * math.sqrt(2 * 5 / G), abs=1e-3)
    assert level["max_height"] == 5.0


@pytest.mark.anyio
async def test_harmonic_oscillator_conserves_energy(example: ExampleProcess) -> None:
    m, k, a, t = 0.5, 20.0, 0.1, 1.0
    got = await call(example.url, "harmonic_oscillator",
                     {"mass": m, "spring_constant": k, "amplitude": a, "time": t})
    omega = math.sqrt(k / m)
    assert got["angular_frequency"] == pytest.approx(omega, abs=1e-6)
    assert got["period"] == pytest.approx(2 * math.pi / omega, abs=1e-6)
    assert got["frequency"] == pytest.approx(omega / (2 * math.pi), abs=1e-6)
    assert got["position"] == pytest.approx(a * math.cos(omega * t), abs=1e-6)
    assert got["velocity"] == pytest.approx(-a * omega * math.sin(omega * t), abs=1e-6)
    assert got["acceleration"] == pytest.approx(-k / m * a * math.cos(omega * t), abs=1e-6)
    assert got["total_energy"] == pytest.approx(0.5 * k * a ** 2, abs=1e-9)
    assert got["kinetic_energy"] + got["potential_energy"] == pytest.approx(got["total_energy"], abs=1e-5)
    at_rest = await call(example.url, "harmonic_oscillator",
                         {"mass": m, "spring_constant": k, "amplitude": a, "time": 0})
    assert (at_rest["position"], at_rest["velocity"], at_rest["kinetic_energy"]) == (a, 0.0, 0.0)


@pytest.mark.anyio
async def test_wave_properties_for_light_sound_and_a_given_wavelength(example: ExampleProcess) -> None:
    light = await call(example.url, "wave_properties", {"frequency": 5e14})
    assert light["speed"] == C
    assert light["wavelength"] == pytest.approx(C / 5e14, rel=1e-12)
    assert light["period"] == pytest.approx(2e-15, rel=1e-12)
    assert light["photon_energy_J"] == pytest.approx(H * 5e14, rel=1e-12)
    assert light["photon_energy_eV"] == pytest.approx(2.0678, abs=1e-4)
    sound = await call(example.url, "wave_properties", {"frequency": 440, "medium_speed": 343})
    assert sound["wavelength"] == pytest.approx(343 / 440, rel=1e-12)
    assert sound["speed"] == 343
    string = await call(example.url, "wave_properties", {"frequency": 2, "wavelength": 3})
    assert string["speed"] == 6
    assert string["wavenumber"] == pytest.approx(2 * math.pi / 3, rel=1e-12)
    assert string["angular_frequency"] == pytest.approx(4 * math.pi, rel=1e-12)
    # Explicit nulls mean "not given", as the optional parameters' schema allows.
    same = await call(example.url, "wave_properties", {"frequency": 2, "wavelength": 3, "medium_speed": None})
    assert same == string


@pytest.mark.anyio
async def test_ideal_gas_solves_for_whichever_variable_is_missing(example: ExampleProcess) -> None:
    p = await call(example.url, "ideal_gas", {"volume": 0.0224, "n_moles": 1, "temperature": 273.15})
    assert p["solved_for"] == "pressure"
    assert p["pressure"] == pytest.approx(R * 273.15 / 0.0224, rel=1e-12)
    assert p["pressure"] == pytest.approx(101325, rel=0.001)  # one mole at STP fills 22.4 L
    back = {"pressure": p["pressure"], "volume": 0.0224, "temperature": 273.15}
    n = await call(example.url, "ideal_gas", back)
    assert n["solved_for"] == "n_moles"
    assert n["n_moles"] == pytest.approx(1, rel=1e-12)
    v = await call(example.url, "ideal_gas", {"pressure": 101325, "n_moles": 2, "temperature": 300})
    assert v["volume"] == pytest.approx(2 * R * 300 / 101325, rel=1e-12)
    t = await call(example.url, "ideal_gas", {"pressure": 101325, "volume": 0.0224, "n_moles": 1})
    assert t["temperature"] == pytest.approx(101325 * 0.0224 / R, rel=1e-12)


@pytest.mark.anyio
async def test_relativistic_energy_obeys_the_energy_momentum_relation(example: ExampleProcess) -> None:
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    mass, velocity = 9.1093837015e-31, 0.5 * C
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp", logging_callback=on_log) as client:
            await ask_for_logs(client)
            result = await client.call_tool("relativistic_energy", {"rest_mass": mass, "velocity": velocity})
    got = result.structured_content
    gamma = 1 / math.sqrt(1 - 0.25)
    assert got["beta"] == pytest.approx(0.5, rel=1e-12)
    assert got["lorentz_factor"] == pytest.approx(gamma, rel=1e-12)
    assert got["rest_energy_J"] == pytest.approx(mass * C ** 2, rel=1e-12)
    assert got["kinetic_energy_J"] == pytest.approx((gamma - 1) * mass * C ** 2, rel=1e-9)
    assert got["momentum_kg_m_s"] == pytest.approx(gamma * mass * velocity, rel=1e-12)
    energy, momentum = got["total_energy_J"], got["momentum_kg_m_s"]
    assert energy ** 2 == pytest.approx((momentum * C) ** 2 + (mass * C ** 2) ** 2, rel=1e-9)
    assert logs == [f"Calculating relativistic properties for v = {velocity} m/s"]


@pytest.mark.anyio
async def test_relativistic_energy_is_classical_at_everyday_speeds(example: ExampleProcess) -> None:
    got = await call(example.url, "relativistic_energy", {"rest_mass": 1, "velocity": 1})
    assert got["kinetic_energy_J"] == pytest.approx(0.5, rel=1e-9)  # no cancellation error
    assert got["classical_kinetic_energy_J"] == 0.5


@pytest.mark.parametrize(("name", "arguments", "message"), [
    ("relativistic_energy", {"rest_mass": 1, "velocity": C}, "below the speed of light"),
    ("relativistic_energy", {"rest_mass": 0, "velocity": 1}, "rest_mass must be a positive number"),
    ("ideal_gas", {"volume": 1, "n_moles": 1}, "give exactly 3"),
    ("ideal_gas", {"pressure": 1, "volume": 1, "n_moles": 1, "temperature": 1}, "missing: none"),
    ("ideal_gas", {"pressure": -1, "volume": 1, "n_moles": 1}, "pressure must be a positive number"),
    ("harmonic_oscillator", {"mass": 0, "spring_constant": 1, "amplitude": 1, "time": 0}, "mass must be"),
    ("wave_properties", {"frequency": 0}, "frequency must be a positive number"),
    ("wave_properties", {"frequency": 2, "wavelength": 3, "medium_speed": 10}, "contradicts"),
    ("projectile_motion", {"v0": -1, "angle": 10}, "v0 must not be negative"),
])
@pytest.mark.anyio
async def test_impossible_inputs_are_tool_errors_that_say_why(
    example: ExampleProcess, name: str, arguments: dict[str, Any], message: str
) -> None:
    assert message in await call(example.url, name, arguments, error=True)


@pytest.mark.anyio
async def test_the_constants_resource_and_the_prompt(example: ExampleProcess) -> None:
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp") as client:
            read = await client.read_resource("constants://physics")
            got = await client.get_prompt("physics_problem", {"problem_description": "a falling apple"})
    [content] = read.contents
    assert content.mime_type == "application/json"
    constants = json.loads(content.text)
    assert constants["speed_of_light"] == {"value": 299792458, "unit": "m/s"}
    assert constants["planck_constant"] == {"value": 6.62607015e-34, "unit": "J*s"}
    assert set(constants) == {"speed_of_light", "gravitational_acceleration", "planck_constant",
                              "boltzmann_constant"}
    [message] = got.messages
    assert (message.role, message.content.text) == ("user", "Solve: a falling apple")


def test_the_readme_curls_answer_with_the_results(example: ExampleProcess) -> None:
    status, motion = post_json(example.url + "tools/projectile_motion", {"v0": 50, "angle": 45})
    assert (status, motion["range"]) == (200, 254.842)
    status, spring = post_json(example.url + "tools/harmonic_oscillator",
                               {"mass": 0.5, "spring_constant": 20, "amplitude": 0.1, "time": 1.0})
    assert status == 200
    assert spring["total_energy"] == 0.1
    stp = {"volume": 0.0224, "n_moles": 1, "temperature": 273.15}
    status, gas = post_json(example.url + "tools/ideal_gas", stp)
    assert status == 200
    assert gas["solved_for"] == "pressure"
    status, read = post_json(example.url, {"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                                           "params": {"uri": "constants://physics"}})
    assert status == 200
    assert "speed_of_light" in json.loads(read["result"]["contents"][0]["text"])
