"""Each rule knob is declared once (its :class:`~service.engine.knobs.Knob` on the ``Rules``
field): every other place that lists knobs derives from that declaration or is held to it here.

openapi.yaml's ``RulesOverrides`` and ``Rules`` schemas, RULES.md section 7's table and the
override ranges of docs/rules-decisions.md are compared with the metadata; the API, the
operator profiles file, ``/v1/profiles`` and ``gnau profiles`` are exercised for every knob,
so a new knob is tested as soon as it is declared.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from flask.testing import FlaskClient

from service.cli import main
from service.engine.categories import LABELS, Category
from service.engine.knobs import Knob
from service.engine.rules import KNOBS, PROFILES, RULE_KNOBS, Rules, RulesError, apply_overrides
from service.profiles import load_profiles_file
from service.schemas import RulesOverridesSchema
from tests import ROOT
from tests.api import contract_hooks

SPEC = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
SCHEMAS = SPEC["components"]["schemas"]
STANDARD = Rules()


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _override_schema(knob: Knob) -> dict[str, Any]:
    """What openapi.yaml's ``RulesOverrides`` must say of a knob (its description aside)."""
    if knob.kind == "bool":
        return {"type": "boolean"}
    if knob.kind == "int":
        return {"type": "integer", "minimum": knob.low, "maximum": knob.high} | (
            {"nullable": True} if knob.nullable else {})
    if knob.kind == "choice":
        return {"type": "string", "enum": list(knob.choices)}
    if knob.kind == "ranking":
        return {"type": "array", "minItems": knob.low, "maxItems": knob.high, "uniqueItems": True,
                "items": _ref("Category")}
    return _ref("PayoutOverrides")


def test_the_knobs_are_the_rules_fields_in_order() -> None:
    assert KNOBS == tuple(Rules.__dataclass_fields__) == tuple(STANDARD.as_dict())
    assert list(RulesOverridesSchema().fields) == list(KNOBS)


@pytest.mark.parametrize("name", KNOBS)
def test_openapi_rules_overrides_match_the_knob(name: str) -> None:
    knob = RULE_KNOBS[name]
    spec = dict(SCHEMAS["RulesOverrides"]["properties"][name])
    assert spec.pop("description", knob.doc) == knob.doc
    assert spec == _override_schema(knob)


def test_openapi_rules_overrides_list_every_knob_and_nothing_else() -> None:
    overrides = SCHEMAS["RulesOverrides"]
    assert list(overrides["properties"]) == list(KNOBS)
    assert overrides["additionalProperties"] is False
    assert SCHEMAS["Category"]["enum"] == list(Category) == list(RULE_KNOBS["ranking"].choices)
    assert SCHEMAS["LabelKey"]["enum"] == list(LABELS)  # RULES.md 4.2's keys, in its order
    assert list(Category) == contract_hooks.CATEGORIES  # the hooks import no service code
    payouts, knob = SCHEMAS["PayoutOverrides"], RULE_KNOBS["payouts"]
    assert payouts["additionalProperties"] is False
    assert payouts["properties"] == {key: {"type": "integer", "minimum": knob.low, "maximum": knob.high}
                                     for key in knob.choices}


@pytest.mark.parametrize("name", KNOBS)
def test_openapi_rules_match_the_knob(name: str) -> None:
    """The answers' ``Rules`` schema: the type, choices, bounds and nullability where it gives
    them, and the knob's one-line doc where it has a description."""
    knob = RULE_KNOBS[name]
    spec = SCHEMAS["Rules"]["properties"][name]
    kind = {"bool": "boolean", "int": "integer", "choice": "string", "ranking": "array", "payouts": "object"}
    assert spec["type"] == kind[knob.kind]
    assert spec.get("description", knob.doc) == knob.doc
    assert spec.get("nullable", False) == knob.nullable
    if knob.kind == "choice":
        assert spec["enum"] == list(knob.choices)
    if knob.kind == "int":
        assert (spec.get("minimum", knob.low), spec.get("maximum", knob.high)) == (knob.low, knob.high)
    if knob.kind == "ranking":
        assert spec["items"] == _ref("Category")


#: The knobs every ``rules`` object lists; the others only while set (:attr:`Knob.listed_at_default`).
LISTED = [name for name in KNOBS if RULE_KNOBS[name].listed_at_default]


def test_openapi_rules_require_every_knob_in_order() -> None:
    """Every knob is a property, in order; those listed at their default are required (the
    round forms' knobs appear only while set, so earlier answers are unchanged)."""
    rules = SCHEMAS["Rules"]
    assert list(rules["properties"]) == list(KNOBS)
    assert rules["required"] == LISTED
    assert STANDARD.listed() == {name: STANDARD.as_dict()[name] for name in LISTED}


