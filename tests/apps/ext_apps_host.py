"""A host page for MCP Apps views, built on the official ``@modelcontextprotocol/ext-apps`` host bridge.

:func:`host_bundle` installs the npm package (with its peer dependencies and esbuild) into a
cache directory once and bundles ``HOST_JS`` for the browser: ``window.showView(html, input,
result)`` puts the view in a sandboxed iframe (``allow-scripts`` only, a CSP allowing nothing
from the network), connects an ``AppBridge`` to it over ``PostMessageTransport``, waits for
the view's ``ui/notifications/initialized`` and sends the tool's input and result. Without npm
the test is skipped locally and fails under CI (``CI`` set), like the conformance suite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

EXT_APPS = "@modelcontextprotocol/ext-apps@2.0.4"
PACKAGES = [EXT_APPS, "@modelcontextprotocol/client@^2", "@modelcontextprotocol/core@^2", "zod@^4.2", "esbuild@0.28.2"]
HOST_JS = """
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

window.hostLog = [];
window.showView = async function (html, toolInput, toolResult) {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.id = "view";
  frame.style.width = "560px";
  frame.style.height = "420px";
  document.body.appendChild(frame);
  const bridge = new AppBridge(null, { name: "ext-apps-test-host", version: "1.0.0" }, {});
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  bridge.onsizechange = (size) => window.hostLog.push(["size", size]);
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  const policy = `<meta http-equiv="Content-Security-Policy" content="${CSP}">`;
  frame.srcdoc = html.replace(/<head[^>]*>/i, (tag) => tag + policy);
  await initialized;
  window.hostLog.push(["initialized", bridge.getAppVersion()]);
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult);
  window.hostLog.push(["delivered"]);
  return "delivered";
};
"""


def _cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("NANOHUBMCP_EXT_APPS_CACHE", str(Path(base) / "nanohubmcp-ext-apps")))


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{what}; CI must provide it (Node.js and npm, scripts/install-test-system-deps)")
    pytest.skip(what)


def host_bundle() -> Path:
    """The bundled host script (installs the npm packages into the cache dir on first use)."""
    cache = _cache()
    bundle = cache / "host.bundle.js"
    source = cache / "host.js"
    if bundle.is_file() and source.is_file() and source.read_text() == HOST_JS:
        return bundle
    npm = shutil.which("npm")
    if npm is None:
        _missing("npm is not on PATH: the MCP Apps browser test needs the ext-apps npm package")
    cache.mkdir(parents=True, exist_ok=True)
    if not (cache / "package.json").is_file():
        (cache / "package.json").write_text('{"private": true}\n')
    installed = cache / "node_modules" / "@modelcontextprotocol" / "ext-apps" / "package.json"
    esbuild = cache / "node_modules" / ".bin" / "esbuild"
    if not installed.is_file() or not esbuild.is_file():
        proc = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", *PACKAGES],
            cwd=cache,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0:
            _missing(f"npm install of {EXT_APPS} failed (offline?):\n{proc.stderr[-2000:]}")
    source.write_text(HOST_JS)
    proc = subprocess.run(
        [
            str(esbuild),
            "host.js",
            "--bundle",
            "--format=iife",
            "--platform=browser",
            "--log-level=error",
            f"--outfile={bundle.name}",
        ],
        cwd=cache,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"esbuild could not bundle the ext-apps host bridge:\n{proc.stderr}"
    return bundle
