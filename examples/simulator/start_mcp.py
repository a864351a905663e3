"""Physics simulator: projectile motion, harmonic oscillator, waves, ideal gas and special
relativity, with fundamental constants as a resource and a problem-solving prompt.

All quantities are SI (m, s, kg, Pa, m^3, mol, K, J) unless a key says otherwise.

    python examples/simulator/start_mcp.py                # 127.0.0.1:8000 (or $MCP_PORT)
    # other machines may connect: bind every interface and require the token in a file only you can
    # read (chmod 600 ~/.mcp-token), or in $MCP_TOKEN; not --token TOKEN, which ps shows to everyone
    python examples/simulator/start_mcp.py --port 8125 --host 0.0.0.0 --token-file ~/.mcp-token

    curl -X POST http://localhost:8000/tools/projectile_motion -H "Content-Type: application/json" \\
         -d '{"v0": 50, "angle": 45}'
"""

from __future__ import annotations

import argparse
import math

from nanohubmcp import Context, MCPServer  # noqa: F401  (Context is named in # type: comments)
from nanohubmcp.cli import add_port_option, add_script_token_options

server = MCPServer("physics-simulator", version="1.0.0")

GRAVITY = 9.81  # m/s^2
SPEED_OF_LIGHT = 299792458  # m/s (exact)
PLANCK_CONSTANT = 6.62607015e-34  # J*s (exact)
BOLTZMANN_CONSTANT = 1.380649e-23  # J/K (exact)
ELEMENTARY_CHARGE = 1.602176634e-19  # C (exact): joules per electronvolt
GAS_CONSTANT = 8.314462618  # J/(mol*K)


def _positive(name, value):
    # type: (str, float) -> float
    value = float(value)
    if not value > 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be a positive number, got {value}")
    return value


@server.tool()
def projectile_motion(v0, angle, h0=0):
    # type: (float, float, float) -> dict
    """
    Calculate projectile motion parameters.

    Args:
        v0: Initial velocity (m/s)
        angle: Launch angle (degrees)
        h0: Initial height (m), default 0
    """
    v0, h0 = float(v0), float(h0)
    if v0 < 0:
        raise ValueError("v0 must not be negative (give the direction with angle)")
    if h0 < 0:
        raise ValueError("h0 must not be negative (the ground is at 0 m)")
    theta = math.radians(float(angle))
    vx = v0 * math.cos(theta)
    vy = v0 * math.sin(theta)
    # Time until y(t) = h0 + vy t - g t^2 / 2 reaches the ground (the positive root).
    t_flight = (vy + math.sqrt(vy ** 2 + 2 * GRAVITY * h0)) / GRAVITY
    # Launched downwards, the peak is the launch point itself.
    max_height = h0 + max(vy, 0.0) ** 2 / (2 * GRAVITY)
    return {
        "range": round(vx * t_flight, 3),
        "max_height": round(max_height, 3),
        "time_of_flight": round(t_flight, 3),
    }


@server.tool()
def harmonic_oscillator(mass, spring_constant, amplitude, time):
    # type: (float, float, float, float) -> dict
    """
    Calculate simple harmonic motion parameters.

    A mass on an ideal spring released from rest at x = amplitude when time = 0,
    so x(t) = A cos(omega t) with omega = sqrt(k / m).

    Args:
        mass: Mass (kg)
        spring_constant: Spring constant k (N/m)
        amplitude: Amplitude A (m)
        time: Time since release (s)
    """
    m = _positive("mass", mass)
    k = _positive("spring_constant", spring_constant)
    a, t = float(amplitude), float(time)
    omega = math.sqrt(k / m)
    x = a * math.cos(omega * t)
    v = -a * omega * math.sin(omega * t)
    kinetic = 0.5 * m * v ** 2
    potential = 0.5 * k * x ** 2
    return {
        "angular_frequency": round(omega, 6),
        "frequency": round(omega / (2 * math.pi), 6),
        "period": round(2 * math.pi / omega, 6),
        "position": round(x, 6),
        "velocity": round(v, 6),
        "acceleration": round(-omega ** 2 * x, 6),
        "kinetic_energy": round(kinetic, 6),
        "potential_energy": round(potential, 6),
        "total_energy": round(0.5 * k * a ** 2, 6),
    }


@server.tool()
def wave_properties(frequency, wavelength=None, medium_speed=None):
    # type: (float, float, float) -> dict
    """
    Calculate wave properties (period, speed, wavelength, photon energy).

    Give the frequency and either the wavelength or the speed in the medium; with neither,
    the wave is taken to be light in vacuum.

    Args:
        frequency: Frequency (Hz)
        wavelength: Wavelength (m), optional
        medium_speed: Propagation speed (m/s), optional
    """
    f = _positive("frequency", frequency)
    if wavelength is not None:
        lam = _positive("wavelength", wavelength)
        speed = f * lam
        if medium_speed is not None and not math.isclose(speed, float(medium_speed), rel_tol=1e-6):
            raise ValueError(f"frequency * wavelength = {speed} m/s contradicts medium_speed = "
                             f"{medium_speed} m/s; give one of them")
    else:
        speed = SPEED_OF_LIGHT if medium_speed is None else _positive("medium_speed", medium_speed)
        lam = speed / f
    energy = PLANCK_CONSTANT * f
    return {
        "frequency": f,
        "period": 1.0 / f,
        "wavelength": lam,
        "speed": speed,
        "angular_frequency": 2 * math.pi * f,
        "wavenumber": 2 * math.pi / lam,
        # Meaningful for light; given for any frequency as E = h f.
        "photon_energy_J": energy,
        "photon_energy_eV": energy / ELEMENTARY_CHARGE,
    }


