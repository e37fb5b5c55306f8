"""The peers' house rules (RULES.md 7's last four knobs, 8.2's rows) in the engine: each
knob against the case of the server that plays it, ported from that server's own code or
test, and properties over random tables for the settling knobs."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine.analysis.odds import odds
from service.engine.analysis.partial import partial_odds
from service.engine.cards import CARD_CODES, CARDS, Card, parse_hand
from service.engine.compare import compare, rank_hands
from service.engine.reference import evaluate_reference
from service.engine.rules import PROFILES, Rules, apply_overrides
from service.engine.settle import settle, table_exposure
from service.engine.showdown import showdown
from service.engine.tables import evaluate
from tests.engine.cases import (
    FULL_HOUSE_AMOUNTS,
    FULL_HOUSE_PAIR,
    FULL_HOUSE_RULES,
    FULL_HOUSE_TABLE,
    RUN_OX,
    RUN_OX_ROWS,
    hand,
)
from tests.engine.reference import reference_evaluate
from tests.engine.test_odds import as_tuple, brute_odds
from tests.engine.test_partial import Brute
from tests.engine.test_partial import as_tuple as partial_tuple

NIU_NIU = PROFILES["niu-niu"].rules
PLUS = PROFILES["niu-niu-plus"].rules


def cards(text: str) -> tuple[Card, ...]:
    return parse_hand(hand(text))


# ---------------------------------------------------------------------------------------
# RULES.md 8.2 in the engine


@pytest.mark.parametrize(("text", "label", "without"), RUN_OX_ROWS)
def test_run_ox_rows(text: str, label: str, without: str) -> None:
    rules = apply_overrides(NIU_NIU, RUN_OX)
    for evaluator in (evaluate, evaluate_reference):
        assert evaluator(cards(text), rules).label == label
        assert evaluator(cards(text), NIU_NIU).label == without
    assert reference_evaluate(hand(text), rules)[1] == label


@pytest.mark.parametrize("order", list(FULL_HOUSE_AMOUNTS))
def test_full_house_order_rows(order: str) -> None:
    rules = apply_overrides(PLUS, FULL_HOUSE_RULES[order])
    dealer_text, bid, player_text, bet, base = FULL_HOUSE_TABLE
    dealer, player = evaluate(cards(dealer_text), rules), evaluate(cards(player_text), rules)
    assert settle(dealer, [(player, base * bid * bet)], rules).players[0].amount == FULL_HOUSE_AMOUNTS[order]
    strong, weak = (evaluate(cards(h), rules) for h in FULL_HOUSE_PAIR)
    assert compare(strong, weak, rules) == (1 if order == "high_card" else -1)


def test_full_house_order_high_card_gives_one_score_and_compares_the_top_card_alone() -> None:
    """One score for every Full House (RULES.md 7, like Bombs under ``bomb_order``); the top
    card decides, its suit after its rank; identical top cards (several decks) fall to
    ``ties``: the dealer's under ``dealer``, a push under ``push``, and under ``high_card``
    the rest of the hands (section 5)."""
    rules = apply_overrides(Rules(), {"full_house": True, "full_house_order": "high_card"})
    kings, kings_again, deuces = (evaluate(parse_hand(h.split(), decks=2), rules)
                                  for h in ("KS KH KD 2S 2H", "KC KH KD 3S 3H", "2S 2H 2D KH KC"))
    assert kings.score == kings_again.score == deuces.score
    assert compare(kings, kings_again, rules) == 1  # K♠ over K♥
    assert compare(kings_again, deuces, rules) == 0  # both topped by K♥
    assert settle(deuces, [(kings_again, 10)], rules).players[0].amount == -60  # the dealer takes it, 10 x 6
    assert settle(deuces, [(kings_again, 10)], apply_overrides(rules, {"ties": "push"})).players[0].outcome == "push"
    whole = apply_overrides(rules, {"ties": "high_card"})  # K♥ K♣ K♦ 3 3 over K♥ K♣ 2 2 2 by the third card
    assert compare(kings_again, deuces, whole) == 1
    ranked = rank_hands([deuces, kings_again, kings], rules)
    assert [(r.index, r.position) for r in ranked] == [(2, 1), (0, 2), (1, 2)]
    trips = apply_overrides(rules, {"full_house_order": "trips_rank"})
    assert compare(evaluate(kings_again.hand, trips), evaluate(deuces.hand, trips), trips) == 1


def test_full_house_odds_with_two_decks_count_identical_top_cards_as_ties() -> None:
    """The odds' card-multiset walk (several decks) compares Full Houses by the top card alone:
    brute force over every dealer hand of the cards left, which hold Full Houses topped by
    the player's own K♠ (a second copy) with other cards."""
    for ties in ("dealer", "push"):
        rules = apply_overrides(Rules(), {"full_house": True, "full_house_order": "high_card", "ties": ties})
        player = [CARD_CODES[t] for t in ["KS", "KH", "KD", "2S", "2H"]]
        keep = [CARD_CODES[t] for t in ["KS", "KC", "KD", "3S", "3H", "3D", "2C", "QS", "QH", "JS", "9D", "4C"]]
        pool = [c for c in range(52) for _ in range(2)]
        for c in player + keep:
            pool.remove(c)
        got = odds([CARDS[c] for c in player], rules, [CARDS[c] for c in pool], decks=2)
        assert as_tuple(got) == brute_odds(player, pool, 2, rules)
        assert (got.pushes > 0) == (ties == "push")


