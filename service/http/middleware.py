"""What every answer carries, added at the WSGI layer around the Flask app (Flask's
documented place for middleware, ``app.wsgi_app``), so no per-request hook sets a header:

- ``X-Request-ID``: the request's id (:func:`service.http.observability.start_request`,
  which also notes when the request started, for the latency metric);
- ``X-Content-Type-Options: nosniff``: every answer is what its ``Content-Type`` says, and
  browsers must not guess (a problem body that echoes ``<script>`` stays JSON);
- ``Allow`` with its methods sorted (:func:`~service.http.problems.sorted_methods`): Werkzeug
  lists them from a set, in an order that varies between processes;
- with CORS on, its headers (:class:`service.http.cors.Cors`).

Every answer is counted here, once (:func:`~service.http.observability.count_answer`, by the
route template it matched, :func:`~service.http.observability.route_of`), whoever made it:
the route table's dispatcher (:mod:`service.http.routes`) or Flask.

It also bounds what an answer holds once it is made: under gunicorn, the answer must be
taken by the client within ``send_timeout`` seconds (``GNAU_SEND_TIMEOUT``; a client that
stops reading has its connection closed, and the answer's memory is freed), and a heavy
request's admission (:meth:`service.http.runtime.Runtime.compute`) ends once its answer is
sent or abandoned, whatever happened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from service.http.cors import Cors
from service.http.observability import REQUEST_ID_HEADER, count_answer, route_of, start_request
from service.http.problems import sorted_methods
from service.http.runtime import RELEASE_KEY

__all__ = ["EveryAnswer"]

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class EveryAnswer:
    """WSGI middleware: the headers above on every answer of ``wsgi_app``, counted.

    :param send_timeout: the seconds a client has to take an answer (``None``: no limit).
    :param cors: the app's CORS (``None``: off).

    >>> def hello(environ, start_response):
    ...     start_response("200 OK", [("Content-Type", "text/plain"), ("Allow", "POST, GET")])
    ...     return [b"hi"]
    >>> seen = []
    >>> body = EveryAnswer(hello)({"HTTP_X_REQUEST_ID": "abc"}, lambda status, headers, exc_info=None: seen.extend(headers))
    >>> seen
    [('Content-Type', 'text/plain'), ('Allow', 'GET, POST'), ('X-Content-Type-Options', 'nosniff'), ('X-Request-ID', 'abc')]
    """

    def __init__(self, wsgi_app: WSGIApp, send_timeout: float | None = None, cors: Cors | None = None) -> None:
        self.wsgi_app = wsgi_app
        self.send_timeout = send_timeout
        self.cors = cors

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Serve one request through the wrapped app."""
        found = start_request(environ)
        cors = self.cors

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            for i, (name, value) in enumerate(headers):
                if name == "Allow":
                    headers[i] = (name, sorted_methods(value))
            if cors is not None:
                cors.add(environ, headers)
            headers.append(("X-Content-Type-Options", "nosniff"))
            headers.append((REQUEST_ID_HEADER, found))
            count_answer(environ, route_of(environ), int(status[:3]))
            return start_response(status, headers, exc_info)

        try:
            body = self.wsgi_app(environ, start)
        except BaseException:
            _end(environ)
            raise
        sock = environ.get("gunicorn.socket")
        if sock is None and RELEASE_KEY not in environ:
            return body
        return _Sent(body, environ, sock, self.send_timeout)


def _end(environ: dict[str, Any]) -> None:
    release = environ.pop(RELEASE_KEY, None)
    if release is not None:
        release()


class _Sent:
    """An answer's body as gunicorn writes it: the socket's send deadline set while it is
    written, and the request's admission ended when gunicorn closes it (always, even when
    the client went away)."""

    def __init__(self, body: Iterable[bytes], environ: dict[str, Any], sock: Any, timeout: float | None) -> None:
        self.body = body
        self.environ = environ
        self.sock = sock
        self.timeout = timeout

    def __iter__(self) -> Iterator[bytes]:
        if self.sock is not None and self.timeout:
            self.sock.settimeout(self.timeout)  # gevent's sendall: a deadline for the whole write
        return iter(self.body)

    def close(self) -> None:
        """Reset the socket's deadline, close the body, end the admission."""
        try:
            if self.sock is not None and self.timeout:
                self.sock.settimeout(None)
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            _end(self.environ)
