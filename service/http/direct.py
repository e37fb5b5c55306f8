"""Direct routes: the answered case of the busiest operations, served without Flask's
request machinery.

Flask costs a small request about 100 µs of CPU beyond the operation itself (its request
and app contexts, routing, the response object, the hooks), as much as a single evaluation
or a deal does: most of what the worker spends on one. So a ``POST`` to a route whose view
is marked :func:`direct` is first given to the view's own handler, at the WSGI layer
(Flask's documented place for middleware, ``app.wsgi_app``), inside
:class:`~service.http.middleware.EveryAnswer`:

- the handler is the view's: the same reading of the body, the query and the language, the
  same operation, the same admission to the compute lane, the same JSON text and headers
  (:func:`~service.http.json_body.answer_headers`); the view itself only calls it in a
  request context and wraps what it gives in a response;
- the answer is counted as Flask's hook counts its answers
  (:func:`~service.http.observability.count_answer`);
- anything the handler raises (a problem, a refusal, a bug) is handed to Flask with the
  request, and the view raises it again first thing (:func:`replay`): Flask's error handlers
  answer it exactly as if it had been raised there, and nothing is computed twice.

Which routes and which method: the rules of the app's URL map (the single owner of paths)
whose view is marked, without variables; only ``POST`` (every other method on those paths,
``OPTIONS`` and a ``405`` included, goes to Flask). With CORS on (its hooks add headers to
every answer of ``/v1/``), nothing is direct.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from flask import Flask, Response, current_app, request

from service.http.json_body import answer_headers, json_text_response
from service.http.observability import count_answer
from service.http.runtime import Runtime, runtime

__all__ = ["DirectRoutes", "Handler", "direct", "replay", "view_answer"]

#: A direct handler: ``handler(environ, runtime, config, route)`` gives the answer's JSON
#: text and the language of its labels (``None``: it has none), reading the request from
#: ``environ`` (its WSGI environment) and the app's ``config``; ``route`` is the route
#: template. It raises what the view would raise.
Handler = Callable[[dict[str, Any], Runtime, Mapping[str, Any], str], tuple[bytes, "str | None"]]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]
V = TypeVar("V", bound=Callable[..., Any])

#: Where the exception a handler raised waits for the view (:func:`replay`).
RAISED_KEY = "gnau.raised"

_HANDLERS: dict[Callable[..., Any], Handler] = {}


def direct(handler: Handler) -> Callable[[V], V]:
    """Mark a view as answered by ``handler`` in its answered case (see the module)."""

    def mark(view: V) -> V:
        _HANDLERS[view] = handler
        return view

    return mark


def replay(environ: dict[str, Any]) -> None:
    """Raise what the direct handler raised for the request of ``environ``, if it did: a
    marked view calls this before anything else.

    >>> replay({})
    >>> replay({RAISED_KEY: KeyError("x")})
    Traceback (most recent call last):
        ...
    KeyError: 'x'
    """
    raised = environ.pop(RAISED_KEY, None)
    if raised is not None:
        raise raised


def view_answer(handler: Handler) -> Response:
    """What a marked view answers in Flask: the direct handler's exception raised again
    (:func:`replay`), else ``handler`` run with the current request, its text as a response."""
    environ = request.environ
    replay(environ)
    rule = request.url_rule
    text, lang = handler(environ, runtime(), current_app.config, rule.rule if rule is not None else "")
    return json_text_response(text, lang=lang)


class DirectRoutes:
    """WSGI middleware around ``wsgi_app`` (the Flask app's): each ``POST`` to a marked
    route's path given to its handler (see the module).

    :param app: the Flask app, its blueprints registered (its URL map, views, config).
    :param wsgi_app: what to call for everything else: ``app.wsgi_app`` as it was.
    :param rt: the app's runtime, given to the handlers; with CORS on
        (``rt.cors_origins``), no route is direct.
    """

    def __init__(self, app: Flask, wsgi_app: WSGIApp, rt: Runtime) -> None:
        self.wsgi_app = wsgi_app
        self.rt = rt
        self.config = app.config
        self.routes: dict[str, Handler] = {}
        for rule in () if rt.cors_origins else app.url_map.iter_rules():
            handler = _HANDLERS.get(app.view_functions[rule.endpoint])
            if handler is not None and not rule.arguments and "POST" in (rule.methods or ()):
                self.routes[rule.rule] = handler

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Serve one request: directly when its route is direct, else through Flask."""
        route = environ.get("PATH_INFO", "")
        handler = self.routes.get(route) if environ.get("REQUEST_METHOD") == "POST" else None
        if handler is None:
            return self.wsgi_app(environ, start_response)
        try:
            text, lang = handler(environ, self.rt, self.config, route)
        except Exception as exc:  # answered by Flask, raised again in the view
            environ[RAISED_KEY] = exc
            return self.wsgi_app(environ, start_response)
        count_answer(environ, route, 200)
        start_response("200 OK", answer_headers(text, lang))
        return [text]
