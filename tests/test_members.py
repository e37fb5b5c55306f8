"""Both request readers hold to the members declared once (:mod:`service.members`).

* Every request schema built from a declaration has exactly the declared members, nested
  bodies and both ``base`` forms included: a field added to a schema by hand, and not to
  the declaration, fails here.
* Every schema with a one-pass reader (:meth:`service.schemas.RequestSchema.one_pass`) is
  probed member by member from the declaration: each member removed, given at its bounds,
  beyond them, of the wrong type, and an unknown member added to each object. ``read``
  (one pass first) must load exactly what the fields load, and the one-pass reader must
  leave every body the fields refuse to the fields: a member (or a bound) that one reader
  checks and the other does not fails here.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest
from marshmallow import Schema, ValidationError, fields

from service import analysis_schemas, deal_schemas, schemas
from service.members import NO_DEFAULT, Body, Member, walk
from service.schemas import ByBase, RequestSchema


def _request_schemas() -> list[type[RequestSchema]]:
    """Every request schema class of the service's request modules."""
    found: list[type[RequestSchema]] = []
    for module in (schemas, deal_schemas, analysis_schemas):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, RequestSchema) and value not in found:
                found.append(value)
    return found


DECLARED = [s for s in _request_schemas() if "members" in vars(s) and s.members is not None]
ONE_PASS = [s for s in _request_schemas() if s.one_pass is not RequestSchema.one_pass]


def test_every_one_pass_schema_is_declared() -> None:
    assert {s.__name__ for s in ONE_PASS} == {"EvaluationRequestSchema", "RankingRequestSchema",
                                               "SettlementRequestSchema", "ShowdownRequestSchema", "DealRequestSchema"}
    assert set(ONE_PASS) <= set(DECLARED)


def _field_tree(field: fields.Field[Any]) -> Iterator[Schema]:
    """The nested schemas a field loads (both forms of a :class:`ByBase`)."""
    if isinstance(field, ByBase):
        yield from _field_tree(field.plain)
        yield from _field_tree(field.based)
    elif isinstance(field, fields.List):
        yield from _field_tree(field.inner)
    elif isinstance(field, fields.Nested):
        assert isinstance(field.schema, Schema)
        yield field.schema


def _assert_same_members(schema: Schema, body: Body, path: str) -> None:
    assert list(schema.fields) == list(body.members), path
    for name, member in body.items():
        nested = list(_field_tree(schema.fields[name]))
        forms = [m for m in (member, member.based) if m is not None and m.body is not None]
        if member.kind == "overrides":
            continue  # the knobs' own schema, held to the knobs by tests/api/test_knobs.py
        assert len(nested) == len(forms), f"{path}/{name}"
        for sub, form in zip(nested, forms, strict=True):
            assert form.body is not None
            _assert_same_members(sub, form.body, f"{path}/{name}")


@pytest.mark.parametrize("schema", DECLARED, ids=lambda s: s.__name__)
def test_the_fields_are_the_declared_members(schema: type[RequestSchema]) -> None:
    assert schema.members is not None
    _assert_same_members(schema(), schema.members, schema.__name__)


HAND = ["AS", "2D", "3C", "4H", "5S"]
HANDS = [["KS", "QD", "JC", "10H", "9S"], ["8S", "7D", "6C", "4C", "3D"], ["2H", "2S", "9D", "9C", "JH"]]
SEED = "5eEd" * 16

