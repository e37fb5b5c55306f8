"""The documentation's shape: the README is an entrance, the pages under docs/ are all in the
site's nav and stand alone (no pointer to the team's records), the benchmark's table lives on
one page, exactly as ``make bench`` writes it, and the facts the pages restate (the package
version, the built-in profiles, the odds page's figures) are the service's own.

(The examples are replayed by tests/test_doc_examples.py; links and anchors are checked by
``mkdocs build --strict``, which ``make test`` and ``make test-fast`` run.)
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

from bench.__main__ import DOC, section
from bench.common import Row
from service.engine.rules import PROFILES
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


#: Every page a user reads that is the project's own: README.md and docs/ but RULES.md, which is
#: a verbatim copy of the master text (tests/test_rules_copy.py) and explained by
#: docs/rules-decisions.md ("What RULES.md refers to that this repository does not ship").
OWN_PAGES = [README, *sorted(p for p in (ROOT / "docs").rglob("*.md") if p.name != "RULES.md")]

#: What a user cannot follow: the team's decision records ("DECISIONS 12", DECISIONS.md),
#: issue numbers ("issue 22", "issues 3-4"), the folder beside the repository (../shared) and
#: the source texts' folder (seeds/), none of which ships.
_ELSEWHERE = re.compile(r"DECISIONS|\b[Ii]ssues? #?\d|\.\./shared|\bshared/|\bseeds/")
#: The one passage that names them, to explain what RULES.md points to.
EXPLAINED = "## What RULES.md refers to that this repository does not ship\n"


def elsewhere(text: str) -> list[str]:
    r"""The lines of ``text`` that point to something outside the repository.

    >>> elsewhere("as DECISIONS 2 says\nsee issue 22\nthe seeds' table\n../shared/x\nseeds/ beside it")
    ['as DECISIONS 2 says', 'see issue 22', '../shared/x', 'seeds/ beside it']
    >>> elsewhere("RFC 8785 and PKCS#8 PEM, no issues found, #examples")
    []
    """
    return [line for line in text.splitlines() if _ELSEWHERE.search(line)]


@pytest.mark.parametrize("page", OWN_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_stands_alone(page: Path) -> None:
    """No page but RULES.md cites the team's decisions, issues, ../shared or the seeds'
    folder: what a user needs from them is written out (docs/rules-decisions.md), whose one
    section explaining RULES.md's pointers is the only place that names them."""
    text = page.read_text(encoding="utf-8")
    if EXPLAINED in text:
        before, _, after = text.partition(EXPLAINED)
        text = before + after[after.find("\n## "):]
    assert elsewhere(text) == []


def test_rules_decisions_explains_what_rules_md_points_to() -> None:
    """RULES.md (verbatim) points to ``seeds/`` and ``DECISIONS.md`` beside it, which do not
    ship: the rules decisions page says what they are."""
    rules = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "rules-decisions.md").read_text(encoding="utf-8")
    for name in ("seeds/", "DECISIONS.md"):
        if name in rules:
            assert f"**`{name}`" in page, name
    for cited in sorted(set(re.findall(r"DECISIONS (\d+)", rules))):
        assert f'"DECISIONS {cited}"' in page, f"RULES.md cites DECISIONS {cited}: rules-decisions.md must explain it"


def test_image_tags_are_the_package_version() -> None:
    """Deploying's image tags are the version pyproject.toml builds (and the chart's appVersion)."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    chart = yaml.safe_load((ROOT / "helm" / "gnau-scoring" / "Chart.yaml").read_text(encoding="utf-8"))
    page = (ROOT / "docs" / "deploying.md").read_text(encoding="utf-8")
    tags = re.findall(r"gnau-scoring:(\S+)", page) + re.findall(r"image\.tag=(\S+)", page)
    assert len(tags) >= 3
    assert set(tags) == {version} == {str(chart["appVersion"])}


def test_operating_lists_every_built_in_profile() -> None:
    """The operator profiles' example names every profile ``extends`` may name."""
    page = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    found = re.search(r"# a built-in profile: (.*)$", page, re.M)
    assert found is not None
    assert found[1].split(", ") == list(PROFILES)


def test_odds_prose_quotes_the_table() -> None:
    """Every house edge the odds page's prose quotes (``4.0275 %``) is a figure of its table,
    which tests/engine/test_odds.py checks against the engine."""
    page = (ROOT / "docs" / "odds.md").read_text(encoding="utf-8")
    table = set(re.findall(r"\| (\d+\.\d{4})% \|", page))
    quoted = re.findall(r"(\d+\.\d{4}) %", page)
    assert quoted
    assert set(quoted) <= table, set(quoted) - table
