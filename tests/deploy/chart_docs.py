"""The chart's values, documented once: the ``## @param`` comments of
helm/gnau-scoring/values.yaml (Bitnami's readme-generator-for-helm format, ``## @section``
starting a group), from which two things are generated.

- **The values table**, docs/chart-values.md: the generator (npm
  ``@bitnami/readme-generator-for-helm``, pinned in package.json) fills the page's
  ``## Parameters`` section. It also checks that every value has a ``@param`` and every
  ``@param`` a value.
- **The schema's descriptions**: each value's ``description`` in values.schema.json is its
  ``@param`` text (:func:`described`); objects holding values carry none (their prose is
  the section's), and what is not a value (``global``, the shape of a profile or of a list
  item) keeps its hand-written description.

The rest of values.schema.json stays hand-written. The generator's own ``--schema`` output
does not fit it: it gives each value a type, a default and ``nullable`` only, so it would
drop every bound (``minimum``/``maximum``, ``minLength``/``maxLength``), pattern (the image
digest, profile names, CORS origins), enum (pull policy, log level, service type, path
type), ``required`` list and ``additionalProperties: false`` the chart's schema enforces; it
writes OpenAPI's ``nullable`` rather than JSON Schema's ``type: [..., "null"]``; and it cannot
type an empty list's items.

``python -m tests.deploy.chart_docs`` (``make chart-docs``) writes both in place;
``--out DIR`` writes them into DIR instead (tests/deploy/test_chart_docs.py does, to find a
stale page or schema).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from tests import ROOT

__all__ = ["CHART_VALUES_PAGE", "SCHEMA", "VALUES", "described", "main", "params", "schema_text", "value_paths",
           "write_table"]

CHART_DIR = ROOT / "helm" / "gnau-scoring"
VALUES = CHART_DIR / "values.yaml"
SCHEMA = CHART_DIR / "values.schema.json"
CHART_VALUES_PAGE = ROOT / "docs" / "chart-values.md"

#: A ``@param`` line, as the generator reads it (its lib/parser.js): the value's path, the
#: modifiers in brackets, the description.
_PARAM = re.compile(r"^\s*##\s*@param\s*(\S+)\s*(\[.*?\])?\s*(.*)$")
#: One step of a path: a key and its list indexes (``hosts[0]``).
_STEP = re.compile(r"([^.\[\]]+)((?:\[\d+\])*)")


def params(text: str) -> dict[str, str]:
    """The ``@param`` descriptions of a values file by the value's path.

    >>> params("## @param image.tag Image tag.\\n## @param a.b[0].c [nullable] C.\\nimage: {}\\n")
    {'image.tag': 'Image tag.', 'a.b[0].c': 'C.'}
    """
    return {found[1]: found[3].strip() for line in text.splitlines() if (found := _PARAM.match(line))}


def value_paths(values: Any, prefix: str = "") -> Iterator[str]:
    """The paths of the values the generator asks a ``@param`` for (as its lib/parser.js
    does): a scalar, an empty object, an empty list or a list of strings; other objects and
    lists are walked.

    >>> list(value_paths({"a": {"b": 1, "c": {}}, "d": [{"e": ["x"]}], "f": [], "g": [1]}))
    ['a.b', 'a.c', 'd[0].e', 'f', 'g[0]']
    """
    if isinstance(values, dict) and values:
        for key, value in values.items():
            yield from value_paths(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(values, list) and not all(isinstance(item, str) for item in values):
        for i, item in enumerate(values):
            yield from value_paths(item, f"{prefix}[{i}]")
    else:
        yield prefix


def _steps(path: str) -> Iterator[tuple[str, int]]:
    """A path's keys, each with how many list levels follow it (``hosts[0]``: 1)."""
    for step in path.split("."):
        found = _STEP.fullmatch(step)
        if found is None:
            raise ValueError(f"{path!r}: not a values path")
        yield found[1], found[2].count("[")


