"""gunicorn's error and access logs as JSON lines (python-json-logger).

The access line carries the request id the service echoed in ``X-Request-ID``, the
``pid`` of the worker that served it and ``wait_ms``, how long the request waited for its
worker's compute lane before it ran (0 for a request that needs none:
:mod:`service.http.compute`); every line has the fields of :func:`service.logs.json_formatter`.
On the deal paths (:data:`SECRET_PATHS`) the query string is not logged: a seed belongs in
the body, and one put in the query by mistake must not reach the log (RULES.md 9.1).

gunicorn's words for a request it cannot read quote the request's bytes, and those may be
anything a client sent: the rest of a body whose ``Content-Length`` undercounted it (a
client counting characters, not UTF-8 bytes) is read as the next request's head, and ends
in a deal's seed. Its warning in the error log, and the problem answered
(:func:`service.gunicorn_worker.write_problem`), keep its words without the quote
(:func:`without_request_text`).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from gunicorn.glogging import Logger

from service.logs import REQUEST_ID_KEY, WAIT_KEY, json_formatter

__all__ = ["REDACTED", "SECRET_PATHS", "JsonLogger", "without_request_text"]

#: Paths whose query string the access log leaves out (the deals take no query parameter).
SECRET_PATHS = ("/v1/deals",)
#: What the access log writes instead of such a query string.
REDACTED = "(not logged on this path)"
#: How gunicorn begins its warning about a request it could not read.
_INVALID_REQUEST = "Invalid request from ip="


def without_request_text(message: str) -> str:
    """gunicorn's description of a request it could not read, without the request text it
    quotes (``%r`` of the bytes, or a message quoting one): its words up to the first quote.

    >>> without_request_text("Invalid Method 'Invalid HTTP method: \\'deadbeef\\''")
    'Invalid Method'
    >>> without_request_text("Request Line is too large (5000 > 4094)")
    'Request Line is too large (5000 > 4094)'
    """
    for i, ch in enumerate(message):
        if ch in "'\"":
            return message[:i].rstrip(" :")
    return message


class JsonLogger(Logger):  # type: ignore[misc]
    """gunicorn ``logger_class`` writing one JSON object per line."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        formatter = json_formatter()
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(formatter)

    def warning(self, msg: Any, *args: Any, **kwargs: Any) -> None:
        """gunicorn's warning; about a request it could not read, without the request text
        (module docstring)."""
        if isinstance(msg, str) and msg.startswith(_INVALID_REQUEST):
            msg = without_request_text(msg)
        super().warning(msg, *args, **kwargs)

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: timedelta) -> None:
        if not (self.cfg.accesslog or self.cfg.logconfig or self.cfg.logconfig_dict or self.cfg.syslog):
            return
        request_id = environ.get(REQUEST_ID_KEY)  # the service's own (its answer's X-Request-ID)
        if request_id is None:  # another app's: what it answered
            request_id = next((v for k, v in (resp.headers or []) if k.lower() == "x-request-id"), None)
        status = resp.status.split(None, 1)[0] if isinstance(resp.status, str) else str(resp.status)
        path, query = environ.get("PATH_INFO"), environ.get("QUERY_STRING") or None
        if query is not None and isinstance(path, str) and path.startswith(SECRET_PATHS):
            query = REDACTED
        self.access_log.log(logging.INFO, "request", extra={
            "remote_addr": environ.get("REMOTE_ADDR", "-"),
            "method": environ.get("REQUEST_METHOD"),
            "path": path,
            "query": query,
            "status": int(status) if status.isdigit() else status,
            "bytes": getattr(resp, "sent", None),
            "duration_ms": round(request_time.total_seconds() * 1000, 3),
            "wait_ms": round(float(environ.get(WAIT_KEY) or 0.0) * 1000, 3),
            "request_id": request_id,
            "user_agent": environ.get("HTTP_USER_AGENT"),
        })
