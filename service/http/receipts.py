"""Receipts over HTTP (RULES.md 9.2): ``?receipt=true`` on the operations of
:data:`service.receipts.RECEIPT_OPERATIONS`, and the public keys at
``GET /.well-known/jwks.json``.

The route table (:func:`service.http.routes.serve`) calls :func:`answer_with_receipt` only
on a route that signs (:attr:`Route.signs <service.http.routes.Route.signs>`: its operationId
is in :data:`~service.receipts.RECEIPT_OPERATIONS`, the one list) and only when the query
names ``receipt``, so requests without it take exactly the path they took before receipts
existed. There ``receipt`` is taken out of the query before the operation sees it (its other
parameters are checked as always, and a bad ``receipt`` value is listed with their
problems); on any other operation it stays, and the operation answers it as the usual
unknown parameter.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import orjson
from flask import Blueprint, Response, current_app

from service.errors import InvalidRequestError
from service.http.json_body import json_response
from service.http.runtime import Runtime
from service.operations import Answer, Query
from service.problems import RECEIPTS_NOT_CONFIGURED, ProblemError
from service.receipts import (
    RECEIPT_PARAMETER,
    ReceiptKeys,
    load_keys,
    receipt_payload,
    receipt_wanted,
)

__all__ = ["answer_with_receipt", "install_receipts", "receipts"]

receipts = Blueprint("receipts", __name__)

_log = logging.getLogger("service.receipts")

#: The detail of the problem of ``receipt=true`` on a server without a signing key.
NOT_CONFIGURED = ("This server has no receipt signing key (GNAU_RECEIPT_KEY_FILE): ask without receipt=true, "
                  "or ask its operator to configure one.")


def install_receipts(rt: Runtime, key_file: str | None, public_keys: str | None) -> None:
    """Load the receipt keys into ``rt`` (in gunicorn's master, before the fork) and say in
    the log which key signs (a development key is named as such).

    :raises service.receipts.ReceiptKeyError: a key file cannot be used (checked earlier,
        at start, by :mod:`service.settings`).
    """
    rt.receipts = load_keys(key_file, public_keys)
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


def answer_with_receipt(operation: Callable[[Query], Answer], body: Any, query: Query, rt: Runtime,
                        operation_id: str) -> tuple[Answer, bytes | None]:
    """Call an operation that signs, whose query names ``receipt``, with the rest of the
    query; sign its answer when asked. Touches no request context (it may run on the
    worker's compute lane).

    :param operation: the operation of the request's body, called with a query.
    :param body: the request body, parsed.
    :param operation_id: the operation's operationId (signed into the receipt).
    :return: the operation's answer (for the metrics and its language) and, when a receipt
        was asked for, the signed JSON to send instead of the answer's body.
    :raises InvalidRequestError: the request's problems, a bad ``receipt`` value first.
    :raises ProblemError: 503 ``/problems/receipts-not-configured``: a valid request asked
        for a receipt from a server without a signing key.
    """
    wanted, problem = receipt_wanted(query[RECEIPT_PARAMETER])
    rest: Mapping[str, Any] = {name: values for name, values in query.items() if name != RECEIPT_PARAMETER}
    try:
        answer = operation(rest)
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
    return json_response(Runtime.of(current_app).receipts.jwk_set())

