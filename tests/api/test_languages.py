"""Label keys and languages (RULES.md 4.2, issue 24; DECISIONS 34-35, 39): the name table
is one piece of data with every key in every language, ``lang`` and ``Accept-Language``
choose the language, and every answer with labels says which (``Content-Language``,
``Vary: Accept-Language``)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from flask.testing import FlaskClient

from service.engine.categories import LABEL_ROWS, LABELS, LANGUAGES, Category, label_text
from service.languages import ALIASES, lang_value
from tests import ROOT

HAND = {"hand": ["3S", "6H", "8D", "4C", "8H"]}  # Double-Ox 8 under standard
TABLE: dict[str, Any] = {"dealer": HAND, "players": [{"hand": ["10H", "9C", "8S", "4S", "4D"], "stake": 10}]}
NUMERALS = "一二三四五六七八九"


def _rules_table() -> list[list[str]]:
    """RULES.md 4.2's name table, cells without backticks."""
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    section = text[text.index("### 4.2"):text.index("## 5.")]
    return [[cell.strip().strip("`") for cell in line.strip("|").split("|")]
            for line in section.splitlines() if line.startswith("| `")]


def test_every_key_has_every_language() -> None:
    assert LANGUAGES == ("en", "zh-Hans", "zh-Hant")
    for key, names in LABELS.items():
        assert list(names) == list(LANGUAGES), key
        assert all(names[lang].strip() == names[lang] != "" for lang in LANGUAGES), key
        assert names["en"].isascii(), key
        assert not names["zh-Hans"].isascii(), key
        assert not names["zh-Hant"].isascii(), key
    # every category has keys, and every key one category
    assert {row[0] for row in LABEL_ROWS} == set(Category)
    assert len(LABELS) == 76


def test_the_name_table_is_rules_4_2s() -> None:
    """Each row of the engine's table (LABEL_ROWS) is RULES.md 4.2's row, placeholders and all."""
    rows = _rules_table()
    # one row a key pattern, in the same order (Single-Ox 1..9 one row beside Single-Ox 0)
    assert [row[0].split("`")[0] for row in rows] == [
        key.replace("{N}", "N").replace("{R}", "R") for _, key, *_ in LABEL_ROWS]
    by_key = {row[0]: row[1:] for row in rows}
    for key, en, hans, hant in ((k, LABELS[k]["en"], LABELS[k]["zh-Hans"], LABELS[k]["zh-Hant"]) for k in LABELS):
        pattern = re.sub(r"_(?:[2-9]|10|[ajqk])$", "_R", key)
        if key.startswith("single_ox_") and key != "single_ox_0":
            n = int(key[-1])
            assert (en, hans, hant) == (f"Single-Ox {n}", f"牛{NUMERALS[n - 1]}", f"牛{NUMERALS[n - 1]}")
            continue
        if pattern != key:
            rank = key.rsplit("_", 1)[1].upper()
            row = by_key[pattern]
            assert (en, hans, hant) == tuple(cell.replace(" R", f" {rank}") for cell in row), key
        else:
            assert (en, hans, hant) == tuple(by_key[key]), key


def test_rank_tokens_of_the_keys() -> None:
    """DECISIONS 39: lower-case rank tokens, ``10`` for tens, one U+0020 before the rank."""
    assert [k for k in LABELS if k.startswith("double_ox_")] == [
        f"double_ox_{r}" for r in ("a", "2", "3", "4", "5", "6", "7", "8", "9", "10", "j", "q", "k")]
    assert [k for k in LABELS if k.startswith("straight_") and not k.startswith("straight_flush")] == [
        f"straight_{r}" for r in ("5", "6", "7", "8", "9", "10", "j", "q", "k", "a")]
    assert label_text("full_house_10", "zh-Hant") == "葫蘆牛 10"
    assert all("\u3000" not in names[lang] for names in LABELS.values() for lang in LANGUAGES)


