"""What every answer carries, added at the WSGI layer around the Flask app (Flask's
documented place for middleware, ``app.wsgi_app``), so no per-request hook sets a header:

- ``X-Request-ID``: the request's id (:func:`service.http.observability.start_request`,
  which also notes when the request started, for the latency metric);
- ``X-Content-Type-Options: nosniff``: every answer is what its ``Content-Type`` says, and
  browsers must not guess (a problem body that echoes ``<script>`` stays JSON);
- ``Allow`` with its methods sorted (:func:`~service.http.problems.sorted_methods`): Werkzeug
  lists them from a set, in an order that varies between processes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from service.http.observability import REQUEST_ID_HEADER, start_request
from service.http.problems import sorted_methods

__all__ = ["EveryAnswer"]

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class EveryAnswer:
    """WSGI middleware: the headers above on every answer of ``wsgi_app``.

    >>> def hello(environ, start_response):
    ...     start_response("200 OK", [("Content-Type", "text/plain"), ("Allow", "POST, GET")])
    ...     return [b"hi"]
    >>> seen = []
    >>> body = EveryAnswer(hello)({"HTTP_X_REQUEST_ID": "abc"}, lambda status, headers, exc_info=None: seen.extend(headers))
    >>> seen
    [('Content-Type', 'text/plain'), ('Allow', 'GET, POST'), ('X-Content-Type-Options', 'nosniff'), ('X-Request-ID', 'abc')]
    """

    def __init__(self, wsgi_app: WSGIApp) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Serve one request through the wrapped app."""
        found = start_request(environ)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            for i, (name, value) in enumerate(headers):
                if name == "Allow":
                    headers[i] = (name, sorted_methods(value))
            headers.append(("X-Content-Type-Options", "nosniff"))
            headers.append((REQUEST_ID_HEADER, found))
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start)
