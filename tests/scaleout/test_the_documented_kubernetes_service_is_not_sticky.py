"""The Kubernetes Service of docs/how-to/scale-out.md, read as written: a Service without session
affinity, sending its port to the port the page's pods serve on. (No cluster runs here; the nginx
block of the same page runs in the other tests of this folder.)"""

from __future__ import annotations

import re

import yaml
from cluster import DOC


def test_the_service_balances_without_affinity_onto_the_served_port() -> None:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert block, "the page has no ```yaml block"
    service = yaml.safe_load(block.group(1))
    assert service["kind"] == "Service"
    assert service["spec"].get("sessionAffinity", "None") == "None"
    (port,) = service["spec"]["ports"]
    served = re.search(r"`nanohubmcp run app\.py --host 0\.0\.0\.0 --port (\d+)` with `NANOHUBMCP_STATE_URL`", text)
    assert served, "the page names no pod command"
    assert port["targetPort"] == int(served.group(1))
    assert service["spec"]["selector"]
    # The state URL (with its password) comes from the environment, not the command line (trial16 F13).
    assert "--state-url \"$NANOHUBMCP_STATE_URL\"" not in text
