"""A host page for MCP Apps views, built on the official ``@modelcontextprotocol/ext-apps`` host bridge.

:func:`hosted_view` opens that page in headless Chromium (Debian's ``/usr/bin/chromium``), shows a
view with a tool's input and result, and yields the Playwright page and the view's frame; the
console must stay free of errors. Screenshots go to ``test-artifacts/``.

:func:`host_bundle` installs the npm package (with its peer dependencies and esbuild) into a
cache directory once and bundles ``HOST_JS`` for the browser: ``window.showView(html, input,
result)`` puts the view in a sandboxed iframe (``allow-scripts`` only, a CSP allowing nothing
from the network), connects an ``AppBridge`` to it over ``PostMessageTransport``, waits for
the view's ``ui/notifications/initialized`` and sends the tool's input and result. Without npm
the test is skipped locally and fails under CI (``CI`` set), like the conformance suite.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
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


@contextlib.contextmanager
def hosted_view(html: str, arguments: dict[str, Any], result: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    """``(page, view frame locator)`` once the host bridge delivered ``arguments`` and ``result`` to the view."""
    if not CHROMIUM.exists():
        _missing(f"{CHROMIUM} is missing (scripts/install-test-system-deps installs Debian's chromium)")
    bundle = host_bundle()
    from playwright.sync_api import sync_playwright

    console: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 640, "height": 480})
            page.set_default_timeout(30_000)
            page.on("console", lambda message: console.append(f"{message.type}: {message.text[:300]}"))
            page.set_content("<!DOCTYPE html><html><head><title>host</title></head><body></body></html>")
            page.add_script_tag(path=str(bundle))
            assert page.evaluate("([h, i, r]) => window.showView(h, i, r)", [html, arguments, result]) == "delivered"
            # Sandboxed without allow-same-origin: the host page cannot reach into the view.
            assert page.evaluate("document.querySelector('#view').contentDocument") is None
            yield page, page.frame_locator("#view")
        finally:
            browser.close()
    assert not [line for line in console if line.startswith("error")], console


def screenshot(page: Any, name: str) -> Path:
    """Save the page to ``test-artifacts/NAME`` (the path is printed)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    print(f"screenshot: {path}")
    return path
