"""The chart's values are documented once, by the ``## @param`` comments of values.yaml
(tests/deploy/chart_docs.py): every value has one, docs/chart-values.md is the table the
generator makes of them, and values.schema.json's descriptions are theirs. A stale page or
schema fails here: run ``make chart-docs``.

The table needs Node (readme-generator-for-helm, package.json): without it that test fails,
or skips under ``make test-fast`` (tests/tools.py); the other checks are Python only.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import yaml

from tests.deploy.chart_docs import (
    CHART_VALUES_PAGE,
    SCHEMA,
    VALUES,
    described,
    main,
    params,
    schema_text,
    value_paths,
)


def _documented() -> dict[str, str]:
    return params(VALUES.read_text(encoding="utf-8"))


def test_every_value_has_one_param_and_every_param_a_value() -> None:
    values = set(value_paths(yaml.safe_load(VALUES.read_text(encoding="utf-8"))))
    documented = _documented()
    assert sorted(values - set(documented)) == [], "values without a ## @param comment"
    assert sorted(set(documented) - values) == [], "## @param comments naming no value"
    assert all(documented.values()), "a ## @param without a description"


def test_every_param_is_a_key_of_the_closed_schema() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert {path.split(".")[0].split("[")[0] for path in _documented()} <= set(schema["properties"])


def test_schema_descriptions_are_the_params() -> None:
    text = SCHEMA.read_text(encoding="utf-8")
    assert text == schema_text(described(json.loads(text), _documented())), (
        "values.schema.json's descriptions differ from the ## @param comments of values.yaml: run make chart-docs")


def test_values_table_is_current(node_bin: Path, tmp_path: Path) -> None:
    assert main(["--out", str(tmp_path)]) == 0
    made = (tmp_path / CHART_VALUES_PAGE.name).read_text(encoding="utf-8")
    committed = CHART_VALUES_PAGE.read_text(encoding="utf-8")
    diff = "".join(difflib.unified_diff(committed.splitlines(True), made.splitlines(True), "committed", "generated"))
    assert made == committed, f"docs/chart-values.md is stale: run make chart-docs\n{diff}"
