"""service.settings.check_ports: both ports the master listens on are checked before the
warm-up, and the one line it stops with names both settings (README.md, "Quick start")."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from service.settings import Settings, SettingsError, check_ports


@pytest.fixture
def held() -> Iterator[str]:
    """``127.0.0.1:PORT`` listened on by this test (another ``make run``)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield f"127.0.0.1:{sock.getsockname()[1]}"


def _free() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def test_free_ports_pass_and_stay_free() -> None:
    bind, probes = _free(), _free()
    check_ports(Settings(bind=bind, probe_bind=probes))
    check_ports(Settings(bind=bind, probe_bind=probes))  # released: a second check passes too


@pytest.mark.parametrize("busy", ["GNAU_BIND", "GNAU_PROBE_BIND"])
def test_a_busy_port_is_named_with_both_settings(held: str, busy: str) -> None:
    addresses = {"GNAU_BIND": _free(), "GNAU_PROBE_BIND": _free()} | {busy: held}
    with pytest.raises(SettingsError) as caught:
        check_ports(Settings(bind=addresses["GNAU_BIND"], probe_bind=addresses["GNAU_PROBE_BIND"]))
    message = str(caught.value)
    assert message.startswith(f"cannot listen on {busy} {held} (")
    assert "Address already in use" in message
    assert f"GNAU_BIND={addresses['GNAU_BIND']} (the API)" in message
    assert f"GNAU_PROBE_BIND={addresses['GNAU_PROBE_BIND']} (health and readiness" in message
    assert "\n" not in message


def test_the_same_port_twice_is_refused() -> None:
    address = _free()
    with pytest.raises(SettingsError, match="cannot listen on GNAU_PROBE_BIND"):
        check_ports(Settings(bind=address, probe_bind=address))


def test_an_inherited_api_socket_is_not_checked(held: str) -> None:
    """A binary upgrade (gunicorn's GUNICORN_FD) or systemd hands the master its API socket:
    the port is busy with it, rightly."""
    check_ports(Settings(bind=held, probe_bind=_free()), inherited=True)
    check_ports(Settings(bind="unix:/tmp/gnau.sock", probe_bind=None))