def test_full_house_partial_odds_with_two_decks_count_identical_top_cards_as_ties() -> None:
    """The partial odds' walk (several decks) likewise: four known cards, a two-deck pool of
    kings, threes and deuces where completions and opponents share top cards; brute force
    settles every completion against every opponent hand."""
    for ties in ("dealer", "push"):
        rules = apply_overrides(Rules(), {"full_house": True, "full_house_order": "high_card", "ties": ties})
        distinct = [CARD_CODES[t] for t in ["KS", "KH", "KC", "KD", "3S", "3H", "2S", "2H", "9D"]]
        deck = [c for c in distinct for _ in range(2)]
        known = [CARD_CODES[t] for t in ["KS", "KH", "KD", "3S"]]
        pool = list(deck)
        for c in known:
            pool.remove(c)
        for role in ("player", "dealer"):
            got = partial_odds([CARDS[c] for c in known], rules, [], 2, role, deck=deck)
            counts, _ = Brute(rules).odds(known, pool, role)
            assert partial_tuple(got) == counts, (ties, role)


# ---------------------------------------------------------------------------------------
# The peers' own cases. Their card codes are ``suit * 100 + rank`` (rank 2..14 with the
# ace 14 in peng9627/phz, 1..13 in ritterchuang/league_server); the suits map to ours as
# 4 = spades, 3 = hearts, 2 = clubs, 1 = diamonds (the peers' suit numbers order suits the
# same way in their comparisons; which suit is which does not change these cases).

_SUIT_NUMBER = {"S": 4, "H": 3, "C": 2, "D": 1}
_RANK_NUMBER = {"A": 14, "J": 11, "Q": 12, "K": 13} | {str(n): n for n in range(2, 11)}


def _phz(card: Card) -> int:
    """A card as phz codes it (``zhipai/niuniu.py``): suit * 100 + rank, the ace 14."""
    assert card.suit is not None, "phz codes suited cards only"
    return _SUIT_NUMBER[card.suit.value] * 100 + _RANK_NUMBER[card.rank.value]


def _phz_shun_dou_value(cardlist: list[int]) -> int:
    """peng9627/phz ``zhipai/niuniu.py`` ``Niuniu.getShunDouValue`` (Python 2 there), line for
    line: the best Single-Ox value (1..9, 10 for 牛牛) of the hand's runs of three ranks
    (A-2-3 .. J-Q-K, and Q-K-A), 0 without a run."""
    ranks = sorted(c % 100 - 13 if c % 100 == 14 else c % 100 for c in cardlist)
    best = 0
    for i in range(3):
        if ranks[i] + 1 in ranks and ranks[i] + 2 in ranks:
            rest = list(ranks)
            for r in (ranks[i], ranks[i] + 1, ranks[i] + 2):
                rest.remove(r)
            value = sum(10 if r > 10 else r for r in rest)
            best = max(best, value - 10 if value > 10 else value)
    if 1 in ranks and 12 in ranks and 13 in ranks:
        rest = list(ranks)
        for r in (1, 12, 13):
            rest.remove(r)
        value = sum(10 if r > 10 else r for r in rest)
        best = max(best, value - 10 if value > 10 else value)
    return best


