"""The contract: openapi.yaml is valid, matches the app's routes both ways, and the app
honours it for generated valid and invalid requests (schemathesis, every check on)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename
from schemathesis.core.result import Ok

from service.engine.cards import accepted_spellings
from service.http.app import create_app
from service.http.runtime import Runtime
from tests import ROOT
from tests.api import contract_hooks

SPEC = ROOT / "openapi.yaml"
#: With the committed test-only receipt key, so that ``receipt=true`` answers are signed and checked.
TEST_RECEIPT_KEY = ROOT / "tests" / "keys" / "receipt-test-key.pem"
# The analysis budget is the default one: schemathesis sends many custom rule sets, and
# unbounded it would compute every house edge and odds they ask for (minutes in all); the
# budget refuses the costly ones (429, which the contract documents) and serves the rest.
APP = create_app({"TESTING": True, "PROFILES_FILE": None, "RECEIPT_KEY_FILE": str(TEST_RECEIPT_KEY)})
Runtime.of(APP).warm()  # as the gunicorn master does before it forks: readiness 200
schema = schemathesis.openapi.from_wsgi("/openapi.yaml", APP)


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


@pytest.mark.parametrize("profile", ["standard", "casino", "tens-are-dukes", "liberal", "niu-niu", "bull-bull"])
def test_profile_enum_lists_every_builtin(profile: str) -> None:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    assert profile in document["components"]["parameters"]["Profile"]["schema"]["enum"]


def test_schemathesis_covers_every_operation_including_the_document() -> None:
    """schemathesis.toml selects GET /openapi.yaml, which schemathesis leaves out by default."""
    results = list(schema.get_all_operations())
    assert all(isinstance(result, Ok) for result in results), results
    labels = sorted(result.ok().label for result in results if isinstance(result, Ok))
    assert "GET /openapi.yaml" in labels
    assert labels == sorted(f"{method} {path}" for path, method in _spec_operations())
    assert len(labels) == 23  # 18, POST /v1/exposures (issue 13), the two deals and the JWK Set (issue 26),
    # POST /v1/showdowns (issue 25)


def test_pytest_and_the_cli_share_one_hooks_file() -> None:
    """The hooks imported here (registered globally) are the file schemathesis.toml names."""
    config = tomllib.loads((SPEC.parent / "schemathesis.toml").read_text(encoding="utf-8"))
    assert SPEC.parent / config["hooks"] == Path(contract_hooks.__file__)
    assert config["operations"] == [{"include-path": "/openapi.yaml", "enabled": True}]


def test_served_document_matches_its_declared_schema() -> None:
    response = APP.test_client().get("/openapi.yaml")
    document = yaml.safe_load(response.data)
    declared = yaml.safe_load(SPEC.read_text(encoding="utf-8"))["paths"]["/openapi.yaml"]["get"]
    declared_schema = declared["responses"]["200"]["content"]["application/yaml"]["schema"]
    assert declared_schema["type"] == "object"
    assert set(declared_schema["required"]) <= set(document)
    assert document["openapi"] in declared_schema["properties"]["openapi"]["enum"]


def test_every_path_parameter_has_an_example() -> None:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    components = document["components"]["parameters"]
    for path, item in document["paths"].items():
        for op in item.values():
            for param in op.get("parameters", []):
                param = components[param["$ref"].rsplit("/", 1)[1]] if "$ref" in param else param
                if param["in"] == "path":
                    assert "example" in param, f"{path} {param['name']}"  # Dredd needs one


def test_every_get_that_refuses_a_query_string_documents_the_400() -> None:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    client = APP.test_client()
    concrete = {"{name}": "standard", "{asset}": "index.css"}
    for path, item in document["paths"].items():
        if "get" not in item:
            continue
        url = path
        for placeholder, value in concrete.items():
            url = url.replace(placeholder, value)
        status = client.get(f"{url}?cachebust=1").status_code
        documented = set(item["get"]["responses"])
        if path in ("/healthz", "/readyz", "/metrics"):
            assert status == 200, path  # probes and scrapers: the query string is ignored
            assert not any(code.startswith("4") for code in documented), path
        else:
            assert status == 400, path
            assert "400" in documented, path


def test_the_safe_integer_bound_is_in_the_contract() -> None:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    schemas = document["components"]["schemas"]
    net = schemas["SettlementResponse"]["allOf"][1]["properties"]["dealer"]["properties"]["net"]
    for field in (schemas["PlayerResult"]["properties"]["amount"], net):
        assert (field["minimum"], field["maximum"]) == (-(2**53 - 1), 2**53 - 1)
    assert "±(2^53 − 1)" in document["info"]["description"]
    assert "9007199254740991" in document["paths"]["/v1/settlements"]["post"]["description"]
