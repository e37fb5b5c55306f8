"""Operator profiles (``PROFILES_FILE``), per-request ``rules`` overrides and the served
OpenAPI document, in-process (issue 3, "Operator-defined profiles").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient

from service.engine.rules import PROFILES, apply_overrides
from service.http.app import create_app
from service.profiles import ProfileRegistry, ProfilesFileError, load_profiles_file
from tests import ROOT

GOOD_FILE = """\
profiles:
  house-no-tonku:
    extends: standard
    description: Standard without Ngau Tonku; a Single-Ox pays 2.
    rules:
      ngau_tonku: false
      payouts: {single_ox: 2}
  bull-push:
    extends: niu-niu
    description: Niu Niu with tied hands pushed.
    rules: {ties: push}
"""

#: Ngau Tonku under ``standard`` (a ten-point ox and a ten-point power pair: A+K).
TONKU = ["AS", "KH", "QD", "JC", "10S"]


@pytest.fixture(scope="module")
def profiles_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    path = tmp_path_factory.mktemp("profiles") / "profiles.yaml"
    path.write_text(GOOD_FILE)
    return create_app({"TESTING": True, "PROFILES_FILE": str(path)})


@pytest.fixture
def pclient(profiles_app: Flask) -> FlaskClient:
    return profiles_app.test_client()


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "profiles.yaml"
    path.write_text(text)
    return path


def entry(name: str = "house", extends: Any = "standard", description: Any = "A house rule.",
          rules: Any = None) -> str:
    body: dict[str, Any] = {"extends": extends, "description": description}
    if rules is not None:
        body["rules"] = rules
    return yaml.safe_dump({"profiles": {name: body}})


# ----------------------------------------------------------------- the file loader


def test_good_file_loads_in_order(tmp_path: Path) -> None:
    profiles = load_profiles_file(write(tmp_path, GOOD_FILE))
    assert [p.name for p in profiles] == ["house-no-tonku", "bull-push"]
    first, second = profiles
    assert (first.builtin, first.extends, second.extends) == (False, "standard", "niu-niu")
    assert first.description == "Standard without Ngau Tonku; a Single-Ox pays 2."
    assert first.rules == apply_overrides(PROFILES["standard"].rules,
                                          {"ngau_tonku": False, "payouts": {"single_ox": 2}})
    assert first.rules.payout("double_ox", None) == 2  # merged into the base's payouts
    assert second.rules == apply_overrides(PROFILES["niu-niu"].rules, {"ties": "push"})


def test_a_profile_without_rules_is_its_base(tmp_path: Path) -> None:
    (profile,) = load_profiles_file(write(tmp_path, entry(extends="casino")))
    assert profile.rules == PROFILES["casino"].rules
    assert profile.rules.digest() == PROFILES["casino"].rules.digest()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(entry(rules={"jokers": True}),
                     ["profile 'house'", "knob jokers: unknown knob"], id="unknown-knob"),
        pytest.param(entry(rules={"ties": "coin_flip"}),
                     ["profile 'house'", "knob ties: must be one of dealer, push, high_card"], id="bad-choice"),
        pytest.param(entry(rules={"bomb": "yes please"}),
                     ["profile 'house'", "knob bomb: must be true or false"], id="bad-bool"),
        pytest.param(entry(rules={"payouts": {"royal_flush": 9}}),
                     ["profile 'house'", "knob payouts.royal_flush: unknown payout key"], id="bad-payout-key"),
        pytest.param(entry(rules={"payouts": {"single_ox": -1}}),
                     ["profile 'house'", "knob payouts.single_ox: must be an integer from 0 to 1000"],
                     id="bad-payout"),
        pytest.param(entry(rules={"commission_bps": 10_001, "dealer_commission_bps": "5%"}),
                     ["profile 'house'", "knob commission_bps: must be an integer from 0 to 10000 (basis points)",
                      "knob dealer_commission_bps: must be an integer from 0 to 10000 (basis points)"],
                     id="bad-commission"),
        pytest.param(entry(rules={"ranking": ["no_ox", "five_dukes", "five_small", "bomb", "four_dukes",
                                              "ngau_tonku", "double_ox", "single_ox"]}),
                     ["profile 'house'", "knob ranking: no_ox must be last"], id="ranking"),
        pytest.param(entry(rules=["ties", "push"]),
                     ["profile 'house'", "knob rules: must be an object of knob overrides"], id="rules-not-a-map"),
        pytest.param(entry(extends="vegas"),
                     ["profile 'house'", "extends must name a built-in profile", "got 'vegas'"], id="bad-extends"),
        pytest.param(entry(extends=None),
                     ["profile 'house'", "extends must name a built-in profile", "got None"], id="no-extends"),
        pytest.param(entry(description=" "),
                     ["profile 'house'", "description must be a non-empty string"], id="blank-description"),
        pytest.param(entry(name="House Rules"),
                     ["profile 'House Rules'", "a name is 1-63 lower-case letters, digits and dashes"],
                     id="bad-name"),
        pytest.param(entry(name="casino"),
                     ["profile 'casino'", "the name of a built-in profile cannot be reused"], id="builtin-name"),
        pytest.param("profiles:\n  house:\n    extends: standard\n    descripton: typo\n",
                     ["profile 'house'", "unknown key(s) descripton"], id="unknown-key"),
        pytest.param("profiles:\n  house: standard\n",
                     ["profile 'house'", "must be a mapping"], id="entry-not-a-map"),
        pytest.param("profiles: [\n", ["not valid YAML: line 2, column 1"], id="not-yaml"),
        pytest.param("house:\n  extends: standard\n",
                     ["the file must hold one key, 'profiles'"], id="no-profiles-key"),
        pytest.param("", ["the file must hold one key, 'profiles'"], id="empty"),
        pytest.param("profiles:\n  a:\n    extends: standard\n    description: x\n"
                     "  a:\n    extends: casino\n    description: y\n",
                     ["not valid YAML: line 5, column 3: found the key 'a' twice"], id="duplicate-name"),
    ],
)
def test_bad_file_names_profile_knob_and_problem(tmp_path: Path, text: str, expected: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ProfilesFileError) as info:
        load_profiles_file(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert "\n" not in message
    for part in expected:
        assert part in message


def test_every_problem_of_every_profile_is_reported(tmp_path: Path) -> None:
    text = yaml.safe_dump({"profiles": {
        "one": {"extends": "standard", "description": "x", "rules": {"ties": "coin", "jokers": 1}},
        "two": {"extends": "vegas", "description": "y"},
        "three": {"extends": "casino", "description": "fine"},
    }}, sort_keys=False)
    with pytest.raises(ProfilesFileError) as info:
        load_profiles_file(write(tmp_path, text))
    assert str(info.value) == (
        f"{tmp_path / 'profiles.yaml'}: profile 'one': knob ties: must be one of dealer, push, high_card; "
        "knob jokers: unknown knob; profile 'two': extends must name a built-in profile "
        "(standard, casino, tens-are-dukes, liberal, niu-niu, bull-bull, niu-niu-plus), got 'vegas'"
    )


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ProfilesFileError, match="cannot read the profiles file: No such file or directory"):
        load_profiles_file(tmp_path / "absent.yaml")


def test_registry_refuses_a_taken_name() -> None:
    with pytest.raises(ProfilesFileError, match="profile 'standard': the name is already taken"):
        ProfileRegistry([PROFILES["standard"]])


def test_create_app_stops_on_a_bad_file(tmp_path: Path) -> None:
    path = write(tmp_path, entry(rules={"jokers": True}))
    with pytest.raises(ProfilesFileError, match="profile 'house': knob jokers: unknown knob"):
        create_app({"PROFILES_FILE": str(path)})


# ------------------------------------------------------------- operator profiles, served


def test_profiles_lists_operator_profiles_after_builtins(pclient: FlaskClient) -> None:
    body = pclient.get("/v1/profiles").get_json()
    names = [p["name"] for p in body["profiles"]]
    assert names == [*PROFILES, "house-no-tonku", "bull-push"]
    by_name = {p["name"]: p for p in body["profiles"]}
    house = by_name["house-no-tonku"]
    assert (house["builtin"], house["extends"]) == (False, "standard")
    assert house["description"] == "Standard without Ngau Tonku; a Single-Ox pays 2."
    assert house["rules"]["ngau_tonku"] is False
    assert house["rules"]["payouts"]["single_ox"] == 2
    assert by_name["bull-push"]["rules"]["ties"] == "push"
    assert by_name["standard"]["builtin"] is True


def test_get_one_operator_profile(pclient: FlaskClient) -> None:
    response = pclient.get("/v1/profiles/bull-push")
    assert response.status_code == 200
    body = response.get_json()
    assert (body["name"], body["builtin"], body["extends"]) == ("bull-push", False, "niu-niu")
    assert body["rules_digest"] == apply_overrides(PROFILES["niu-niu"].rules, {"ties": "push"}).digest()


def test_operator_profile_changes_the_evaluation(pclient: FlaskClient) -> None:
    standard = pclient.post("/v1/evaluations", json={"hand": TONKU}).get_json()
    house = pclient.post("/v1/evaluations?profile=house-no-tonku", json={"hand": TONKU}).get_json()
    assert (standard["profile"], standard["category"], standard["payout"]) == ("standard", "ngau_tonku", 5)
    # No Ngau Tonku: the same cards are a Single-Ox 1 (A+K = 11), paid 2 by this profile.
    assert (house["profile"], house["category"], house["label"], house["payout"]) == (
        "house-no-tonku", "single_ox", "Single-Ox 1", 2)
    assert house["rules_digest"] != standard["rules_digest"]
    assert "rules" not in house  # no overrides in the request: the digest alone


def test_unknown_profile_is_still_a_400(pclient: FlaskClient) -> None:
    response = pclient.post("/v1/evaluations?profile=house", json={"hand": TONKU})
    assert response.status_code == 400
    assert response.get_json()["errors"] == [
        {"parameter": "profile", "detail": "unknown profile 'house'; see GET /v1/profiles"}]


# ------------------------------------------------------------------ the served OpenAPI


def test_served_openapi_lists_operator_profiles(pclient: FlaskClient) -> None:
    response = pclient.get("/openapi.yaml")
    assert response.status_code == 200
    assert response.mimetype == "application/yaml"
    served = yaml.safe_load(response.data)
    committed = yaml.safe_load((ROOT / "openapi.yaml").read_bytes())
    enum = served["components"]["parameters"]["Profile"]["schema"]["enum"]
    assert enum == [*committed["components"]["parameters"]["Profile"]["schema"]["enum"],
                    "house-no-tonku", "bull-push"]
    # Nothing else differs from the committed contract.
    committed["components"]["parameters"]["Profile"]["schema"]["enum"] = enum
    assert served == committed
    assert pclient.get("/openapi.yaml").data == response.data  # built once, same bytes


def test_served_openapi_is_the_committed_file_without_operator_profiles(client: FlaskClient) -> None:
    assert client.get("/openapi.yaml").data == (ROOT / "openapi.yaml").read_bytes()


def test_builtin_profiles_match_the_committed_enum() -> None:
    committed = yaml.safe_load((ROOT / "openapi.yaml").read_bytes())
    assert committed["components"]["parameters"]["Profile"]["schema"]["enum"] == list(PROFILES)


# ------------------------------------------------------------ per-request overrides

SETTLE = {"dealer": {"hand": ["2S", "3H", "4D", "5C", "9S"]},
          "players": [{"id": "p1", "hand": TONKU, "stake": 100}]}
BODIES: dict[str, dict[str, Any]] = {
    "/v1/evaluations": {"hand": TONKU},
    "/v1/evaluations/batch": {"hands": [TONKU]},
    "/v1/rankings": {"hands": [{"hand": TONKU}, {"hand": ["2S", "3H", "4D", "5C", "9S"]}]},
    "/v1/settlements": SETTLE,
}


@pytest.mark.parametrize("path", list(BODIES))
def test_overrides_report_effective_rules_and_digest(client: FlaskClient, path: str) -> None:
    overrides = {"ties": "push", "payouts": {"single_ox_0": 3}}
    response = client.post(path, json=BODIES[path] | {"rules": overrides})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    effective = apply_overrides(PROFILES["standard"].rules, overrides)
    assert body["profile"] == "standard"
    assert body["rules"] == effective.listed()
    assert body["rules"]["ties"] == "push"
    assert body["rules"]["payouts"]["single_ox_0"] == 3
    assert body["rules"]["payouts"]["ngau_tonku"] == 5  # the profile's, kept
    assert body["rules_digest"] == effective.digest() != PROFILES["standard"].rules.digest()


def test_overrides_change_the_result(client: FlaskClient) -> None:
    body = client.post("/v1/evaluations", json={"hand": TONKU, "rules": {"ngau_tonku": False}}).get_json()
    assert (body["category"], body["payout"]) == ("single_ox", 1)
    assert body["rules"]["ngau_tonku"] is False
    settled = client.post("/v1/settlements", json=SETTLE | {"rules": {"payouts": {"ngau_tonku": 7}}}).get_json()
    assert settled["players"][0]["amount"] == 700
    assert settled["dealer"]["net"] == -700


def test_digest_is_stable(client: FlaskClient) -> None:
    one = client.post("/v1/evaluations", json={"hand": TONKU, "rules": {"ties": "push", "bomb": True}})
    two = client.post("/v1/evaluations", json={"hand": TONKU, "rules": {"bomb": True, "ties": "push"}})
    assert one.get_json()["rules_digest"] == two.get_json()["rules_digest"]
    assert one.get_json()["rules"] == two.get_json()["rules"]


def test_empty_overrides_are_the_profile(client: FlaskClient) -> None:
    body = client.post("/v1/evaluations?profile=casino", json={"hand": TONKU, "rules": {}}).get_json()
    assert body["rules"] == PROFILES["casino"].rules.listed()
    assert body["rules_digest"] == PROFILES["casino"].rules.digest()


def test_overrides_apply_on_top_of_an_operator_profile(pclient: FlaskClient) -> None:
    body = pclient.post("/v1/evaluations?profile=house-no-tonku",
                        json={"hand": TONKU, "rules": {"payouts": {"single_ox": 4}}}).get_json()
    assert (body["profile"], body["category"], body["payout"]) == ("house-no-tonku", "single_ox", 4)
    assert body["rules"]["ngau_tonku"] is False  # from the operator profile
    expected = apply_overrides(PROFILES["standard"].rules, {"ngau_tonku": False, "payouts": {"single_ox": 4}})
    assert body["rules"] == expected.listed()
    assert body["rules_digest"] == expected.digest() != PROFILES["standard"].rules.digest()


def test_same_rules_same_digest_whatever_the_route(pclient: FlaskClient) -> None:
    """An operator profile and the same knobs sent as overrides are the same rules."""
    via_profile = pclient.post("/v1/evaluations?profile=house-no-tonku", json={"hand": TONKU}).get_json()
    via_overrides = pclient.post("/v1/evaluations", json={
        "hand": TONKU, "rules": {"ngau_tonku": False, "payouts": {"single_ox": 2}}}).get_json()
    assert via_profile["rules_digest"] == via_overrides["rules_digest"]


def errors_of(client: FlaskClient, rules: Any, path: str = "/v1/evaluations") -> list[dict[str, str]]:
    response = client.post(path, json=BODIES[path] | {"rules": rules})
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["request_id"]
    result: list[dict[str, str]] = body["errors"]
    return result


@pytest.mark.parametrize(
    ("rules", "pointer", "detail"),
    [
        pytest.param({"jokers": True}, "/rules/jokers", "unknown field", id="unknown-knob"),
        pytest.param({"ties": 3}, "/rules/ties", "must be one of dealer, push, high_card", id="wrong-type"),
        pytest.param({"ties": "coin_flip"}, "/rules/ties", "must be one of dealer, push, high_card",
                     id="bad-choice"),
        pytest.param({"bomb": "true"}, "/rules/bomb", None, id="string-bool"),
        pytest.param({"suited_multiplier": 2.0}, "/rules/suited_multiplier", None, id="float-int"),
        pytest.param({"ranking": ["no_ox", "five_dukes", "five_small", "bomb", "four_dukes", "ngau_tonku",
                                  "double_ox", "single_ox"]},
                     "/rules/ranking", "no_ox must be last", id="ranking-no-ox-first"),
        pytest.param({"ranking": ["five_dukes", "five_dukes", "five_small", "bomb", "four_dukes",
                                  "ngau_tonku", "double_ox", "no_ox"]},
                     "/rules/ranking", None, id="ranking-duplicate"),
        pytest.param({"payouts": {"royal_flush": 9}}, "/rules/payouts/royal_flush", "unknown field",
                     id="bad-payout-key"),
        pytest.param({"payouts": {"single_ox": -1}}, "/rules/payouts/single_ox", None, id="bad-payout"),
        pytest.param(None, "/rules", "must not be null", id="null"),
        pytest.param(["ties"], "/rules", None, id="not-an-object"),
    ],
)
def test_bad_overrides_are_a_400_naming_the_knob(client: FlaskClient, rules: Any, pointer: str,
                                                  detail: str | None) -> None:
    errors = errors_of(client, rules)
    assert [e["pointer"] for e in errors] == [pointer]
    if detail is not None:
        assert errors[0]["detail"] == detail


@pytest.mark.parametrize("path", list(BODIES))
def test_every_bad_knob_is_reported(client: FlaskClient, path: str) -> None:
    errors = errors_of(client, {"jokers": True, "ties": "coin_flip", "payouts": {"x": 1},
                                "ranking": ["no_ox", "five_dukes", "five_small", "bomb", "four_dukes",
                                            "ngau_tonku", "double_ox", "single_ox"]}, path)
    assert sorted(e["pointer"] for e in errors) == [
        "/rules/jokers", "/rules/payouts/x", "/rules/ranking", "/rules/ties"]


def test_operator_profile_with_commission_knobs(tmp_path: Path) -> None:
    path = write(tmp_path, entry(name="p2p-bull", extends="bull-bull",
                                 rules={"commission_bps": 300, "dealer_commission_bps": 250}))
    [profile] = load_profiles_file(path)
    assert (profile.extends, profile.rules.commission_bps, profile.rules.dealer_commission_bps) == ("bull-bull", 300, 250)
    client = create_app({"TESTING": True, "PROFILES_FILE": str(path)}).test_client()
    body = client.get("/v1/profiles/p2p-bull").get_json()
    assert (body["rules"]["commission_bps"], body["rules"]["dealer_commission_bps"], body["max_payout"]) == (300, 250, 5)
    out = client.post("/v1/settlements?profile=p2p-bull", json={
        "dealer": {"hand": ["3S", "6H", "8D", "4C", "8H"]},  # Single-Ox 9 under Niu Niu: 8+8+4, 3+6
        "players": [{"hand": ["10H", "9C", "8S", "4S", "4D"], "stake": 1000, "bet": "equal"}]}).get_json()
    [player] = out["players"]
    assert (player["outcome"], player["gross"], player["commission"], player["amount"]) == ("lose", -1000, 0, -1000)
    assert (out["dealer"]["gross"], out["dealer"]["commission"], out["dealer"]["net"], out["house"]) == (1000, 25, 975, 25)
