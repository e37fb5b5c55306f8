"""Receipts over HTTP (RULES.md 9.2): ``?receipt=true`` on the operations of
:data:`service.receipts.RECEIPT_OPERATIONS`, and the public keys at
``GET /.well-known/jwks.json``.

A scoring view calls :func:`answer_with_receipt` only when the query names ``receipt``, so
requests without it take exactly the path they took before receipts existed. On an
operation that signs, ``receipt`` is taken out of the query before the operation sees it
(its other parameters are checked as always, and a bad ``receipt`` value is listed with
their problems); on any other operation it stays, and the operation answers it as the usual
unknown parameter. Which operation a route is comes from openapi.yaml's operationIds
(:func:`receipt_routes`), so :data:`~service.receipts.RECEIPT_OPERATIONS` is the one list.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson
import yaml
from flask import Blueprint, Response

from service.errors import InvalidRequestError
from service.http.json_body import json_response
from service.http.runtime import Runtime, runtime
from service.operations import Answer, Query
from service.problems import RECEIPTS_NOT_CONFIGURED, ProblemError
from service.profiles import ProfileRegistry
from service.receipts import (
    RECEIPT_OPERATIONS,
    RECEIPT_PARAMETER,
    ReceiptKeys,
    load_keys,
    receipt_payload,
    receipt_wanted,
)

__all__ = ["answer_with_receipt", "install_receipts", "receipt_operation", "receipt_routes", "receipts"]

receipts = Blueprint("receipts", __name__)

_log = logging.getLogger("service.receipts")

#: The detail of the problem of ``receipt=true`` on a server without a signing key.
NOT_CONFIGURED = ("This server has no receipt signing key (GNAU_RECEIPT_KEY_FILE): ask without receipt=true, "
                  "or ask its operator to configure one.")


def receipt_routes(openapi: Path) -> dict[tuple[str, str], str]:
    """The routes of the operations that sign, by ``(Flask route template, METHOD)``:
    openapi.yaml's paths whose operationId is in :data:`~service.receipts.RECEIPT_OPERATIONS`.

    >>> from service.http.ops import OPENAPI_FILE
    >>> sorted(receipt_routes(OPENAPI_FILE).items())[0]
    (('/v1/evaluations', 'POST'), 'evaluateHand')
    """
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    document = yaml.load(openapi.read_text(encoding="utf-8"), Loader=loader)
    found: dict[tuple[str, str], str] = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") in RECEIPT_OPERATIONS:
                found[(path.replace("{", "<").replace("}", ">"), method.upper())] = operation["operationId"]
    return found


def install_receipts(rt: Runtime, key_file: str | None, public_keys: str | None, openapi: Path) -> None:
    """Load the receipt keys into ``rt`` (in gunicorn's master, before the fork) and say in
    the log which key signs (a development key is named as such).

    :raises service.receipts.ReceiptKeyError: a key file cannot be used (checked earlier,
        at start, by :mod:`service.settings`).
    """
    rt.receipts = load_keys(key_file, public_keys)
    rt.receipt_operations = receipt_routes(openapi)
    if rt.receipts.development:
        _log.warning("receipts are signed with a DEVELOPMENT key (%s, made by make run, kid %s): never use it "
                     "in production; set GNAU_RECEIPT_KEY_FILE", key_file, rt.receipts.kid)
    elif rt.receipts.kid is not None:
        _log.info("receipts are signed with key %s; %d key(s) published", rt.receipts.kid, len(rt.receipts.published))


def _sign(keys: ReceiptKeys, operation_id: str, body: Any, answer: Answer) -> bytes:
    """The answer's JSON with its ``receipt`` as the last member."""
    text = orjson.dumps(answer.body)
    if answer.rules is None:  # every signing operation gives its rules
        raise RuntimeError(f"{operation_id} gave no rules to sign")
    payload = receipt_payload(operation_id, body, orjson.loads(text), answer.rules.sha256(), answer.profile)
    return text[:-1] + b',"receipt":' + orjson.dumps(keys.sign(payload)) + b"}"


def receipt_operation(rt: Runtime, route: str, method: str = "POST") -> str | None:
    """The operationId of the route template ``route`` with ``method`` when it signs on
    request, else ``None``."""
    return rt.receipt_operations.get((route, method))


def answer_with_receipt(operation: Callable[[Any, Query, ProfileRegistry], Answer], body: Any, query: Query,
                        rt: Runtime, operation_id: str | None) -> tuple[Answer, bytes | None]:
    """Call a scoring operation whose query names ``receipt``; sign its answer when asked.
    Touches no request context (it may run on the worker's compute lane).

    :param body: the request body, parsed.
    :param operation_id: :func:`receipt_operation` of the request (``None``: the route does
        not sign, and ``receipt`` is left to the operation as an unknown parameter).
    :return: the operation's answer (for the metrics and its language) and, when a receipt
        was asked for, the signed JSON to send instead of the answer's body.
    :raises InvalidRequestError: the request's problems, a bad ``receipt`` value first.
    :raises ProblemError: 503 ``/problems/receipts-not-configured``: a valid request asked
        for a receipt from a server without a signing key.
    """
    if operation_id is None:
        return operation(body, query, rt.profiles), None
    wanted, problem = receipt_wanted(query[RECEIPT_PARAMETER])
    rest: Mapping[str, Any] = {name: values for name, values in query.items() if name != RECEIPT_PARAMETER}
    try:
        answer = operation(body, rest, rt.profiles)
    except InvalidRequestError as exc:
        raise InvalidRequestError([problem, *exc.errors] if problem else exc.errors) from None
    if problem:
        raise InvalidRequestError([problem])
    if not wanted:
        return answer, None
    if rt.receipts.signing is None:
        raise ProblemError(RECEIPTS_NOT_CONFIGURED, NOT_CONFIGURED)
    return answer, _sign(rt.receipts, operation_id, body, answer)


@receipts.get("/.well-known/jwks.json")
def receipt_keys() -> Response:
    """The receipt keys as a JWK Set (openapi: ``getReceiptKeys``); ``{"keys": []}`` without a key."""
    return json_response(runtime().receipts.jwk_set())

