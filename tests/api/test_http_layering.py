"""The HTTP layer is the only one that knows the web framework (issue 10): service/http/
alone imports Flask, werkzeug or flask-cors, and the operations and the ``gnau`` command
load without them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests import ROOT

SERVICE = ROOT / "service"
WEB = ("flask", "werkzeug", "flask_cors", "flask_swagger_ui")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_only_the_http_package_imports_the_web_framework() -> None:
    offenders = {
        str(path.relative_to(SERVICE)): sorted(n for n in _imports(path) if n.split(".")[0] in WEB)
        for path in SERVICE.rglob("*.py") if SERVICE / "http" not in path.parents
    }
    assert {k: v for k, v in offenders.items() if v} == {}


@pytest.mark.parametrize("module", ["service.operations", "service.cli", "service.errors", "service.profiles",
                                    "service.problems", "service.gunicorn_probes"])
def test_loads_without_the_web_framework(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] in {WEB!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_no_view_or_hook_is_a_coroutine_function(app: Flask) -> None:
    """ServiceFlask calls views and hooks as they are (no ``async`` bridge): an ``async def``
    registered anywhere would return a coroutine instead of an answer."""
    import inspect

    from service.http.app import ServiceFlask

    assert isinstance(app, ServiceFlask)
    registered: list[Any] = list(app.view_functions.values())
    for table in (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs,
                  app.url_value_preprocessors, app.url_default_functions, app.template_context_processors):
        registered += [f for funcs in table.values() for f in funcs]
    registered += [f for by_code in app.error_handler_spec.values() for handlers in by_code.values()
                   for f in handlers.values()]
    assert len(registered) > 20
    assert [f for f in registered if inspect.iscoroutinefunction(f)] == []
