"""The Fermi-Dirac function, a Rappture tool written against Rappture's Python API."""

from __future__ import annotations

import math
import sys

import Rappture

rx = Rappture.PyXml(sys.argv[1])
temperature = Rappture.Units.convert(rx["input.(temperature).current"].value, to="K", units="off")
fermi = Rappture.Units.convert(rx["input.(Ef).current"].value, to="eV", units="off")

kt = 8.617333262e-5 * temperature  # eV
energies = [fermi - 10 * kt + 20 * kt * i / 200 for i in range(201)]
occupancy = []
for i, energy in enumerate(energies):
    occupancy.append(1.0 / (1.0 + math.exp((energy - fermi) / kt)))
    if i % 50 == 0:
        Rappture.Utils.progress(i / 2, "Computing the occupancy")

curve = rx["output.curve(f12)"]
curve["about.label"] = "Fermi-Dirac function"
curve["xaxis.label"] = "Occupancy"
curve["yaxis.label"] = "Energy"
curve["yaxis.units"] = "eV"
curve["component.xy"] = (occupancy, energies)
rx.close()
