"""Signed receipts for what the service computed (RULES.md 9.2), and the keys that sign them.

A receipt is a JWS (RFC 7515) in compact form, signed with Ed25519 (``alg`` ``Ed25519``,
RFC 9864), over the RFC 8785 canonical JSON of::

    {"operation": operationId, "profile": the answer's profile,
     "request_sha256": "sha256:" + hex SHA-256 of the canonical JSON of the accepted body,
     "response_sha256": the same of the answer without its receipt,
     "rules_sha256": Rules.sha256() of the effective rules, "service_version": openapi's info.version}

Its protected header is the canonical JSON of ``{"alg": "Ed25519", "kid": kid}``, where
``kid`` is the RFC 7638 thumbprint (SHA-256, base64url) of the public key. The public keys
are published as a JWK Set (RFC 7517), so any JOSE library verifies a receipt offline.
No time, no caller: the same request always gives the same receipt from the same key
(Ed25519 signatures are deterministic).

Keys (docs/deals-and-receipts.md): the signing key is an unencrypted Ed25519 private key in
a PKCS#8 PEM file (``-----BEGIN PRIVATE KEY-----``) named by ``GNAU_RECEIPT_KEY_FILE``;
older public keys, still published after a rotation, come from ``GNAU_RECEIPT_PUBLIC_KEYS``:
a file of PEM keys, or a folder whose ``*.pem`` files hold them (a private key there
publishes its public half only). Both are read and checked at start
(:mod:`service.settings`). The JOSE and JCS work is done by ``joserfc``, ``cryptography``
and ``rfc8785``; nothing here is hand-written cryptography.

:data:`RECEIPT_OPERATIONS` is the one list of the operations that sign on request.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import rfc8785
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from joserfc import jws
from joserfc.jwk import OKPKey

from service.errors import ErrorItem

__all__ = [
    "ALGORITHM",
    "DEVELOPMENT_MARKER",
    "RECEIPT_OPERATIONS",
    "RECEIPT_PARAMETER",
    "SERVICE_VERSION",
    "ReceiptKeyError",
    "ReceiptKeys",
    "canonical_json",
    "load_keys",
    "make_development_key",
    "receipt_payload",
    "receipt_wanted",
    "service_version",
    "sha256_of",
]

#: The operationIds whose answers carry a receipt on ``?receipt=true`` (RULES.md 9.2). The
#: one place that says so: a new operation is one entry here, plus its ``receipt``
#: parameter and 503 answer in openapi.yaml (a test compares the two).
RECEIPT_OPERATIONS: frozenset[str] = frozenset({"evaluateHand", "rankHands", "settleRound", "settleShowdown"})
#: The query parameter that asks for a receipt.
RECEIPT_PARAMETER = "receipt"
#: The JWS ``alg`` and each JWK's ``alg`` (RFC 9864's name for Ed25519; ``EdDSA`` is deprecated).
ALGORITHM = "Ed25519"
#: The first line of a development key's file (``make run`` makes one): the service says
#: in its log that it signs with a development key.
DEVELOPMENT_MARKER = "gnau-scoring development receipt key: made by make run, never use it in production"

_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\r?\n.*?-----END \1-----", re.DOTALL)
_OPENAPI = Path(__file__).with_name("openapi.yaml")


def service_version(openapi: Path = _OPENAPI) -> str:
    """The contract's ``info.version`` (a receipt's ``service_version``), read without a
    YAML parser: the first ``version:`` line indented two spaces under ``info:``.

    >>> service_version() == SERVICE_VERSION
    True
    """
    info = False
    for line in openapi.read_text(encoding="utf-8").splitlines():
        if line.startswith("info:"):
            info = True
        elif info and line[:1] not in ("", " "):
            break
        elif info and line.startswith("  version:"):
            return line.split(":", 1)[1].strip().strip("\"'")
    raise ValueError(f"{openapi} has no info.version")


#: openapi.yaml's ``info.version``.
SERVICE_VERSION = service_version()


def canonical_json(value: Any) -> bytes:
    """RFC 8785 canonical JSON: members sorted by UTF-16 code units, no whitespace,
    ECMAScript numbers, UTF-8.

    ``rfc8785`` is the reference (pure Python: about 250 µs for a ten-player settlement and
    as much for its answer). A value that orjson writes byte for byte the same way is
    written by orjson with sorted keys: no float anywhere (ECMAScript writes ``1.0`` as
    ``1``), every key a string within the Basic Multilingual Plane (there, sorting by code
    points is sorting by UTF-16 code units), integers within ±(2^53 − 1) (orjson's strict
    integers refuse the others); strings are escaped alike (the tests compare the two on
    generated values). Anything else, and anything orjson refuses, goes to ``rfc8785``.

    :raises rfc8785.CanonicalizationError: an integer outside ±(2^53 − 1), a float that is
        not finite, or a string with a lone surrogate (accepted bodies never hold one).

    >>> canonical_json({"b": [1, "é"], "a": None})
    b'{"a":null,"b":[1,"\\xc3\\xa9"]}'
    >>> canonical_json({"a": 1.0}), canonical_json({"\\U0001f600": 1, "\\ufb01": 2})
    (b'{"a":1}', b'{"\\xf0\\x9f\\x98\\x80":1,"\\xef\\xac\\x81":2}')
    """
    if _orjson_writes_it(value):
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER)
        except orjson.JSONEncodeError:  # a lone surrogate, a large integer: the reference says what
            pass
    return rfc8785.dumps(value)


_BMP_END = "\U00010000"


def _orjson_writes_it(value: Any) -> bool:
    """Whether ``value`` holds only what orjson writes as RFC 8785 does (:func:`canonical_json`)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            for key in item:
                if type(key) is not str or not (key.isascii() or max(key, default="") < _BMP_END):
                    return False
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        elif not (kind is str or kind is int or kind is bool or item is None):
            return False
    return True


