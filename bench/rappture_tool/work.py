"""About a second of work (a sleep, so the machine's load barely moves it), then a curve."""

from __future__ import annotations

import math
import sys
import time

import Rappture

rx = Rappture.PyXml(sys.argv[1])
seconds = Rappture.Units.convert(rx["input.(seconds).current"].value, to="s", units="off")
seed = int(rx["input.(seed).current"].value)
Rappture.Utils.progress(0, "Working")
time.sleep(seconds)
Rappture.Utils.progress(100, "Done")
xs = [i / 199 for i in range(200)]
rx["output.curve(wave).about.label"] = "Wave"
rx["output.curve(wave).xaxis.label"] = "Time"
rx["output.curve(wave).xaxis.units"] = "s"
rx["output.curve(wave).component.xy"] = (xs, [math.sin(6.283 * x * seed) for x in xs])
rx["output.number(energy).units"] = "eV"
rx["output.number(energy).current"] = f"{seed * 0.5}eV"
rx.close()
