"""The API tests run without operator profiles: ``PROFILES_FILE`` is unset for each test, so
the ``gnau`` command they run in process reads the built-in profiles only (a test that wants
operator profiles sets it itself)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_operator_profiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROFILES_FILE", raising=False)
