"""The analysis budget (service/http/budget.py), in process, on a clock of the test's own:
the token bucket's refill and debt, each address's share and the worker's pool, the
addresses remembered, cheap work that is never counted, and the 429 and 403 answers.

Arithmetic: a bucket of ``c`` seconds refills at ``c`` seconds per 60 s, so being ``s``
seconds short of what a request needs is a wait of ``s * 60 / c`` seconds, rounded up."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from service.http import budget as budget_module
from service.http.budget import (
    CHEAP_SECONDS,
    AnalysisBudget,
    AnalysisDisabledError,
    ComputeBudget,
    TooExpensiveError,
)


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The budgets' clock, also the one ``guard`` measures the work with."""
    fake = Clock()
    monkeypatch.setattr(budget_module, "time", SimpleNamespace(monotonic=fake))
    return fake


def test_a_bucket_refills_at_its_capacity_per_minute_up_to_its_capacity(clock: Clock) -> None:
    bucket = ComputeBudget(10.0, clock)
    bucket.charge(12.0)  # the work took longer than the bucket held: 2 s in debt
    assert bucket.admit(1.0) == 18  # 3 s short: 18 s
    clock.now += 17.9
    assert bucket.admit(1.0) == 1  # 0.0167 s short: rounded up to a second
    clock.now += 0.1
    assert bucket.admit(1.0) is None
    clock.now += 3600  # an hour idle: full, not more
    bucket.charge(0.0)
    assert bucket.tokens == 10.0


def test_a_full_bucket_admits_one_request_larger_than_itself(clock: Clock) -> None:
    bucket = ComputeBudget(10.0, clock)
    assert bucket.admit(45.0) is None
    bucket.charge(45.0)  # 35 s in debt
    assert bucket.admit(45.0) == 270  # needs the whole bucket again: 45 s short


def test_a_bucket_of_zero_admits_nothing(clock: Clock) -> None:
    assert ComputeBudget(0.0, clock).admit(0.001) == 60


def test_each_address_spends_its_own_share_and_all_the_pool(clock: Clock) -> None:
    budget = AnalysisBudget(per_client=10.0, pool=15.0, clock=clock)
    budget.charge("10.0.0.1", 9.0)
    assert budget.admit("10.0.0.1", 3.0) == 12  # its share: 2 s short
    assert budget.admit("10.0.0.2", 3.0) is None  # another's share is whole, the pool holds 6 s
    budget.charge("10.0.0.2", 5.0)
    assert budget.admit("10.0.0.3", 3.0) == 8  # a fresh share, but the pool holds 1 s: 2 s short of it
    assert budget.admit("10.0.0.1", 3.0) == 12  # both short: the longer wait


def test_the_addresses_remembered_are_the_most_recent(clock: Clock) -> None:
    budget = AnalysisBudget(per_client=10.0, pool=1000.0, clock=clock)
    budget.MAX_CLIENTS = 2
    budget.charge("10.0.0.1", 10.0)
    budget.charge("10.0.0.2", 10.0)
    assert budget.admit("10.0.0.1", 1.0) == 6  # seen again: now the most recent
    budget.charge("10.0.0.3", 10.0)  # a third: the least recent (10.0.0.2) is forgotten
    assert list(budget.clients) == ["10.0.0.1", "10.0.0.3"]
    assert budget.admit("10.0.0.2", 1.0) is None, "a forgotten address starts with a whole share"


def test_cheap_work_runs_uncounted_even_when_the_budget_is_spent(clock: Clock) -> None:
    budget = AnalysisBudget(per_client=10.0, pool=30.0, clock=clock)
    budget.charge("10.0.0.1", 30.0)
    with budget.guard("10.0.0.1", CHEAP_SECONDS / 2):
        clock.now += 1.0
    # Untouched: a charge would have refilled 1/6 s and taken the 1 s out.
    assert (budget.clients["10.0.0.1"].tokens, budget.pool.tokens) == (-20.0, 0.0), "cheap work was charged"


def test_paid_work_is_charged_the_time_it_took_to_the_address_and_the_pool(clock: Clock) -> None:
    budget = AnalysisBudget(per_client=10.0, pool=30.0, clock=clock)
    with budget.guard("10.0.0.1", 1.0):
        clock.now += 6.0  # estimated 1 s, took 6 s
    assert (budget.clients["10.0.0.1"].tokens, budget.pool.tokens) == (4.0, 24.0)
    with pytest.raises(TooExpensiveError) as spent, budget.guard("10.0.0.1", 5.0):
        pytest.fail("ran beyond the budget")
    problem = spent.value
    assert (problem.status, problem.type, problem.retry_after, problem.headers) == (
        429, "/problems/too-expensive", 6, {"Retry-After": "6"})  # 1 s short of its share
    assert "about 5.0 s of uncached work" in problem.detail
    assert "10 s per minute for each client, 30 s for all" in problem.detail


def test_a_failing_computation_is_charged_too(clock: Clock) -> None:
    budget = AnalysisBudget(per_client=10.0, pool=30.0, clock=clock)

    def compute() -> None:
        with budget.guard("10.0.0.1", 1.0):
            clock.now += 4.0
            raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        compute()
    assert budget.pool.tokens == 26.0


@pytest.mark.parametrize(("per_client", "pool"), [(0.0, 30.0), (10.0, 0.0)])
def test_a_budget_of_zero_turns_uncached_work_off(clock: Clock, per_client: float, pool: float) -> None:
    budget = AnalysisBudget(per_client, pool, clock=clock)
    with pytest.raises(AnalysisDisabledError) as disabled, budget.guard("10.0.0.1", 1.0):
        pytest.fail("ran with the budget off")
    assert (disabled.value.status, disabled.value.type) == (403, "/problems/analysis-disabled")
    assert "Retry-After" not in disabled.value.headers
    with budget.guard("10.0.0.1", CHEAP_SECONDS / 2):
        pass  # cheap work still runs
