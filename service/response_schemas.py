"""Response shapes of the scoring and profile operations (marshmallow), written as
openapi.yaml's schemas. An evaluation is dumped by one function (:mod:`service.serialize`),
wrapped in a field here; the batch path and the settlement hot path write dicts straight
(:func:`service.serialize.evaluate_batch`, :func:`service.operations.scoring.settlement_answer`),
which the tests compare with these dumps.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields

from service.serialize import evaluation_dict

__all__ = ["EvaluationField", "ExposureResponseSchema", "ProfileListSchema", "ProfileSchema", "RankingResponseSchema",
           "ScoringContextSchema", "SettlementResponseSchema", "ShowdownResponseSchema"]


class EvaluationField(fields.Field[Any]):
    """Dumps an :class:`~service.engine.tables.Evaluation` (the ``Evaluation`` schema)."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return evaluation_dict(value)


class ScoringContextSchema(Schema):
    """What every scoring response carries: the profile and the effective rules' digest."""

    profile = fields.String()
    rules_digest = fields.String()
    rules = fields.Dict()
    max_payout = fields.Integer()


class RankedHandSchema(Schema):
    """One place in a ranking."""

    index = fields.Integer()
    id = fields.String(allow_none=True)
    position = fields.Integer()
    evaluation = EvaluationField()


class RankingResponseSchema(ScoringContextSchema):
    """``{"profile", "rules_digest", "ranking": [...]}``, strongest first."""

    ranking = fields.List(fields.Nested(RankedHandSchema))


class ExposureSchema(Schema):
    """``{"max_loss", "max_win"}`` (RULES.md section 6.3)."""

    max_loss = fields.Integer()
    max_win = fields.Integer()


class DealerResultSchema(Schema):
    """The dealer's hand, gross result, commission, net amount, ``sweep`` (with ``base``,
    RULES.md 6.4) and exposure."""

    evaluation = EvaluationField()
    gross = fields.Integer()
    commission = fields.Integer()
    net = fields.Integer()
    sweep = fields.String(allow_none=True)
    exposure = fields.Nested(ExposureSchema)


class FactorsSchema(Schema):
    """A stake's factors at a table with ``base`` (RULES.md 6.4)."""

    base = fields.Integer()
    bid_multiple = fields.Integer()
    bet_multiple = fields.Integer()


class PlayerResultSchema(Schema):
    """One player's settled result (``factors`` with ``base``; ``gross_uncapped`` and ``cap``
    under balance caps, RULES.md 6.5)."""

    id = fields.String(allow_none=True)
    evaluation = EvaluationField()
    stake = fields.Integer()
    factors = fields.Nested(FactorsSchema)
    bet = fields.String()
    outcome = fields.String()
    gross_uncapped = fields.Integer()
    gross = fields.Integer()
    cap = fields.String(allow_none=True)
    commission = fields.Integer()
    amount = fields.Integer()
    exposure = fields.Nested(ExposureSchema)


class SettlementResponseSchema(ScoringContextSchema):
    """``{"profile", "rules_digest", "dealer": {...}, "players": [...], "house"}``."""

    dealer = fields.Nested(DealerResultSchema)
    players = fields.List(fields.Nested(PlayerResultSchema))
    house = fields.Integer()


class ExposureSeatResultSchema(Schema):
    """One seat's exposure before the deal (``factors`` with ``base``, ``max_bet_multiple``
    with a balance, RULES.md 6.5)."""

    id = fields.String(allow_none=True)
    stake = fields.Integer()
    factors = fields.Nested(FactorsSchema)
    bet = fields.String()
    exposure = fields.Nested(ExposureSchema)
    max_bet_multiple = fields.Integer()


class ExposureDealerSchema(Schema):
    """The dealer's exposure before the deal (``max_bid_multiple`` with a balance)."""

    exposure = fields.Nested(ExposureSchema)
    max_bid_multiple = fields.Integer()


class ExposureResponseSchema(ScoringContextSchema):
    """``{"profile", "rules_digest", "max_payout", "dealer": {...}, "players": [...]}``."""

    dealer = fields.Nested(ExposureDealerSchema)
    players = fields.List(fields.Nested(ExposureSeatResultSchema))


class ShowdownEntrySchema(Schema):
    """One place in a showdown's ranking, or one of its strongest hands."""

    index = fields.Integer()
    id = fields.String(allow_none=True)
    position = fields.Integer()


class ShowdownPlayerSchema(Schema):
    """One player's showdown result (``balance`` caps: ``gross_uncapped`` and ``cap``)."""

    id = fields.String(allow_none=True)
    evaluation = EvaluationField()
    stake = fields.Integer()
    bet_multiple = fields.Integer()
    position = fields.Integer()
    gross_uncapped = fields.Integer()
    gross = fields.Integer()
    cap = fields.String(allow_none=True)
    commission = fields.Integer()
    amount = fields.Integer()


class ShowdownResponseSchema(ScoringContextSchema):
    """``{"profile", "rules_digest", "base", "ranking", "strongest", "players", "house"}`` (RULES.md 6.6)."""

    base = fields.Integer()
    ranking = fields.List(fields.Nested(ShowdownEntrySchema))
    strongest = fields.List(fields.Nested(ShowdownEntrySchema(exclude=("position",))))
    players = fields.List(fields.Nested(ShowdownPlayerSchema))
    house = fields.Integer()


class ProfileSchema(Schema):
    """A rules profile with its full rules."""

    name = fields.String()
    description = fields.String()
    builtin = fields.Boolean()
    extends = fields.String(allow_none=True)
    rules_digest = fields.Function(lambda p: p.rules.digest())
    rules = fields.Function(lambda p: p.rules.listed())
    max_payout = fields.Function(lambda p: p.rules.max_payout)


class ProfileListSchema(Schema):
    """``{"profiles": [...]}``."""

    profiles = fields.List(fields.Nested(ProfileSchema))
