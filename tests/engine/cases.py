"""RULES.md section 8, as data: every worked example is a required test."""

from __future__ import annotations

from typing import Any

#: (hand, standard label, nenku, overrides -> label under those overrides)
STANDARD_ROWS: list[tuple[str, str, bool, dict[str, Any] | None, str | None]] = [
    ("10S 9H 8D 4C 4H", "No Ox", False, None, None),
    ("10S 9H AD 7C 4H", "Single-Ox 1", False, None, None),
    ("10S 9H AD 2C KH", "Single-Ox 2", False, None, None),
    ("10S 8H 2D 8C 5H", "Single-Ox 3", False, None, None),
    ("10S JH QD 9C 5H", "Single-Ox 4", False, None, None),
    ("10S 8H 2D 9C 6H", "Single-Ox 5", False, None, None),
    ("10S 6H 4D 9C 7H", "Single-Ox 6", False, None, None),
    ("10S 7H 3D KC 7D", "Single-Ox 0", False, {"three_six_swap": False}, "Single-Ox 7"),
    ("10S 7H 3D 10C 7D", "Double-Ox 10", False, None, None),
    ("10S JH QD 7C AH", "Single-Ox 8", False, None, None),
    ("7S AH 2D 3C 6H", "Single-Ox 9", False, {"three_six_pair": True}, "Double-Ox 6"),
    ("10S JH QD 9C AH", "Single-Ox 0", False, None, None),
    ("6S 4H 10D 9C 9H", "Double-Ox 9", False, None, None),
    ("JS QH KD JC QD", "Five Dukes", False, None, None),
    ("10S JH QD KC JD", "Double-Ox J", False, {"tens_are_dukes": True}, "Five Dukes"),
    ("3S 6H 8D 4C 8H", "Double-Ox 8", False, None, None),
    ("3S 4H 3D AC 2H", "Five Small", False, None, None),
    ("AS AH 2D 2C 4H", "Five Small", False, None, None),
    ("10S 4H 6D AS KH", "Ngau Tonku", False, None, None),
    ("KS 9H 7D AS 4C", "Ngau Tonku", False, None, None),
    ("10S 4H 6D AH KH", "Single-Ox 1", True, None, None),
    ("7S 7H 7D KH 5S", "Single-Ox 5", False, {"triple_ox": False}, "No Ox"),
    ("2S 2H 2D 5C 5H", "Double-Ox 5", False, None, None),
    ("10S 10H QD QC KH", "Double-Ox Q", False, None, None),
]

#: (hand, niu-niu label, standard label)
NIU_NIU_ROWS: list[tuple[str, str, str]] = [
    ("JS JH JC JD QH", "Bomb J", "Five Dukes"),
    ("AS AH 2C 2D 4H", "Five Small", "Five Small"),
    ("4S 3H 3C 2D AH", "Single-Ox 3", "Five Small"),
    ("10S 10H JC QD KH", "Single-Ox 0", "Double-Ox 10"),
    ("10S JH QC QD KH", "Four Dukes", "Double-Ox Q"),
    ("AS AH AC AD 2H", "Five Small", "Five Small"),
    ("KS QH JD 2C 3C", "Single-Ox 5", "Single-Ox 8"),
]

#: (profile, decks, dealer, [(player, stake)], [expected amounts], [expected outcomes])
SETTLEMENTS: list[tuple[str, int, str, list[tuple[str, int]], list[int], list[str]]] = [
    ("standard", 1, "10S 9H 8D 4C 4H", [("10H 9D AD 7C 4S", 1)], [1], ["win"]),
    ("standard", 1, "10S 9H AD 7C 4H", [("10H 9D AC 7D 4S", 1)], [-1], ["lose"]),
    ("standard", 1, "3S 4H 3D AC 2H", [("JS QH KD JC QD", 1)], [10], ["win"]),
    ("standard", 2, "JS QH KD JC QD", [("JS QH KD JC QD", 1)], [0], ["push"]),
    ("standard", 1, "3S 6H 8D 4C 8H", [("10H 9S 8S 4D 4H", 250)], [-500], ["lose"]),
    ("niu-niu", 1, "KH QS 10D 4C AC", [("KS QH JD 2C 3C", 1)], [1], ["win"]),
]


