"""service/serialize.py's member table: the contract's ``Evaluation`` members, one row each.

(The writers themselves are compared with the reference evaluator hand by hand in
tests/engine/test_fast_paths.py, and answer by answer in the golden corpora.)
"""

from __future__ import annotations

import yaml

from service.serialize import EVALUATION_FIELDS, MEMBERS, Flags, evaluation_shape
from tests import ROOT


def test_the_table_is_the_contracts_evaluation_in_order() -> None:
    schemas = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))["components"]["schemas"]
    assert list(EVALUATION_FIELDS) == schemas["Evaluation"]["required"]
    assert list(schemas["EvaluationFields"]["properties"]) == list(EVALUATION_FIELDS)


def test_a_hands_values_are_the_rows_holes_in_order() -> None:
    """Each row takes its own slice of the values: a hand without a formation has none for
    ox and power, which are then null."""
    assert "".join(m.holes for m in MEMBERS) == "sssss" + "sss" + "nn" + "sssnnn" + "ssnn"
    assert [m.name for m in MEMBERS if m.formed] == ["ox", "power"]
    values = ["AS", "KH", "QD", "JC", "10S", "ngau_tonku", "Ngau Tonku", "ngau_tonku", 250, 5,
              "KH", "QD", "JC", 10, 10, 10, "AS", "10S", 1, 10]
    formed = evaluation_shape(values, Flags(True, False, True))
    assert formed == {"hand": values[:5], "category": "ngau_tonku", "label": "Ngau Tonku", "label_key": "ngau_tonku",
                      "score": 250, "payout": 5, "ox": {"cards": ["KH", "QD", "JC"], "points": [10, 10, 10]},
                      "power": {"cards": ["AS", "10S"], "points": [1, 10]}, "nenku": False, "suited": True}
    plain = evaluation_shape(values[:10], Flags(False, False, False))
    assert (plain["ox"], plain["power"], plain["payout"]) == (None, None, 5)
    assert [m.name for m in MEMBERS if m.of_class] == ["category", "label", "label_key", "score"]
