"""The code's structure, checked from the source (issue 10: one owner per concept).

- **Layers.** ``service/engine/`` imports nothing of the service outside ``service/engine/``
  (and no web, validation or server library); within it, the analyses
  (``service/engine/analysis/``) import the game core and the core never imports them; that
  only ``service/http/`` imports Flask is tests/api/test_http_layering.py's check.
- **Private names stay private.** No module imports an underscore name from another
  module (tests and benchmarks included), and every name another module imports from a
  ``service`` module is listed in that module's ``__all__``.
- **Sizes.** No module under ``service/`` is over 800 lines (modules are sized by concept: split
  one that does two jobs, merge a concept spread over several), no function over 60 lines.
- **Declared concepts have one owner.** No category name or label key, and no bet type's name,
  is a string literal in ``service/`` outside its declaration (the category and label tables,
  the bet registry, the built-in profile definitions); one function writes the ``Evaluation``
  object (``service.serialize.evaluation_shape``).

Each check reads the files with :mod:`ast`; a failure names the file, the line and what
to do.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tests import ROOT

SERVICE = ROOT / "service"
ENGINE = SERVICE / "engine"
ANALYSIS = ENGINE / "analysis"
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 60


def python_files(*tops: Path) -> list[Path]:
    """Every ``.py`` file under ``tops``, sorted (virtual environments and caches skipped)."""
    found: list[Path] = []
    for top in tops:
        found.extend(p for p in top.rglob("*.py") if ".venv" not in p.parts and "node_modules" not in p.parts)
    return sorted(found)


@cache
def tree(path: Path) -> ast.Module:
    """The parsed module."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def module_name(path: Path) -> str:
    """``service/engine/cards.py`` -> ``service.engine.cards`` (packages by their ``__init__``)."""
    parts = list((path.relative_to(ROOT) if path.is_relative_to(ROOT) else Path(path.name)).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> Iterator[tuple[int, str, str | None]]:
    """``(line, module, name)`` for every import in ``path`` (``name`` ``None`` for ``import x``),
    relative imports resolved, including imports inside functions."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield node.lineno, base, alias.name


def where(path: Path, line: int) -> str:
    """``service/x.py:12`` for messages."""
    return f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}"


SERVICE_FILES = python_files(SERVICE)
ALL_FILES = [*python_files(SERVICE, ROOT / "tests", ROOT / "bench"), ROOT / "gunicorn.conf.py"]


def test_the_engine_imports_nothing_outside_the_engine() -> None:
    bad = [f"{where(p, line)} imports {module}"
           for p in python_files(ENGINE) for line, module, _ in imports(p)
           if module.startswith("service") and not module.startswith("service.engine")]
    bad += [f"{where(p, line)} imports {module}"
            for p in python_files(ENGINE) for line, module, _ in imports(p)
            if module.split(".")[0] in ("flask", "werkzeug", "flask_cors", "marshmallow", "gunicorn", "gevent")]
    assert not bad, "the engine is plain Python over itself:\n" + "\n".join(bad)


def test_the_game_core_never_imports_the_analyses() -> None:
    """The engine's two wings: ``service/engine/analysis/`` may import the game core (the rest
    of ``service/engine/``), never the other way."""
    core = [p for p in python_files(ENGINE) if ANALYSIS not in p.parents]
    bad = [f"{where(p, line)} imports {module}" for p in core for line, module, name in imports(p)
           if module.startswith("service.engine.analysis")
           or (module == "service.engine" and name == "analysis")]
    assert len(core) > len(python_files(ANALYSIS)) > 1, "the two wings are where this test looks"
    assert not bad, "the game core is below the analyses; move the code the core needs out of analysis/:\n" + \
        "\n".join(bad)


def test_no_module_imports_a_private_name_of_another() -> None:
    bad = [f"{where(p, line)} imports {name} from {module}"
           for p in ALL_FILES for line, module, name in imports(p)
           if name is not None and name.startswith("_") and not name.startswith("__")
           and module.split(".")[0] in ("service", "tests", "bench")]
    assert not bad, "make the name public (and list it in __all__) or move the code that needs it:\n" + "\n".join(bad)


def _exported(module: str) -> set[str] | None:
    """The module's ``__all__``, or ``None`` when it is a package without one."""
    loaded = importlib.import_module(module)
    names = getattr(loaded, "__all__", None)
    return None if names is None else set(names)


