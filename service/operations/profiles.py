"""The profile operations: list the rules profiles, read one."""

from __future__ import annotations

from typing import Any

from service.profiles import ProfileRegistry
from service.response_schemas import ProfileListSchema, ProfileSchema

__all__ = ["get_profile", "list_profiles"]

_PROFILE = ProfileSchema()
_PROFILES = ProfileListSchema()


def list_profiles(profiles: ProfileRegistry) -> dict[str, Any]:
    """``GET /v1/profiles`` (``listProfiles``): every profile, built-in first.

    >>> [p["name"] for p in list_profiles(ProfileRegistry())["profiles"]][:2]
    ['standard', 'casino']
    """
    listing: dict[str, Any] = _PROFILES.dump({"profiles": list(profiles.values())})
    return listing


def get_profile(name: str, profiles: ProfileRegistry) -> dict[str, Any]:
    """``GET /v1/profiles/{name}`` (``getProfile``): one profile with its effective rules.

    :raises service.profiles.UnknownProfileError: no profile has that name.
    """
    profile: dict[str, Any] = _PROFILE.dump(profiles.named(name))
    return profile
