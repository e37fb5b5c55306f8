"""Every setting the service reads from its environment, read and checked in one place.

gunicorn.conf.py calls :func:`from_environ` before anything else happens, so a bad value
stops start-up with exit status 1 and one line naming the variable, the value (cut
short) and what is accepted; the app reads the same :class:`Settings` again when it is
built. Every ``GNAU_*`` variable must be one of :data:`VARIABLES`: a misspelt name
(``GNAU_WORKER=4``) is an error, never silently ignored.

>>> s = from_environ({"GNAU_WORKERS": "3", "GNAU_ANALYSIS_BUDGET_SECONDS": "2.5"})
>>> s.workers, s.analysis_budget_seconds, s.keepalive
(3, 2.5, 5)
>>> from_environ({"GNAU_ANALYSIS_BUDGET_SECONDS": "nan"})
Traceback (most recent call last):
    ...
service.settings.SettingsError: GNAU_ANALYSIS_BUDGET_SECONDS must be a number from 0 to 3600, got 'nan'
>>> from_environ({"GNAU_WORKER": "4"})
Traceback (most recent call last):
    ...
service.settings.SettingsError: GNAU_WORKER is not a setting of this service; known: GNAU_ADDRESS_CONNECTIONS, GNAU_ANALYSIS_BUDGET_SECONDS, GNAU_ANALYSIS_POOL_SECONDS, GNAU_BIND, GNAU_BODY_TIMEOUT, GNAU_CORS_ORIGINS, GNAU_DRAIN_SECONDS, GNAU_GRACEFUL_TIMEOUT, GNAU_GUNICORN_CONFIG, GNAU_KEEPALIVE, GNAU_LOG_LEVEL, GNAU_PROBE_BIND, GNAU_RECEIPT_KEY_FILE, GNAU_RECEIPT_PUBLIC_KEYS, GNAU_SEND_TIMEOUT, GNAU_TIMEOUT, GNAU_WORKERS, GNAU_WORKER_CONNECTIONS, GNAU_WSGI_APP
>>> from_environ({"GNAU_RECEIPT_KEY_FILE": "/nonexistent/key.pem"})
Traceback (most recent call last):
    ...
service.settings.SettingsError: GNAU_RECEIPT_KEY_FILE: /nonexistent/key.pem: cannot read: No such file or directory
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass

from service.engine.text import clip, echo
from service.receipts import ReceiptKeyError, load_keys

__all__ = ["CORS_ENV", "LOG_LEVELS", "VARIABLES", "CorsConfigError", "Settings", "SettingsError", "check_ports",
           "from_environ", "parse_origins"]

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")

#: Every ``GNAU_*`` variable the service (and the ``gnau serve`` command) reads.
VARIABLES = (
    "GNAU_ADDRESS_CONNECTIONS",
    "GNAU_ANALYSIS_BUDGET_SECONDS",
    "GNAU_ANALYSIS_POOL_SECONDS",
    "GNAU_BIND",
    "GNAU_BODY_TIMEOUT",
    "GNAU_CORS_ORIGINS",
    "GNAU_DRAIN_SECONDS",
    "GNAU_GRACEFUL_TIMEOUT",
    "GNAU_GUNICORN_CONFIG",
    "GNAU_KEEPALIVE",
    "GNAU_LOG_LEVEL",
    "GNAU_PROBE_BIND",
    "GNAU_RECEIPT_KEY_FILE",
    "GNAU_RECEIPT_PUBLIC_KEYS",
    "GNAU_SEND_TIMEOUT",
    "GNAU_TIMEOUT",
    "GNAU_WORKERS",
    "GNAU_WORKER_CONNECTIONS",
    "GNAU_WSGI_APP",
)
#: Variables of earlier versions, refused with a pointer to what replaced them.
_RETIRED = {
    "GNAU_THREADS": "no longer applies: each worker serves every connection in its own greenlet "
                    "(gevent); bound connections with GNAU_WORKER_CONNECTIONS",
}

_BIND = re.compile(r"(unix:/\S+|(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5})")
_HOST_PORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[0-9.]+|localhost):[0-9]{1,5}")
_WSGI_APP = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


#: The environment variable naming the allowed origins.
CORS_ENV = "GNAU_CORS_ORIGINS"

_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^https?://\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$")


class CorsConfigError(ValueError):
    """``GNAU_CORS_ORIGINS`` is not a list of origins; the message names the bad entry."""


def parse_origins(value: str | None) -> list[str]:
    """The allowed origins of a ``GNAU_CORS_ORIGINS`` value; empty means CORS is off.

    :param value: comma-separated origins, ``*``, or empty/``None``.
    :return: the origins, in order, without duplicates; ``['*']`` for any origin.
    :raises CorsConfigError: an entry is not ``scheme://host[:port]`` (http or https, no
        path, no trailing slash), or ``*`` is combined with origins.

    >>> parse_origins(None), parse_origins("  ")
    ([], [])
    >>> parse_origins("https://game.example, http://localhost:3000")
    ['https://game.example', 'http://localhost:3000']
    >>> parse_origins("*")
    ['*']
    >>> parse_origins("https://game.example/")
    Traceback (most recent call last):
    ...
    service.settings.CorsConfigError: GNAU_CORS_ORIGINS: 'https://game.example/' is not an origin; write scheme://host[:port] (http or https, no path), e.g. https://game.example
    """
    entries = [e.strip() for e in (value or "").split(",") if e.strip()]
    if entries == ["*"]:
        return entries
    out: list[str] = []
    for entry in entries:
        if entry == "*":
            raise CorsConfigError(f"{CORS_ENV}: '*' (any origin) cannot be combined with a list of origins")
        if not _ORIGIN.match(entry):
            raise CorsConfigError(f"{CORS_ENV}: {echo(entry)} is not an origin; write scheme://host[:port] "
                                  "(http or https, no path), e.g. https://game.example")
        if entry not in out:
            out.append(entry)
    return out


class SettingsError(ValueError):
    """A variable of the environment has a value the service does not accept."""


@dataclass(frozen=True)
class Settings:
    """The service's settings (docs/operating.md, "gunicorn settings" and "Limits").

    Times are seconds; budgets are seconds of CPU per minute.
    """

    bind: str = "127.0.0.1:8000"
    probe_bind: str | None = "127.0.0.1:8001"  # the port after ``bind``'s unless given
    workers: int = 2
    worker_connections: int = 1000
    address_connections: int = 250
    timeout: int = 30
    keepalive: int = 5
    body_timeout: float = 10.0
    send_timeout: float = 10.0
    drain_seconds: int = 3
    graceful_timeout: int = 20
    log_level: str = "info"
    analysis_budget_seconds: float = 10.0
    analysis_pool_seconds: float = 30.0
    wsgi_app: str = "service.http.wsgi:app"
    gunicorn_config: str | None = None
    profiles_file: str | None = None
    cors_origins: tuple[str, ...] = ()
    receipt_key_file: str | None = None
    receipt_public_keys: str | None = None


def _integer(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name)
    if raw is None:
        return default
    text = raw.strip()
    if not re.fullmatch(r"[+-]?[0-9]{1,9}", text) or not low <= int(text) <= high:
        raise SettingsError(f"{name} must be an integer from {low} to {high}, got {clip(raw)!r}")
    return int(text)


def _number(env: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    raw = env.get(name)
    if raw is None:
        return default
    try:
        value = float(raw) if len(raw) <= 40 else math.nan
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and low <= value <= high):
        raise SettingsError(f"{name} must be a number from {low:g} to {high:g}, got {clip(raw)!r}")
    return value


def _next_port(bind: str) -> str:
    """The default probe address: ``bind``'s host and the port after its own (none for a
    unix socket or port 65535).

    >>> _next_port("0.0.0.0:8000"), _next_port("unix:/run/gnau.sock"), _next_port("[::1]:9000")
    ('0.0.0.0:8001', '', '[::1]:9001')
    """
    host, _, port = bind.rpartition(":")
    if bind.startswith("unix:") or not port.isdigit() or int(port) >= 65535:
        return ""
    return f"{host}:{int(port) + 1}"


def _addresses(env: Mapping[str, str]) -> tuple[str, str | None]:
    """``GNAU_BIND`` and ``GNAU_PROBE_BIND`` (``None``: no probe listener), checked.

    :raises SettingsError: either is not an address.
    """
    bind = env.get("GNAU_BIND", Settings.bind)
    if not _BIND.fullmatch(bind) or (":" in bind and not bind.startswith("unix:")
                                     and not 1 <= int(bind.rsplit(":", 1)[1]) <= 65535):
        raise SettingsError(f"GNAU_BIND must be HOST:PORT (port 1-65535) or unix:/PATH, got {clip(bind)!r}")
    probe_bind = env.get("GNAU_PROBE_BIND", _next_port(bind)).strip() or None
    if probe_bind is not None and (not _HOST_PORT.fullmatch(probe_bind)
                                   or not 1 <= int(probe_bind.rsplit(":", 1)[1]) <= 65535):
        raise SettingsError(f"GNAU_PROBE_BIND must be HOST:PORT (port 1-65535), or empty for none, "
                            f"got {clip(probe_bind)!r}")
    return bind, probe_bind


def from_environ(env: Mapping[str, str] | None = None) -> Settings:
    """Read and check every setting.

    :param env: the environment (``os.environ`` when not given).
    :return: the settings, defaults filled in.
    :raises SettingsError: the first variable with a value out of its domain, or an
        unknown ``GNAU_*`` name; the message is one line.
    """
    env = os.environ if env is None else env
    for name in sorted(env):
        if name in _RETIRED:
            raise SettingsError(f"{name} {_RETIRED[name]}")
        if name.startswith("GNAU_") and name not in VARIABLES:
            raise SettingsError(f"{clip(name)} is not a setting of this service; known: {', '.join(VARIABLES)}")
    bind, probe_bind = _addresses(env)
    level = env.get("GNAU_LOG_LEVEL", Settings.log_level).strip().lower()
    if level not in LOG_LEVELS:
        raise SettingsError(f"GNAU_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, "
                            f"got {clip(env['GNAU_LOG_LEVEL'])!r}")
    app = env.get("GNAU_WSGI_APP", Settings.wsgi_app)
    if not _WSGI_APP.fullmatch(app):
        raise SettingsError(f"GNAU_WSGI_APP must be MODULE:NAME, got {clip(app)!r}")
    profiles = env.get("PROFILES_FILE") or None  # read and checked by service.profiles (exit 4)
    try:
        origins = tuple(parse_origins(env.get(CORS_ENV)))
    except CorsConfigError as exc:
        raise SettingsError(str(exc)) from None
    key_file = env.get("GNAU_RECEIPT_KEY_FILE") or None
    public_keys = env.get("GNAU_RECEIPT_PUBLIC_KEYS") or None
    try:
        load_keys(key_file, public_keys)  # read again by the app (service.http.app); checked here
    except ReceiptKeyError as exc:
        raise SettingsError(str(exc)) from None
    return Settings(
        bind=bind,
        probe_bind=probe_bind,
        workers=_integer(env, "GNAU_WORKERS", Settings.workers, 1, 64),
        worker_connections=_integer(env, "GNAU_WORKER_CONNECTIONS", Settings.worker_connections, 10, 100_000),
        address_connections=_integer(env, "GNAU_ADDRESS_CONNECTIONS", Settings.address_connections, 1, 100_000),
        timeout=_integer(env, "GNAU_TIMEOUT", Settings.timeout, 1, 3600),
        keepalive=_integer(env, "GNAU_KEEPALIVE", Settings.keepalive, 1, 300),
        body_timeout=_number(env, "GNAU_BODY_TIMEOUT", Settings.body_timeout, 0.1, 300),
        send_timeout=_number(env, "GNAU_SEND_TIMEOUT", Settings.send_timeout, 0.1, 300),
        drain_seconds=_integer(env, "GNAU_DRAIN_SECONDS", Settings.drain_seconds, 0, 300),
        graceful_timeout=_integer(env, "GNAU_GRACEFUL_TIMEOUT", Settings.graceful_timeout, 0, 3600),
        log_level=level,
        analysis_budget_seconds=_number(env, "GNAU_ANALYSIS_BUDGET_SECONDS", Settings.analysis_budget_seconds,
                                        0, 3600),
        analysis_pool_seconds=_number(env, "GNAU_ANALYSIS_POOL_SECONDS", Settings.analysis_pool_seconds, 0, 3600),
        wsgi_app=app,
        gunicorn_config=env.get("GNAU_GUNICORN_CONFIG") or None,
        profiles_file=profiles,
        cors_origins=origins,
        receipt_key_file=key_file,
        receipt_public_keys=public_keys,
    )


def _listen(address: str, held: list[socket.socket]) -> str | None:
    """Listen on ``HOST:PORT`` as gunicorn would (``SO_REUSEADDR``), keeping the socket in
    ``held``; why it cannot, else ``None``."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    held.append(sock)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, int(port)))
        sock.listen(1)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def check_ports(settings: Settings, *, inherited: bool = False) -> None:
    """Check, before the master warms (seconds) and long before gunicorn binds, that both
    ports it will listen on are free: the API's (``GNAU_BIND``) and the probes'
    (``GNAU_PROBE_BIND``). Each is listened on for a moment and released.

    :param inherited: the API's socket comes from a parent (gunicorn's ``GUNICORN_FD`` on a
        binary upgrade, systemd's ``LISTEN_FDS``): only the probes' port is checked.
    :raises SettingsError: a port cannot be listened on; the one-line message names both
        settings, their addresses, and which one failed and why.

    >>> import socket
    >>> busy = socket.socket(); busy.bind(("127.0.0.1", 0)); busy.listen(1)
    >>> port = busy.getsockname()[1]
    >>> check_ports(Settings(bind=f"127.0.0.1:{port}", probe_bind=None))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    service.settings.SettingsError: cannot listen on GNAU_BIND 127.0.0.1:... (the API): Address already in use. ...
    >>> busy.close()
    """
    checks = [("GNAU_PROBE_BIND", settings.probe_bind, "health and readiness")]
    if not inherited and not settings.bind.startswith("unix:"):
        checks.insert(0, ("GNAU_BIND", settings.bind, "the API"))
    held: list[socket.socket] = []
    try:
        for name, address, role in checks:
            why = None if address is None else _listen(address, held)
            if why is not None:
                probes = settings.probe_bind or "(empty: none)"
                raise SettingsError(
                    f"cannot listen on {name} {address} ({role}): {why}. Is the service already running "
                    f"(a second `make run`)? It needs two free ports: GNAU_BIND={settings.bind} (the API) and "
                    f"GNAU_PROBE_BIND={probes} (health and readiness; by default the port after GNAU_BIND's). "
                    f"Set them to free ones, e.g. GNAU_BIND=127.0.0.1:8080 (probes then on 127.0.0.1:8081)")
    finally:
        for sock in held:
            with contextlib.suppress(OSError):
                sock.close()
