"""The golden corpora: every recorded request answers exactly as recorded.

tests/api/golden/corpus.jsonl holds about 600 requests across every operation of openapi.yaml
(valid and invalid bodies, every profile, rule overrides, several decks, bets and
commissions) with the status, headers and body the service answered before the
restructuring. Each is replayed through the in-process test client and compared: status,
every header but Date/Server (and Content-Length of JSON bodies, whose body is compared
parsed), and the body (JSON exactly, floats too; other bodies by sha256). What legitimately
varies is left out when recording (tests/api/golden/record.py): a generated request id is
compared as ``<generated>``; /metrics only by status and Content-Type; no 429 is recorded
(its Retry-After depends on time), the corpus's apps have an analysis budget it cannot spend.

tests/api/golden/corpus-cors.jsonl holds the same requests to the same apps with CORS on,
each with an ``Origin`` (allowed, or for every fourth request not), and a preflight of every
path: every answer, CORS headers included, stays as recorded with CORS on too.

After a deliberate change of an answer, re-record with ``python -m tests.api.golden.record``
and review the diff of corpus.jsonl.
"""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
from typing import Any

import pytest
import yaml

from tests import ROOT
from tests.api.golden.record import CORS_CORPUS, load, replay

ENTRIES = load()
CORS_ENTRIES = load(CORS_CORPUS)


def _text(value: Any) -> list[str]:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False).splitlines()


def _describe(entry: dict[str, Any]) -> str:
    body = entry.get("json", entry.get("data", ""))
    shown = json.dumps(body, ensure_ascii=False) if "json" in entry else repr(body)
    if len(shown) > 300:
        shown = shown[:300] + f"... ({len(shown):,} characters)"
    return f"{entry['method']} {entry['path']} (app {entry.get('app', 'default')}) body {shown}"


@pytest.mark.parametrize("entry", ENTRIES + CORS_ENTRIES, ids=[e["id"] for e in ENTRIES + CORS_ENTRIES])
def test_golden(entry: dict[str, Any]) -> None:
    """The response to the recorded request equals the recorded response."""
    expected = entry["response"]
    actual = replay(entry)
    if actual != expected:
        diff = "\n".join(difflib.unified_diff(_text(expected), _text(actual), "recorded", "now", lineterm="", n=2))
        pytest.fail(f"{entry['id']}: {_describe(entry)}\nanswers differently:\n{diff[:20_000]}", pytrace=False)


def test_corpus_covers_every_operation() -> None:
    """Every operationId of openapi.yaml has requests in the corpus (by path and method)."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    seen = {(e["method"].lower(), e["path"].split("?")[0]) for e in ENTRIES if e["response"]["status"] != 405}
    missing = []
    for template, item in spec["paths"].items():
        parts = template.strip("/").split("/")
        for method, operation in item.items():
            if not any(m == method and _matches(parts, path.strip("/").split("/")) for m, path in seen):
                missing.append(operation["operationId"])
    assert not missing, f"no corpus request for {missing}"
    assert len(ENTRIES) >= 300


def test_the_cors_corpus_is_the_corpus_with_cors_on() -> None:
    """Every request of the corpus is in the CORS corpus, to its app with CORS on, with an
    ``Origin``; allowed origins are answered with ``Access-Control-Allow-Origin``, other
    origins never; and every path has a preflight."""
    cors = {e["id"]: e for e in CORS_ENTRIES}
    for entry in ENTRIES:
        twin = cors[f"cors/{entry['id']}"]
        assert twin["app"] == f"cors/{entry.get('app', 'default')}"
        assert twin["headers"] == entry["headers"] | {"Origin": twin["headers"]["Origin"]}
        assert (twin["method"], twin["path"], twin.get("json"), twin.get("data")) == (
            entry["method"], entry["path"], entry.get("json"), entry.get("data"))
    origins = {e["headers"]["Origin"] for e in CORS_ENTRIES}
    assert len(origins) == 2
    for entry in CORS_ENTRIES:
        allowed = entry["response"]["headers"].get("Access-Control-Allow-Origin")
        assert allowed in (None, entry["headers"]["Origin"])
    assert sum(bool(e["response"]["headers"].get("Access-Control-Allow-Origin")) for e in CORS_ENTRIES) > 500
    preflights = {e["path"].split("?")[0] for e in CORS_ENTRIES if e["method"] == "OPTIONS"}
    assert {e["path"].split("?")[0] for e in ENTRIES if e.get("app", "default") == "default"} <= preflights


def _matches(template: list[str], path: list[str]) -> bool:
    return len(template) == len(path) and all(t.startswith("{") or t == p for t, p in zip(template, path, strict=True))


_HASHING_PROBE = """
import json
from service.http.app import create_app
client = create_app({"TESTING": True}).test_client()
body = {"hand": ["10S", "9H", "8D", "4C", "4H"], **{name: 1 for name in "zyxwvutsrq"}}
out = [client.post("/v1/evaluations", data=json.dumps(body), content_type="application/json").get_json()["errors"],
       client.open("/v1/evaluations", method="OPTIONS").headers["Allow"],
       client.delete("/v1/rankings").get_json()["detail"]]
print(json.dumps(out))
"""


def test_answers_do_not_depend_on_string_hashing() -> None:
    """Werkzeug's allowed methods and marshmallow's unknown fields come from sets; the
    service orders both (sorted methods, the body's order), so every worker process
    answers the same bytes."""
    answers = {subprocess.run([sys.executable, "-c", _HASHING_PROBE], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in (1, 2, 3)}
    assert len(answers) == 1
    errors, allow, detail = json.loads(answers.pop())
    assert [e["pointer"] for e in errors] == [f"/{name}" for name in "zyxwvutsrq"]
    assert allow == "OPTIONS, POST"
    assert detail.endswith("allowed: OPTIONS, POST.")
