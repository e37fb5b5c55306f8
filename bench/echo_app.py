"""The floor the HTTP benchmark compares against: a bare WSGI echo, served by the same
``gunicorn.conf.py`` and worker class as the service (``GNAU_WSGI_APP=bench.echo_app:app``).

:func:`app` is a plain WSGI callable, no framework: it reads the request body and answers
it as it came, ``200`` with ``Content-Type: application/json``. What it costs a worker is
what every request costs before and after any application: gunicorn's parsing of the
request head, the gevent worker's turn-taking and balanced accepting, the access log line
and the socket writes. The configuration's hooks skip what only the service needs (the
warm-up, the compute lane, the drain period): it has no runtime to warm or drain.

>>> import io
>>> body = b'{"hand": ["AS"]}'
>>> seen = []
>>> environ = {"REQUEST_METHOD": "POST", "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body)}
>>> app(environ, lambda status, headers: seen.append((status, headers)))
[b'{"hand": ["AS"]}']
>>> seen
[('200 OK', [('Content-Type', 'application/json'), ('Content-Length', '16')])]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["app"]


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """Answer the request's body as it came, as ``application/json`` (any method, any path)."""
    length = environ.get("CONTENT_LENGTH") or "0"
    body: bytes = environ["wsgi.input"].read(int(length)) if length != "0" else b""
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
