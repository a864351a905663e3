"""Each fenced block of the README and docs/ is either run (python, bash) or carries a not-run marker with a
reason; other languages are data (json, text). Prints the counts."""

from __future__ import annotations

from collections import Counter

from docs_blocks import KINDS, RUN_LANGUAGES, fences, page_id, pages, parse

# Languages that look runnable but that the runner does not take: write them as python or bash.
REFUSED = {"py", "python3", "sh", "shell", "console", "zsh", "pycon", "ipython", "shell-session"}


def test_every_block_is_run_or_marked() -> None:
    counts: Counter[str] = Counter()
    problems = []
    for path in pages():
        found = list(fences(path))
        runnable = [fence for fence in found if fence.language in RUN_LANGUAGES]
        lexed = list(parse(path).examples())
        if len(lexed) != len(runnable):
            problems.append(f"{page_id(path)}: {len(runnable)} python/bash fences but Sybil found {len(lexed)}")
        for fence in found:
            where = f"{page_id(path)}:{fence.line}"
            if fence.language in REFUSED:
                problems.append(f"{where}: write ```{fence.language} as ```python or ```bash so it runs")
            if fence.marker is not None:
                kind, value = fence.marker
                if kind not in KINDS:
                    problems.append(f"{where}: unknown marker {kind!r} (known: {', '.join(KINDS)})")
                elif not value:
                    problems.append(f"{where}: the {kind} marker needs a value (a reason, a file name)")
                elif fence.language not in RUN_LANGUAGES:
                    problems.append(f"{where}: a {kind} marker on a ```{fence.language} block, which never runs")
            if fence.language in RUN_LANGUAGES:
                state = "not-run" if fence.marker and fence.marker[0] == "not-run" else "run"
                counts[f"{fence.language} {state}"] += 1
            else:
                counts[f"{fence.language or 'plain'} (data, not code)"] += 1
    print("\nblocks in README.md and docs/:")
    for key in sorted(counts):
        print(f"  {counts[key]:4d}  {key}")
    assert not problems, "\n".join(problems)
    assert counts["python run"] + counts["bash run"] > 0
