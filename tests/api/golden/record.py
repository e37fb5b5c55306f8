"""Record the golden corpora: ``python -m tests.api.golden.record`` rewrites corpus.jsonl and
corpus-cors.jsonl.

The corpus pins the HTTP API's answers before the restructuring of issue 10, so that the
restructured service can prove every response unchanged (tests/api/test_golden.py replays it).
Each line of ``corpus.jsonl`` is one request and the response recorded for it::

    {"id": "evaluateHand/profile/niu-niu/03", "app": "default", "method": "POST",
     "path": "/v1/evaluations?profile=niu-niu", "headers": {...}, "json": {...},
     "response": {"status": 200, "headers": {...}, "json": {...}}}

A request carries its body as ``json`` (sent as JSON text) or ``data`` (a raw string, for
malformed bodies). A response keeps its status, every header but the ones listed in
:data:`IGNORED_HEADERS`, and its body: parsed JSON for JSON bodies (compared exactly,
floats included: the engine is deterministic), else the sha256 and length of its bytes.

``corpus-cors.jsonl`` holds the same requests sent to the same apps with CORS on
(:data:`CORS_ORIGIN` allowed), each with an ``Origin`` header (every fourth one an origin
that is not allowed, :data:`OTHER_ORIGIN`), plus a preflight of every path; it was recorded
before the direct routes stopped being turned off by CORS, so that every route is proven
to answer as before with CORS on as well as off.

The requests are generated deterministically here (seeded random hands). Every request
sends its own ``X-Request-ID`` (problem bodies echo it) except those that test a missing
or invalid one; those get a generated id, which :func:`capture` replaces by
:data:`GENERATED_ID` in the header and the body.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from flask import Flask
from werkzeug.test import TestResponse

from service.http.app import create_app
from service.http.runtime import Runtime
from tests.api.test_operator_profiles import GOOD_FILE

__all__ = [
    "CORPUS",
    "CORS_CORPUS",
    "CORS_ORIGIN",
    "GENERATED_ID",
    "IGNORED_HEADERS",
    "OTHER_ORIGIN",
    "app_config",
    "app_named",
    "capture",
    "cors_requests",
    "load",
    "record",
    "replay",
    "requests",
    "send",
]

CORPUS = Path(__file__).with_name("corpus.jsonl")
CORS_CORPUS = Path(__file__).with_name("corpus-cors.jsonl")
#: The origin the CORS corpus's apps allow (``cors/<app>``), and one they do not.
CORS_ORIGIN = "https://game.example"
OTHER_ORIGIN = "https://other.example"
HERE = Path(__file__).parent

#: Headers never compared: ``Date``/``Server`` (set by servers, not the app), and
#: ``Content-Length`` of JSON bodies (the body is compared as parsed JSON instead; for other
#: bodies the sha256 and length are compared).
IGNORED_HEADERS = frozenset({"date", "server"})
#: What a generated request id (32 hex digits, random) is replaced by.
GENERATED_ID = "<generated>"
_GENERATED = re.compile(r"[0-9a-f]{32}")
_JSON_TYPES = ("application/json", "application/problem+json")

#: An operator's profiles file, for the ``operator`` app: the operator-profile tests' good file.
OPERATOR_PROFILES = GOOD_FILE

#: The committed test-only receipt key (tests/keys/), and the older public key published beside it.
RECEIPT_KEY = HERE.parent.parent / "keys" / "receipt-test-key.pem"
RECEIPT_OLD_KEYS = HERE.parent.parent / "keys" / "receipt-test-old-public-key.pem"

#: The apps requests run in. The analysis budget is per client address and the test
#: client's address is fixed, so ``default`` has a budget the corpus cannot spend (no 429
#: is recorded: its Retry-After and detail depend on how long the work took); ``disabled``
#: has a budget of 0 (403 for uncached analyses). Only ``receipts`` has a receipt key (the
#: committed test key: Ed25519 signatures are deterministic, so its receipts are recorded).
_APP_CONFIGS: dict[str, dict[str, Any]] = {
    "default": {"ANALYSIS_BUDGET_SECONDS": 1e9, "ANALYSIS_POOL_SECONDS": 1e9},
    "disabled": {"ANALYSIS_BUDGET_SECONDS": 0},
    "operator": {"ANALYSIS_BUDGET_SECONDS": 1e9, "ANALYSIS_POOL_SECONDS": 1e9, "PROFILES_FILE": "operator"},
    "receipts": {"RECEIPT_KEY_FILE": str(RECEIPT_KEY), "RECEIPT_PUBLIC_KEYS": str(RECEIPT_OLD_KEYS)},
}


@cache
def app_named(name: str) -> Flask:
    """The app a corpus entry names (built once per process)."""
    app = create_app(app_config(name))
    Runtime.of(app).warm()  # as the gunicorn master does before it forks: readiness 200
    return app


def send(entry: dict[str, Any], app: Flask | None = None) -> TestResponse:
    """Send ``entry``'s request to ``app`` (by default the app it names; another one built
    with :func:`app_config`) and return the response as it came."""
    client = (app or app_named(entry.get("app", "default"))).test_client()
    kwargs: dict[str, Any] = {"headers": entry.get("headers", {})}
    if "json" in entry:
        kwargs["data"] = json.dumps(entry["json"])
        kwargs["content_type"] = "application/json"
    if "data" in entry:  # "@FILL@" stands for ``fill`` x's (a large body, not stored as such)
        data = entry["data"].replace("@FILL@", "x" * entry.get("fill", 0))
        kwargs["data"] = data.encode("utf-8", "surrogatepass")
    if "content_type" in entry:
        kwargs["content_type"] = entry["content_type"]
    return client.open(entry["path"], method=entry["method"], **kwargs)


def capture(entry: dict[str, Any], response: TestResponse) -> dict[str, Any]:
    """What is compared of ``response`` to ``entry``: status, headers, body (see module doc).

    Nothing is re-ordered: the service answers the same bytes under every string-hashing
    seed (the methods of ``Allow`` sorted, unknown fields in the body's order), and the
    corpus test runs with the seed the test process has.
    """
    if entry.get("only_status"):  # /metrics: its body changes with every request
        return {"status": response.status_code, "headers": {"Content-Type": response.headers.get("Content-Type")}}
    sent = entry.get("headers", {}).get("X-Request-ID")
    generated = response.headers.get("X-Request-ID") != sent
    headers: dict[str, str] = {}
    for key in sorted({k for k, _ in response.headers.items()}):
        if key.lower() in IGNORED_HEADERS:
            continue
        value = ", ".join(response.headers.getlist(key))
        if key == "X-Request-ID" and generated and _GENERATED.fullmatch(value):
            value = GENERATED_ID
        headers[key] = value
    out: dict[str, Any] = {"status": response.status_code, "headers": headers}
    data = response.get_data()
    if response.mimetype in _JSON_TYPES and data:  # (a HEAD answer has no body)
        headers.pop("Content-Length", None)
        body = json.loads(data)
        if isinstance(body, dict):
            _canonical_problem(entry, body, generated)
        out["json"] = body
    else:
        out["sha256"] = hashlib.sha256(data).hexdigest()
        out["length"] = len(data)
    return out


def _canonical_problem(entry: dict[str, Any], body: dict[str, Any], generated: bool) -> None:
    if generated and _GENERATED.fullmatch(str(body.get("request_id", ""))):
        body["request_id"] = GENERATED_ID


def replay(entry: dict[str, Any]) -> dict[str, Any]:
    """Send ``entry``'s request to its app and capture the response."""
    return capture(entry, send(entry))


def app_config(name: str) -> dict[str, Any]:
    """The configuration of the app named ``name`` (:func:`app_named`), its operator
    profiles written to a new file; ``cors/<name>`` is the app ``name`` with CORS on for
    :data:`CORS_ORIGIN`."""
    base, cors = (name.removeprefix("cors/"), CORS_ORIGIN) if name.startswith("cors/") else (name, "")
    config: dict[str, Any] = {"TESTING": True, "PROFILES_FILE": None, "CORS_ORIGINS": cors, "RECEIPT_KEY_FILE": None,
                              "RECEIPT_PUBLIC_KEYS": None} | _APP_CONFIGS[base]
    if config["PROFILES_FILE"] == "operator":
        path = Path(tempfile.mkdtemp(prefix="golden-")) / "profiles.yaml"
        path.write_text(OPERATOR_PROFILES)
        config["PROFILES_FILE"] = str(path)
    return config


def load(path: Path = CORPUS) -> list[dict[str, Any]]:
    """The recorded entries, in file order."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# --- The requests ------------------------------------------------------------------------

PROFILES = ("standard", "casino", "tens-are-dukes", "liberal", "niu-niu", "bull-bull")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
DECK = tuple(r + s for r in RANKS for s in SUITS)
_ALT_RANK = {"10": ("T", "0", "10", "t"), "A": ("A", "a"), "K": ("K", "k"), "J": ("j", "J"), "Q": ("q", "Q")}
_ALT_SUIT = {"S": ("S", "s", "♠"), "H": ("H", "h", "♥"), "D": ("D", "d", "♦"), "C": ("C", "c", "♣")}

#: Hands that reach every category and rule (RULES.md sections 3-4).
CURATED: dict[str, list[str]] = {
    "no-ox": ["10S", "9H", "8D", "4C", "4H"],
    "single-ox-0": ["10S", "7H", "3D", "KC", "7D"],
    "single-ox-3": ["4S", "3H", "3C", "2D", "AH"],
    "double-ox-8": ["3S", "6H", "8D", "4C", "8H"],
    "double-ox-k": ["KS", "QH", "10D", "KC", "KH"],
    "double-ox-a": ["AS", "AH", "8D", "2C", "10H"],
    "three-six-pair": ["AS", "4H", "5D", "3C", "6H"],
    "ngau-tonku": ["AS", "KH", "QD", "JC", "10S"],
    "five-dukes": ["JS", "QH", "KD", "JC", "QD"],
    "four-dukes": ["JS", "QH", "KD", "JC", "10D"],
    "five-small": ["AS", "AH", "2D", "2C", "3H"],
    "bomb": ["JS", "JH", "JC", "JD", "QH"],
    "bomb-small": ["4S", "4H", "4C", "4D", "6H"],
    "triple-ox": ["7S", "7H", "7C", "5D", "5H"],
    "suited": ["2S", "8S", "KS", "QS", "5S"],
    "suited-ox": ["2H", "8H", "10H", "QC", "9D"],
    "tens": ["10S", "10H", "10D", "JC", "QD"],
    "three-six": ["3S", "6H", "AD", "6C", "3D"],
}


def spell(card: str, rng: random.Random) -> str:
    """``card`` in one of its accepted spellings, picked by ``rng``."""
    rank, suit = card[:-1], card[-1]
    return rng.choice(_ALT_RANK.get(rank, (rank,))) + rng.choice(_ALT_SUIT[suit])


def deal(rng: random.Random, hands: int, decks: int = 1) -> list[list[str]]:
    """``hands`` disjoint hands from ``decks`` shuffled decks."""
    cards = list(DECK) * decks
    rng.shuffle(cards)
    return [cards[5 * i:5 * i + 5] for i in range(hands)]


Entry = dict[str, Any]


def post(path: str, body: Any, **extra: Any) -> Entry:
    """A POST of ``body`` as JSON."""
    return {"method": "POST", "path": path, "json": body} | extra


def raw(path: str, data: str, content_type: str | None = "application/json", **extra: Any) -> Entry:
    """A POST of ``data`` as is (malformed bodies, other content types)."""
    entry: Entry = {"method": "POST", "path": path, "data": data} | extra
    if content_type is not None:
        entry["content_type"] = content_type
    return entry


def get(path: str, **extra: Any) -> Entry:
    """A GET."""
    return {"method": "GET", "path": path} | extra


def _q(path: str, profile: str) -> str:
    return path if profile == "standard" else f"{path}?profile={profile}"


#: Rule overrides: every knob at least once with valid values, then invalid ones.
VALID_OVERRIDES: list[dict[str, Any]] = [
    {"three_six_swap": False},
    {"triple_ox": False},
    {"tens_are_dukes": True},
    {"five_dukes": False},
    {"five_small": False},
    {"five_small_max_points": 10},
    {"five_small_max_points": None},
    {"ngau_tonku": False},
    {"double_ox": False},
    {"double_ox_order": "ace_high"},
    {"three_six_pair": True},
    {"bomb": True},
    {"four_dukes": True},
    {"ranking": ["bomb", "five_small", "five_dukes", "four_dukes", "ngau_tonku", "double_ox", "single_ox", "no_ox"]},
    {"ties": "push"},
    {"ties": "high_card"},
    {"payouts": {"single_ox_0": 3, "double_ox": 4}},
    {"payouts": {}},
    {"suited_bonus": "hand", "suited_multiplier": 3},
    {"suited_bonus": "ox"},
    {"suited_multiplier": 10},
    {"commission_bps": 500},
    {"dealer_commission_bps": 250},
    {"bomb": True, "four_dukes": True, "tens_are_dukes": True, "ties": "high_card", "double_ox_order": "ace_high"},
    {},
]
INVALID_OVERRIDES: list[Any] = [
    {"three_six_swap": "yes"},
    {"triple_ox": 1},
    {"tens_are_dukes": None},
    {"five_small_max_points": 51},
    {"five_small_max_points": -1},
    {"five_small_max_points": 2.5},
    {"double_ox_order": "queen_high"},
    {"ties": "coin_flip"},
    {"ties": 3},
    {"ranking": ["no_ox", "five_dukes"]},
    {"ranking": ["five_dukes", "five_small", "bomb", "four_dukes", "ngau_tonku", "double_ox", "no_ox", "single_ox"]},
    {"ranking": "five_dukes"},
    {"ranking": ["five_dukes", "five_dukes", "bomb", "four_dukes", "ngau_tonku", "double_ox", "single_ox", "no_ox"]},
    {"payouts": {"single_ox_10": 2}},
    {"payouts": {"jokers": 2, "bomb": -1}},
    {"payouts": {"bomb": 1001}},
    {"payouts": {"bomb": "10"}},
    {"payouts": [1, 2]},
    {"suited_bonus": "all"},
    {"suited_multiplier": 0},
    {"suited_multiplier": 11},
    {"commission_bps": 10001},
    {"commission_bps": -1},
    {"commission_bps": 1.5},
    {"dealer_commission_bps": "250"},
    {"jokers": True},
    {"jokers": True, "ties": "coin_flip", "bomb": "no"},
    ["ties", "push"],
    "push",
    None,
]


def evaluation_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``evaluateHand``: every curated hand under several profiles, random hands under every
    profile, spellings, decks, fields, overrides and invalid bodies."""
    path = "/v1/evaluations"
    for name, hand in CURATED.items():
        for profile in ("standard", "niu-niu", "liberal"):
            yield f"curated/{name}/{profile}", post(_q(path, profile), {"hand": hand})
    for profile in PROFILES:
        for i, hand in enumerate(deal(rng, 8)):
            yield f"random/{profile}/{i}", post(_q(path, profile), {"hand": [spell(c, rng) for c in hand]})
    yield "spelling/mixed", post(path, {"hand": ["10s", "Th", "0D", "A♠", "k♣"]})
    yield "spelling/readme", post(path, {"hand": ["AS", "10h", "Td", "0C", "kc"]})
    yield "spelling/same-card-twice", post(path, {"hand": ["AS", "10h", "Td", "0H", "kc"]})
    yield "decks/2-repeat", post(path, {"hand": ["AS", "AS", "KD", "QC", "JH"], "decks": 2})
    yield "decks/8-five-same", post(path, {"hand": ["7S"] * 5, "decks": 8})
    yield "decks/5-five-same", post(path, {"hand": ["7S"] * 5, "decks": 5})
    yield "decks/3-triple", post(path + "?profile=niu-niu", {"hand": ["KH", "KH", "KH", "KD", "QS"], "decks": 3})
    for decks in (0, 9, "2", 1.5, None, True, -1):
        yield f"decks/bad/{decks}", post(path, {"hand": CURATED["no-ox"], "decks": decks})
    for fields in ("label,score", "category", "label,label", "hand,ox,power", "payout,suited,nenku",
                   "score,label,category,payout", "hand,category,label,score,payout,ox,power,nenku,suited"):
        yield f"fields/{fields}", post(f"{path}?fields={fields}", {"hand": CURATED["double-ox-8"]})
    yield "fields/suited-payout", post(f"{path}?profile=liberal&fields=payout,label",
                                       {"hand": CURATED["suited"], "rules": {"suited_bonus": "hand"}})
    for fields in ("bogus", "", "label,", ",", "label,bogus,nope", "Label", "profile", "x" * 201):
        yield f"fields/bad/{fields[:20]}", post(f"{path}?fields={fields}", {"hand": CURATED["no-ox"]})
    yield "fields/twice", post(f"{path}?fields=label&fields=score", {"hand": CURATED["no-ox"]})
    for i, rules in enumerate(VALID_OVERRIDES):
        yield f"rules/valid/{i}", post(path, {"hand": CURATED["three-six"], "rules": rules})
    yield "rules/valid/bull-bull", post(path + "?profile=bull-bull", {"hand": CURATED["suited-ox"],
                                                                      "rules": {"commission_bps": 0}})
    yield "rules/valid/niu-niu", post(path + "?profile=niu-niu", {"hand": CURATED["bomb-small"],
                                                                  "rules": {"bomb": False}})
    for i, rules in enumerate(INVALID_OVERRIDES):
        yield f"rules/invalid/{i}", post(path, {"hand": CURATED["no-ox"], "rules": rules})
    bad_bodies: dict[str, Any] = {
        "missing-hand": {},
        "hand-null": {"hand": None},
        "hand-string": {"hand": "AS KH QD JC 10S"},
        "hand-object": {"hand": {"0": "AS"}},
        "four-cards": {"hand": ["AS", "KH", "QD", "JC"]},
        "six-cards": {"hand": ["AS", "KH", "QD", "JC", "10S", "9S"]},
        "eleven-cards": {"hand": ["AS"] * 11},
        "empty-hand": {"hand": []},
        "duplicate": {"hand": ["AS", "KH", "as", "JC", "10S"]},
        "duplicate-three": {"hand": ["AS", "A♠", "as", "JC", "10S"]},
        "bad-spellings": {"hand": ["1S", "ZZ", "", "AX", "10"]},
        "bad-types": {"hand": [5, None, True, ["AS"], {"c": "AS"}]},
        "spaces": {"hand": [" AS", "KH ", "Q D", "JC", "10S"]},
        "bad-and-duplicate": {"hand": ["AS", "AS", "1S", "JC", "10S"]},
        "four-bad": {"hand": ["AS", "KH", "QD", "11C"]},
        "unknown-field": {"hand": CURATED["no-ox"], "colour": "red"},
        "hands-instead": {"hands": [CURATED["no-ox"]]},
        "array": [CURATED["no-ox"]],
        "null": None,
        "string": "AS KH QD JC 10S",
        "number": 5,
        "everything-wrong": {"hand": ["AS", "AS"], "decks": 0, "rules": {"ties": 1}, "x": 1},
        "long-token": {"hand": ["A" * 500, "KH", "QD", "JC", "10S"]},
        "script-token": {"hand": ["<script>", "KH", "QD", "JC", "10S"]},
        "unicode-token": {"hand": ["A\u2660\u2660", "K\u2665", "Q\u2666", "J\u2663", "\u00e9"]},
    }
    for name, body in bad_bodies.items():
        yield f"invalid/{name}", post(path, body)
    yield "invalid/unknown-fields", post(path, {"hand": CURATED["no-ox"], "b": 1, "a": 2})
    good = json.dumps({"hand": CURATED["no-ox"]})
    yield "malformed/truncated", raw(path, good[:-3])
    yield "malformed/empty", raw(path, "")
    yield "malformed/duplicate-key", raw(path, '{"hand": ["AS","KH","QD","JC","10S"], "hand": []}')
    yield "malformed/nan", raw(path, '{"hand": ["AS","KH","QD","JC","10S"], "decks": NaN}')
    yield "malformed/infinity", raw(path, '{"hand": ["AS","KH","QD","JC","10S"], "decks": -Infinity}')
    yield "malformed/trailing-comma", raw(path, '{"hand": ["AS","KH","QD","JC","10S"],}')
    yield "malformed/single-quotes", raw(path, "{'hand': ['AS']}")
    yield "malformed/huge-number", raw(path, '{"hand": ["AS","KH","QD","JC","10S"], "decks": ' + "9" * 5000 + "}")
    yield "malformed/deep", raw(path, "[" * 100_000 + "]" * 100_000)
    yield "malformed/surrogate", raw(path, '{"hand": ["\\ud800", "KH", "QD", "JC", "10S"]}')
    yield "malformed/surrogate-key", raw(path, '{"\\udfff": 1, "hand": ["AS", "KH", "QD", "JC", "10S"]}')
    yield "malformed/not-utf8", raw(path, '{"hand": ["AS", "KH", "QD", "JC", "10\udcffS"]}')
    yield "ok/bom", raw(path, "\ufeff" + good)
    yield "ok/charset", raw(path, good, content_type="application/json; charset=utf-8")
    yield "ok/charset-upper", raw(path, good, content_type="application/json; charset=UTF8")
    yield "media/text-plain", raw(path, good, content_type="text/plain")
    yield "media/none", raw(path, good, content_type=None)
    yield "media/form", raw(path, "hand=AS", content_type="application/x-www-form-urlencoded")
    yield "media/latin1", raw(path, good, content_type="application/json; charset=latin-1")
    yield "media/json-patch", raw(path, good, content_type="application/merge-patch+json")
    yield "media/gzip", raw(path, good, headers={"Content-Encoding": "gzip"})
    yield "media/transfer-gzip", raw(path, good, headers={"Transfer-Encoding": "gzip"})
    yield "too-large", raw(path, '{"hand": ["AS","KH","QD","JC","10S"], "pad": "@FILL@"}', fill=1024 * 1024)
    for query in ("profile=nope", "profile=", "profile=STANDARD", "profile=niu-niu&profile=casino", "colour=red",
                  "profile=casino&a=1&b=2", "fields=label&profile=%3Cscript%3E"):
        yield f"query/{query}", post(f"{path}?{query}", {"hand": CURATED["no-ox"]})
    yield "query/bad-and-body-bad", post(f"{path}?profile=nope&x=1", {"hand": ["AS"]})


def batch_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``evaluateHands``: random batches under every profile, fields, decks, invalid hands."""
    path = "/v1/evaluations/batch"
    for profile in PROFILES:
        for i in range(3):
            hands = [[spell(c, rng) for c in h] for h in deal(rng, rng.randint(1, 10))]
            yield f"random/{profile}/{i}", post(_q(path, profile), {"hands": hands})
    yield "curated/standard", post(path, {"hands": list(CURATED.values())})
    yield "curated/niu-niu", post(path + "?profile=niu-niu", {"hands": list(CURATED.values())})
    yield "curated/bull-bull", post(path + "?profile=bull-bull", {"hands": list(CURATED.values())})
    big = [h for _ in range(20) for h in deal(rng, 10)]
    yield "big/200", post(path + "?profile=casino", {"hands": big})
    yield "big/200-fields", post(path + "?profile=casino&fields=label,score", {"hands": big})
    yield "readme/fields", post(path + "?profile=niu-niu&fields=label,score",
                                {"hands": [CURATED["bomb"], CURATED["single-ox-3"]]})
    for fields in ("category", "payout", "payout,label", "ox,hand", "suited,nenku,score"):
        yield f"fields/{fields}", post(f"{path}?profile=liberal&fields={fields}", {"hands": list(CURATED.values())})
    yield "fields/suited-rules", post(f"{path}?fields=payout,suited",
                                      {"hands": list(CURATED.values()), "rules": {"suited_bonus": "ox"}})
    yield "fields/bad", post(f"{path}?fields=label,hands", {"hands": [CURATED["no-ox"]]})
    yield "decks/2", post(path, {"hands": [["AS", "AS", "KH", "KH", "QD"], ["AS", "AS", "2C", "3D", "4H"]], "decks": 2})
    yield "decks/1-repeat", post(path, {"hands": [["AS", "AS", "KH", "KH", "QD"], CURATED["no-ox"]]})
    yield "rules/niu-niu", post(path + "?profile=niu-niu", {"hands": list(CURATED.values()),
                                                            "rules": {"ties": "push", "bomb": False}})
    yield "rules/invalid", post(path, {"hands": [CURATED["no-ox"]], "rules": {"bomb": "on", "payouts": {"x": 1}}})
    mixed = [CURATED["no-ox"], ["AS", "KH"], "AS", None, ["1S", "KH", "QD", "JC", "10S"], ["AS"] * 12,
             ["AS", "AS", "QD", "JC", "10S"], [5, "KH", "QD", "JC", "10S"], [["AS"], "KH", "QD", "JC", "10S"],
             CURATED["bomb"]]
    yield "invalid/mixed", post(path, {"hands": mixed})
    yield "invalid/empty", post(path, {"hands": []})
    yield "invalid/too-many", post(path, {"hands": [[]] * 10_001})
    yield "invalid/not-list", post(path, {"hands": {"a": CURATED["no-ox"]}})
    yield "invalid/missing", post(path, {"hand": CURATED["no-ox"]})
    yield "invalid/unknown", post(path, {"hands": [CURATED["no-ox"]], "fields": ["label"]})
    yield "invalid/decks", post(path, {"hands": [CURATED["no-ox"]], "decks": 10})
    yield "malformed", raw(path, '{"hands": [[')
    yield "media", raw(path, "{}", content_type="text/json")
    yield "query/profile", post(path + "?profile=nope&fields=label", {"hands": [CURATED["no-ox"]]})


def ranking_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``rankHands``: random tables under every profile, ties, ids, fields, invalid bodies."""
    path = "/v1/rankings"
    for profile in PROFILES:
        for i in range(3):
            hands = deal(rng, rng.randint(2, 10))
            entries = [{"id": f"p{j}", "hand": h} if j % 3 else {"hand": h} for j, h in enumerate(hands)]
            yield f"random/{profile}/{i}", post(_q(path, profile), {"hands": entries})
    readme = [{"id": "ann", "hand": ["10S", "9H", "8D", "4C", "4H"]}, {"id": "bo", "hand": ["JS", "QH", "KD", "JC", "QD"]},
              {"id": "cy", "hand": ["10H", "9D", "AD", "7C", "4S"]}]
    yield "readme", post(path, {"hands": readme})
    yield "readme/fields", post(path + "?fields=label", {"hands": readme})
    ties = [{"id": "a", "hand": ["10S", "7H", "3D", "KC", "7D"]}, {"id": "b", "hand": ["10H", "7S", "3C", "KD", "7C"]},
            {"id": "c", "hand": ["JS", "9H", "AD", "5C", "5D"]}, {"id": "d", "hand": ["QS", "8H", "2D", "KS", "QC"]},
            {"id": "e", "hand": ["10D", "7C", "3H", "KH", "7S"]}]
    for profile in PROFILES:
        yield f"ties/{profile}", post(_q(path, profile), {"hands": ties})
    yield "ties/push", post(path, {"hands": ties, "rules": {"ties": "push"}})
    yield "ties/high-card", post(path, {"hands": ties, "rules": {"ties": "high_card"}})
    yield "curated/liberal", post(path + "?profile=liberal", {"hands": [{"hand": h} for h in CURATED.values()]})
    yield "curated/niu-niu", post(path + "?profile=niu-niu&fields=score,label",
                                  {"hands": [{"id": n, "hand": h} for n, h in CURATED.items()]})
    yield "decks/2", post(path, {"hands": [{"hand": ["AS", "AS", "KH", "QD", "JC"]}, {"hand": ["AS", "AS", "KH", "QD", "2C"]}],
                                 "decks": 2})
    yield "max/1000", post(path + "?fields=score", {"hands": [{"hand": h} for _ in range(100) for h in deal(rng, 10)]})
    yield "invalid/one", post(path, {"hands": [{"hand": CURATED["no-ox"]}]})
    yield "invalid/too-many", post(path, {"hands": [{}] * 1001})
    yield "invalid/bare-hands", post(path, {"hands": [CURATED["no-ox"], CURATED["bomb"]]})
    yield "invalid/entries", post(path, {"hands": [
        {"id": "x" * 129, "hand": CURATED["no-ox"]}, {"id": 5, "hand": CURATED["bomb"]}, {"id": None, "hand": CURATED["bomb"]},
        {"hand": ["AS", "AS", "KH", "QD", "JC"]}, {}, {"hand": CURATED["no-ox"], "stake": 5}, None, "AS"]})
    yield "invalid/not-list", post(path, {"hands": "all"})
    yield "invalid/missing", post(path, {})
    yield "invalid/fields", post(path + "?fields=position", {"hands": readme})
    yield "invalid/rules", post(path, {"hands": readme, "rules": {"ties": "dealer_wins"}})
    yield "id/ok-128", post(path, {"hands": [{"id": "x" * 128, "hand": CURATED["no-ox"]}, {"id": "", "hand": CURATED["bomb"]}]})


def _table(rng: random.Random, players: int, decks: int = 1, bets: bool = True) -> dict[str, Any]:
    hands = deal(rng, players + 1, decks)
    seats: list[dict[str, Any]] = []
    for i, hand in enumerate(hands[1:]):
        seat: dict[str, Any] = {"id": f"seat-{i + 1}", "hand": hand, "stake": rng.choice((1, 19, 100, 250, 1000, 10**12))}
        if bets:
            bet = rng.choice(("double", "equal", None))
            if bet is not None:
                seat["bet"] = bet
        seats.append(seat)
    return {"dealer": {"hand": hands[0]}, "players": seats}


def settlement_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``settleRound``: random tables under every profile, bets, commissions, decks, invalid tables."""
    path = "/v1/settlements"
    for profile in PROFILES:
        for i in range(5):
            yield f"random/{profile}/{i}", post(_q(path, profile), _table(rng, rng.randint(1, 9)))
    yield "readme/standard", post(path, {"dealer": {"hand": ["3S", "6H", "8D", "4C", "8H"]}, "players": [
        {"id": "seat-1", "hand": ["10H", "9S", "8S", "4D", "4H"], "stake": 250},
        {"id": "seat-2", "hand": ["JS", "QH", "KD", "JC", "QD"], "stake": 100}]})
    yield "readme/bull-bull", post(path + "?profile=bull-bull", {"dealer": {"hand": ["KH", "QS", "10D", "4C", "AC"]}, "players": [
        {"id": "p1", "hand": ["JS", "9H", "AD", "5C", "5D"], "stake": 1000, "bet": "double"},
        {"id": "p2", "hand": ["7S", "3H", "JH", "8C", "10C"], "stake": 1000, "bet": "equal"}]})
    yield "equal-19", post(path + "?profile=bull-bull", {"dealer": {"hand": ["10S", "9H", "8D", "4C", "4H"]}, "players": [
        {"hand": ["JS", "9C", "AD", "5C", "5D"], "stake": 19, "bet": "equal"}]})
    yield "five-dukes-push", post(path, {"dealer": {"hand": ["JS", "QH", "KD", "JC", "QD"]}, "players": [
        {"hand": ["JH", "QS", "KS", "KH", "QC"], "stake": 100}, {"hand": ["JH", "QS", "KS", "KH", "QC"], "stake": 100, "bet": "equal"}],
        "decks": 2})
    for i, rules in enumerate(({"commission_bps": 500, "dealer_commission_bps": 500}, {"dealer_commission_bps": 10000},
                               {"commission_bps": 10000}, {"ties": "push", "commission_bps": 1},
                               {"suited_bonus": "hand", "suited_multiplier": 5}, {"ties": "high_card"},
                               {"payouts": {"no_ox": 1, "single_ox_9": 7}})):
        yield f"rules/{i}", post(path, _table(rng, 6) | {"rules": rules})
    for decks in (2, 3, 8):
        yield f"decks/{decks}", post(path, _table(rng, 5 * decks, decks) | {"decks": decks})
    yield "decks/8-full", post(path + "?profile=niu-niu", _table(rng, 82, 8) | {"decks": 8})
    dup = _table(rng, 3)
    dup["players"][1]["hand"][0] = dup["dealer"]["hand"][0]
    yield "invalid/repeat-across", post(path, dup)
    yield "ok/repeat-across-2-decks", post(path, dup | {"decks": 2})
    yield "invalid/ten-players", post(path, _table(rng, 9) | {"players": _table(rng, 9)["players"] + [
        {"hand": ["AS", "KH", "QD", "JC", "10S"], "stake": 1}]})
    yield "invalid/no-players", post(path, {"dealer": {"hand": CURATED["no-ox"]}, "players": []})
    yield "invalid/missing", post(path, {})
    yield "invalid/players-missing", post(path, {"dealer": {"hand": CURATED["no-ox"]}})
    yield "invalid/dealer-bad", post(path, {"dealer": {"hand": ["AS", "AS", "1C", "QD"], "stake": 5}, "players": [
        {"hand": CURATED["bomb"], "stake": 1}]})
    yield "invalid/dealer-not-object", post(path, {"dealer": CURATED["no-ox"], "players": [{"hand": CURATED["bomb"], "stake": 1}]})
    seats = [{"hand": CURATED["bomb"], "stake": 0}, {"hand": CURATED["five-small"], "stake": 10**12 + 1},
             {"hand": CURATED["single-ox-3"], "stake": 1.5}, {"hand": CURATED["ngau-tonku"], "stake": "100"},
             {"hand": CURATED["double-ox-a"], "stake": 100, "bet": "triple"}, {"hand": CURATED["tens"]},
             {"stake": 5}, {"hand": CURATED["no-ox"], "stake": 5, "bet": None, "id": 7, "colour": "red"}]
    yield "invalid/seats", post(path, {"dealer": {"hand": CURATED["three-six"]}, "players": seats, "decks": 2})
    yield "invalid/players-not-list", post(path, {"dealer": {"hand": CURATED["no-ox"]}, "players": {"a": 1}})
    overflow = _table(rng, 9)
    for seat in overflow["players"]:
        seat["stake"], seat["bet"] = 10**12, "double"
    yield "overflow/ok", post(path, overflow | {"rules": {"payouts": {"five_dukes": 1000}}})
    yield "overflow/refused", post(path, overflow | {"rules": {"payouts": {"five_dukes": 1000}, "suited_bonus": "hand",
                                                               "suited_multiplier": 10}})
    yield "invalid/rules", post(path, _table(rng, 2) | {"rules": {"commission_bps": 10001}})
    table = _table(rng, 9)
    yield "max-stake", post(path + "?profile=liberal", table | {"players": [
        seat | {"stake": 10**12, "bet": "double"} for seat in table["players"]]})


def exposure_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``tableExposures``: seats under every profile, commissions, bounds, invalid seats."""
    path = "/v1/exposures"
    for profile in PROFILES:
        seats = [{"id": f"s{i}", "stake": rng.choice((1, 19, 1000, 10**12)), "bet": rng.choice(("double", "equal"))}
                 for i in range(rng.randint(1, 9))]
        yield f"random/{profile}", post(_q(path, profile), {"players": seats})
        yield f"no-ids/{profile}", post(_q(path, profile), {"players": [{"stake": 100}, {"stake": 7, "bet": "equal"}]})
    yield "readme", post(path + "?profile=bull-bull", {"players": [{"id": "p1", "stake": 1000, "bet": "double"},
                                                                  {"id": "p2", "stake": 1000, "bet": "equal"}]})
    for i, rules in enumerate(({"commission_bps": 333, "dealer_commission_bps": 777}, {"suited_bonus": "ox"},
                               {"payouts": {"single_ox_0": 9}}, {"five_dukes": False, "five_small": False})):
        yield f"rules/{i}", post(path, {"players": [{"stake": 999, "bet": "double"}, {"stake": 999, "bet": "equal"}],
                                        "rules": rules})
    yield "decks/8-82", post(path, {"players": [{"stake": 10**12}] * 82, "decks": 8})
    yield "invalid/decks/1-10", post(path, {"players": [{"stake": 1}] * 10})
    yield "invalid/decks/8-83", post(path, {"players": [{"stake": 1}] * 83, "decks": 8})
    yield "overflow", post(path, {"players": [{"stake": 10**12}] * 9,
                                  "rules": {"payouts": {"bomb": 1000}, "bomb": True, "suited_bonus": "hand",
                                            "suited_multiplier": 10}})
    yield "invalid/seats", post(path, {"players": [{"stake": 0}, {"stake": -5, "bet": "triple"}, {}, {"stake": 5, "hand": ["AS"]},
                                                   {"stake": True}, None]})
    yield "invalid/empty", post(path, {"players": []})
    yield "invalid/missing", post(path, {})
    yield "invalid/dealer", post(path, {"players": [{"stake": 1}], "dealer": {"hand": CURATED["no-ox"]}})
    yield "invalid/profile", post(path + "?profile=bull", {"players": [{"stake": 1}]})
    yield "invalid/fields", post(path + "?fields=label", {"players": [{"stake": 1}]})


def profile_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``listProfiles`` and ``getProfile``."""
    yield "list", get("/v1/profiles")
    yield "list/query", get("/v1/profiles?profile=standard")
    for profile in PROFILES:
        yield f"get/{profile}", get(f"/v1/profiles/{profile}")
    for name in ("nope", "Standard", "x" * 65, "%3Cscript%3E", "niu%20niu", "standard.json"):
        yield f"get/unknown/{name[:20]}", get(f"/v1/profiles/{name}")
    yield "get/query", get("/v1/profiles/standard?verbose=1")
    yield "list/trailing-slash", get("/v1/profiles/")


def odds_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``oddsAgainstDealer``: 5, 4 and 3 known cards, dealer role, dead cards, decks, overrides."""
    path = "/v1/odds"
    for profile in PROFILES:
        hand = deal(rng, 1)[0]
        yield f"five/{profile}", post(_q(path, profile), {"hand": hand})
    yield "five/curated/bomb", post(path + "?profile=liberal", {"hand": CURATED["bomb"]})
    yield "five/curated/five-dukes", post(path, {"hand": CURATED["five-dukes"]})
    yield "five/readme", post(path, {"hand": ["10S", "7H", "3D", "KC", "7D"], "dead": ["AS", "KH"], "decks": 1})
    hands = deal(rng, 3)
    yield "five/dead-many", post(path, {"hand": hands[0], "dead": hands[1] + hands[2]})
    yield "five/decks-2", post(path, {"hand": ["AS", "AS", "KD", "QC", "JH"], "decks": 2})
    yield "five/bull-bull-dead", post(path + "?profile=bull-bull", {"hand": CURATED["single-ox-0"], "dead": ["2C", "3C"]})
    yield "four", post(path, {"hand": ["AS", "KH", "10D", "4C"]})
    yield "four/niu-niu", post(path + "?profile=niu-niu", {"hand": ["5S", "5H", "JD", "QC"]})
    yield "four/dead", post(path + "?profile=casino", {"hand": ["AS", "KH", "10D", "4C"], "dead": ["6S", "6H"]})
    yield "three", post(path, {"hand": ["AS", "KH", "10D"]})
    yield "three/liberal", post(path + "?profile=liberal", {"hand": ["3S", "6H", "9D"]})
    yield "dealer/readme", post(path, {"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": 3})
    yield "dealer/five", post(path, {"hand": CURATED["double-ox-8"], "role": "dealer"})
    yield "dealer/five-opponents", post(path + "?profile=niu-niu", {"hand": CURATED["double-ox-8"], "role": "dealer",
                                                                    "opponents": 9})
    yield "dealer/four", post(path + "?profile=tens-are-dukes", {"hand": ["10S", "JH", "QD", "KC"], "role": "dealer",
                                                                 "opponents": 2})
    yield "player/explicit", post(path, {"hand": CURATED["no-ox"], "role": "player"})
    yield "rules/five", post(path, {"hand": CURATED["three-six"], "rules": {"three_six_swap": False}})
    yield "rules/four-push", post(path, {"hand": ["AS", "KH", "10D", "4C"], "rules": {"ties": "push"}})
    yield "rules/commission-five", post(path, {"hand": CURATED["no-ox"], "rules": {"commission_bps": 500}})
    yield "commission/four", post(path + "?profile=bull-bull", {"hand": ["AS", "KH", "10D", "4C"]})
    yield "commission/dealer", post(path + "?profile=bull-bull", {"hand": CURATED["no-ox"], "role": "dealer"})
    yield "invalid/dealer-commission", post(path, {"hand": ["AS", "KH", "10D", "4C"], "role": "dealer",
                                                   "rules": {"dealer_commission_bps": 500}})
    yield "invalid/two-known", post(path, {"hand": ["AS", "KH"]})
    yield "invalid/six-known", post(path, {"hand": ["AS", "KH", "QD", "JC", "10S", "9S"]})
    yield "invalid/duplicate-dead", post(path, {"hand": CURATED["no-ox"], "dead": ["10S", "AS", "AS"]})
    yield "invalid/duplicate-hand", post(path, {"hand": ["AS", "AS", "QD", "JC", "10S"], "dead": ["as"]})
    yield "invalid/opponents-player", post(path, {"hand": CURATED["no-ox"], "opponents": 2})
    yield "invalid/opponents-many", post(path, {"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": 10})
    yield "invalid/opponents-type", post(path, {"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": "2"})
    yield "invalid/opponents-zero", post(path, {"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": 0})
    yield "invalid/role", post(path, {"hand": CURATED["no-ox"], "role": "banker"})
    yield "invalid/too-many-dead", post(path, {"hand": CURATED["no-ox"], "dead": [c for c in DECK if c not in CURATED["no-ox"]]})
    yield "invalid/dead-over-max", post(path, {"hand": CURATED["no-ox"], "dead": ["AS"] * 407})
    yield "invalid/dead-bad", post(path, {"hand": CURATED["no-ox"], "dead": ["1S", 5, None]})
    yield "invalid/dead-not-list", post(path, {"hand": CURATED["no-ox"], "dead": "AS"})
    yield "invalid/missing", post(path, {"dead": []})
    yield "invalid/unknown", post(path, {"hand": CURATED["no-ox"], "bet": "equal"})
    yield "invalid/decks", post(path, {"hand": CURATED["no-ox"], "decks": 9})
    yield "invalid/rules", post(path, {"hand": CURATED["no-ox"], "rules": {"ties": "x"}})
    yield "invalid/profile", post(path + "?profile=x", {"hand": CURATED["no-ox"]})
    yield "invalid/fields", post(path + "?fields=label", {"hand": CURATED["no-ox"]})
    # Rules no other request uses, so that no cached table makes the work cheap (and allowed).
    yield "disabled/rules", post(path, {"hand": CURATED["no-ox"], "rules": {"five_small_max_points": 17}}, app="disabled")
    yield "disabled/profile", post(path, {"hand": CURATED["no-ox"]}, app="disabled")


def analysis_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``getProfileDistribution``, ``getProfileHouseEdge``, ``analyseDistribution``, ``analyseHouseEdge``."""
    for profile in PROFILES:
        yield f"distribution/{profile}", get(f"/v1/profiles/{profile}/distribution")
        yield f"house-edge/{profile}", get(f"/v1/profiles/{profile}/house-edge")
        yield f"house-edge/{profile}/double", get(f"/v1/profiles/{profile}/house-edge?bet=double")
        yield f"house-edge/{profile}/equal", get(f"/v1/profiles/{profile}/house-edge?bet=equal")
    yield "distribution/unknown", get("/v1/profiles/nope/distribution")
    yield "distribution/query", get("/v1/profiles/standard/distribution?bet=equal")
    yield "house-edge/unknown", get("/v1/profiles/nope/house-edge")
    yield "house-edge/unknown-bad-bet", get("/v1/profiles/nope/house-edge?bet=x")
    yield "house-edge/bad-bet", get("/v1/profiles/standard/house-edge?bet=triple")
    yield "house-edge/bet-twice", get("/v1/profiles/standard/house-edge?bet=equal&bet=double")
    yield "house-edge/bet-empty", get("/v1/profiles/standard/house-edge?bet=")
    yield "house-edge/unknown-param", get("/v1/profiles/standard/house-edge?bet=equal&profile=casino")
    path = "/v1/analyses/distribution"
    yield "analyse-distribution/empty", post(path, {})
    yield "analyse-distribution/niu-niu", post(path + "?profile=niu-niu", {})
    yield "analyse-distribution/rules-profile", post(path + "?profile=casino", {"rules": {}})
    yield "analyse-distribution/commission", post(path, {"rules": {"commission_bps": 500}})
    yield "analyse-distribution/custom", post(path, {"rules": {"three_six_swap": False}})
    yield "analyse-distribution/invalid-decks", post(path, {"decks": 2})
    yield "analyse-distribution/invalid-rules", post(path, {"rules": {"three_six_swap": "no", "x": 1}})
    yield "analyse-distribution/invalid-body", post(path, [])
    yield "analyse-distribution/invalid-profile", post(path + "?profile=nope", {})
    yield "analyse-distribution/media", raw(path, "{}", content_type="text/plain")
    yield "analyse-distribution/disabled", post(path, {"rules": {"five_small_max_points": 11}}, app="disabled")
    yield "analyse-distribution/disabled-profile", post(path + "?profile=liberal", {}, app="disabled")
    path = "/v1/analyses/house-edge"
    yield "analyse-house-edge/empty", post(path, {})
    yield "analyse-house-edge/equal", post(path + "?profile=bull-bull", {"bet": "equal"})
    yield "analyse-house-edge/double", post(path + "?profile=tens-are-dukes", {"bet": "double"})
    yield "analyse-house-edge/readme", post(path, {"rules": {"ties": "push", "commission_bps": 500}, "bet": "equal"})
    yield "analyse-house-edge/custom-double", post(path + "?profile=casino", {"rules": {"bomb": True}})
    yield "analyse-house-edge/refused-combination", post(path + "?profile=niu-niu", {
        "rules": {"commission_bps": 500, "suited_bonus": "hand", "ties": "high_card"}, "bet": "double"})
    yield "analyse-house-edge/invalid-bet", post(path, {"bet": "triple"})
    yield "analyse-house-edge/invalid-decks", post(path, {"decks": 1})
    yield "analyse-house-edge/invalid-unknown", post(path, {"hand": CURATED["no-ox"]})
    yield "analyse-house-edge/disabled", post(path, {"rules": {"five_small_max_points": 13}}, app="disabled")
    yield "disabled/profile-distribution", get("/v1/profiles/standard/distribution", app="disabled")
    yield "disabled/profile-house-edge", get("/v1/profiles/casino/house-edge?bet=equal", app="disabled")


def operation_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """health, readiness, metrics, openapiDocument, home, docsPage, docsAsset, routing errors,
    request ids."""
    yield "health", get("/healthz")
    yield "health/query", get("/healthz?cache=1")
    yield "readiness", get("/readyz")
    yield "readiness/query", get("/readyz?x=1&y=2")
    yield "metrics", get("/metrics", only_status=True)
    yield "metrics/query", get("/metrics?x=1", only_status=True)
    yield "openapi", get("/openapi.yaml")
    yield "openapi/query", get("/openapi.yaml?format=json")
    yield "home", get("/")
    yield "home/query", get("/?x=1")
    yield "docs", get("/docs")
    yield "docs/query", get("/docs?url=x")
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "index.css"):
        yield f"docs/{asset}", get(f"/docs/{asset}")
    yield "docs/unknown-asset", get("/docs/swagger-ui.js")
    yield "docs/asset-query", get("/docs/index.css?v=1")
    yield "docs/traversal", get("/docs/..%2Fopenapi.yaml")
    yield "404/path", get("/v1/nope")
    yield "404/v2", post("/v2/evaluations", {"hand": CURATED["no-ox"]})
    yield "404/double-slash", post("/v1//evaluations", {"hand": CURATED["no-ox"]})
    yield "404/trailing-slash", post("/v1/evaluations/", {"hand": CURATED["no-ox"]})
    yield "405/get-evaluations", get("/v1/evaluations")
    yield "405/post-profiles", post("/v1/profiles", {})
    yield "405/put-settlements", {"method": "PUT", "path": "/v1/settlements", "json": {}}
    yield "405/delete-profile", {"method": "DELETE", "path": "/v1/profiles/standard"}
    yield "405/post-healthz", post("/healthz", {})
    yield "405/post-docs", post("/docs", {})
    yield "head/healthz", {"method": "HEAD", "path": "/healthz"}
    yield "head/profiles", {"method": "HEAD", "path": "/v1/profiles"}
    yield "options/evaluations", {"method": "OPTIONS", "path": "/v1/evaluations"}
    yield "cors-off/origin", post("/v1/evaluations", {"hand": CURATED["no-ox"]}, headers={"Origin": "https://game.example"})
    yield "cors-off/preflight", {"method": "OPTIONS", "path": "/v1/evaluations", "headers": {
        "Origin": "https://game.example", "Access-Control-Request-Method": "POST"}}
    # Request ids: a valid one is echoed (every other entry sends one); a missing or invalid
    # one is replaced by a generated id (compared as GENERATED_ID).
    yield "request-id/missing", get("/v1/profiles/standard", headers={})
    yield "request-id/missing-problem", post("/v1/evaluations", {"hand": ["AS"]}, headers={})
    yield "request-id/invalid", post("/v1/evaluations", {"hand": ["AS"]}, headers={"X-Request-ID": "bad id!"})
    yield "request-id/too-long", get("/healthz", headers={"X-Request-ID": "a" * 129})
    yield "request-id/max", post("/v1/evaluations", {"hand": ["AS"]}, headers={"X-Request-ID": "A-z.0_9:" + "x" * 120})
    yield "operator/list", get("/v1/profiles", app="operator")
    yield "operator/get", get("/v1/profiles/bull-push", app="operator")
    yield "operator/evaluate", post("/v1/evaluations?profile=house-no-tonku", {"hand": CURATED["ngau-tonku"]}, app="operator")
    yield "operator/rank", post("/v1/rankings?profile=bull-push", {"hands": [{"hand": CURATED["single-ox-0"]},
                                                                           {"hand": ["10H", "7S", "3C", "KD", "7C"]}]},
                                app="operator")
    yield "operator/settle", post("/v1/settlements?profile=bull-push", _table(rng, 4), app="operator")
    yield "operator/exposure", post("/v1/exposures?profile=house-no-tonku", {"players": [{"stake": 10}]}, app="operator")
    yield "operator/odds", post("/v1/odds?profile=house-no-tonku", {"hand": CURATED["no-ox"]}, app="operator")
    yield "operator/distribution", get("/v1/profiles/house-no-tonku/distribution", app="operator")
    yield "operator/house-edge", get("/v1/profiles/bull-push/house-edge?bet=equal", app="operator")
    yield "operator/openapi", get("/openapi.yaml", app="operator")
    yield "operator/unknown-profile", post("/v1/evaluations?profile=house", {"hand": CURATED["no-ox"]}, app="operator")


#: RULES.md section 8's worked deal.
SECTION_8_SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
SECTION_8_COMMITMENT = "sha256:630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


def deal_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``POST /v1/deals`` and ``/v1/deals/verify`` (RULES.md 9.1), valid and invalid."""
    seeds: dict[str, Any] = {"server_seed": SECTION_8_SEED, "client_seed": "player-1"}
    yield "deal/section-8/nonce-0", post("/v1/deals", seeds | {"nonce": 0, "hands": 4})
    yield "deal/section-8/nonce-1", post("/v1/deals", seeds | {"nonce": 1, "hands": 4})
    for n in range(4):
        seed = "".join(rng.choice("0123456789abcdefABCDEF") for _ in range(2 * rng.randint(16, 64)))
        decks = rng.randint(1, 8)
        body = {"server_seed": seed, "client_seed": f"player-{n}-{'é' * n}", "nonce": rng.randint(0, 2**53 - 1),
                "decks": decks, "hands": rng.randint(2, 52 * decks // 5)}
        yield f"deal/random/{n}", post("/v1/deals", body)
    yield "deal/most-hands", post("/v1/deals", seeds | {"nonce": 7, "decks": 8, "hands": 83})
    changes: list[tuple[str, dict[str, Any]]] = [("seed-odd", {"server_seed": "0" * 33}), ("seed-not-hex", {"server_seed": "0g" * 16}),
                         ("seed-short", {"server_seed": "00" * 15}), ("seed-long", {"server_seed": "00" * 65}),
                         ("seed-number", {"server_seed": 12}), ("client-empty", {"client_seed": ""}),
                         ("client-long", {"client_seed": "☃" * 257}), ("nonce-past-2-53", {"nonce": 2**53}),
                         ("nonce-negative", {"nonce": -1}), ("nonce-float", {"nonce": 1.0}),
                         ("hands-over-decks", {"hands": 11}), ("hands-one", {"hands": 1}),
                         ("decks-9", {"decks": 9, "hands": 2}), ("unknown-field", {"seed": "x"})]
    for name, change in changes:
        yield f"deal/invalid/{name}", post("/v1/deals", seeds | {"nonce": 0, "hands": 4} | change)
    yield "deal/invalid/missing", post("/v1/deals", {})
    yield "deal/invalid/query", post("/v1/deals?nonce=1", seeds | {"nonce": 0, "hands": 4})
    dealt = [["9D", "7H", "5S", "6C", "10D"], ["4S", "10H", "10S", "10C", "AS"], ["KS", "6D", "8C", "QC", "4H"],
             ["4C", "7S", "4D", "2D", "5H"]]
    verify = seeds | {"nonce": 0, "commitment": SECTION_8_COMMITMENT}
    yield "verify/section-8", post("/v1/deals/verify", verify | {"hands": dealt})
    yield "verify/partial", post("/v1/deals/verify", verify | {"hands": [["9d", "7h", "5s", "6c", "td"], None, None,
                                                                         None]})
    yield "verify/wrong-hand", post("/v1/deals/verify", verify | {"hands": [dealt[1], dealt[0], None, None]})
    yield "verify/wrong-order", post("/v1/deals/verify", verify | {"hands": [dealt[0][::-1], None, None, None]})
    yield "verify/wrong-commitment", post("/v1/deals/verify", verify | {"commitment": "sha256:" + "0" * 64,
                                                                        "hands": dealt})
    yield "verify/commitment-prefix", post("/v1/deals/verify", verify | {"commitment": "SHA256:" + "0" * 64,
                                                                         "hands": dealt})
    yield "verify/upper-case-commitment", post("/v1/deals/verify", verify | {"commitment": SECTION_8_COMMITMENT.upper()
                                                                             .replace("SHA256", "sha256"),
                                                                             "hands": dealt})
    yield "verify/other-nonce", post("/v1/deals/verify", verify | {"nonce": 1, "hands": dealt})
    yield "verify/invalid", post("/v1/deals/verify", seeds | {"nonce": 0, "commitment": "sha256:xyz",
                                                              "hands": [["AS", "1S", "2S", "3S", "4S"], ["AS"], 3]})
    yield "verify/too-many-hands", post("/v1/deals/verify", verify | {"hands": [None] * 11})


def receipt_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``?receipt=`` on the operations that sign (RULES.md 9.2) and elsewhere, and the JWK Set."""
    table = _table(rng, 3)
    for app in ("receipts", "default"):
        yield f"{app}/evaluate", post("/v1/evaluations?receipt=true", {"hand": CURATED["single-ox-0"]}, app=app)
        yield f"{app}/rank", post("/v1/rankings?receipt=true&profile=niu-niu&fields=label",
                                  {"hands": [{"id": "a", "hand": CURATED["bomb"]}, {"hand": CURATED["no-ox"]}]},
                                  app=app)
        yield f"{app}/settle", post("/v1/settlements?receipt=true", table, app=app)
        yield f"{app}/settle-rules", post("/v1/settlements?receipt=true&profile=bull-bull",
                                          table | {"rules": {"commission_bps": 250}}, app=app)
        yield f"{app}/jwks", get("/.well-known/jwks.json", app=app)
    yield "receipts/false", post("/v1/evaluations?receipt=false", {"hand": CURATED["five-dukes"]}, app="receipts")
    yield "receipts/invalid-value", post("/v1/evaluations?receipt=yes", {"hand": CURATED["five-dukes"]}, app="receipts")
    yield "receipts/twice", post("/v1/settlements?receipt=true&receipt=true", table, app="receipts")
    yield "receipts/bad-and-body-bad", post("/v1/evaluations?receipt=1&x=2", {"hand": ["AS"]}, app="receipts")
    yield "receipts/invalid-body", post("/v1/evaluations?receipt=true", {"hand": ["AS"]}, app="receipts")
    yield "receipts/batch", post("/v1/evaluations/batch?receipt=true", {"hands": [CURATED["no-ox"]]}, app="receipts")
    yield "receipts/exposures", post("/v1/exposures?receipt=true", {"players": [{"stake": 10}]}, app="receipts")
    yield "receipts/profiles", get("/v1/profiles?receipt=true", app="receipts")
    yield "receipts/jwks-query", get("/.well-known/jwks.json?receipt=true", app="receipts")

#: RULES.md section 8's poker-shaped hands (issue 24), and the hands of its override rows.
SHAPES: dict[str, list[str]] = {
    "full-house-7": ["7S", "7H", "7D", "9C", "9H"],
    "flush-low-straight": ["2S", "3S", "4S", "5S", "6S"],
    "straight-k": ["9S", "10H", "JD", "QC", "KH"],
    "straight-5": ["AS", "2H", "3D", "4C", "5H"],
    "flush": ["2H", "5H", "9H", "JH", "KH"],
    "full-house-4": ["4D", "4S", "4C", "KH", "KD"],
    "full-house-j": ["JS", "JH", "JD", "QC", "QH"],
    "five-small-full-house": ["AS", "AH", "AC", "2D", "2H"],
    "ace-high-run": ["10S", "JH", "QD", "KC", "AH"],
    "straight-flush-a": ["10H", "JH", "QH", "KH", "AH"],
    "straight-flush-5": ["AS", "2S", "3S", "4S", "5S"],
}
#: The override of RULES.md section 8 that turns on every shape on niu-niu-plus.
EVERY_SHAPE = {"straight_flush": True, "dragon": True, "straight_ace_high": True,
               "ranking": ["five_small", "bomb", "straight_flush", "dragon", "full_house", "flush", "five_dukes",
                           "straight", "single_ox", "no_ox"]}


def shape_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """Issue 24: the poker-shaped categories, the new knobs, label keys and languages."""
    path = "/v1/evaluations"
    for name, hand in SHAPES.items():
        for profile in ("niu-niu-plus", "niu-niu", "standard"):
            yield f"evaluate/{name}/{profile}", post(_q(path, profile), {"hand": hand})
        yield f"evaluate/{name}/every-shape", post(_q(path, "niu-niu-plus"), {"hand": hand, "rules": EVERY_SHAPE})
    yield "evaluate/standard-full-house", post(path, {"hand": SHAPES["full-house-7"], "rules": {"full_house": True}})
    yield "evaluate/bull-bull/five-small", post(_q(path, "bull-bull"), {"hand": ["AS", "AH", "2C", "2D", "4H"]})
    yield "evaluate/bull-bull/four-dukes", post(_q(path, "bull-bull"), {"hand": ["10S", "JH", "QC", "QD", "KH"]})
    yield "evaluate/small-to-five", post(path, {"hand": ["5S", "AH", "AC", "2D", "AD"], "rules": {
        "five_small_max_rank": 5, "five_small_max_points": 10}})
    yield "evaluate/small-any-rank", post(path, {"hand": ["AS", "AH", "AC", "2D", "AD"], "rules": {
        "five_small_max_rank": None, "five_small_max_points": 6}})
    yield "evaluate/bomb-high-card", post(path, {"hand": CURATED["bomb"], "rules": {"bomb": True,
                                                                                 "bomb_order": "high_card"}})
    for name, hand in SHAPES.items():
        yield f"evaluate/{name}/zh-Hans", post(_q(path, "niu-niu-plus") + "&lang=zh-Hans", {"hand": hand})
    for name in ("single-ox-0", "five-dukes", "bomb", "double-ox-k", "ngau-tonku"):
        yield f"evaluate/{name}/zh-Hant", post(_q(path, "niu-niu") + "&lang=zh-Hant", {"hand": CURATED[name]})
    one = {"hand": CURATED["double-ox-8"]}
    for i, header in enumerate(["zh-CN", "zh-TW", "zh-HK, en;q=0.5", "fr, zh;q=0.1", "fr", "*", "en-GB", "zh-Hant-TW",
                                "ZH-hans", "de;q=0, zh-Hans;q=0"]):
        yield f"accept-language/{i}", post(path, one, headers={"X-Request-ID": f"golden-lang-{i}",
                                                                 "Accept-Language": header})
    yield "accept-language/query-wins", post(path + "?lang=en", one, headers={
        "X-Request-ID": "golden-lang-query", "Accept-Language": "zh-Hant"})
    for i, lang in enumerate(["fr", "", "zh", "zh-hans", "EN", "zh-Hans,en"]):
        yield f"lang/{i}", post(path + f"?lang={lang}", one)
    yield "lang/twice", post(path + "?lang=en&lang=zh-Hans", one)
    yield "lang/fields", post(path + "?lang=zh-Hans&fields=label,label_key", one)
    yield "lang/fields-key-only", post(path + "?lang=zh-Hans&fields=label_key,score", one)
    yield "lang/invalid-body", post(path + "?lang=xx", {"hand": ["AS"]})
    hands = deal(rng, 10, 2)
    hands[:4] = [SHAPES["flush"], SHAPES["straight-k"], SHAPES["full-house-4"], SHAPES["straight-flush-5"]]
    yield "batch/niu-niu-plus", post("/v1/evaluations/batch?profile=niu-niu-plus", {"hands": hands})
    yield "batch/niu-niu-plus/zh-Hant", post("/v1/evaluations/batch?profile=niu-niu-plus&lang=zh-Hant&fields=label",
                                             {"hands": hands})
    yield "batch/every-shape", post("/v1/evaluations/batch?profile=niu-niu-plus", {"hands": hands, "rules": EVERY_SHAPE})
    entries = [{"id": f"h{i}", "hand": h} for i, h in enumerate(hands)]
    yield "ranking/niu-niu-plus", post("/v1/rankings?profile=niu-niu-plus", {"hands": entries})
    yield "ranking/every-shape/zh-Hans", post("/v1/rankings?profile=niu-niu-plus&lang=zh-Hans",
                                              {"hands": entries, "rules": EVERY_SHAPE})
    table = {"dealer": {"hand": SHAPES["straight-k"]}, "decks": 2,
             "players": [{"id": f"p{i}", "hand": h, "stake": 100 * (i + 1)} for i, h in enumerate(hands[2:9])]}
    yield "settlement/niu-niu-plus", post("/v1/settlements?profile=niu-niu-plus", table)
    yield "settlement/niu-niu-plus/zh-Hans", post("/v1/settlements?profile=niu-niu-plus&lang=zh-Hans", table)
    yield "settlement/five-dukes-no-push", post("/v1/settlements?profile=niu-niu", {
        "dealer": {"hand": ["JS", "QH", "KD", "JC", "QD"]}, "decks": 2, "rules": {"five_dukes_push": False},
        "players": [{"hand": ["JH", "QS", "KC", "JD", "KH"], "stake": 10}]})
    yield "exposures/niu-niu-plus", post("/v1/exposures?profile=niu-niu-plus", {"players": [{"stake": 10}]})
    yield "profile/niu-niu-plus", get("/v1/profiles/niu-niu-plus")
    yield "profile/bull-bull", get("/v1/profiles/bull-bull")
    yield "distribution/niu-niu-plus", get("/v1/profiles/niu-niu-plus/distribution")
    yield "distribution/niu-niu-plus/zh-Hans", get("/v1/profiles/niu-niu-plus/distribution?lang=zh-Hans")
    yield "distribution/bull-bull", get("/v1/profiles/bull-bull/distribution")
    yield "distribution/lang-bad", get("/v1/profiles/standard/distribution?lang=fr")
    yield "house-edge/niu-niu-plus", get("/v1/profiles/niu-niu-plus/house-edge")
    yield "house-edge/bull-bull/equal", get("/v1/profiles/bull-bull/house-edge?bet=equal")
    yield "analyse-distribution/every-shape", post("/v1/analyses/distribution?profile=niu-niu-plus&lang=zh-Hant",
                                                   {"rules": EVERY_SHAPE})
    yield "analyse-house-edge/shapes-dealer", post("/v1/analyses/house-edge", {"rules": {
        "straight": True, "flush": True, "full_house": True}})
    yield "odds/niu-niu-plus/four", post("/v1/odds?profile=niu-niu-plus", {"hand": ["2S", "3S", "4S", "5S"]})
    yield "odds/niu-niu-plus/five", post("/v1/odds?profile=niu-niu-plus&lang=zh-Hans", {"hand": SHAPES["straight-k"]})
    yield "odds/niu-niu-plus/three", post("/v1/odds?profile=niu-niu-plus", {"hand": ["7S", "7H", "7D"]})
    invalid = [
        {"straight": "yes"}, {"straight_ace_high": 1}, {"flush": None}, {"full_house": "true"},
        {"straight_flush": 0}, {"dragon": []}, {"bomb_order": "suit"}, {"five_dukes_push": "no"},
        {"five_small_max_rank": 3}, {"five_small_max_rank": 6}, {"five_small_max_rank": "5"},
        {"five_small_max_rank": None}, {"payouts": {"straight": -1, "full_house_7": 2}},
        {"straight": True, "ranking": ["five_dukes", "five_small", "bomb", "four_dukes", "ngau_tonku", "double_ox",
                                       "single_ox", "no_ox"]},
        {"ranking": ["dragon", "joker", "single_ox", "no_ox"]},
    ]
    for i, rules in enumerate(invalid):
        yield f"invalid/{i}", post(path, {"hand": CURATED["no-ox"], "rules": rules})



#: RULES.md section 8's bid-for-banker table (``niu-niu``, two decks, base 100, bid 3).
BANKER_DEALER = ["KH", "QS", "10D", "3C", "4C"]
BANKER_PLAYERS = [("p1", ["JS", "9H", "AD", "5C", "5D"]), ("p2", ["9S", "9D", "KS", "2H", "4D"]),
                  ("p3", ["KH", "QS", "10D", "3C", "4C"]), ("p4", ["7S", "3H", "JH", "8C", "10C"])]
#: RULES.md section 8's showdown (``niu-niu``, base 10).
SHOWDOWN_PLAYERS = [("s1", ["JS", "9H", "AD", "5C", "5D"], 2), ("s2", ["7S", "3H", "JH", "8C", "10C"], 1),
                    ("s3", ["9S", "9D", "KS", "2H", "4D"], 4), ("s4", ["2S", "5H", "8D", "7C", "QH"], 3)]


def _banker(balances: list[Any] | None = None, dealer_balance: int | None = None) -> dict[str, Any]:
    dealer: dict[str, Any] = {"hand": BANKER_DEALER, "bid_multiple": 3}
    if dealer_balance is not None:
        dealer["balance"] = dealer_balance
    players = [{"id": name, "hand": hand, "bet_multiple": i + 1} for i, (name, hand) in enumerate(BANKER_PLAYERS)]
    for player, balance in zip(players, balances or [], strict=False):
        player["balance"] = balance
    return {"decks": 2, "base": 100, "dealer": dealer, "players": players}


def _showdown(balances: list[int] | None = None) -> dict[str, Any]:
    players = [{"id": name, "hand": hand, "bet_multiple": m} for name, hand, m in SHOWDOWN_PLAYERS]
    for player, balance in zip(players, balances or [], strict=False):
        player["balance"] = balance
    return {"base": 10, "players": players}


def _round_table(rng: random.Random, players: int, decks: int = 1) -> dict[str, Any]:
    """A random bid-for-banker table: base, bid and bet multiples, bets."""
    hands = deal(rng, players + 1, decks)
    seats = [{"id": f"seat-{i + 1}", "hand": h, "bet_multiple": rng.randint(1, 100), "bet": rng.choice(("double", "equal"))}
             for i, h in enumerate(hands[1:])]
    return {"decks": decks, "base": rng.choice((1, 10, 100, 10**6)),
            "dealer": {"hand": hands[0], "bid_multiple": rng.randint(1, 100)}, "players": seats}


def round_settlement_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``settleRound`` with base and multiples, tie payouts, balances and caps (RULES.md 6.4-6.5)."""
    path = "/v1/settlements"
    nn = path + "?profile=niu-niu"
    yield "section-8/bid-for-banker", post(nn, _banker())
    yield "section-8/table-caps", post(nn, _banker([500, 10_000, 10_000, 10_000], 1000) | {"rules": {"balance_caps": "table"}})
    yield "section-8/players-caps", post(nn, _banker([500, 10_000, 10_000, 10_000]) | {"rules": {"balance_caps": "players"}})
    yield "section-8/dealer-short", post(nn, {"base": 100, "rules": {"balance_caps": "table"}, "dealer": {
        "hand": ["QH", "8S", "2D", "4C", "6C"], "bid_multiple": 3, "balance": 3001}, "players": [
        {"id": "p1", "hand": ["AS", "AH", "2C", "2H", "4H"], "bet_multiple": 1, "balance": 10_000},
        {"id": "p2", "hand": ["9S", "9D", "KS", "2S", "4D"], "bet_multiple": 2, "balance": 10_000},
        {"id": "p3", "hand": ["7S", "3H", "JH", "8C", "10C"], "bet_multiple": 3, "balance": 10_000},
        {"id": "p4", "hand": ["5S", "6H", "7D", "8H", "9C"], "bet_multiple": 4, "balance": 2000}]})
    tie: dict[str, Any] = {"dealer": {"hand": ["10S", "9H", "AD", "7C", "4H"]}, "players": [
        {"id": "tied", "hand": ["10H", "9D", "AC", "7D", "4S"], "stake": 100},
        {"id": "no-ox", "hand": ["2S", "3H", "8D", "9C", "KH"], "stake": 100, "bet": "equal"}]}
    yield "tie-payout/hand", post(path, tie)
    yield "tie-payout/stake", post(path, tie | {"rules": {"tie_payout": "stake"}})
    yield "tie-payout/stake-base", post(path, {"base": 50, "dealer": {"hand": tie["dealer"]["hand"], "bid_multiple": 2},
                                              "players": [{"hand": tie["players"][0]["hand"]}],
                                              "rules": {"tie_payout": "stake"}})
    yield "sweep/all-win", post(path, {"base": 5, "dealer": {"hand": ["JS", "QH", "KD", "JC", "QD"]},
                                       "players": [{"hand": h} for h in deal(rng, 3)]})
    yield "sweep/all-lose", post(path, {"base": 5, "dealer": {"hand": ["10S", "9H", "8D", "4C", "4H"]},
                                        "players": [{"hand": CURATED["five-dukes"]}, {"hand": CURATED["double-ox-a"]}]})
    yield "caps/commission", post(path + "?profile=bull-bull", _banker([300, 5000, 0, 10**15], 2000)
                                  | {"rules": {"balance_caps": "table", "dealer_commission_bps": 1000}})
    yield "caps/stakes", post(path, _table(rng, 5) | {"rules": {"balance_caps": "players"}} | {"players": [
        p | {"balance": rng.choice((0, 1, 99, 10**6))} for p in _table(rng, 5)["players"]]})
    for i in range(4):
        yield f"random/{i}", post(_q(path, PROFILES[i]), _round_table(rng, rng.randint(1, 9)))
    yield "random/decks-8", post(path + "?profile=liberal", _round_table(rng, 82, 8))
    yield from _round_settlement_errors(rng)


def _round_settlement_errors(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    path = "/v1/settlements"
    nn = path + "?profile=niu-niu"
    table = _banker()
    yield "invalid/base-and-stake", post(nn, table | {"players": [p | {"stake": 100} for p in table["players"]]})
    yield "invalid/multiple-without-base", post(nn, {k: v for k, v in table.items() if k != "base"})
    yield "invalid/product", post(nn, table | {"base": 10**11})
    for base in (0, 10**12 + 1, "100", 1.5, None, True):
        yield f"invalid/base/{base}", post(nn, table | {"base": base})
    yield "invalid/multiples", post(nn, table | {"dealer": {"hand": BANKER_DEALER, "bid_multiple": 101}, "players": [
        p | {"bet_multiple": m} for p, m in zip(table["players"], (0, 101, "2", 2.0), strict=True)]})
    yield "invalid/balance-under-none", post(nn, _banker([1, 2, 3, 4], 5))
    yield "invalid/missing-balances", post(nn, _banker([1]) | {"rules": {"balance_caps": "table"}})
    yield "invalid/dealer-balance-under-players", post(nn, _banker([1, 2, 3, 4], 5) | {"rules": {"balance_caps": "players"}})
    yield "invalid/balances", post(nn, _banker([-1, 10**15 + 1, "5", None], -3) | {"rules": {"balance_caps": "table"}})
    yield "invalid/everything", post(nn, table | {"base": 0, "rules": {"balance_caps": "pots"}, "players": [
        {"hand": ["AS"], "stake": 5, "bet_multiple": 3, "balance": 7}]})
    overflow = _round_table(rng, 9)
    overflow |= {"base": 2 * 10**7, "dealer": overflow["dealer"] | {"bid_multiple": 100},
                 "players": [p | {"bet_multiple": 100, "bet": "double"} for p in overflow["players"]],
                 "rules": {"payouts": {"five_dukes": 1000}, "suited_bonus": "hand", "suited_multiplier": 10}}
    yield "invalid/overflow", post(path, overflow)


def round_showdown_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``settleShowdown`` (RULES.md 6.6): section 8's tables, caps, ties, bounds, errors."""
    path = "/v1/showdowns?profile=niu-niu"
    for showdown in ("winner_takes_all", "all_pairs"):
        for stake in ("loser", "loser_x_winner"):
            yield f"section-8/{showdown}/{stake}", post(path, _showdown() | {"rules": {"showdown": showdown,
                                                                                      "showdown_stake": stake}})
    yield "section-8/defaults", post(path, _showdown())
    yield "section-8/caps", post(path, _showdown([10_000, 25, 10_000, 10_000]) | {"rules": {"balance_caps": "players"}})
    yield "section-8/standard-two-strongest", post("/v1/showdowns", {"base": 10, "players": [
        {"id": "s1", "hand": ["10H", "9D", "AC", "7D", "4S"]}, {"id": "s2", "hand": ["10C", "9S", "AH", "7C", "4D"]},
        {"id": "s3", "hand": ["10S", "9H", "8D", "4C", "4H"], "bet_multiple": 3}]})
    yield "five-dukes-tie", post(path, {"base": 7, "decks": 2, "players": [
        {"hand": CURATED["five-dukes"]}, {"hand": ["JH", "QS", "KS", "KH", "QC"]}, {"hand": CURATED["no-ox"]}]})
    yield "winner-caps", post(path, _showdown([50, 10_000, 10_000, 10_000]) | {"rules": {"balance_caps": "table"}})
    yield "commission", post("/v1/showdowns?profile=bull-bull", _showdown() | {"rules": {"showdown": "all_pairs"}})
    yield "ten-players", post("/v1/showdowns", {"base": 1000, "players": [
        {"id": f"s{i}", "hand": h, "bet_multiple": rng.randint(1, 100)} for i, h in enumerate(deal(rng, 10))]})
    yield "decks-8", post("/v1/showdowns?profile=liberal", {"base": 3, "decks": 8, "players": [
        {"hand": h, "bet_multiple": rng.randint(1, 100)} for h in deal(rng, 83, 8)]})
    yield "invalid/one-player", post(path, {"base": 10, "players": [{"hand": CURATED["no-ox"]}]})
    yield "invalid/eleven-players", post("/v1/showdowns", {"base": 10, "players": [{"hand": h} for h in deal(rng, 11, 2)]})
    yield "invalid/no-base", post(path, {"players": _showdown()["players"]})
    yield "invalid/stake-bet-dealer", post(path, _showdown() | {"dealer": {"hand": CURATED["bomb"]}, "players": [
        p | {"stake": 5, "bet": "equal"} for p in _showdown()["players"]]})
    yield "invalid/caps-all-pairs", post(path, _showdown([1, 2, 3, 4]) | {"rules": {"balance_caps": "players",
                                                                                  "showdown": "all_pairs"}})
    yield "invalid/missing-balances", post(path, _showdown([1]) | {"rules": {"balance_caps": "table"}})
    yield "invalid/balance-under-none", post(path, _showdown([1, 2, 3, 4]))
    yield "invalid/repeat-across", post(path, {"base": 1, "players": [{"hand": CURATED["no-ox"]}, {"hand": CURATED["no-ox"]}]})
    yield "invalid/product", post(path, _showdown() | {"base": 3 * 10**11})
    yield "invalid/overflow", post("/v1/showdowns", {"base": 10**10, "players": [{"hand": h, "bet_multiple": 100}
                                                                               for h in deal(rng, 10)],
                                                     "rules": {"payouts": {"five_dukes": 1000},
                                                               "showdown_stake": "loser_x_winner"}})
    yield "receipts/showdown", post("/v1/showdowns?receipt=true&profile=niu-niu", _showdown(), app="receipts")
    yield "receipts/not-configured", post("/v1/showdowns?receipt=true", _showdown())


def round_exposure_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """``tableExposures`` with base, the dealer object and balances (RULES.md 6.5; DECISIONS 21-22)."""
    path = "/v1/exposures?profile=niu-niu"
    seats = [{"id": "p1", "bet_multiple": 1, "balance": 500}, {"id": "p2", "bet_multiple": 2, "balance": 10_000},
             {"id": "p3", "bet_multiple": 3, "bet": "equal", "balance": 10_000}, {"id": "p4", "bet_multiple": 4}]
    body = {"base": 100, "dealer": {"bid_multiple": 3, "balance": 10_000}, "players": seats}
    yield "dealer/none", post(path, body)
    yield "dealer/players-caps", post(path, body | {"rules": {"balance_caps": "players"}})
    yield "dealer/table-caps", post(path, body | {"rules": {"balance_caps": "table"}})
    yield "dealer/no-balance", post(path, {"base": 100, "dealer": {"bid_multiple": 3}, "players": seats[3:]})
    yield "dealer/tight", post(path, {"base": 10**6, "dealer": {"balance": 10**6}, "players": [{"balance": 1}]})
    yield "invalid/balance-without-base", post(path, {"players": [{"stake": 100, "balance": 5}], "dealer": {"balance": 1}})
    yield "invalid/multiple-without-base", post(path, {"players": [{"stake": 100, "bet_multiple": 5}],
                                                       "dealer": {"bid_multiple": 2}})
    yield "invalid/stake-with-base", post(path, {"base": 1, "players": [{"stake": 100}]})
    yield "invalid/product", post(path, {"base": 10**11, "dealer": {"bid_multiple": 10}, "players": [{"bet_multiple": 2}]})


def round_analysis_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """The analyses under the round forms' knobs (DECISIONS 30): ``tie_payout`` exactly, caps and
    showdowns named in ``ignored_knobs``."""
    yield "odds/tie-stake", post("/v1/odds", {"hand": CURATED["single-ox-0"], "rules": {"tie_payout": "stake"}})
    yield "odds/tie-stake-four", post("/v1/odds", {"hand": ["AS", "KH", "10D", "4C"], "rules": {"tie_payout": "stake"}})
    yield "odds/tie-stake-dealer", post("/v1/odds", {"hand": ["AS", "KH", "10D"], "role": "dealer", "opponents": 3,
                                                     "rules": {"tie_payout": "stake"}})
    yield "odds/caps", post("/v1/odds?profile=niu-niu", {"hand": CURATED["single-ox-0"], "rules": {"balance_caps": "table"}})
    yield "house-edge/tie-stake", post("/v1/analyses/house-edge", {"rules": {"tie_payout": "stake"}})
    yield "house-edge/tie-stake-equal", post("/v1/analyses/house-edge?profile=casino",
                                             {"rules": {"tie_payout": "stake", "commission_bps": 500}, "bet": "equal"})
    yield "house-edge/showdown", post("/v1/analyses/house-edge", {"rules": {"showdown": "all_pairs",
                                                                            "showdown_stake": "loser_x_winner"}})
    yield "distribution/caps", post("/v1/analyses/distribution", {"rules": {"balance_caps": "players"}})
    yield "evaluate/rules-echo", post("/v1/evaluations", {"hand": CURATED["no-ox"], "rules": {
        "tie_payout": "stake", "balance_caps": "table", "showdown": "all_pairs", "showdown_stake": "loser_x_winner"}})
    yield "evaluate/invalid-knobs", post("/v1/evaluations", {"hand": CURATED["no-ox"], "rules": {
        "tie_payout": "half", "balance_caps": True, "showdown": None, "showdown_stake": 2}})


def player_id_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """A table's player ids must differ (DECISIONS 10, issue 27): a repeat is a 400 naming the
    later player on settlements, exposures and showdowns; rankings take repeated ids."""
    hands = [CURATED["no-ox"], CURATED["bomb"], CURATED["five-small"], CURATED["triple-ox"]]
    yield "settlement/repeat", post("/v1/settlements", {"dealer": {"hand": hands[0]}, "players": [
        {"id": "seat-1", "hand": hands[1], "stake": 100}, {"id": "seat-2", "hand": hands[2], "stake": 100},
        {"id": "seat-1", "hand": hands[3], "stake": 100}]})
    yield "exposures/repeat", post("/v1/exposures", {"players": [{"id": "p1", "stake": 1000}, {"stake": 10},
                                                                 {"id": "p1", "stake": 5}]})
    yield "showdown/repeat", post("/v1/showdowns", {"base": 10, "players": [
        {"id": "s1", "hand": hands[1]}, {"id": "s1", "hand": hands[2], "bet_multiple": 2}]})
    yield "ranking/repeat-accepted", post("/v1/rankings", {"hands": [{"id": "ann", "hand": hands[1]},
                                                                     {"id": "ann", "hand": hands[2]}]})


def peer_rule_requests(rng: random.Random) -> Iterator[tuple[str, Entry]]:
    """Issue 39: RULES.md 8.2's rows (``run_ox``, ``full_house_order``, ``showdown_winner_cap``,
    ``min_commission``), a few bad values, and an analysis naming the knobs it ignores."""
    run = {"run_ox": True}
    for name, hand in (("run-3-4-5", ["3S", "4H", "5D", "KC", "9S"]), ("run-q-k-a", ["QS", "KH", "AD", "4C", "4S"])):
        yield f"evaluate/{name}", post("/v1/evaluations?profile=niu-niu", {"hand": hand, "rules": run})
    hands = deal(rng, 10)
    yield "batch/run-ox", post("/v1/evaluations/batch?profile=niu-niu", {"hands": hands, "rules": run})
    houses = [["8S", "QH", "8C", "8D", "QS"], ["AH", "JS", "JD", "AD", "JH"]]
    yield "ranking/full-house-high-card", post("/v1/rankings?profile=niu-niu-plus", {
        "hands": [{"hand": h} for h in houses], "rules": {"full_house_order": "high_card"}})
    yield "settlement/full-house-high-card", post("/v1/settlements?profile=niu-niu-plus", {
        "base": 5, "rules": {"full_house_order": "high_card", "payouts": {"full_house": 6}},
        "dealer": {"hand": ["9S", "9H", "5C", "5H", "9C"], "bid_multiple": 3},
        "players": [{"hand": ["3D", "3S", "10D", "10S", "3C"], "bet_multiple": 5}]})
    seats = [("w", ["JS", "9H", "AD", "5C", "5D"], 5, 50_000), ("p1", ["10S", "9C", "8D", "4C", "4H"], 13, 20_000),
             ("p2", ["10C", "9S", "8S", "4D", "2H"], 15, 2_000_000)]
    for cap in ("per_loser", "total"):
        yield f"showdown/winner-cap-{cap}", post("/v1/showdowns?profile=niu-niu", {
            "base": 1000, "rules": {"showdown_stake": "loser_x_winner", "balance_caps": "players",
                                    "commission_bps": 500, "showdown_winner_cap": cap},
            "players": [{"id": i, "hand": h, "bet_multiple": m, "balance": b} for i, h, m, b in seats]})
    yield "settlement/min-commission", post("/v1/settlements?profile=niu-niu", {
        "base": 100, "rules": {"balance_caps": "table", "commission_bps": 500, "min_commission": 1},
        "dealer": {"hand": ["10S", "9H", "8D", "4C", "4H"], "balance": 10},
        "players": [{"hand": ["JS", "QS", "KS", "JH", "QH"], "balance": 10_000}]})
    yield "exposures/min-commission", post("/v1/exposures?profile=bull-bull", {
        "rules": {"min_commission": 1}, "players": [{"stake": 10, "bet": "equal"}, {"stake": 1000}]})
    yield "house-edge/ignores-min-commission", post("/v1/analyses/house-edge?profile=bull-bull", {
        "rules": {"min_commission": 5, "showdown_winner_cap": "per_loser"}})
    for i, bad in enumerate([{"run_ox": "yes"}, {"full_house_order": "top_card"}, {"showdown_winner_cap": 1},
                             {"min_commission": 1_000_001}, {"min_commission": -1}]):
        yield f"evaluate/bad-{i}", post("/v1/evaluations", {"hand": ["10S", "7H", "3D", "KC", "7D"], "rules": bad})


#: The request generators, by operation group; each gets its own seeded random source.
GROUPS: dict[str, Callable[[random.Random], Iterator[tuple[str, Entry]]]] = {
    "evaluateHand": evaluation_requests,
    "evaluateHands": batch_requests,
    "rankHands": ranking_requests,
    "settleRound": settlement_requests,
    "tableExposures": exposure_requests,
    "profiles": profile_requests,
    "oddsAgainstDealer": odds_requests,
    "analyses": analysis_requests,
    "operations": operation_requests,
    # Issue 26, after every earlier group so that the earlier entries keep their request ids.
    "deals": deal_requests,
    "receipts": receipt_requests,
    # Issue 24, after the groups before it for the same reason.
    "shapes": shape_requests,
    # Issue 25 (the round forms, RULES.md 6.4-6.6), after every earlier group likewise.
    "roundSettlements": round_settlement_requests,
    "settleShowdown": round_showdown_requests,
    "roundExposures": round_exposure_requests,
    "roundAnalyses": round_analysis_requests,
    # Issue 27 (player ids), after every earlier group for the same reason.
    "playerIds": player_id_requests,
    # Issue 39 (the peers' house rules), last for the same reason.
    "peerRules": peer_rule_requests,
}


def requests() -> list[Entry]:
    """Every request of the corpus, with its ``id`` and (unless it tests request ids) an
    ``X-Request-ID`` header; deterministic."""
    out: list[Entry] = []
    for group, generate in GROUPS.items():
        rng = random.Random(f"golden/{group}")
        for name, request in generate(rng):
            entry: Entry = {"id": f"{group}/{name}"}
            entry.update(request)
            if "headers" not in entry:
                entry["headers"] = {"X-Request-ID": f"golden-{len(out):04d}"}
            out.append(entry)
    ids = [e["id"] for e in out]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate corpus ids: {duplicates}")
    return out


def cors_requests() -> list[Entry]:
    """The CORS corpus's requests: every request of :func:`requests` to its app with CORS
    on, with an ``Origin`` (every fourth one not allowed), then an allowed and a refused
    preflight of every path of the corpus; deterministic."""
    out: list[Entry] = []
    for i, entry in enumerate(requests()):
        origin = OTHER_ORIGIN if i % 4 == 3 else CORS_ORIGIN
        out.append(entry | {"id": f"cors/{entry['id']}", "app": f"cors/{entry.get('app', 'default')}",
                            "headers": entry.get("headers", {}) | {"Origin": origin}})
    paths = dict.fromkeys(e["path"].split("?")[0] for e in requests() if e.get("app", "default") == "default")
    for n, path in enumerate(paths):
        for kind, origin in (("allowed", CORS_ORIGIN), ("other", OTHER_ORIGIN)):
            out.append({"id": f"cors/preflight/{kind}{path}", "app": "cors/default", "method": "OPTIONS",
                        "path": f"{path}?profile=standard",
                        "headers": {"X-Request-ID": f"golden-cors-{n:03d}-{kind}", "Origin": origin,
                                    "Access-Control-Request-Method": "POST",
                                    "Access-Control-Request-Headers": "content-type,x-request-id"}})
    return out


def record(path: Path, entries: list[Entry]) -> None:
    """Record every request's response of ``entries`` into ``path``."""
    with path.open("w", encoding="utf-8") as f:
        for entry in entries:
            f.write(json.dumps(entry | {"response": replay(entry)}, ensure_ascii=True, sort_keys=False) + "\n")
    print(f"{len(entries)} requests recorded in {path} ({path.stat().st_size:,} bytes)", file=sys.stderr)


def main() -> None:
    """Record every request's response into :data:`CORPUS` and :data:`CORS_CORPUS`."""
    record(CORPUS, requests())
    record(CORS_CORPUS, cors_requests())


if __name__ == "__main__":
    main()
