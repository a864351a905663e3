"""Write one of each Rappture output element (test data of this repository)."""

from __future__ import annotations

import base64
import struct
import sys
import zlib

import Rappture


def png(width: int, height: int) -> bytes:
    """A grey PNG image, made with the standard library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


rx = Rappture.PyXml(sys.argv[1])
points = int(rx["input.integer(points).current"].value)
xs = [i / (points - 1) for i in range(points)]
for name, factor in (("up", 1.0), ("down", -1.0)):
    curve = rx[f"output.curve({name})"]
    curve["about.label"] = f"Line {name}"
    curve["about.group"] = "Both lines"
    curve["xaxis.label"] = "Position"
    curve["xaxis.units"] = "um"
    curve["yaxis.label"] = "Potential"
    curve["yaxis.units"] = "V"
    curve["component.xy"] = (xs, [factor * x for x in xs])
bars = rx["output.histogram(counts)"]
bars["about.label"] = "Counts"
bars["xaxis.label"] = "Animal"
bars["yaxis.label"] = "Seen"
bars["component.xy"] = (["Tigers", "Bears", "Lions"], [5, 7, 3])
rx["output.histogram(spans).about.label"] = "Spans"
rx["output.histogram(spans).component.xhw"] = "1 10 0.5\n2 20 0.5\n3 15 1"
table = rx["output.table(levels)"]
table["about.label"] = "Energy levels"
table["column(name).label"] = "Name"
table["column(energy).label"] = "Energy"
table["column(energy).units"] = "eV"
table["data"] = "E1 0.05\nE2 0.2\nHOMO 0.45"
rx["output.number(gap).about.label"] = "Band gap"
rx["output.number(gap).units"] = "eV"
rx["output.number(gap).current"] = "1120meV"
rx["output.integer(iterations).about.label"] = "Iterations"
rx["output.integer(iterations).current"] = "42"
rx["output.boolean(converged).about.label"] = "Converged"
rx["output.boolean(converged).current"] = "yes"
rx["output.string(material).about.label"] = "Material"
rx["output.string(material).current"] = "Si"
rx["output.image(snapshot).about.label"] = "Snapshot"
rx["output.image(snapshot).current"] = "@@RP-ENC:b64\n" + base64.b64encode(png(4, 3)).decode()
mesh = rx["output.mesh(grid)"]
mesh["dim"] = "1"
mesh["units"] = "um"
mesh["grid.xaxis.min"] = "0"
mesh["grid.xaxis.max"] = "1"
mesh["grid.xaxis.numpoints"] = "3"
rx["output.field(density).about.label"] = "Density"
rx["output.field(density).component.mesh"] = "output.mesh(grid)"
rx["output.field(density).component.values"] = "1 2 3"
rx["output.log"] = "iteration 42: residual 1e-9"
if rx["input.boolean(fail).current"].value in ("yes", "on", "true", "1"):
    rx["output.log"] = "solver diverged at iteration 3"
    Rappture.result(rx.lib, status=1)
else:
    rx.close()
