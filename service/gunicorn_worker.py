"""The gunicorn worker class the service runs: gevent's, answering gunicorn's own errors
(those raised before the app sees a request: a malformed request line or header, a
request line over 4,094 bytes, too many or too large headers) as problem details like
every other error, instead of gunicorn's small HTML page.

gunicorn.conf.py names it: ``worker_class = "service.gunicorn_worker.Worker"``.
"""

from __future__ import annotations

import json
import socket
from typing import Any

from gunicorn import util
from gunicorn.workers.ggevent import GeventWorker

from service.engine.text import clip

__all__ = ["Worker", "write_problem"]

_TYPES = {
    400: "/problems/bad-request",
    403: "/problems/forbidden",
    414: "/problems/uri-too-long",
    417: "/problems/expectation-failed",
    431: "/problems/header-fields-too-large",
    501: "/problems/not-implemented",
}


def write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error``, answering ``application/problem+json`` (RFC 9457).

    :param sock: the client's socket.
    :param status_int: the HTTP status gunicorn chose (400, 414, 431, ...).
    :param reason: the reason phrase.
    :param mesg: gunicorn's description; quoted request text in it is cut short.
    """
    body = json.dumps({
        "type": _TYPES.get(status_int, f"/problems/http-{status_int}"),
        "title": reason,
        "status": status_int,
        "detail": clip(mesg, 200),
    }, ensure_ascii=True).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            "Content-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1")
    util.write_nonblock(sock, head + body)


class Worker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker; its pre-app errors are problem details."""

    def init_process(self) -> Any:
        util.write_error = write_problem  # gunicorn's base worker calls util.write_error
        return super().init_process()
