"""The suspect-gold review queue (gold_review.py) on a simulated benchmark with wrong
golds (gold_simulation.py), on a seed not used while building it, against an oracle
written apart from the review: the exact posterior of the simulated process."""

from __future__ import annotations

import pytest

from bench_kit.audit.results.gold_review import GoldModel, PanelItem, review_queue
from bench_kit.audit.results.gold_simulation import evaluate_queue, queue_rates

HELD_OUT_SEED = 7   # building used seeds 100 and 101


@pytest.fixture(scope="module")
def six() -> dict:
    return evaluate_queue(6, HELD_OUT_SEED)


def test_yesno_recall_is_within_005_of_the_oracle(six) -> None:
    mine, oracle = queue_rates(six["yesno"]), queue_rates(six["yesno"], "oracle")
    assert abs(mine["recall"] - oracle["recall"]) <= 0.05


@pytest.mark.parametrize("task", ["mc", "numeric"])
def test_mc_and_numeric_keep_up_with_the_oracle(six, task) -> None:
    mine, oracle = queue_rates(six[task]), queue_rates(six[task], "oracle")
    assert mine["recall"] >= oracle["recall"] - 0.1
    assert mine["precision"] >= oracle["precision"] - 0.1


def test_hard_but_correct_items_are_rarely_flagged(six) -> None:
    # hard items with a right gold: about as rarely as the oracle flags them
    for task in ("mc", "yesno", "numeric"):
        mine, oracle = queue_rates(six[task]), queue_rates(six[task], "oracle")
        assert mine["hard_flagged"] <= oracle["hard_flagged"] + 0.05, task


def _item(item_id: str, votes: list[str], gold: str = "a") -> PanelItem:
    return PanelItem(item_id, "mc", "cap", gold, 4, {f"m{k}": v for k, v in enumerate(votes)})


def test_a_unanimous_other_answer_leads_the_queue_and_scatter_does_not() -> None:
    items = [_item("wrong", ["c"] * 5), _item("scatter", ["b", "c", "d", "b", "a"]),
             *[_item(f"easy{k}", ["a"] * 5) for k in range(6)]]
    queue = review_queue(GoldModel(items).fit(), 0.1)
    assert queue["wrong"].rank == 1 and queue["wrong"].flagged
    assert queue["wrong"].likelihood_ratio > 100
    assert not queue["scatter"].flagged
    # the q-value is the mean local fdr of the queue down to the item
    ranked = sorted(queue.values(), key=lambda r: r.rank)
    assert ranked[1].q_value == pytest.approx((ranked[0].local_fdr + ranked[1].local_fdr) / 2)


def test_a_model_that_sees_the_gold_is_wrong_keeps_its_competence() -> None:
    """Competence is measured against the estimated truth: the models that vote for the
    right answer on a wrong gold are not marked down for it."""
    items = [_item("wrong", ["c"] * 5), *[_item(f"easy{k}", ["a"] * 5) for k in range(6)]]
    model = GoldModel(items).fit()
    thetas = [model.params[(f"m{k}", "cap")][0] for k in range(5)]
    assert min(thetas) > model.theta0
