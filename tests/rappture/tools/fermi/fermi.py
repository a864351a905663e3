"""A Rappture tool program written against Rappture's Python API (test data of this repository)."""

from __future__ import annotations

import math
import os
import sys
import time

import Rappture

rx = Rappture.PyXml(sys.argv[1])
temperature = Rappture.Units.convert(rx["input.(temperature).current"].value, to="K", units="off")
fermi = Rappture.Units.convert(rx["input.(Ef).current"].value, to="eV", units="off")
points = int(rx["input.integer(points).current"].value)
mode = rx["input.choice(mode).current"].value
if mode == "crash":
    print("diverged: the mesh is too coarse", file=sys.stderr)
    sys.exit(3)
if mode == "hang":  # and a child process of its own, which must be stopped with it
    import subprocess

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print(f"=RAPPTURE-PROGRESS=>5 Waiting forever (pids {os.getpid()} {child.pid})", flush=True)
    while True:
        time.sleep(1)

if mode == "fail":  # the standard Rappture way: a log saying why, and a failed status
    rx["output.log"] = "the solver did not converge"
    rx.close(1)
    sys.exit(0)

kt = 8.617333262e-5 * temperature
energies, occupancy = [], []
for i in range(points):
    energy = fermi - 10 * kt + 20 * kt * i / (points - 1)
    energies.append(energy)
    occupancy.append(1.0 / (1.0 + math.exp((energy - fermi) / kt)))
    if i % max(1, points // 4) == 0:
        Rappture.Utils.progress(100 * i / points, "Computing occupancy")

curve = rx["output.curve(f12)"]
curve["about.label"] = "Fermi-Dirac occupancy"
curve["xaxis.label"] = "Occupancy"
curve["yaxis.label"] = "Energy"
curve["yaxis.units"] = "eV"
curve["component.xy"] = (occupancy, energies)
rx["output.number(kT).about.label"] = "Thermal energy"
rx["output.number(kT).units"] = "eV"
rx["output.number(kT).current"] = f"{kt}eV"
rx["output.log"] = f"T = {temperature} K, Ef = {fermi} eV, {points} points"
rx.close()
