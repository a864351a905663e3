"""docs/how-to/jupyterlab-panel.md says where the panel is, in the words JupyterLab shows: the right
sidebar, the tooltip (the panel's caption) and the palette command (its label), as the extension's
source sets them. A fresh-user trial found the page never said so and began with "that server"."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_names_the_sidebar_the_tooltip_and_the_command() -> None:
    source = (ROOT / "labextension" / "src" / "index.ts").read_text()
    caption = re.search(r"panel\.title\.caption = '([^']+)'", source)
    label = re.search(r"label: '(Show [^']+)'", source)
    assert caption
    assert label
    assert "app.shell.add(panel, 'right'" in source
    intro = (ROOT / "docs" / "how-to" / "jupyterlab-panel.md").read_text().split("\n\n")[1]
    assert "right sidebar" in intro
    assert f'tooltip reads "{caption[1]}"' in intro
    assert f'"{label[1]}"' in intro
    assert not intro.startswith("The JupyterLab panel shows that server")
