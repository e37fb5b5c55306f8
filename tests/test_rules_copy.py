"""docs/RULES.md is the repository's copy of the normative rules (shared/RULES.md)."""

from __future__ import annotations

from tests import ROOT

SHARED = ROOT.parent / "shared" / "RULES.md"


def test_the_copy_is_the_normative_text() -> None:
    copy = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    assert copy.startswith("# Gnau scoring rules")
    assert "## 8. Worked examples" in copy
    if SHARED.exists():  # beside the checkout on the team's machines and in CI
        assert copy == SHARED.read_text(encoding="utf-8"), "docs/RULES.md is behind shared/RULES.md: copy it again"