@pytest.mark.parametrize(("value", "expected"), [
    ("en", "en"), ("EN", "en"), ("zh-Hans", "zh-Hans"), ("ZH-HANS", "zh-Hans"), ("zh-hant", "zh-Hant"),
    ("zh", "zh-Hans"), ("zh-CN", "zh-Hans"), ("zh-sg", "zh-Hans"), ("zh-TW", "zh-Hant"), ("zh-HK", "zh-Hant"),
    ("zh-mo", "zh-Hant"),
])
def test_lang_parameter(client: FlaskClient, value: str, expected: str) -> None:
    response = client.post(f"/v1/evaluations?lang={value}", json=HAND)
    assert response.status_code == 200
    assert response.headers["Content-Language"] == expected
    assert response.headers["Vary"] == "Accept-Language"
    body = response.get_json()
    assert (body["label"], body["label_key"]) == (label_text("double_ox_8", expected), "double_ox_8")


@pytest.mark.parametrize("value", ["fr", "", "en-US", "zh-Hans,en", "zh-Latn", "x" * 300])
def test_unsupported_lang_is_a_400_naming_it(client: FlaskClient, value: str) -> None:
    response = client.post(f"/v1/evaluations?lang={value}", json=HAND)
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    assert "Content-Language" not in response.headers  # problems are English, and say nothing about it
    errors = response.get_json()["errors"]
    assert errors == [{"parameter": "lang", "detail": (
        "must be one of en, zh-Hans, zh-Hant (or, for them, zh, zh-CN, zh-SG, zh-TW, zh-HK, zh-MO); "
        "other languages are not offered")}]
    assert value not in response.get_data(as_text=True) or value in ("", "en-US")  # never echoed back


def test_lang_given_twice_is_a_400(client: FlaskClient) -> None:
    response = client.post("/v1/evaluations?lang=en&lang=zh-Hans", json=HAND)
    assert response.status_code == 400
    assert response.get_json()["errors"] == [{"parameter": "lang", "detail": "give lang once"}]


@pytest.mark.parametrize(("header", "expected"), [
    ("zh-CN", "zh-Hans"), ("zh-SG", "zh-Hans"), ("zh", "zh-Hans"), ("zh-TW", "zh-Hant"), ("zh-HK", "zh-Hant"),
    ("zh-MO", "zh-Hant"), ("zh-Hant-CN", "zh-Hant"), ("zh-Hans-HK", "zh-Hans"),  # the script decides
    ("fr, zh-TW;q=0.4, zh-CN;q=0.6", "zh-Hans"), ("zh-TW;q=0.5, en;q=0.9", "en"), ("de, fr", "en"),
    ("*", "en"), ("zh-CN;q=0", "en"), ("en-GB", "en"), ("de;q=0, zh-Hant;q=0.001", "zh-Hant"),
    (";;;q=x,,", "en"), ("zh-TW;q=2", "en"), ("x" * 500, "en"),  # malformed: ignored, never a 400
])
def test_accept_language(client: FlaskClient, header: str, expected: str) -> None:
    response = client.post("/v1/evaluations", json=HAND, headers={"Accept-Language": header})
    assert response.status_code == 200
    assert response.headers["Content-Language"] == expected
    assert response.get_json()["label"] == label_text("double_ox_8", expected)


def test_lang_parameter_wins_over_accept_language(client: FlaskClient) -> None:
    response = client.post("/v1/evaluations?lang=en", json=HAND, headers={"Accept-Language": "zh-TW"})
    assert (response.headers["Content-Language"], response.get_json()["label"]) == ("en", "Double-Ox 8")