def _rules_md_rows() -> dict[str, tuple[str, str]]:
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    section = text.split("## 7. Rule knobs", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \| ([^|]+) \|", section, re.MULTILINE)
    return {name: (kind.strip(), default.strip()) for name, kind, default in rows}


#: Knobs RULES.md section 7 specifies that the service does not serve yet, with the section
#: that specifies them (docs/rules-decisions.md, "Not served yet"). Serving one means removing
#: it here: the test below fails both on a knob missing from this list and on one served.
NOT_SERVED_YET = {
    "super_payouts": "6.7", "banker_side_commission_bps": "6.7",
    "jokers": "4.3", "joker_as": "4.3", "joker_copies": "4.3", "joker_order": "4.3", "five_of_a_kind": "4.3",
    "deck": "4.3",
}


def _power_of_ten(n: int) -> str:
    """``n`` as RULES.md writes a large round bound: ``10^6`` for 1,000,000 (else ``n`` with commas)."""
    text = str(n)
    return f"10^{len(text) - 1}" if text.startswith("1") and set(text[1:]) <= {"0"} and n >= 10**4 else f"{n:,}"


def test_rules_md_table_agrees_with_the_knobs() -> None:
    """RULES.md (normative; its master copy lives outside this repository) lists the knobs
    it specifies: each must be declared with the type and standard value it gives, except
    those listed in :data:`NOT_SERVED_YET`. A knob RULES.md is silent on (a house knob) needs
    no row."""
    rows = _rules_md_rows()
    assert len(rows) >= 19
    assert {name for name in rows if name not in RULE_KNOBS} == set(NOT_SERVED_YET)
    standard = STANDARD.as_dict()
    for name, (kind, default) in rows.items():
        if name in NOT_SERVED_YET:
            continue
        knob = RULE_KNOBS[name]
        if knob.kind == "bool":
            assert (kind, default) == ("bool", str(standard[name]).lower()), name
        elif knob.kind == "choice":
            assert kind == " / ".join(f"`{c}`" for c in knob.choices), name
            assert default == f"`{standard[name]}`", name
        elif knob.kind == "int" and kind.startswith("`"):  # a short range, its values listed
            values = [str(v) for v in range(knob.low, knob.high + 1)] + (["null"] if knob.nullable else [])
            assert kind == " / ".join(v if v == "null" else f"`{v}`" for v in values), name
            assert default == f"`{standard[name]}`", name
        elif knob.kind == "int":
            assert kind.startswith(("int", "integer")), name
            assert ("or null" in kind) == knob.nullable, name
            assert default == ("null" if standard[name] is None else str(standard[name])), name
            if ".." in kind:
                assert kind.split()[-1] in (f"{knob.low:,}..{knob.high:,}", f"{knob.low:,}..{_power_of_ten(knob.high)}"), \
                    name
        else:
            assert kind.startswith({"ranking": "list of categories", "payouts": "map"}[knob.kind]), name
    served = [name for name in rows if name not in NOT_SERVED_YET]
    assert served == [name for name in KNOBS if name in rows]  # the same order


def test_rules_decisions_override_ranges_agree_with_the_knobs() -> None:
    """docs/rules-decisions.md (8) states the ranges the service gives the knobs RULES.md leaves open."""
    text = " ".join((ROOT / "docs" / "rules-decisions.md").read_text(encoding="utf-8").split())
    found = re.search(r"`five_small_max_points` is (\d+)\.\.(\d+) or null; `suited_multiplier` "
                      r"(\d+)\.\.(\d+) and every payout (\d+)\.\.(\d{1,3}(?:,\d{3})*)", text)
    assert found is not None
    points, multiplier, payouts = (RULE_KNOBS[k] for k in ("five_small_max_points", "suited_multiplier", "payouts"))
    assert found.groups() == (str(points.low), str(points.high), str(multiplier.low), str(multiplier.high),
                              str(payouts.low), f"{payouts.high:,}")


def other_value(name: str) -> Any:
    """A valid value of the knob that is not the standard one."""
    knob, value = RULE_KNOBS[name], STANDARD.as_dict()[name]
    if knob.kind == "bool":
        return not value
    if knob.kind == "int":
        return knob.high if value != knob.high else knob.low
    if knob.kind == "choice":
        return next(c for c in knob.choices if c != value)
    if knob.kind == "ranking":
        return [value[1], value[0], *value[2:]]
    return {knob.choices[-1]: knob.high}


def wrong_type(name: str) -> Any:
    return {"bool": "yes", "int": "1", "choice": 1, "ranking": "first", "payouts": []}[RULE_KNOBS[name].kind]


@pytest.mark.parametrize("name", KNOBS)
def test_every_knob_can_be_overridden_through_the_api(client: FlaskClient, name: str) -> None:
    value = other_value(name)
    out = client.post("/v1/evaluations", json={"hand": ["10S", "7H", "3D", "KC", "7D"], "rules": {name: value}})
    assert out.status_code == 200
    body = out.get_json()
    expected = apply_overrides(STANDARD, {name: value})
    assert body["rules"] == expected.listed() != STANDARD.listed()
    assert body["rules"][name] == expected.as_dict()[name]
    assert body["rules_digest"] == expected.digest() != STANDARD.digest()


@pytest.mark.parametrize("name", KNOBS)
def test_a_bad_override_of_every_knob_is_one_error_naming_it(client: FlaskClient, name: str) -> None:
    out = client.post("/v1/evaluations", json={"hand": ["10S", "7H", "3D", "KC", "7D"], "rules": {name: wrong_type(name)}})
    assert out.status_code == 400
    assert [e["pointer"] for e in out.get_json()["errors"]] == [f"/rules/{name}"]
    with pytest.raises(RulesError) as caught:
        apply_overrides(STANDARD, {name: wrong_type(name)})
    assert caught.value.problems == [([name], RULE_KNOBS[name].message)]


def test_every_knob_can_be_set_in_the_operator_profiles_file(tmp_path: Path) -> None:
    overrides = {name: other_value(name) for name in KNOBS}
    path = tmp_path / "profiles.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"house": {"extends": "standard", "description": "Every knob.",
                                                           "rules": overrides}}}))
    [profile] = load_profiles_file(path)
    assert profile.rules == apply_overrides(STANDARD, overrides)
    assert all(profile.rules.as_dict()[n] != STANDARD.as_dict()[n] for n in KNOBS)


