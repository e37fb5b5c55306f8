"""The one log format of the service and of gunicorn: JSON objects, one per line, on stderr."""

from __future__ import annotations

import logging
import sys

from pythonjsonlogger.json import JsonFormatter

__all__ = ["configure_logging", "json_formatter"]


def json_formatter() -> JsonFormatter:
    """The one log format of the service and of gunicorn: a JSON object per line with
    ``time`` (ISO 8601, UTC), ``level``, ``name``, ``pid`` (the worker's process id),
    ``message`` and any ``extra`` fields.

    >>> import logging
    >>> record = logging.LogRecord("service", logging.INFO, "", 0, "hello", None, None)
    >>> line = json_formatter().format(record)
    >>> sorted(__import__("json").loads(line))
    ['level', 'message', 'name', 'pid', 'time']
    """
    return JsonFormatter("%(levelname)s %(name)s %(process)d %(message)s",
                         rename_fields={"levelname": "level", "process": "pid"}, timestamp="time")


def configure_logging(level: str = "INFO") -> None:
    """Send the service's logs to stderr as one JSON object per line."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(json_formatter())
    root = logging.getLogger("service")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False
