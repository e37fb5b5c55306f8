"""The one log format (service.logs): orjson's lines, the standard library's where orjson refuses."""

from __future__ import annotations

import json
import logging

import pytest

from service.logs import json_formatter


def _line(msg: str, *args: object, **extra: object) -> str:
    record = logging.LogRecord("gunicorn.access", logging.INFO, "", 0, msg, args, None)
    record.__dict__.update(extra)
    return json_formatter().format(record)


def test_a_line_has_the_fields_and_the_extras() -> None:
    data = json.loads(_line("request", path="/v1/evaluations", status=200, query=None))
    assert data["message"] == "request"
    assert data["level"] == "INFO"
    assert data["name"] == "gunicorn.access"
    assert isinstance(data["pid"], int)
    assert data["time"].endswith("+00:00")
    assert (data["path"], data["status"], data["query"]) == ("/v1/evaluations", 200, None)


def test_text_is_written_as_utf8_on_one_line() -> None:
    line = _line("ua %s", "café\nnext")
    assert "\n" not in line
    assert "café" in line
    assert json.loads(line)["message"] == "ua café\nnext"


@pytest.mark.parametrize("value", ["\udc80", "a\ud800b", 2**64, -(2**70)])
def test_what_orjson_refuses_is_written_by_the_standard_library(value: object) -> None:
    line = _line("value", value=value)
    assert line.isascii()
    assert json.loads(line)["value"] == value
