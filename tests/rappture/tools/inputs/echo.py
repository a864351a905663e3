"""Echo every input's current value into output strings (test data of this repository)."""

from __future__ import annotations

import re
import sys

import Rappture

driver = Rappture.library(sys.argv[1])


def walk(node, path):
    for child in node.children(path, type="component") or []:
        here = f"{path}.{child}"
        current = driver.get(f"{here}.current")
        if current is not None and driver.element(f"{here}.current.components") is None:
            driver.put(f"output.string({re.sub(r'[().]+', '_', here).strip('_')}).current", current)
        walk(node, here)


walk(driver, "input")
Rappture.result(driver)