@server.tool()
def ideal_gas(pressure=None, volume=None, n_moles=None, temperature=None):
    # type: (float, float, float, float) -> dict
    """
    Ideal gas law calculator (PV = nRT). Provide 3 of 4 variables.

    Args:
        pressure: Pressure (Pa)
        volume: Volume (m^3)
        n_moles: Amount of gas (mol)
        temperature: Temperature (K)
    """
    given = {"pressure": pressure, "volume": volume, "n_moles": n_moles, "temperature": temperature}
    missing = [name for name, value in given.items() if value is None]
    if len(missing) != 1:
        raise ValueError("give exactly 3 of pressure, volume, n_moles, temperature "
                         f"(missing: {', '.join(missing) or 'none'})")
    known = {name: _positive(name, value) for name, value in given.items() if value is not None}
    unknown = missing[0]
    if unknown == "pressure":
        known["pressure"] = known["n_moles"] * GAS_CONSTANT * known["temperature"] / known["volume"]
    elif unknown == "volume":
        known["volume"] = known["n_moles"] * GAS_CONSTANT * known["temperature"] / known["pressure"]
    elif unknown == "n_moles":
        known["n_moles"] = known["pressure"] * known["volume"] / (GAS_CONSTANT * known["temperature"])
    else:
        known["temperature"] = known["pressure"] * known["volume"] / (known["n_moles"] * GAS_CONSTANT)
    return {
        "solved_for": unknown,
        "pressure": known["pressure"],
        "volume": known["volume"],
        "n_moles": known["n_moles"],
        "temperature": known["temperature"],
        "gas_constant": GAS_CONSTANT,
    }


@server.tool(tags={"advanced"})
def relativistic_energy(ctx, rest_mass, velocity):
    # type: (Context, float, float) -> dict
    """
    Calculate relativistic energy and momentum.

    Args:
        rest_mass: Rest mass (kg)
        velocity: Speed (m/s), below the speed of light
    """
    ctx.info(f"Calculating relativistic properties for v = {velocity} m/s")
    m = _positive("rest_mass", rest_mass)
    v = float(velocity)
    if not 0 <= abs(v) < SPEED_OF_LIGHT:
        raise ValueError(f"velocity must be below the speed of light ({SPEED_OF_LIGHT} m/s)")
    beta = v / SPEED_OF_LIGHT
    root = math.sqrt(1.0 - beta ** 2)
    gamma = 1.0 / root
    rest_energy = m * SPEED_OF_LIGHT ** 2
    # gamma - 1 written as beta^2 / (root (1 + root)) keeps precision at everyday speeds.
    kinetic = rest_energy * beta ** 2 / (root * (1.0 + root))
    return {
        "beta": beta,
        "lorentz_factor": gamma,
        "rest_energy_J": rest_energy,
        "kinetic_energy_J": kinetic,
        "total_energy_J": rest_energy + kinetic,
        "momentum_kg_m_s": gamma * m * v,
        "classical_kinetic_energy_J": 0.5 * m * v ** 2,
    }


@server.resource("constants://physics", mime_type="application/json")
def physical_constants():
    """Fundamental physical constants."""
    return {
        "speed_of_light": {"value": SPEED_OF_LIGHT, "unit": "m/s"},
        "gravitational_acceleration": {"value": GRAVITY, "unit": "m/s^2"},
        "planck_constant": {"value": PLANCK_CONSTANT, "unit": "J*s"},
        "boltzmann_constant": {"value": BOLTZMANN_CONSTANT, "unit": "J/K"},
    }


@server.prompt()
def physics_problem(problem_description):
    # type: (str) -> list
    """Generate a prompt to solve a physics problem."""
    return [{"role": "user", "content": {"type": "text", "text": f"Solve: {problem_description}"}}]


def main(argv=None):
    # type: (list[str] | None) -> None
    """Parse ``--host``/``--port`` (default 127.0.0.1 and ``$MCP_PORT`` or 8000), ``--token-file``/``--token``
    (default ``$MCP_TOKEN``) and ``--transport`` (default ``$MCP_TRANSPORT`` or http; stdio for
    desktop clients) and serve."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1, this machine)")
    add_script_token_options(parser)  # --token-file PATH, else $MCP_TOKEN; an empty --token exits 2
    add_port_option(parser)  # --port N, else $MCP_PORT, else 8000; a bad one exits 2 saying 0-65535
    parser.add_argument("--transport", choices=["http", "stdio"], default=None,
                        help="http, or stdio for desktop clients (default: $MCP_TRANSPORT or http)")
    args = parser.parse_args(argv)
    server.run(host=args.host, port=args.port, transport=args.transport, token=args.token)


if __name__ == "__main__":
    main()
