"""One function per operation of openapi.yaml (by ``operationId``), with no web framework:
``(body and/or query, profile registry) -> answer data``, or
:class:`~service.errors.InvalidRequestError` listing every problem with its JSON pointer
or query parameter, or :class:`~service.profiles.UnknownProfileError` for a profile's
resource. The HTTP views (:mod:`service.http`) and the ``gnau`` command (:mod:`service.cli`)
both call these, so they accept, reject and answer alike.

- scoring (:mod:`.scoring`): :func:`evaluate_hand`, :func:`evaluate_hands`, :func:`rank_hands`,
  :func:`settle_round`, :func:`table_exposures`; showdowns without a dealer
  (:mod:`.showdowns`, RULES.md 6.6): :func:`settle_showdown`;
- profiles (:mod:`.profiles`): :func:`list_profiles`, :func:`get_profile`;
- deals (:mod:`.deals`, RULES.md 9.1): :func:`deal_hands`, :func:`verify_deal`;
- analyses (:mod:`.analyses`): :func:`odds_against_dealer`, :func:`get_profile_distribution`,
  :func:`get_profile_house_edge`, :func:`analyse_distribution`, :func:`analyse_house_edge`.

Health, readiness, metrics, the contract, the docs page and the receipt keys (the JWK Set)
are the HTTP server's own (:mod:`service.http.ops`, :mod:`service.http.docs`,
:mod:`service.http.receipts`); so is signing a receipt onto an answer (RULES.md 9.2).
"""

from service.operations.analyses import (
    Guard,
    analyse_distribution,
    analyse_house_edge,
    get_profile_distribution,
    get_profile_house_edge,
    odds_against_dealer,
    unguarded,
)
from service.operations.deals import deal_hands, verify_deal
from service.operations.profiles import get_profile, list_profiles
from service.operations.scoring import (
    Answer,
    Query,
    evaluate_hand,
    evaluate_hands,
    rank_hands,
    settle_round,
    table_exposures,
)
from service.operations.showdowns import settle_showdown

__all__ = [
    "Answer",
    "Guard",
    "Query",
    "analyse_distribution",
    "analyse_house_edge",
    "deal_hands",
    "evaluate_hand",
    "evaluate_hands",
    "get_profile",
    "get_profile_distribution",
    "get_profile_house_edge",
    "list_profiles",
    "odds_against_dealer",
    "rank_hands",
    "settle_round",
    "settle_showdown",
    "table_exposures",
    "unguarded",
    "verify_deal",
]
