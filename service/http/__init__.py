"""The HTTP layer: the only package that imports Flask, werkzeug or flask-cors.

- :mod:`.app` the app factory; :mod:`.wsgi` what gunicorn serves (``service.http.wsgi:app``);
- :mod:`.runtime` the one object the app's requests share (profiles, state, budget, hooks);
- :mod:`.routes` the route table: every operation's route, served at the WSGI layer or by
  Flask through one adapter, both built from the table;
- :mod:`.middleware` what every answer carries (request id, CORS, counting);
- :mod:`.json_body`, :mod:`.request_body` reading a request (query, JSON, size, deadline, framing);
- the server's own endpoints: :mod:`.ops` (health, readiness, contract), :mod:`.docs`,
  :mod:`.receipts` (the receipt keys), :mod:`.observability` (``/metrics``);
- :mod:`.problems` problem details (RFC 9457); :mod:`.budget` the analysis compute budget;
  :mod:`.cors`; :mod:`.observability` request ids and metrics; :mod:`.gc_pause`.
"""
