"""The HTTP layer: the only package that imports Flask, werkzeug or flask-cors.

- :mod:`.app` the app factory; :mod:`.wsgi` what gunicorn serves (``service.http.wsgi:app``);
- :mod:`.runtime` the one object the app's requests share (profiles, state, budget, hooks);
- :mod:`.json_body`, :mod:`.request_body` reading a request (query, JSON, size, deadline, framing);
- views, one module per resource, each calling :mod:`service.operations`: :mod:`.scoring`,
  :mod:`.profiles`, :mod:`.analyses`, :mod:`.ops` (health, readiness, contract), :mod:`.docs`;
- :mod:`.problems` problem details (RFC 9457); :mod:`.budget` the analysis compute budget;
  :mod:`.cors`; :mod:`.observability` request ids and metrics; :mod:`.gc_pause`.
"""