def test_what_other_modules_import_is_in_all() -> None:
    bad: list[str] = []
    for p in ALL_FILES:
        own = module_name(p)
        for line, module, name in imports(p):
            if name is None or name == "*" or not module.startswith("service") or module == own:
                continue
            try:
                importlib.import_module(f"{module}.{name}")
                continue  # a submodule, not a name
            except ImportError:
                pass
            exported = _exported(module)
            if exported is None or name not in exported:
                bad.append(f"{where(p, line)} imports {name} from {module}, which is not in its __all__")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("path", SERVICE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_over_800_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by job"


def long_functions(path: Path) -> list[str]:
    """``file:line name (n lines)`` for each function or method over the limit (decorators
    and docstring included)."""
    out = []
    for node in ast.walk(tree(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - start + 1
            if length > MAX_FUNCTION_LINES:
                out.append(f"{where(path, node.lineno)} {node.name} ({length} lines)")
    return out


def test_no_function_is_over_60_lines() -> None:
    bad = [entry for p in SERVICE_FILES for entry in long_functions(p)]
    assert not bad, "split these into named steps:\n" + "\n".join(bad)


#: Where a category name, a label key or a bet name may be written as a string: the
#: declarations themselves, and the built-in profiles (data that names categories).
DECLARED = {SERVICE / "engine" / "categories.py": None, SERVICE / "engine" / "bets.py": None,
            SERVICE / "engine" / "rules.py": "_builtin_profiles"}


def _docstrings(module: ast.Module) -> set[int]:
    """The ids of the docstring constants of a module and its classes and functions."""
    found: set[int] = set()
    for node in ast.walk(module):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def declared_literals(path: Path, names: set[str], allowed_in: str | None = "") -> list[str]:
    """``file:line 'name'`` for each string constant in ``path`` (docstrings aside) that is one
    of ``names``, outside the function ``allowed_in`` (``None``: anywhere in the file is allowed)."""
    if allowed_in is None:
        return []
    module = tree(path)
    docs = _docstrings(module)
    inside: set[int] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef) and node.name == allowed_in:
            inside |= {id(n) for n in ast.walk(node)}
    return [f"{where(path, node.lineno)} {node.value!r}" for node in ast.walk(module)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
            and id(node) not in docs and id(node) not in inside]


def test_no_category_or_bet_name_outside_its_declaration() -> None:
    from service.engine.bets import BETS
    from service.engine.categories import CATEGORIES, LABELS

    names = {c.value for c in CATEGORIES} | set(LABELS) | set(BETS)
    bad = [entry for p in SERVICE_FILES for entry in declared_literals(p, names, DECLARED.get(p, ""))]
    assert not bad, ("ask the declarations (service.engine.categories.SPECS, LABELS; service.engine.bets.BETS) "
                     "instead of naming a category or a bet:\n" + "\n".join(bad))


def evaluation_writers(path: Path) -> list[str]:
    """``file:line`` of each dict display with the ``Evaluation`` object's members."""
    members = {"hand", "category", "label", "ox", "power"}
    return [where(path, node.lineno) for node in ast.walk(tree(path)) if isinstance(node, ast.Dict)
            and members <= {k.value for k in node.keys if isinstance(k, ast.Constant)}]


def test_one_formatter_writes_an_evaluation() -> None:
    """No module writes the ``Evaluation`` object as a dict display: service.serialize writes
    it from its member table (``MEMBERS``), the one place its members are named."""
    from service.serialize import EVALUATION_FIELDS

    writers = [entry for p in SERVICE_FILES for entry in evaluation_writers(p)]
    assert writers == [], (
        "write evaluations through service.serialize (evaluation_data, evaluation_texts, evaluations_json):\n"
        + "\n".join(writers))
    assert {"hand", "category", "label", "ox", "power"} <= set(EVALUATION_FIELDS)


def test_the_checks_see_violations(tmp_path: Path) -> None:
    """The readers themselves: a private import and a 71-line function are found."""
    sample = tmp_path / "sample.py"
    sample.write_text("from service.engine.cards import _x\nimport flask\n\n\ndef f():\n" + "    pass\n" * 70
                      + 'x = "five_dukes" == "double"\ny = {"hand": 1, "category": 2, "label": 3, "ox": 4, "power": 5}\n')
    assert list(imports(sample)) == [(1, "service.engine.cards", "_x"), (2, "flask", None)]
    assert long_functions(sample) == [f"{sample}:5 f (71 lines)"]
    assert declared_literals(sample, {"five_dukes", "double"}) == [f"{sample}:76 'five_dukes'", f"{sample}:76 'double'"]
    assert evaluation_writers(sample) == [f"{sample}:77"]
    assert module_name(SERVICE / "engine" / "__init__.py") == "service.engine"
