"""The floor the HTTP benchmark compares against: a trivial Flask app that echoes a small
JSON body, served by the same ``gunicorn.conf.py`` (``GNAU_WSGI_APP=bench.echo_app:app``).

>>> client = app.test_client()
>>> client.post("/echo", json={"hand": ["AS"]}).get_json()
{'hand': ['AS']}
"""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, request

from service.http.runtime import Runtime, ServerState

__all__ = ["app"]

app = Flask(__name__)
#: gunicorn.conf.py's post_worker_init hook drains through its state (SIGTERM handling).
Runtime(state=ServerState(ready=True)).install(app)


@app.post("/echo")
def echo() -> Any:
    """Answer the JSON body as it came."""
    return jsonify(request.get_json())
