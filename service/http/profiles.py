"""The profile endpoints: every rules profile, and one (:mod:`service.operations.profiles`)."""

from __future__ import annotations

from flask import Blueprint, Response

from service import operations
from service.http.json_body import json_response
from service.http.runtime import runtime

__all__ = ["profiles"]

profiles = Blueprint("profiles", __name__, url_prefix="/v1")


@profiles.get("/profiles")
def list_profiles() -> Response:
    """Every profile (openapi: ``listProfiles``)."""
    return json_response(operations.list_profiles(runtime().profiles))


@profiles.get("/profiles/<name>")
def get_profile(name: str) -> Response:
    """One profile (openapi: ``getProfile``); 404 when unknown."""
    return json_response(operations.get_profile(name, runtime().profiles))
