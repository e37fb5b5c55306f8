"""The WSGI entry point gunicorn serves: ``service.wsgi:app``."""

from __future__ import annotations

import os

from service.app import create_app
from service.observability import configure_logging

configure_logging(os.environ.get("GNAU_LOG_LEVEL", "info"))
app = create_app()