def hand(text: str) -> list[str]:
    """Split a space-separated hand."""
    return text.split()

#: RULES.md section 8, bets and commission: (profile, rules overrides, dealer,
#: [(player, stake, bet, outcome, gross, commission, amount)],
#: (dealer gross, dealer commission, dealer net), house,
#: {player index: (max_loss, max_win)} for the exposures the section states).
COMMISSION_ROUNDS: list[tuple[str, dict[str, Any], str, list[tuple[str, int, str, str, int, int, int]],
                              tuple[int, int, int], int, dict[int, tuple[int, int]]]] = [
    ("standard", {"dealer_commission_bps": 1000}, "3S 6H 8D 4C 8H",
     [("10H 9C 8S 4S 4D", 250, "double", "lose", -500, 0, -500)],
     (500, 50, 450), 50, {}),
    ("bull-bull", {}, "KH QS 10D 4C AC",
     [("JS 9H AD 5C 5D", 1000, "double", "win", 3000, 150, 2850),
      ("7S 3H JH 8C 10C", 1000, "equal", "win", 1000, 50, 950),
      ("9S 9D KS 2H 4D", 1000, "double", "lose", -1000, 0, -1000),
      ("6S 4S QH 3D 5H", 19, "equal", "win", 19, 0, 19)],
     (-3019, 0, -3019), 200, {0: (5000, 4750), 1: (1000, 950)}),
]

#: RULES.md section 8, poker-shaped categories: (hand, niu-niu-plus label, label_key,
#: zh-Hans label, payout, niu-niu label, niu-niu payout).
SHAPE_ROWS: list[tuple[str, str, str, str, int, str, int]] = [
    ("7S 7H 7D 9C 9H", "Full House 7", "full_house_7", "葫芦牛 7", 6, "No Ox", 1),
    ("2S 3S 4S 5S 6S", "Flush", "flush", "同花牛", 5, "Single-Ox 0", 3),
    ("9S 10H JD QC KH", "Straight K", "straight_k", "顺子牛 K", 5, "Single-Ox 9", 2),
    ("AS 2H 3D 4C 5H", "Straight 5", "straight_5", "顺子牛 5", 5, "Single-Ox 5", 1),
    ("2H 5H 9H JH KH", "Flush", "flush", "同花牛", 5, "No Ox", 1),
    ("4D 4S 4C KH KD", "Full House 4", "full_house_4", "葫芦牛 4", 6, "No Ox", 1),
    ("JS JH JD QC QH", "Full House J", "full_house_j", "葫芦牛 J", 6, "Five Dukes", 5),
    ("AS AH AC 2D 2H", "Five Small", "five_small", "五小牛", 8, "Five Small", 5),
    ("10S JH QD KC AH", "Single-Ox 1", "single_ox_1", "牛一", 1, "Single-Ox 1", 1),
]

#: RULES.md section 8's override on niu-niu-plus that turns every shape on.
EVERY_SHAPE: dict[str, Any] = {
    "straight_flush": True, "dragon": True, "straight_ace_high": True,
    "ranking": ["five_small", "bomb", "straight_flush", "dragon", "full_house", "flush", "five_dukes", "straight",
                "single_ox", "no_ox"]}

#: (profile, overrides, hand, label, label_key, zh-Hans label or None, payout or None): the
#: override rows and the corrected bull-bull rows of RULES.md section 8.
OVERRIDE_ROWS: list[tuple[str, dict[str, Any], str, str, str, str | None, int | None]] = [
    ("niu-niu-plus", EVERY_SHAPE, "2S 3S 4S 5S 6S", "Straight Flush 6", "straight_flush_6", "同花顺 6", 10),
    ("niu-niu-plus", EVERY_SHAPE, "AS 2S 3S 4S 5S", "Straight Flush 5", "straight_flush_5", None, 10),
    ("niu-niu-plus", EVERY_SHAPE, "AS 2H 3D 4C 5H", "Dragon", "dragon", "一条龙", 8),
    ("niu-niu-plus", EVERY_SHAPE, "10S JH QD KC AH", "Straight A", "straight_a", None, 5),
    ("niu-niu-plus", EVERY_SHAPE, "10H JH QH KH AH", "Straight Flush A", "straight_flush_a", None, 10),
    ("standard", {"full_house": True}, "7S 7H 7D 9C 9H", "Full House 7", "full_house_7", None, None),
    ("standard", {}, "7S 7H 7D 9C 9H", "Double-Ox 9", "double_ox_9", None, None),
    ("bull-bull", {}, "AS AH 2C 2D 4H", "No Ox", "no_ox", None, None),
    ("bull-bull", {}, "10S JH QC QD KH", "Single-Ox 0", "single_ox_0", None, None),
]

