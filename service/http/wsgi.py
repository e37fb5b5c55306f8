"""The WSGI entry point gunicorn serves: ``service.http.wsgi:app``.

An invalid ``PROFILES_FILE`` stops start-up: one JSON log line at level ``CRITICAL`` on
stderr names the file, the profile, the knob and the problem, and the process exits with
status 4, gunicorn's own code for "the application failed to load". With
``preload_app`` (gunicorn.conf.py) that is the master's exit status; without it the
worker exits 4 and gunicorn's master stops with the same status. Every ``GNAU_*`` setting
(``GNAU_CORS_ORIGINS`` included) is checked earlier, by gunicorn.conf.py (exit status 1);
an invalid ``GNAU_CORS_ORIGINS`` reaching the app some other way stops it with status 4.
"""

from __future__ import annotations

import logging
import os

from service.http.app import create_app
from service.logs import configure_logging
from service.profiles import ProfilesFileError
from service.settings import CorsConfigError

__all__ = ["APP_LOAD_ERROR", "app"]

#: gunicorn's ``Arbiter.APP_LOAD_ERROR``: the exit status for an application that cannot load.
APP_LOAD_ERROR = 4

configure_logging(os.environ.get("GNAU_LOG_LEVEL", "info"))
try:
    app = create_app()
except ProfilesFileError as exc:
    logging.getLogger(__name__).critical("invalid PROFILES_FILE, not starting: %s", exc)
    raise SystemExit(APP_LOAD_ERROR) from None
except CorsConfigError as exc:
    logging.getLogger(__name__).critical("invalid GNAU_CORS_ORIGINS, not starting: %s", exc)
    raise SystemExit(APP_LOAD_ERROR) from None
