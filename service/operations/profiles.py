"""The profile operations: list the rules profiles, read one."""

from __future__ import annotations

from types import MappingProxyType

from service.operations.scoring import Answer, Query, refuse_unknown
from service.profiles import ProfileRegistry
from service.response_schemas import ProfileListSchema, ProfileSchema

__all__ = ["get_profile", "list_profiles"]

_PROFILE = ProfileSchema()
_PROFILES = ProfileListSchema()
_NONE: Query = MappingProxyType({})
#: The query parameters the profile reads take.
TAKES: frozenset[str] = frozenset()


def list_profiles(profiles: ProfileRegistry, query: Query = _NONE) -> Answer:
    """``GET /v1/profiles`` (``listProfiles``): every profile, built-in first.

    :raises InvalidRequestError: a query parameter (it takes none).

    >>> [p["name"] for p in list_profiles(ProfileRegistry()).body["profiles"]][:2]
    ['standard', 'casino']
    """
    refuse_unknown(query, TAKES)
    return Answer(_PROFILES.dump({"profiles": list(profiles.values())}))


def get_profile(name: str, profiles: ProfileRegistry, query: Query = _NONE) -> Answer:
    """``GET /v1/profiles/{name}`` (``getProfile``): one profile with its effective rules.

    :raises InvalidRequestError: a query parameter (it takes none).
    :raises service.profiles.UnknownProfileError: no profile has that name.
    """
    refuse_unknown(query, TAKES)
    return Answer(_PROFILE.dump(profiles.named(name)), name)
