"""The documentation's shape: the README is an entrance, the pages under docs/ are all in the
site's nav, and the benchmark's table lives on one page, exactly as ``make bench`` writes it.

(The examples are replayed by tests/test_readme.py; links and anchors are checked by
``mkdocs build --strict``, which ``make test`` and ``make test-fast`` run.)
"""

from __future__ import annotations

import re

import yaml

from bench.__main__ import DOC, section
from bench.common import Row
from tests import ROOT

README = ROOT / "README.md"
#: The README is the front door: what the service is, the two commands, an example per core
#: operation and links; everything else is on a page under docs/.
MAX_README_LINES = 250
#: The header of the benchmark's table (bench.common.markdown_table).
BENCH_TABLE = "| Area | Measure | Result | Goal | Met |"


def test_readme_is_under_250_lines() -> None:
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines < MAX_README_LINES, f"README.md has {lines} lines: move detail to a page under docs/"


def test_readme_states_the_two_commands() -> None:
    """The quick start's two commands, each on its own line; CI (.ci/run) runs the test one."""
    text = README.read_text(encoding="utf-8")
    assert re.search(r"^make run +# .*127\.0\.0\.1:8000", text, re.M)
    assert re.search(r"^make test +# ", text, re.M)
    assert re.search(r"^make test$", (ROOT / ".ci" / "run").read_text(encoding="utf-8"), re.M)


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    return []


class _IgnoringTags(yaml.SafeLoader):
    """A safe loader that reads any tagged node as ``None``."""


_IgnoringTags.add_multi_constructor("", lambda loader, suffix, node: None)


def test_every_docs_page_is_in_the_site_nav() -> None:
    # mkdocs.yml's one python tag (the toc's slugify) is not needed to read the nav.
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_IgnoringTags)
    pages = sorted(str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md"))
    assert sorted(page for page in _nav_pages(config["nav"]) if page != "index.md") == pages


def _page_rows(page: str) -> list[Row]:
    met = {"yes": True, "**NO**": False, "": None}
    rows = []
    for line in page.splitlines():
        if line.startswith("| ") and line != BENCH_TABLE:
            area, measure, result, goal, ok = (cell.strip() for cell in line[2:-2].split(" | "))
            rows.append(Row(area, measure, result, goal, met[ok]))
    return rows


def test_performance_page_is_exactly_what_the_bench_writes() -> None:
    """docs/performance.md is the one copy of the benchmark's table and prose: rebuilt from its
    own rows, machine and wall time, :func:`bench.__main__.section` gives the page back."""
    page = DOC.read_text(encoding="utf-8")
    where = dict(re.findall(r"^- ([^:\n]+): (.*)$", page.split("Measured on:")[1].split("- Wall time")[0], re.M))
    wall = re.search(r"Wall time of the whole benchmark: (\d+) s", page)
    assert wall is not None
    seconds = float(wall.group(1))
    tool = "wrk" if "wrk was not available" not in page else "Python client"
    assert section(_page_rows(page), where, seconds, tool) == page


def test_the_bench_table_is_on_one_page_only() -> None:
    holding = [str(p.relative_to(ROOT)) for p in [README, *sorted((ROOT / "docs").rglob("*.md"))]
               if BENCH_TABLE in p.read_text(encoding="utf-8")]
    assert holding == ["docs/performance.md"]