#: Valid bodies, every member's object present, in each form.
SAMPLES: dict[str, list[dict[str, Any]]] = {
    "EvaluationRequestSchema": [{"hand": HAND}],
    "RankingRequestSchema": [{"hands": [{"id": "a", "hand": HAND}, {"hand": HANDS[0]}]}],
    "SettlementRequestSchema": [
        {"dealer": {"hand": HAND, "balance": 50}, "players": [
            {"id": "a", "hand": HANDS[0], "stake": 10, "bet": "equal", "balance": 9}, {"hand": HANDS[1], "stake": 5}]},
        {"base": 10, "dealer": {"hand": HAND, "bid_multiple": 2, "balance": 50}, "players": [
            {"id": "a", "hand": HANDS[0], "bet_multiple": 3, "balance": 9}, {"hand": HANDS[1]}]}],
    "ShowdownRequestSchema": [{"base": 10, "players": [{"id": "a", "hand": HAND, "bet_multiple": 2, "balance": 5},
                                                       {"hand": HANDS[0]}]}],
    "DealRequestSchema": [{"server_seed": SEED, "client_seed": "player-1", "nonce": 7, "hands": 3}],
}


def _probes(member: Member) -> list[Any]:
    """Values that a member of this declaration must be checked against: its bounds, just
    beyond them, and the wrong types."""
    wrong: list[Any] = [None, True, 1.5, "x", [], {}]
    if member.kind == "int":
        return [*wrong, member.low, member.high, member.low - 1, member.high + 1, str(member.low), float(member.low)]
    if member.kind == "id":
        return [*wrong, 7, "", "x" * member.high, "x" * (member.high + 1)]
    if member.kind == "choice":
        return [*wrong, *member.choices, member.choices[0].upper()]
    if member.kind == "hand":
        return [*wrong, HAND[:4], [*HAND, "6S"], " ".join(HAND), [*HAND[:4], "1S"], [*HAND[:4], HAND[0]], HANDS[2]]
    if member.kind in ("body", "list"):
        return [*wrong, [{}], "players"]
    if member.kind == "server_seed":
        return [*wrong, "ab" * member.low, "ab" * member.high, "ab" * (member.low - 1), "ab" * (member.high + 1),
                "abc" * 11, "xy" * member.low, "ab" * member.low + " "]
    if member.kind == "client_seed":
        return [*wrong, "", "é" * member.high, "é" * (member.high + 1)]
    return [*wrong, 1, {"bomb": True}]  # refused, overrides


def _objects(data: Any, path: Sequence[str]) -> Iterator[dict[str, Any]]:
    """The objects of ``data`` that hold the member at ``path`` (each list's first item)."""
    node = data
    for name in path[:-1]:
        node = node.get(name) if isinstance(node, dict) else None
        if isinstance(node, list):
            node = node[0] if node else None
    if isinstance(node, dict):
        yield node


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [_plain(v) for v in value]
    return value


def _outcome(load: Any, body: Any) -> Any:
    try:
        return _plain(load(body))
    except ValidationError as exc:
        return ("error", exc.messages)


def _variants(schema: type[RequestSchema], sample: dict[str, Any]) -> Iterator[Any]:
    assert schema.members is not None
    yield sample
    seen: set[tuple[tuple[str, ...], str]] = set()
    for path, member in walk(schema.members):
        if (path, repr(member)) in seen:
            continue
        seen.add((path, repr(member)))
        for value in [NO_DEFAULT, *_probes(member)]:
            body = copy.deepcopy(sample)
            for node in _objects(body, path):
                if value is NO_DEFAULT:
                    node.pop(path[-1], None)
                else:
                    node[path[-1]] = value
                yield body
        for node in _objects(body := copy.deepcopy(sample), (*path, "?")):
            node["unknown"] = 1
            yield body


@pytest.mark.parametrize("schema", ONE_PASS, ids=lambda s: s.__name__)
def test_both_readers_check_every_declared_member_alike(schema: type[RequestSchema]) -> None:
    instance = schema()
    taken = refused = 0
    for sample in SAMPLES[schema.__name__]:
        assert instance.one_pass(sample) is not None, sample
        for body in _variants(schema, sample):
            fields_said = _outcome(instance.load, body)
            assert _outcome(instance.read, body) == fields_said, body
            if isinstance(fields_said, tuple):
                refused += 1
                assert instance.one_pass(body) is None, body
            else:
                taken += instance.one_pass(body) is not None
    assert taken >= 3
    assert refused > 20