def sha256_of(value: Any) -> str:
    """``sha256:`` and the 64 lower-case hex digits of SHA-256 of :func:`canonical_json`.

    >>> sha256_of({})
    'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a'
    """
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


def receipt_payload(operation: str, request_body: Any, response_body: Any, rules_sha256: str, profile: str,
                    version: str = SERVICE_VERSION) -> dict[str, str]:
    """The payload of a receipt (RULES.md 9.2).

    :param operation: the operationId, e.g. ``settleRound``.
    :param request_body: the accepted request body, as parsed.
    :param response_body: the answer without ``receipt``, as parsed JSON data.
    :param rules_sha256: :meth:`service.engine.rules.Rules.sha256` of the effective rules.
    :param profile: the answer's ``profile``.
    :param version: the service's version (openapi.yaml's ``info.version``).
    """
    return {"operation": operation, "profile": profile, "request_sha256": sha256_of(request_body),
            "response_sha256": sha256_of(response_body), "rules_sha256": rules_sha256, "service_version": version}


def receipt_wanted(values: Sequence[str] | None) -> tuple[bool, ErrorItem | None]:
    """Whether ``?receipt=`` asks for a receipt: ``true``; ``false`` or absent do not.

    :param values: every value given for ``receipt`` (``None``: not given).
    :return: the answer and the problem with the parameter, if any (then the answer is ``False``).

    >>> receipt_wanted(["true"]), receipt_wanted(None)
    ((True, None), (False, None))
    >>> receipt_wanted(["yes"])
    (False, {'parameter': 'receipt', 'detail': 'must be true or false'})
    """
    if not values:
        return False, None
    if len(values) > 1:
        return False, {"parameter": RECEIPT_PARAMETER, "detail": f"give {RECEIPT_PARAMETER} once"}
    if values[0] in ("true", "false"):
        return values[0] == "true", None
    return False, {"parameter": RECEIPT_PARAMETER, "detail": "must be true or false"}


class ReceiptKeyError(ValueError):
    """A key file that cannot be used; the message is one line naming the file, never key material."""


def _jwk(public: Ed25519PublicKey) -> dict[str, str]:
    """The public key as a JWK (RFC 8037: ``x`` is its 32 bytes, base64url without padding)
    with its RFC 7638 thumbprint (joserfc's, SHA-256) as ``kid``."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    x = base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
    kid = OKPKey.import_key({"kty": "OKP", "crv": "Ed25519", "x": x}).thumbprint()
    return {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "alg": ALGORITHM, "use": "sig"}


@dataclass(frozen=True)
class ReceiptKeys:
    """The signing key (``None``: receipts are not configured) and every published key.

    :param signing: the private key, as joserfc's key object.
    :param published: the JWK Set's keys: the signing key's first, then older ones.
    :param development: the signing key is a development key (:data:`DEVELOPMENT_MARKER`).
    """

    signing: OKPKey | None = None
    published: tuple[dict[str, str], ...] = ()
    development: bool = False
    header: dict[str, str] = field(default_factory=dict)

    @property
    def kid(self) -> str | None:
        """The signing key's ``kid``."""
        return self.published[0]["kid"] if self.signing is not None else None

    def jwk_set(self) -> dict[str, list[dict[str, str]]]:
        """The JWK Set (RFC 7517) of every published key: ``{"keys": []}`` without a key."""
        return {"keys": [dict(key) for key in self.published]}

    def sign(self, payload: Mapping[str, Any]) -> str:
        """A compact JWS of the canonical JSON of ``payload`` (header ``{"alg", "kid"}``).

        :raises ReceiptKeyError: there is no signing key.
        """
        if self.signing is None:
            raise ReceiptKeyError("receipts are not configured: no signing key")
        return jws.serialize_compact(self.header, canonical_json(payload), self.signing, algorithms=[ALGORITHM])


