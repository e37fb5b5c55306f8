"""The contract: openapi.yaml is valid, matches the app's routes both ways, and the app
honours it for generated valid and invalid requests (schemathesis, every check on)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename

from service.app import create_app
from service.engine.cards import accepted_spellings
from tests import contract_hooks

SPEC = Path(__file__).resolve().parents[1] / "openapi.yaml"
APP = create_app({"TESTING": True, "PROFILES_FILE": None})
schema = schemathesis.openapi.from_wsgi("/openapi.yaml", APP)
assert contract_hooks.map_case  # registered globally by the import: shared with the CLI (schemathesis.toml)


@schema.parametrize()
@settings(deadline=None, max_examples=60,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
def test_api_honours_the_contract(case: Any) -> None:
    case.call_and_validate()


def test_spec_is_valid_openapi_3_0() -> None:
    document, _ = read_from_filename(str(SPEC))
    validate(document)
    assert document["openapi"] == "3.0.3"


def _spec_operations() -> set[tuple[str, str]]:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    return {
        (path, method.upper())
        for path, item in document["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }


def _app_operations() -> set[tuple[str, str]]:
    out = set()
    for rule in APP.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = rule.rule.replace("<", "{").replace(">", "}")
        path = "".join(part.split(":")[-1] if part.startswith("{") else part
                       for part in path.replace("{", "\0{").split("\0"))
        for method in rule.methods or ():
            if method not in {"HEAD", "OPTIONS"}:
                out.add((path, method))
    return out


def test_routes_and_spec_match_both_ways() -> None:
    assert _app_operations() == _spec_operations()


def test_card_enum_lists_every_accepted_spelling() -> None:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    assert sorted(document["components"]["schemas"]["Card"]["enum"]) == accepted_spellings()
    canonical = document["components"]["schemas"]["CanonicalCard"]["enum"]
    assert sorted(canonical) == sorted({c for c in accepted_spellings() if c == c.upper() and c[0] not in "T0"
                                        and not any(s in c for s in "♠♥♦♣")})


@pytest.mark.parametrize("profile", ["standard", "casino", "tens-are-dukes", "liberal", "niu-niu"])
def test_profile_enum_lists_every_builtin(profile: str) -> None:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    assert profile in document["components"]["parameters"]["Profile"]["schema"]["enum"]
