"""The documentation site builds with `mkdocs build --strict`: no broken link or anchor, no page outside the
nav, no docstring warning; its API reference documents every public name; the benchmark page holds
bench/results.md; the README stays short and its links into docs/ resolve."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_blocks import ROOT, fences

import nanohubmcp

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    warnings = [line for line in done.stderr.splitlines() if "WARNING" in line]
    assert done.returncode == 0, done.stderr
    assert not warnings, done.stderr
    return out


def test_the_404_page_works_under_the_sub_path_given_at_build_time(tmp_path: Path) -> None:
    # A fresh-user trial: without site_url the 404 page links /assets/..., broken under a sub-path.
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "NANOHUBMCP_SITE_URL": "https://example.org/nanohub-mcp/"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    links = re.findall(r'(?:href|src)="(/[^"]*)"', (tmp_path / "404.html").read_text())
    assert links, "the 404 page links its assets and pages by absolute path"
    assert all(link.startswith("/nanohub-mcp/") for link in links), links


def test_the_api_reference_documents_every_public_name(site: Path) -> None:
    html = (site / "api" / "reference" / "index.html").read_text()
    documented = set(re.findall(r'id="(nanohubmcp[\w.]*)"', html))
    missing = [name for name, module in nanohubmcp._LAZY.items() if f"nanohubmcp{module}.{name}" not in documented]
    missing += [
        name
        for name in ("load_ipython_extension", "unload_ipython_extension")
        if f"nanohubmcp.{name}" not in documented
    ]
    assert not missing, f"no API reference entry for {missing}"
    for module in ("nanohubmcp.server.executors", "nanohubmcp.transports.discovery", "nanohubmcp.jupyter.config"):
        assert f'id="{module}"' in html


def test_the_benchmark_page_is_bench_results(site: Path) -> None:
    first = (ROOT / "bench" / "results.md").read_text().splitlines()[0].lstrip("# ").strip()
    html = (site / "benchmarks" / "index.html").read_text()
    assert first.split(":")[0] in html


def test_every_page_is_in_the_site(site: Path) -> None:
    for page in (ROOT / "docs").rglob("*.md"):
        built = site / page.relative_to(ROOT / "docs").with_suffix("")
        index = site / "index.html" if page.name == "index.md" else built / "index.html"
        assert index.is_file(), f"{page} was not built"


README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """The anchors MkDocs' toc extension makes of a page's headings."""
    found = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            text = re.sub(r"[`*]", "", line.lstrip("#").strip()).lower()
            found.add(re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", text)).strip("-"))
    return found


def test_the_readme_is_short_and_opens_with_the_two_commands() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines (at most 200)"
    first = next(fence for fence in fences(README))
    body = README.read_text().split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert first.language == "bash"
    assert [line.split()[0] for line in body] == ["scripts/demo", "scripts/test"]


def test_the_readme_links_resolve() -> None:
    broken = []
    for target in LINK.findall(README.read_text()):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (README.parent / path).resolve()
        if not file.exists() or (anchor and anchor not in _anchors(file)):
            broken.append(target)
    assert not broken, f"README links that point nowhere: {broken}"


def test_a_page_missing_from_the_nav_is_added_where_it_belongs(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None
    assert spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    (tmp_path / "how-to").mkdir()
    for path, heading in [
        ("index.md", "Home"),
        ("how-to/a.md", "A"),
        ("how-to/new.md", "New thing"),
        ("architecture.md", "Architecture"),
        ("extra.md", "Extra"),
    ]:
        (tmp_path / path).write_text(f"# {heading}\n")
    nav = [{"Home": "index.md"}, {"How-to": [{"A": "how-to/a.md"}]}]
    hooks.on_config({"nav": nav, "docs_dir": str(tmp_path)})
    assert nav == [
        {"Home": "index.md"},
        {"Architecture": "architecture.md"},
        {"How-to": [{"A": "how-to/a.md"}, {"New thing": "how-to/new.md"}]},
        {"Extra": "extra.md"},
    ]


def test_the_variable_the_docs_name_silences_the_themes_end_of_life_notice() -> None:
    """A fresh-user trial (trial55 F10): `mkdocs build` printed mkdocs-material's 9-line end-of-life notice and
    no page said it was harmless or how to silence it. The variable docs/contributing.md and the README name
    is the one the installed theme reads (its notice prints when the theme is imported by `mkdocs`)."""
    named = {
        page: set(re.findall(r"\b(NO_MKDOCS\w*)=1", (ROOT / page).read_text()))
        for page in ("docs/contributing.md", "README.md")
    }
    assert all(named.values()), f"a page does not say how to silence the theme's notice: {named}"
    as_mkdocs = "import sys; sys.argv[0] = 'mkdocs'; import material.templates"
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("NO_MKDOCS", "DISABLE_MK"))}

    def notice(extra: dict[str, str]) -> str:
        done = subprocess.run([sys.executable, "-c", as_mkdocs], env={**environment, **extra},
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stderr

    if "reaches end of life" not in notice({}):
        pytest.skip("the installed mkdocs-material prints no end-of-life notice")
    for variable in set.union(*named.values()):
        assert notice({variable: "1"}) == "", variable
