"""The app factory computes nothing; warming (the gunicorn master's step before it forks)
builds every profile's table and analyses, and readiness waits for it (issue 23)."""

from __future__ import annotations

import subprocess
import sys

from service.http.app import create_app
from service.http.runtime import Runtime
from tests import ROOT

_FRESH_PROCESS = """
from service.engine.analysis.cost import analysis_cost
from service.engine.rules import PROFILES
from service.engine.tables import has_table
from service.http.app import create_app
from service.http.runtime import Runtime

app = create_app({"TESTING": True, "PROFILES_FILE": None})
rules = [p.rules for p in PROFILES.values()]
print(any(has_table(r) for r in rules), app.test_client().get("/readyz").status_code)
warmed = Runtime.of(app).warm()
print(all(has_table(r) for r in rules), app.test_client().get("/readyz").status_code, sorted(warmed.seconds) == sorted(PROFILES))
print(max(analysis_cost(r, kind, bet=bet) for r in rules for kind in ("distribution", "house_edge") for bet in ("double", "equal")))
"""


def test_the_app_factory_builds_nothing_and_readiness_waits_for_warming() -> None:
    result = subprocess.run([sys.executable, "-c", _FRESH_PROCESS], cwd=ROOT, capture_output=True, text=True,
                            timeout=300, check=True)
    before, after, cost = result.stdout.split("\n")[:3]
    assert before == "False 503", "create_app built a table, or was ready before warming"
    assert after == "True 200 True"
    assert float(cost) == 0.0, "every profile's distribution and house edges (both bets) are warm"


def test_readiness_says_the_server_is_starting_until_warmed() -> None:
    app = create_app({"TESTING": True, "PROFILES_FILE": None})
    reply = app.test_client().get("/readyz")
    assert reply.status_code == 503
    assert reply.get_json()["detail"] == "The server is still starting."
    Runtime.of(app).warm()  # the tables are cached process-wide: quick when another test warmed them
    assert app.test_client().get("/readyz").status_code == 200