# ---------------------------------------------------------------------------------------
# RULES.md 8.2: the peers' house rules (section 7's last four knobs)

#: ``run_ox`` on niu-niu: (hand, label with the knob, label without it).
RUN_OX: dict[str, Any] = {"run_ox": True}
RUN_OX_ROWS: list[tuple[str, str, str]] = [
    ("3S 4H 5D KC 9S", "Single-Ox 9", "No Ox"),  # 3-4-5 is the ox, K + 9 = 19
    ("QS KH AD 4C 4S", "Single-Ox 8", "No Ox"),  # Q-K-A, 4 + 4
    ("7S 7H 7D KC 5S", "No Ox", "No Ox"),  # a triple is triple_ox's (off in niu-niu), never a run
]

#: ``full_house_order`` on niu-niu-plus: the overrides by order, the table (base 5, the
#: dealer's bid 3, the player's bet 5) and the player's amount by order.
FULL_HOUSE_RULES: dict[str, dict[str, Any]] = {
    order: {"full_house_order": order, "payouts": {"full_house": 6}} for order in ("high_card", "trips_rank")}
FULL_HOUSE_TABLE = ("9S 9H 5C 5H 9C", 3, "3D 3S 10D 10S 3C", 5, 5)  # dealer, bid, player, bet, base
FULL_HOUSE_AMOUNTS = {"high_card": 450, "trips_rank": -450}  # 5 x 3 x 5 x 6, the top card 10S over 9S
#: (stronger under high_card, weaker under high_card): the trips order says the opposite.
FULL_HOUSE_PAIR = ("8S QH 8C 8D QS", "AH JS JD AD JH")

#: ``showdown_winner_cap`` on niu-niu (base 1000): (id, hand, bet multiple, balance), the
#: winner first, and each cap's (gross, commission, amount, cap) per player.
WINNER_CAP_RULES: dict[str, Any] = {"showdown_stake": "loser_x_winner", "balance_caps": "players",
                                    "commission_bps": 500}
WINNER_CAP_SEATS = [("w", "JS 9H AD 5C 5D", 5, 50_000), ("p1", "10S 9C 8D 4C 4H", 13, 20_000),
                    ("p2", "10C 9S 8S 4D 2H", 15, 2_000_000)]
WINNER_CAP_RESULTS: dict[str, list[tuple[int, int, int, str]]] = {
    "per_loser": [(70_000, 3_500, 66_500, "winner_balance"), (-20_000, 0, -20_000, "loser_balance"),
                  (-50_000, 0, -50_000, "winner_balance")],
    # 50,000 shared as 20,000 : 225,000 by largest remainders: 4,081.63 and 45,918.37
    "total": [(50_000, 2_500, 47_500, "winner_balance"), (-4_082, 0, -4_082, "winner_balance"),
              (-45_918, 0, -45_918, "winner_balance")],
}

#: ``min_commission`` on niu-niu (base 100, table caps, 5 %): the dealer (balance 10), the
#: player (balance 10,000) and, by min_commission, the player's (gross, commission, amount).
MIN_COMMISSION_RULES: dict[str, Any] = {"balance_caps": "table", "commission_bps": 500}
MIN_COMMISSION_TABLE = ("10S 9H 8D 4C 4H", 10, "JS QS KS JH QH", 10_000, 100)  # dealer, balance, player, balance, base
MIN_COMMISSION_RESULTS = {1: (10, 1, 9), 0: (10, 0, 10)}