def _phz_soft_value(cardlist: list[int]) -> int:
    """phz ``zhipai/start.py`` ``Douniuniu.get_card_value`` for 贵阳斗牛牛 (``allocid`` 2) with
    软牛牛 (``ruanniuniu``) and no special hand (``gamerules`` 0): the 硬牛 value (a pair whose
    points make the total's last digit), raised by ``getShunDouValue`` and by a triple's
    power cards. 0 is No Ox, 10 牛牛."""
    temp = sorted((c - 13 if c % 100 == 14 else c for c in cardlist), key=lambda c: (c % 100, c))
    total = sum(1 if c % 100 == 14 else (0 if c % 100 > 10 else c % 100) for c in cardlist)
    points = [0 if t % 100 > 10 else t % 100 for t in temp]
    val = 0
    for i, j in combinations(range(5), 2):
        if (points[i] + points[j]) % 10 == total % 10:
            val = 10 if total % 10 == 0 else total % 10
            break
    val = max(val, _phz_shun_dou_value(cardlist))
    values = [10 if t % 100 > 10 else t % 100 for t in temp]

    def niu(a: int, b: int) -> int:
        return 10 if (values[a] + values[b]) % 10 == 0 else (values[a] + values[b]) % 10

    for (x, y), (a, b) in (((0, 2), (3, 4)), ((1, 3), (0, 4)), ((2, 4), (0, 1))):
        if temp[x] % 100 == temp[y] % 100:
            val = max(val, niu(a, b))
    return val


def _ours(label_key: str) -> int:
    return 0 if label_key == "no_ox" else int(label_key.rsplit("_", 1)[1]) or 10