def test_profiles_answer_and_gnau_profiles_list_every_knob(client: FlaskClient,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    for profile in client.get("/v1/profiles").get_json()["profiles"]:
        assert list(profile["rules"]) == LISTED  # no built-in profile sets a round form's knob
    assert main(["profiles", "standard"]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert [row for row in rows if row in RULE_KNOBS] == LISTED


#: Answers carry ``rules_digest``: it must never change for a rule set that exists.
DIGESTS = {
    "standard": "sha256:f95d84ea30e9fbbc", "casino": "sha256:76e977cf2278ba14",
    "tens-are-dukes": "sha256:db0b395c3f9e33a0", "liberal": "sha256:1222c6a49c476d03",
    "niu-niu": "sha256:2e1aa044896571d0",
    # RULES.md's corrected bull-bull (only Five Dukes special, issue 24) is a new rule set; the
    # one it was (niu-niu with a 5 % commission) keeps its digest, pinned below.
    "bull-bull": "sha256:b0e32d8d13834814", "niu-niu-plus": "sha256:f9f9c9af291a89b0",
}
OVERRIDE_DIGESTS: list[tuple[dict[str, Any], str]] = [
    ({"commission_bps": 500}, "sha256:58911b9787924e38"),
    ({"dealer_commission_bps": 7}, "sha256:469fb582430cbf13"),
    ({"ties": "push"}, "sha256:2979ebaf8395da74"),
    ({"ranking": ["five_small", "five_dukes", "bomb", "four_dukes", "ngau_tonku", "double_ox", "single_ox",
                  "no_ox"]}, "sha256:f5a1f9d391eef935"),
    ({"payouts": {"single_ox_3": 4}}, "sha256:8dfe1a123dedbb06"),
    ({"five_small_max_points": 0}, "sha256:e1158e2c18c20bd2"),
    ({"suited_bonus": "hand", "suited_multiplier": 10}, "sha256:a3ad20010afc66ff"),
]


def test_digests_of_existing_rule_sets_never_change() -> None:
    assert {name: p.rules.digest() for name, p in PROFILES.items()} == DIGESTS
    for overrides, digest in OVERRIDE_DIGESTS:
        assert apply_overrides(STANDARD, overrides).digest() == digest, overrides
    # The rule set bull-bull named before RULES.md corrected it, and one with a poker shape
    # that is off: the five categories added later leave ranking and payouts while off.
    assert apply_overrides(PROFILES["niu-niu"].rules, {"commission_bps": 500}).digest() == "sha256:2e461bc0a04c87ec"
    assert apply_overrides(STANDARD, {"payouts": {"straight": 9}}).digest() == STANDARD.digest()


def test_a_later_knob_enters_the_digest_only_off_its_default() -> None:
    later = [name for name, knob in RULE_KNOBS.items() if not knob.always_digested]
    assert {"commission_bps", "dealer_commission_bps", "tie_payout", "balance_caps", "showdown",
            "showdown_stake"} <= set(later)
    for name in later:
        assert apply_overrides(STANDARD, {name: other_value(name)}).digest() != STANDARD.digest()


LEGACY_RANKING = ["five_dukes", "five_small", "bomb", "four_dukes", "ngau_tonku", "double_ox", "single_ox", "no_ox"]


@pytest.mark.parametrize(
    ("overrides", "problems"),
    [
        ({"jokers": True, "ties": "coin_flip"}, [(["jokers"], "unknown knob"),
                                                 (["ties"], "must be one of dealer, push, high_card")]),
        ({"commission_bps": -1}, [(["commission_bps"], "must be an integer from 0 to 10000 (basis points)")]),
        ({"five_small_max_points": 51}, [(["five_small_max_points"], "must be null or an integer from 0 to 50")]),
        ({"suited_multiplier": True}, [(["suited_multiplier"], "must be an integer from 1 to 10")]),
        ({"bomb": None}, [(["bomb"], "must be true or false")]),
        ({"ranking": "x"}, [(["ranking"], "must be a list of category names")]),
        ({"ranking": ["no_ox", "five_dukes", "five_small", "bomb", "four_dukes", "ngau_tonku", "double_ox",
                      "single_ox"]}, [(["ranking"], "no_ox must be last")]),
        ({"ranking": ["bomb"] * 8}, [(["ranking"], "lists bomb more than once")]),
        ({"ranking": ["joker", "five_dukes", "no_ox"]}, [(["ranking"], (
            "unknown category 'joker'; the categories are five_dukes, five_small, bomb, four_dukes, straight_flush, "
            "dragon, full_house, flush, straight, ngau_tonku, double_ox, single_ox, no_ox"))]),
        ({"ranking": ["five_dukes", "no_ox"]}, [(["ranking"], "must list single_ox (above no_ox)")]),
        # RULES.md 7: every category that is on must be ranked (the eight of the first release are on)
        ({"straight": True, "flush": True, "ranking": LEGACY_RANKING}, [(["ranking"], (
            "lists no flush, straight, which are on: every category that is on must be ranked"))]),
        ({"ranking": LEGACY_RANKING[1:]}, [(["ranking"], (
            "lists no five_dukes, which is on: every category that is on must be ranked"))]),
        ({"five_small_max_rank": None}, [(["five_small_max_rank"], "null (any rank) needs five_small_max_points set")]),
        ({"five_small_max_rank": 6}, [(["five_small_max_rank"], "must be null or an integer from 4 to 5")]),
        ({"bomb_order": "suit"}, [(["bomb_order"], "must be one of quad_rank, high_card")]),
        ({"payouts": 3}, [(["payouts"], "must be an object of payout keys to integers")]),
        ({"payouts": {"x": 1, "bomb": 1001}}, [
            (["payouts", "x"], "unknown payout key; use a category or single_ox_0 .. single_ox_9"),
            (["payouts", "bomb"], "must be an integer from 0 to 1000")]),
    ],
)
def test_engine_messages(overrides: dict[str, Any], problems: list[tuple[list[str], str]]) -> None:
    """The engine's words (the operator profiles file and the ``gnau`` command show them)."""
    with pytest.raises(RulesError) as caught:
        apply_overrides(STANDARD, overrides)
    assert caught.value.problems == problems


def test_api_reports_a_ranking_order_after_every_other_problem(client: FlaskClient) -> None:
    """The schema reports shapes in body order; the engine then adds what it alone sees."""
    body = {"hand": ["1S", "7H", "3D", "KC", "7D"], "decks": 0, "rules": {
        "ranking": ["no_ox", "five_dukes", "five_small", "bomb", "four_dukes", "ngau_tonku", "double_ox",
                    "single_ox"], "ties": "x", "bomb": None, "payouts": {"single_ox": -1}, "jokers": 1}}
    errors = client.post("/v1/evaluations", json=body).get_json()["errors"]
    assert [(e["pointer"], e["detail"]) for e in errors if e["pointer"] != "/hand/0"] == [
        ("/decks", "must be an integer from 1 to 8"),
        ("/rules/bomb", "Field may not be null."),
        ("/rules/ties", "must be one of dealer, push, high_card"),
        ("/rules/payouts/single_ox", "must be an integer from 0 to 1000"),
        ("/rules/jokers", "unknown field"),
        ("/rules/ranking", "no_ox must be last"),
    ]