def _node(schema: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The schema of the value at ``path``, or ``None`` where the schema leaves an object open
    (no ``properties`` naming the key: a pass-through object such as a securityContext)."""
    node = schema
    for key, lists in _steps(path):
        child = node.get("properties", {}).get(key)
        if not isinstance(child, dict):
            return None
        for _ in range(lists):
            child = child.get("items")
            if not isinstance(child, dict):
                return None
        node = child
    return node


def _objects(paths: list[str]) -> set[str]:
    """Every path strictly above the given ones: the objects holding values, and the lists
    holding objects (both ``ingress.hosts[0]``, its first item, and ``ingress.hosts``).

    >>> sorted(_objects(["ingress.hosts[0].host", "ingress.enabled"]))
    ['ingress', 'ingress.hosts', 'ingress.hosts[0]']
    """
    above: set[str] = set()
    for path in paths:
        parts = path.split(".")
        for i in range(1, len(parts)):
            prefix = ".".join(parts[:i])
            above |= {prefix, re.sub(r"(\[\d+\])+$", "", prefix)}
    return above


def described(schema: Mapping[str, Any], documented: Mapping[str, str]) -> dict[str, Any]:
    """``schema`` with each documented value's ``description`` set to its ``@param`` text
    (where the schema has a node for it), and none on the objects holding values.

    >>> schema = {"properties": {"a": {"description": "old", "properties": {"b": {"type": "integer"}}}}}
    >>> described(schema, {"a.b": "B."})
    {'properties': {'a': {'properties': {'b': {'type': 'integer', 'description': 'B.'}}}}}
    """
    out = copy.deepcopy(dict(schema))
    for path in _objects(list(documented)) - set(documented):
        node = _node(out, path)
        if node is not None:
            node.pop("description", None)
    for path, text in documented.items():
        node = _node(out, path)
        if node is not None:
            node["description"] = text
    return out


def schema_text(schema: Mapping[str, Any]) -> str:
    """values.schema.json's layout: two-space indents, a final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_table(page: Path, values: Path, bin_: Path) -> None:
    """Fill ``page``'s ``## Parameters`` section from ``values`` with readme-generator-for-helm
    (``bin_``: ``node_modules/.bin``).

    :raises RuntimeError: the generator failed (a value without ``@param``, a ``@param``
        without a value, ...), with its output.
    """
    result = subprocess.run([str(bin_ / "readme-generator"), "--values", str(values), "--readme", str(page)],
                            capture_output=True, text=True, timeout=120, check=False)
    if result.returncode != 0:
        errors = [line for line in result.stdout.splitlines() if line.startswith("ERROR")]
        raise RuntimeError("readme-generator-for-helm failed:\n" + "\n".join(errors or [result.stdout]) +
                           result.stderr)


def main(argv: list[str] | None = None) -> int:
    """Write docs/chart-values.md and values.schema.json's descriptions (in place, or into ``--out``)."""
    parser = argparse.ArgumentParser(prog="python -m tests.deploy.chart_docs", description=(
        "Write docs/chart-values.md and the descriptions of values.schema.json from the @param comments of "
        "helm/gnau-scoring/values.yaml."))
    parser.add_argument("--out", type=Path, help="write chart-values.md and values.schema.json here instead")
    args = parser.parse_args(argv)
    from tests.live.node_tools import npm_bin

    page, schema_file = CHART_VALUES_PAGE, SCHEMA
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        page, schema_file = args.out / CHART_VALUES_PAGE.name, args.out / SCHEMA.name
        shutil.copyfile(CHART_VALUES_PAGE, page)
    documented = params(VALUES.read_text(encoding="utf-8"))
    missing = set(value_paths(yaml.safe_load(VALUES.read_text(encoding="utf-8")))) ^ set(documented)
    if missing:
        print(f"values without a @param, or @params without a value: {sorted(missing)}", file=sys.stderr)
        return 1
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    schema_file.write_text(schema_text(described(schema, documented)), encoding="utf-8")
    write_table(page, VALUES, npm_bin())
    return 0


if __name__ == "__main__":
    sys.exit(main())