def test_run_ox_reproduces_phz_get_shun_dou_value_on_every_rank_multiset() -> None:
    """peng9627/phz ``zhipai/niuniu.py`` ``getShunDouValue`` with ``zhipai/start.py``
    ``Douniuniu.get_card_value`` (贵阳斗牛牛, 软牛牛 on, no special hand): ``niu-niu`` with
    ``run_ox`` and ``triple_ox`` on and its special hands off gives the same value on every
    one-deck rank multiset (suits play no part in either). Without ``run_ox`` the two
    disagree exactly on hands whose best ox is a run."""
    rules = apply_overrides(NIU_NIU, {"run_ox": True, "triple_ox": True, "five_small": False, "bomb": False,
                                      "five_dukes": False, "four_dukes": False})
    plain = apply_overrides(rules, {"run_ox": False})
    suits = "SHCD"
    checked = differ = 0
    for ranks in combinations_with_replacement(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"], 5):
        if max(Counter(ranks).values()) > 4:
            continue
        seen: Counter[str] = Counter()
        texts = []
        for r in ranks:
            texts.append(r + suits[seen[r]])
            seen[r] += 1
        hand_cards = parse_hand(texts)
        theirs = _phz_soft_value([_phz(c) for c in hand_cards])
        assert _ours(evaluate(hand_cards, rules).label_key) == theirs, texts
        differ += _ours(evaluate(hand_cards, plain).label_key) != theirs
        checked += 1
    assert checked == 6_175
    assert differ > 0


def test_full_house_order_reproduces_phz_compare() -> None:
    """peng9627/phz ``zhipai/start.py`` ``Douniuniu.compare``: equal values (every Full House
    is 13 under 荣昌牛牛, ``allocid`` 3) go to the top card, aces low, its rank then its suit
    code. ``niu-niu-plus`` with ``full_house_order: high_card`` orders every pair of one-deck
    Full Houses as phz does (those that are Full Houses in both: not Five Small, not all
    dukes, which phz ranks above its 葫芦牛)."""
    rules = apply_overrides(PLUS, {"full_house_order": "high_card"})

    def phz_compare(banker: list[int], user: list[int]) -> int:  # 1: the banker wins, -1: the user
        def low_aces(c: int) -> tuple[int, int]:
            return (c % 100 - 13 if c % 100 == 14 else c % 100, c)
        b, u = sorted(banker, key=low_aces)[4], sorted(user, key=low_aces)[4]
        if b % 100 != u % 100:
            return 1 if b % 100 > u % 100 else -1
        return 1 if b > u else -1

    houses = []
    for trips, pair in ((t, p) for t in ["A", "2", "5", "9", "10", "J", "K"] for p in ["A", "3", "8", "Q"] if t != p):
        for suits3 in ("SHC", "HCD"):
            for suits2 in ("SD", "CH"):
                text = [trips + s for s in suits3] + [pair + s for s in suits2]
                e = evaluate(parse_hand(text), rules)
                if e.category == "full_house":
                    houses.append(e)
    assert len(houses) > 80
    for a, b in combinations(houses, 2):
        if {c.code for c in a.hand} & {c.code for c in b.hand}:
            continue
        assert compare(a, b, rules) == phz_compare([_phz(c) for c in a.hand], [_phz(c) for c in b.hand]), (a, b)
    strong, weak = (evaluate(cards(h), rules) for h in FULL_HOUSE_PAIR)
    assert phz_compare([_phz(c) for c in strong.hand], [_phz(c) for c in weak.hand]) == 1 == compare(strong, weak, rules)


def _lsj(code: int) -> str:
    """A league_server card code (suit * 100 + rank, the ace 1) as our text."""
    rank = {1: "A", 11: "J", 12: "Q", 13: "K"}.get(code % 100, str(code % 100))
    return rank + {4: "S", 3: "H", 2: "C", 1: "D"}[code // 100]


#: league_server ``NiuTonbiResultCtrTest`` ``generateThreeNiuStackMapBySpecifyOrder``: 牛牛,
#: 牛牛 (the first's K over the second's Q) and 牛9.
_LSJ_HANDS = [[102, 208, 210, 110, 113], [407, 203, 310, 212, 211], [307, 103, 410, 104, 205]]


@pytest.mark.parametrize(("bets", "balances", "base", "expected", "house"), [
    # "贏家正常贏錢，閒1正常輸錢，閒2正常輸錢": 375/450/300 → +712.5 (fee 37.5), -450, -300
    ([5, 6, 4], [100_000, 1_000_000, 2_000_000], 500, [71_250, -45_000, -30_000], 3_750),
    # "玩家贏錢不夠賠，閒1正常輸錢不夠賠，閒2正常輸錢": +665 (fee 35), -200, -500
    ([5, 13, 15], [50_000, 20_000, 2_000_000], 1_000, [66_500, -20_000, -50_000], 3_500),
])
def test_showdown_winner_cap_reproduces_lsj_tonbi_tests(bets: list[int], balances: list[int], base: int,
                                                       expected: list[int], house: int) -> None:
    """ritterchuang/league_server ``math/src/test/java/com/lx/gs/math/core/card/resultCtr/niuResultCtr/NiuTonbiResultCtrTest.java`` (the class under
    test: ``math/src/main/java/org/lsj/gs/math/core/card/resultCtr/niuResultCtr/NiuTonbiResultCtr.java``,
    ``calculateAbsoluteScore``: ``min(base × loser's bet × winner's bet × rate, min(winner's
    money, loser's money))``), in cents: base 5.00 and 10.00, balances as the tests' begin
    money, a 5 % fee (``gameRate``), 牛牛 paying 3. ``niu-niu`` with ``loser_x_winner`` stakes,
    ``players`` caps and ``showdown_winner_cap: per_loser`` answers the tests' scores."""
    rules = apply_overrides(NIU_NIU, {"showdown_stake": "loser_x_winner", "balance_caps": "players",
                                      "commission_bps": 500, "showdown_winner_cap": "per_loser"})
    hands = [evaluate(parse_hand([_lsj(c) for c in h]), rules) for h in _LSJ_HANDS]
    assert [h.label for h in hands] == ["Single-Ox 0", "Single-Ox 0", "Single-Ox 9"]
    result = showdown(hands, bets, base, rules, balances)
    assert [p.amount for p in result.players] == expected
    assert result.house == house


def _lsj_fee(cents: int, game_rate: int = 5) -> int:
    """league_server ``AbstractResultCtr.calculateFeeByRate`` in cents: the rate's fee, at
    least ``MIN_FEE`` = 0.01 (one cent), on a positive score (used where the rate's fee is a
    whole cent, so its money rounding plays no part)."""
    if cents <= 0:
        return 0
    return max(cents * game_rate // 100, 1)


@pytest.mark.parametrize("gross", [1, 10, 19, 20, 40, 1_000])
def test_min_commission_reproduces_lsj_min_fee(gross: int) -> None:
    """ritterchuang/league_server ``math/src/main/java/org/lsj/gs/math/core/card/resultCtr/AbstractResultCtr.java``
    (``MIN_FEE`` 0.01): a positive result pays at least one cent. An ``equal`` bet of
    ``gross`` cents won under ``bull-bull`` (5 %) with ``min_commission`` 1 pays lsj's fee;
    without the knob the rate's alone (0 below 20 cents)."""
    rules = apply_overrides(PROFILES["bull-bull"].rules, {"min_commission": 1})
    dealer, player = evaluate(cards("10S 9H 8D 4C 4H"), rules), evaluate(cards("JS 9C AD 5C 5D"), rules)
    result = settle(dealer, [(player, gross)], rules, ["equal"]).players[0]
    assert (result.gross, result.commission) == (gross, _lsj_fee(gross))
    plain = settle(dealer, [(player, gross)], PROFILES["bull-bull"].rules, ["equal"]).players[0]
    assert plain.commission == gross * 5 // 100


# ---------------------------------------------------------------------------------------
# Properties of the settling knobs over random tables

_deals = st.lists(st.sampled_from(CARDS), min_size=10, max_size=40, unique=True)


@settings(max_examples=200, deadline=None)
@given(deal=_deals, stakes=st.lists(st.one_of(st.integers(1, 40), st.integers(1, 10**9)), min_size=7, max_size=7),
       bps=st.sampled_from([0, 1, 500, 10_000]), dealer_bps=st.sampled_from([0, 250]),
       least=st.one_of(st.integers(0, 50), st.integers(0, 10**6)), profile=st.sampled_from(list(PROFILES)))
def test_min_commission_settlements(deal: list[Card], stakes: list[int], bps: int, dealer_bps: int, least: int,
                                    profile: str) -> None:
    """Every commission with a rate above 0 is at least ``min_commission`` and at most the
    gross (RULES.md 7); the settlement stays zero-sum counting the house, and within the
    exposures, whose ``max_win`` take the minimum too."""
    rules = apply_overrides(PROFILES[profile].rules, {"commission_bps": bps, "dealer_commission_bps": dealer_bps,
                                                      "min_commission": least})
    table = [deal[i:i + 5] for i in range(0, len(deal) - len(deal) % 5, 5)]
    dealer, players = evaluate(table[0], rules), [evaluate(h, rules) for h in table[1:]]
    seats = list(zip(players, stakes, strict=False))
    result = settle(dealer, seats, rules)
    assert sum(p.amount for p in result.players) + result.dealer_net + result.house == 0
    exposure = table_exposure([(s, "double") for _, s in seats], rules)
    for p, limit in zip(result.players, exposure.players, strict=True):
        rate = p.gross * bps // 10_000 if p.gross > 0 else 0
        assert p.commission == (max(rate, min(least, p.gross)) if bps and p.gross > 0 else 0)
        assert -limit.max_loss <= p.amount <= limit.max_win
    gross = result.dealer_gross
    rate = gross * dealer_bps // 10_000 if gross > 0 else 0
    assert result.dealer_commission == (max(rate, min(least, gross)) if dealer_bps and gross > 0 else 0)
    assert -exposure.dealer.max_loss <= result.dealer_net <= exposure.dealer.max_win


@settings(max_examples=200, deadline=None)
@given(deal=_deals, bets=st.lists(st.integers(1, 100), min_size=8, max_size=8),
       balances=st.lists(st.one_of(st.integers(0, 2_000), st.integers(0, 10**7)), min_size=8, max_size=8),
       stake=st.sampled_from(["loser", "loser_x_winner"]), ties=st.sampled_from(["dealer", "push", "high_card"]),
       least=st.integers(0, 100))
def test_per_loser_showdowns(deal: list[Card], bets: list[int], balances: list[int], stake: str, ties: str,
                             least: int) -> None:
    """``showdown_winner_cap: per_loser``: no loser pays more than its balance, nor more to one
    winner than that winner's balance (so a winner wins at most its balance per loser); every
    payment is the ``total`` cap's before that cap scales a winner's sum; zero-sum counting the
    house (RULES.md 6.6, 7)."""
    base = apply_overrides(NIU_NIU, {"balance_caps": "players", "showdown_stake": stake, "ties": ties,
                                     "commission_bps": 500, "min_commission": least})
    rules = apply_overrides(base, {"showdown_winner_cap": "per_loser"})
    hands = [evaluate(deal[i:i + 5], rules) for i in range(0, len(deal) - len(deal) % 5, 5)]
    n = len(hands)
    result = showdown(hands, bets[:n], 10, rules, balances[:n])
    assert sum(p.amount for p in result.players) + result.house == 0
    winners = set(result.strongest)
    w = len(winners)
    for i, p in enumerate(result.players):
        if i in winners:
            assert 0 <= p.gross <= sum(min(balances[j] // w, balances[i]) for j in range(n) if j not in winners)
        else:
            assert -balances[i] <= p.gross <= 0
            assert -p.gross <= sum(balances[x] for x in winners)
        assert (p.cap is None) == (p.gross == p.gross_uncapped)
    total = showdown(hands, bets[:n], 10, base, balances[:n])
    for mine, theirs in zip(result.players, total.players, strict=True):
        assert abs(mine.gross) >= abs(theirs.gross)  # per_loser never pays less than total's scaling
