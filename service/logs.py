"""The one log format of the service and of gunicorn: JSON objects, one per line, on stderr."""

from __future__ import annotations

import json
import logging
import sys

from pythonjsonlogger.core import LogData
from pythonjsonlogger.orjson import OrjsonFormatter

__all__ = ["REQUEST_ID_KEY", "WAIT_KEY", "LineFormatter", "configure_logging", "json_formatter"]

#: Where a request's wait for its worker's compute lane (seconds) is kept in the WSGI
#: environment: the access log's ``wait_ms`` and the wait metric read it.
WAIT_KEY = "gnau.wait"
#: Where a request's id (the ``X-Request-ID`` it is answered with) is kept in the WSGI
#: environment: problem bodies and the access log read it.
REQUEST_ID_KEY = "gnau.request_id"


class LineFormatter(OrjsonFormatter):
    """python-json-logger's orjson formatter, with the standard library's encoder for the
    lines orjson refuses: text with a lone surrogate (a ``surrogateescape`` path or
    environment value), which would otherwise lose the line to logging's error handler.

    >>> import logging
    >>> record = logging.LogRecord("service", logging.INFO, "", 0, "%s", ("\\udc80",), None)
    >>> __import__("json").loads(LineFormatter("%(message)s").format(record))["message"] == "\\udc80"
    True
    """

    def jsonify_log_record(self, log_data: LogData) -> str:
        """The record's fields as one line of JSON (orjson, else ``json`` with ``\\u`` escapes)."""
        try:
            text: str = super().jsonify_log_record(log_data)
        except TypeError:  # orjson: "str is not valid UTF-8: surrogates not allowed", or a type it cannot write
            return json.dumps(log_data, default=self.json_default, ensure_ascii=True)
        return text


def json_formatter() -> LineFormatter:
    """The one log format of the service and of gunicorn: a JSON object per line with
    ``time`` (ISO 8601, UTC), ``level``, ``name``, ``pid`` (the worker's process id),
    ``message`` and any ``extra`` fields.

    The access log writes a line per request: orjson's encoder (in C) takes about 18 µs
    a line where the standard library's took about 27 (measured in process). Text is
    written as UTF-8, not ``\\u`` escapes (:class:`LineFormatter`).

    >>> import logging
    >>> record = logging.LogRecord("service", logging.INFO, "", 0, "hello", None, None)
    >>> line = json_formatter().format(record)
    >>> sorted(__import__("json").loads(line))
    ['level', 'message', 'name', 'pid', 'time']
    """
    return LineFormatter("%(levelname)s %(name)s %(process)d %(message)s",
                         rename_fields={"levelname": "level", "process": "pid"}, timestamp="time")


def configure_logging(level: str = "INFO") -> None:
    """Send the service's logs to stderr as one JSON object per line."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(json_formatter())
    root = logging.getLogger("service")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False
