"""The `prior` model's arithmetic, each expected value worked out by hand in the comment
beside it (mutation survivors of benchmarks/mutation.py --only prior)."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from bench_kit.models.adapters.prior import Example, NgramIndex, _examples, _median_box, _vote
from bench_kit.types import Item
from tests.conftest import make_item


def test_a_gold_list_splits_its_vote():
    # a=0.5 and b=0.5 from the first neighbour; c=0.6 from the second: c wins
    near = [(Example("q1", ("a", "b")), 1.0), (Example("q2", ("c",)), 0.6)]
    assert _vote(near, None, Counter()) == "c"
    # only allowed golds split it: a gets the whole 1.0 and beats c's 0.6
    assert _vote(near, {"a", "c"}, Counter()) == "a"
    # nothing allowed: no vote
    assert _vote(near, {"z"}, Counter()) is None
    assert _vote([], None, Counter()) is None


def test_vote_ties_go_to_the_more_common_gold_then_the_name():
    near = [(Example("q1", ("b",)), 0.5), (Example("q2", ("a",)), 0.5)]
    assert _vote(near, None, Counter()) == "a"                       # the name
    assert _vote(near, None, Counter({"b": 3, "a": 1})) == "b"       # the task's counts
    # b's 0.1 + 0.2 is 0.30000000000000004 in floats, above a's 0.3: rounded to 9 digits
    # they tie, and the tie goes to the task's more common gold, a (unrounded, b would win)
    near = [(Example("q1", ("b",)), 0.1), (Example("q2", ("b",)), 0.2),
            (Example("q3", ("a",)), 0.3)]
    assert 0.1 + 0.2 > 0.3
    assert _vote(near, None, Counter({"a": 2})) == "a"
    # ... but 0.4 against 0.3 is no tie, whatever the task's counts say
    near = [(Example("q1", ("a",)), 0.4), (Example("q2", ("b",)), 0.3)]
    assert _vote(near, None, Counter({"b": 9})) == "a"


def _item(**row) -> Item:
    return Item(**make_item(**row))


def test_dev_items_become_examples_per_task():
    items = [
        _item(id="e", task="numeric", question="Empty?", answers=["3"]),
        _item(id="c", task="checklist", question="Check.", answers=[],
              checks=[{"name": "Is it red?", "answer": True}]),
        _item(id="g", task="grounding", question="Where?", answers=["[1,  2, 3, 4]"]),
        _item(id="m", task="mc", question="Which?", answers=["B"],
              choices={"A": "One", "B": "  Two  Cats"}),
        _item(id="o", task="open", question="Name it.", answers=["Big Ben", "ben"]),
        _item(id="n", task="numeric", question="How many?", answers=["Ⅻ"]),
    ]
    # first, an item with no gold (left out) and a checklist: the items after them count
    items[0] = items[0].model_copy(update={"answers": []})
    items[3] = items[3].model_copy(update={"answers": ["B", "Z"]})  # Z: no such option
    by_task = _examples(items)
    # mc: the gold letters' option texts, normalised; a letter with no option dropped
    assert by_task["mc"] == [Example("Which?", ("two cats",))]
    # open and grounding keep their first gold as written; numeric is normalised (NFKC:
    # Ⅻ -> xii)
    assert by_task["open"] == [Example("Name it.", ("Big Ben",))]
    assert by_task["grounding"] == [Example("Where?", ("[1,  2, 3, 4]",))]
    assert by_task["check"] == [Example("Is it red?", ("yes",))]
    assert by_task["numeric"] == [Example("How many?", ("xii",))]


def test_checklist_checks_are_examples_of_their_own_task():
    item = _item(id="c", task="checklist", question="Check each statement.", answers=[],
                 checks=[{"name": "Is there a cat?", "answer": True},
                         {"name": "Is it red?", "answer": False}])
    assert _examples([item]) == {"check": [Example("Is there a cat?", ("yes",)),
                                           Example("Is it red?", ("no",))]}


def test_idf_and_unit_vectors_by_hand():
    index = NgramIndex([Example("ab", ("x",)), Example("ac", ("y",))])
    # " ab " and " ac ": " a" and " a" + ... are in both (df 2), "ab" in one (df 1);
    # idf = ln((1 + n) / (1 + df)) + 1 with n = 2
    assert index.idf(" a") == pytest.approx(1.0)
    assert index.idf("ab") == pytest.approx(math.log(3 / 2) + 1.0)
    for vector in index.vectors:
        assert sum(w * w for w in vector.values()) == pytest.approx(1.0)
    # " ab " has 2-grams " a", "ab", "b "; 3-grams " ab", "ab "; 4-gram " ab ": 6 grams,
    # one shared (idf 1) and five of idf u = ln 1.5 + 1
    u = math.log(1.5) + 1.0
    norm = math.sqrt(1 + 5 * u * u)
    assert index.vectors[0][" a"] == pytest.approx(1 / norm)
    assert index.vectors[0]["ab"] == pytest.approx(u / norm)
    assert index.postings[" a"] == [0, 1] and index.postings["ab"] == [0]


def test_nearest_keeps_k_best_over_the_near_floor_in_dev_order():
    index = NgramIndex([Example("red circle", ("1",)), Example("red circle", ("2",)),
                        Example("blue square", ("3",)), Example("zzz", ("4",))])
    found = index.nearest("red circle", k=10)
    # the two exact copies tie at cosine 1.0 (dev order kept); "blue square" shares a few
    # grams ("e ", " s"-free "re"…) far under 0.6 x 1.0; "zzz" shares none (cosine 0: absent)
    assert [e.golds for e, _ in found] == [("1",), ("2",)]
    assert found[0][1] == pytest.approx(1.0) and found[1][1] == pytest.approx(1.0)
    assert [e.golds for e, _ in index.nearest("red circle", k=1)] == [("1",)]
    # best first, not dev order: "blue square" (row 2) is nearest to a blue square
    assert index.nearest("blue square", k=1)[0][0].golds == ("3",)
    # a question sharing no n-gram with dev: no neighbours (not an error)
    assert index.nearest("qqq", k=10) == []
    # with no floor every example sharing a gram comes back, best first
    everything = index.nearest("red circle", k=10, near=0.0)
    assert [e.golds for e, _ in everything][:2] == [("1",), ("2",)]
    assert ("4",) not in [e.golds for e, _ in everything]
    # the floor is inclusive: at near = 1.0 the examples scoring exactly the best stay
    assert [e.golds for e, _ in index.nearest("red circle", k=10, near=1.0)] == [("1",), ("2",)]


def test_mc_votes_count_only_golds_among_the_items_own_options():
    from bench_kit.models.adapters.prior import PriorModel

    mc = {"task": "mc", "capability": "perception.count"}
    dev = [_item(id="m1", question="How many red shapes are there?", answers=["B"],
                 choices={"A": "1", "B": "2"}, **mc),
           _item(id="m2", question="How many red shapes are in it?", answers=["A"],
                 choices={"A": "6", "B": "7"}, **mc),
           _item(id="m3", question="Which colour is the sky?", answers=["A"],
                 choices={"A": "blue", "B": "red"}, **mc)]
    model = PriorModel(dev)
    # m1 is the nearest but its gold "2" is not an option here; m2's "6" is (letter B)
    assert model.answer_mc("How many red shapes are there?", {"A": "5", "B": "6"}) == \
        ("B", "neighbours")
    # no neighbour's gold among the options: the dev's most common gold letter (A, 2 of 3)
    assert model.answer_mc("How many red shapes are there?", {"A": "8", "B": "9"}) == \
        ("A", "task majority")


def test_votes_of_neighbours_with_the_same_gold_add_up():
    # a: 0.5 + 0.4 = 0.9 beats b's 0.6 (a's last vote alone, 0.4, would not)
    near = [(Example("q1", ("a",)), 0.5), (Example("q2", ("a",)), 0.4),
            (Example("q3", ("b",)), 0.6)]
    assert _vote(near, None, Counter()) == "a"


def test_mc_fallbacks_the_task_majority_among_the_options_then_the_most_common_letter():
    from bench_kit.models.adapters.prior import PriorModel

    mc = {"task": "mc", "capability": "perception.count"}
    dev = [_item(id="m1", question="How many red shapes are there?", answers=["C"],
                 choices={"A": "1", "B": "3", "C": "2"}, **mc),
           _item(id="m2", question="How many red shapes are in it?", answers=["C"],
                 choices={"A": "5", "B": "7", "C": "6"}, **mc),
           _item(id="m3", question="How many red shapes can you see?", answers=["C"],
                 choices={"A": "4", "B": "8", "C": "9"}, **mc),
           _item(id="m4", question="Which colour is the sky?", answers=["A"],
                 choices={"A": "blue", "B": "red"}, **mc),
           _item(id="m5", question="Which colour is the sea?", answers=["A"],
                 choices={"A": "blue", "B": "green"}, **mc),
           _item(id="y1", question="Is it red?", answers=["no"], task="yesno",
                 capability="perception.count")]
    model = PriorModel(dev)
    # gold letters of the mc items: C 3 times, A twice (the yes/no item's "no" is no letter);
    # gold texts: blue 2, and 2, 6, 9 once each
    # neighbours whose golds are none of the options, no dev gold among them either: the
    # most common gold letter, C (not A, the first)
    assert model.answer_mc("How many red shapes are there?",
                           {"A": "10", "B": "11", "C": "12"}) == ("C", "task majority")
    # no neighbour at all ("qqq" shares no n-gram with dev): the task's most common gold
    # among the options, blue (2) over 6 (1), at letter B
    assert model.answer_mc("qqq", {"A": "6", "B": "blue"}) == ("B", "task majority")


def test_the_median_box_reads_boxes_as_golds_write_them():
    # brackets or parentheses and spaces are read (also a space before the bracket); a
    # gold that is no box, or has 3 numbers, is passed over and the boxes after it still
    # count: medians of (10, 30, 40), (0, 40, 30), (50, 90, 95), (50, 80, 85) are 30, 30,
    # 90, 80 (no single box's corners)
    golds = [" [10, 0, 50, 50] ", "not a box", "(30, 40, 90, 80)", "40,30,95,85", "1,2,3"]
    assert _median_box(golds) == [30.0, 30.0, 90.0, 80.0]
    assert _median_box(["not a box", "1,2,3"]) is None


def test_only_the_k_nearest_vote():
    from bench_kit.models.adapters.prior import K, PriorModel

    # 15 copies of one question, all at cosine 1: the first 10 in dev order (6 yes, 4 no)
    # vote yes; all 15 (6 yes, 9 no) would vote no
    golds = ["yes"] * 6 + ["no"] * 9
    dev = [_item(id=f"y{n}", task="yesno", question="Is it red?", answers=[gold])
           for n, gold in enumerate(golds)]
    assert K == 10
    assert PriorModel(dev).choose("yesno", "Is it red?") == ("yes", "neighbours")


def test_a_non_mc_item_with_options_is_read_by_its_task():
    # the schema lets a yes/no or numeric item carry options; its task decides, not them
    numeric = _item(id="n", task="numeric", question="How many?", answers=["3"],
                    choices={"A": "3", "B": "4"})
    assert _examples([numeric]) == {"numeric": [Example("How many?", ("3",))]}