def _pem_blocks(path: Path, what: str) -> tuple[str, list[str]]:
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except OSError as exc:
        raise ReceiptKeyError(f"{what}: {path}: cannot read: {exc.strerror}") from None
    return text, [m.group(0) for m in _PEM.finditer(text)]


def _private_key(path: Path) -> tuple[Ed25519PrivateKey, bool]:
    what = "GNAU_RECEIPT_KEY_FILE"
    text, blocks = _pem_blocks(path, what)
    wanted = f"{what}: {path}: must hold one unencrypted Ed25519 private key in PKCS#8 PEM (-----BEGIN PRIVATE KEY-----)"
    if len(blocks) != 1 or not blocks[0].startswith("-----BEGIN PRIVATE KEY-----"):
        raise ReceiptKeyError(wanted)
    try:
        key = serialization.load_pem_private_key(blocks[0].encode("ascii"), password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise ReceiptKeyError(wanted) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ReceiptKeyError(f"{wanted}; it holds another kind of key")
    return key, DEVELOPMENT_MARKER in text


def _public_keys(location: Path) -> list[Ed25519PublicKey]:
    what = "GNAU_RECEIPT_PUBLIC_KEYS"
    files = sorted(p for p in location.glob("*.pem") if p.is_file()) if location.is_dir() else [location]
    keys: list[Ed25519PublicKey] = []
    for path in files:
        _, blocks = _pem_blocks(path, what)
        for n, block in enumerate(blocks, 1):
            key: Any
            try:
                if block.startswith("-----BEGIN PUBLIC KEY-----"):
                    key = serialization.load_pem_public_key(block.encode("ascii"))
                else:
                    key = serialization.load_pem_private_key(block.encode("ascii"), password=None).public_key()
            except (ValueError, TypeError, UnsupportedAlgorithm):
                raise ReceiptKeyError(f"{what}: {path}: PEM block {n} is not a key this service reads "
                                      "(PUBLIC KEY, or an unencrypted PKCS#8 PRIVATE KEY)") from None
            if not isinstance(key, Ed25519PublicKey):
                raise ReceiptKeyError(f"{what}: {path}: PEM block {n} is not an Ed25519 key")
            keys.append(key)
    if not keys:
        raise ReceiptKeyError(f"{what}: {location}: holds no PEM public key" + (" (no *.pem file)" if location.is_dir()
                                                                                   else ""))
    return keys


def load_keys(key_file: str | None, public_keys: str | None = None) -> ReceiptKeys:
    """Read the signing key and the older public keys.

    :param key_file: the PKCS#8 PEM file of the Ed25519 signing key (``None`` or empty:
        no signing key; receipts are then answered 503).
    :param public_keys: a file of PEM keys, or a folder of ``*.pem`` files, whose public
        keys are published besides the signing key's (``None`` or empty: none).
    :return: the keys; the JWK Set lists the signing key first, then the others in order
        (files by name), each once.
    :raises ReceiptKeyError: a file cannot be read or holds something else (one line).
    """
    signing: OKPKey | None = None
    development = False
    published: list[dict[str, str]] = []
    if key_file:
        private, development = _private_key(Path(key_file))
        signing = OKPKey.import_key(private.private_bytes(serialization.Encoding.PEM,
                                                          serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))
        published.append(_jwk(private.public_key()))
    if public_keys:
        for key in _public_keys(Path(public_keys)):
            jwk = _jwk(key)
            if all(jwk["kid"] != k["kid"] for k in published):
                published.append(jwk)
    header = {"alg": ALGORITHM, "kid": published[0]["kid"]} if signing is not None else {}
    return ReceiptKeys(signing, tuple(published), development, header)


def make_development_key(path: Path) -> bool:
    """Write a new Ed25519 development key to ``path`` (PKCS#8 PEM after the line
    :data:`DEVELOPMENT_MARKER`), its folder and the file readable by the owner only,
    unless the file exists.

    :return: whether a key was made.
    """
    if path.exists():
        return False
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    pem = Ed25519PrivateKey.generate().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                      serialization.NoEncryption())
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(DEVELOPMENT_MARKER.encode("ascii") + b"\n" + pem)
    return True


if __name__ == "__main__":  # ``python -m service.receipts PATH``: make run's development key
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ".dev/receipt-key.pem")
    if make_development_key(target):
        print(f"made a development receipt key: {target} (git-ignored; never use it in production)")