ANSWERS_WITH_LABELS: list[tuple[str, str, Any]] = [
    ("POST", "/v1/evaluations", HAND),
    ("POST", "/v1/evaluations/batch", {"hands": [HAND["hand"]]}),
    ("POST", "/v1/rankings", {"hands": [{"id": "a", "hand": HAND["hand"]}, {"id": "b", "hand": TABLE["players"][0][
        "hand"]}]}),
    ("POST", "/v1/settlements", TABLE),
    ("POST", "/v1/odds", HAND),
    ("POST", "/v1/analyses/distribution", {}),
    ("GET", "/v1/profiles/standard/distribution", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ANSWERS_WITH_LABELS, ids=[a[1] for a in ANSWERS_WITH_LABELS])
def test_every_answer_with_labels_takes_lang(client: FlaskClient, method: str, path: str, body: Any) -> None:
    """DECISIONS 35: every operation that answers a label takes ``lang`` and says its language."""
    english = client.open(path, method=method, json=body)
    chinese = client.open(f"{path}?lang=zh-Hant", method=method, json=body)
    assert (english.status_code, chinese.status_code) == (200, 200)
    assert (english.headers["Content-Language"], chinese.headers["Content-Language"]) == ("en", "zh-Hant")
    assert english.headers["Vary"] == chinese.headers["Vary"] == "Accept-Language"
    labels_en, labels_zh = _labels(english.get_json()), _labels(chinese.get_json())
    assert labels_en
    assert len(labels_en) == len(labels_zh)
    for (key, en), (key_zh, zh) in zip(labels_en, labels_zh, strict=True):
        assert key == key_zh
        assert (en, zh) == (label_text(key, "en"), label_text(key, "zh-Hant"))


def _labels(body: Any) -> list[tuple[str, str]]:
    """Every (label_key, label) pair in an answer, in document order."""
    found: list[tuple[str, str]] = []
    if isinstance(body, dict):
        if "label" in body:
            found.append((body["label_key"], body["label"]))
        for value in body.values():
            found += _labels(value)
    elif isinstance(body, list):
        for value in body:
            found += _labels(value)
    return found


@pytest.mark.parametrize(("method", "path", "body"), [
    ("POST", "/v1/exposures", {"players": [{"stake": 10}]}),
    ("POST", "/v1/analyses/house-edge", {}),
    ("GET", "/v1/profiles/standard/house-edge", None),
    ("GET", "/v1/profiles/standard", None),
])
def test_answers_without_labels_take_no_lang(client: FlaskClient, method: str, path: str, body: Any) -> None:
    plain = client.open(path, method=method, json=body, headers={"Accept-Language": "zh-TW"})
    assert plain.status_code == 200
    assert "Content-Language" not in plain.headers
    refused = client.open(f"{path}?lang=en", method=method, json=body)
    assert refused.status_code == 400
    assert [e["parameter"] for e in refused.get_json()["errors"]] == ["lang"]


def test_label_key_is_a_member_of_fields(client: FlaskClient) -> None:
    body = client.post("/v1/evaluations/batch?fields=label_key,score&lang=zh-Hans",
                       json={"hands": [HAND["hand"]]}).get_json()
    assert body["evaluations"] == [{"label_key": "double_ox_8", "score": 308}]
    body = client.post("/v1/evaluations/batch?fields=label,label_key&lang=zh-Hans",
                       json={"hands": [HAND["hand"]]}).get_json()
    assert body["evaluations"] == [{"label": "孖宝 8", "label_key": "double_ox_8"}]


def test_the_contract_accepts_exactly_the_tags_in_any_case() -> None:
    """openapi.yaml's ``Lang`` pattern admits the offered tags and aliases in any case, and
    nothing the service refuses."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    pattern = re.compile(spec["components"]["parameters"]["Lang"]["schema"]["pattern"])
    tags = [*LANGUAGES, *ALIASES]
    for tag in tags:
        for spelled in (tag, tag.upper(), tag.lower(), tag.swapcase()):
            assert pattern.match(spelled), spelled
            assert lang_value(spelled) is not None, spelled
    for other in ("fr", "en-US", "zh-Hans-CN", "zh-", "", "zh-Latn", "EN,zh"):
        assert not pattern.match(other), other
        assert lang_value(other) is None, other
