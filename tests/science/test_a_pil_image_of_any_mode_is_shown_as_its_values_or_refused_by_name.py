"""A PIL image reaches the client as a picture of its values, whatever its mode; one PNG cannot show is a tool
error naming its mode and size, logged as one line.

Found by a fresh-user trial (trial44 T44-13): ``Image.fromarray`` of float32 data (mode ``F``) arrived as an
almost black picture (a ramp 0..1 became pixels 0 and 1 of 255), an int32 ramp (mode ``I``) clipped at 255,
without a word. T44-14: ``Image.new("La", ...)`` and a 0x0 image failed with Pillow's bare message
(``conversion from La to L not supported``, ``cannot write empty image``) and a 60-line traceback in the log.
``F``/``I`` are now shown as 8-bit grey scaled from their smallest to their largest finite value, as
matplotlib's ``imshow`` does, NaN and infinite pixels transparent; ``La`` is un-premultiplied to ``LA``.

A real server, the official ``mcp`` client, the PNG decoded by Pillow and its pixels compared.
"""

from __future__ import annotations

import base64
import io
import logging
import subprocess
import sys
from typing import Any

import anyio
import pytest
from support import mcp_client, returning, serve

from nanohubmcp import MCPServer

np = pytest.importorskip("numpy")
PILImage = pytest.importorskip("PIL.Image")

RAMP = np.linspace(0, 1, 64, dtype=np.float32)
SHOWN_RAMP = np.rint(np.arange(64) * 255 / 63).astype(np.uint8)  # 0, 4, 8, ... 255


def float_ramp() -> Any:
    return PILImage.fromarray(np.tile(RAMP, (4, 1)))  # mode F


def int32_ramp() -> Any:
    return PILImage.fromarray(np.tile((RAMP * 1_000_000).astype(np.int32), (4, 1)))  # mode I


def float_with_gaps() -> Any:
    values = np.array([[-2.0, np.nan, 0.0], [np.inf, 2.0, -np.inf]], dtype=np.float32)
    return PILImage.fromarray(values)


def premultiplied() -> Any:
    return PILImage.new("La", (3, 2), (100, 128))


def sixteen_bit_little_endian() -> Any:
    values = np.arange(0, 60000, 5000, dtype="<u2").reshape(3, 4)
    return PILImage.frombytes("I;16L", (4, 3), values.tobytes())


SHOWN = {
    "float_ramp": float_ramp,
    "int32_ramp": int32_ramp,
    "float_with_gaps": float_with_gaps,
    "one_value": lambda: PILImage.new("F", (5, 5), 7.5),
    "premultiplied": premultiplied,
    "sixteen_bit_little_endian": sixteen_bit_little_endian,
}
REFUSED = {"empty": lambda: PILImage.new("RGB", (0, 0)), "no_rows": lambda: PILImage.new("L", (5, 0))}


def build() -> MCPServer:
    server = MCPServer("pil-modes")
    for name, make in {**SHOWN, **REFUSED}.items():
        server.tool(name=name, description=f"a {name} image")(returning(make))
    return server


def decoded(result: Any) -> Any:
    assert not result.is_error, result.content
    (block,) = result.content
    assert block.type == "image"
    assert block.mime_type == "image/png"
    return PILImage.open(io.BytesIO(base64.b64decode(block.data)))


@pytest.mark.anyio
async def test_each_mode_arrives_as_a_picture_of_its_values() -> None:
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            pictures = {name: decoded(await client.call_tool(name, {})) for name in SHOWN}
    for name in ("float_ramp", "int32_ramp"):  # the whole range, 0 to 255, as imshow shows it
        picture = pictures[name]
        assert picture.mode == "L", name
        assert (np.asarray(picture) == SHOWN_RAMP).all(), (name, np.asarray(picture)[0])
    gaps = pictures["float_with_gaps"]
    assert gaps.mode == "LA"
    assert np.asarray(gaps).tolist() == [[[0, 255], [0, 0], [128, 255]], [[0, 0], [255, 255], [0, 0]]]
    one_value = pictures["one_value"]
    assert one_value.mode == "L"
    assert np.asarray(one_value).max() == 0
    premultiplied_seen = pictures["premultiplied"]
    assert premultiplied_seen.mode == "LA"
    assert np.asarray(premultiplied_seen).tolist() == np.asarray(premultiplied().convert("LA")).tolist()
    assert premultiplied_seen.getpixel((0, 0))[0] > 190  # 100 premultiplied by 128/255
    wide = pictures["sixteen_bit_little_endian"]
    assert wide.mode.startswith("I"), wide.mode  # 16-bit grey kept, not clipped at 255
    assert np.asarray(wide).ravel().tolist() == list(range(0, 60000, 5000))


@pytest.mark.anyio
async def test_an_image_png_cannot_show_is_a_tool_error_naming_it_in_one_log_line(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp")
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            answers = {name: await client.call_tool(name, {}) for name in REFUSED}
    for name, mode, size in (("empty", "RGB", "0x0"), ("no_rows", "L", "5x0")):
        answer = answers[name]
        assert answer.is_error
        text = answer.content[0].text
        assert f"a PIL image of mode '{mode}' and size {size} cannot be shown" in text, text
        assert "return an image of at least 1x1 pixels" in text, text
        lines = [record for record in caplog.records if f"size {size}" in record.getMessage()]
        assert len(lines) == 1, [record.getMessage() for record in lines]
        assert lines[0].exc_info is None
        assert lines[0].levelno == logging.WARNING


def test_a_float_image_without_numpy_is_refused_naming_what_to_do() -> None:
    script = """
import sys
sys.modules["numpy"] = None  # numpy not installed
from PIL import Image
from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory
server = MCPServer("no-numpy")
@server.tool()
def ramp() -> object:
    '''A float image.'''
    return Image.new("F", (4, 4), 0.5)
with in_memory(server) as client:
    print(client.call_tool("ramp", {})["content"][0]["text"])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert "mode 'F' and size 4x4 cannot be shown: scaling its values to 8-bit grey needs numpy" in done.stdout, (
        done.stdout + done.stderr)
