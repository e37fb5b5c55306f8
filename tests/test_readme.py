"""The API examples of README.md and of every page under docs/ are real: each curl command is
replayed against the app and its answer compared with the JSON shown under it (the request id
aside)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask.testing import FlaskClient

from service.http.app import create_app
from tests import ROOT

README = ROOT / "README.md"
#: Every page whose examples are replayed: README and the docs pages.
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
_EXAMPLE = re.compile(r"```console\n\$ (curl [^\n]+)\n```\n```json\n(.*?)\n```", re.DOTALL)


def _examples(pages: list[Path] | None = None) -> list[tuple[str, str]]:
    return [found for page in (pages or PAGES) for found in _EXAMPLE.findall(page.read_text(encoding="utf-8"))]


def _request(command: str) -> tuple[str, str, dict[str, str], str | None]:
    words = shlex.split(command)[1:]
    method, url, headers, data = "GET", "", {}, None
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-s":
            i += 1
        elif word in ("-X", "-H", "-d"):
            value = words[i + 1]
            if word == "-X":
                method = value
            elif word == "-H":
                name, _, text = value.partition(":")
                headers[name.strip()] = text.strip()
            else:
                data = value
            i += 2
        else:
            url = word
            i += 1
    parts = urlsplit(url)
    return method, parts.path + (f"?{parts.query}" if parts.query else ""), headers, data


def _without_request_id(body: Any) -> Any:
    if isinstance(body, dict):
        return {k: v for k, v in body.items() if k != "request_id"}
    return body


def test_readme_has_one_example_for_each_core_operation() -> None:
    """The README shows evaluate, batch, rank, settle, showdown and deal, once each; the other
    operations' examples are on the docs pages (docs/api.md and the pages it links)."""
    paths = [_request(command)[1].split("?")[0] for command, _ in _examples([README])]
    assert paths == ["/v1/evaluations", "/v1/evaluations/batch", "/v1/rankings", "/v1/settlements",
                     "/v1/showdowns", "/v1/deals"]


#: Receipts and their keys are replayed on an app signing with the committed test-only key
#: (docs/deals-and-receipts.md says so beside its examples; DECISIONS 54).
_SIGNING = {"TESTING": True, "PROFILES_FILE": None, "RECEIPT_KEY_FILE": str(ROOT / "tests" / "keys" /
                                                                             "receipt-test-key.pem")}


def _signs(path: str) -> bool:
    return "receipt=true" in path or path.startswith("/.well-known/jwks.json")


@pytest.mark.parametrize(("command", "shown"), _examples())
def test_readme_example_is_real(client: FlaskClient, command: str, shown: str) -> None:
    method, path, headers, data = _request(command)
    if _signs(path):
        client = create_app(_SIGNING).test_client()
    response = client.open(path, method=method, headers=headers, data=data)
    assert _without_request_id(response.get_json(force=True)) == _without_request_id(json.loads(shown))
