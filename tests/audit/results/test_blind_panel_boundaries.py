"""The blind panel's verdict rules at their documented thresholds, chance rates per task,
the prior test's boundaries and the significance helpers' branches (each test kills
mutants that the scenario tests let survive; see docs/TESTING.md)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from conftest import make_item as _make_item

from bench_kit.audit.results.blind_panel import (
    blind_findings,
    blind_verdicts,
    verdict_counts,
    vision_gain,
)
from bench_kit.audit.results.chance import (
    answer_group,
    answer_spaces,
    chance_rates,
    gold_key,
    prior_by_template,
    prior_groups,
    prior_verdicts,
)
from bench_kit.audit.results.inputs import ResultsAuditParams, ScoreTable
from bench_kit.audit.results.significance import (
    bh_qvalues,
    binomial_p_greater,
    false_call_bound,
    max_share_p,
    sig,
)
from bench_kit.types import Item, Score

MC4 = {"A": "a", "B": "b", "C": "c", "D": "d"}


def make_item(**fields):
    """An item row with an image (the blind panel judges items with an image)."""
    return _make_item(**{"image": "img/q.png", **fields})


def _mc(item_id: str, **fields) -> Item:
    row = make_item(id=item_id, task="mc", choices=dict(MC4), answers=["A"], **fields)
    return Item.model_validate(row)


def _score(item_id: str, model: str, mode: str, hit: bool | None) -> Score:
    """hit None = a parse failure (not a trial)."""
    return Score(id=item_id, model=model, mode=mode, metric="exact", extracted="A",
                 parse="failed" if hit is None else "ok", score=float(bool(hit)),
                 hit=bool(hit))


def _table(items: list[Item], blind: dict[str, list[bool | None]],
           mode: str = "no_image") -> ScoreTable:
    runs: dict = {}
    for item_id, hits in blind.items():
        for k, hit in enumerate(hits):
            runs.setdefault((f"m{k}", mode), {})[item_id] = _score(item_id, f"m{k}", mode, hit)
    return ScoreTable(items=items, runs=runs, errors={})


def _verdict(hits: list[bool | None], **params):
    table = _table([_mc("q1")], {"q1": hits})
    return blind_verdicts(table, ResultsAuditParams(**params))["q1"]


def test_text_answerable_at_exactly_the_gain_threshold() -> None:
    gain = (4 / 5 - 0.25) / (1 - 0.25)  # 4 of 5 blind hits, chance 1/4
    hits = [True, True, True, True, False]
    assert _verdict(hits, text_answerable_gain=gain).verdict == "text_answerable"
    above = math.nextafter(gain, 1)
    assert _verdict(hits, text_answerable_gain=above).verdict == "review"


def test_text_answerable_needs_q_strictly_below_fdr() -> None:
    hits = [True] * 5
    q = _verdict(hits).q_value  # one item: q = p
    assert q == sig(binomial_p_greater(5, 5, 0.25))
    assert _verdict(hits, fdr=q).verdict == "review"  # q < fdr is strict
    assert _verdict(hits, fdr=math.nextafter(q, 1)).verdict == "text_answerable"


def test_vision_required_needs_p_strictly_above_the_level() -> None:
    hits = [True, False, False, False, False, False]
    p = binomial_p_greater(1, 6, 0.25)
    assert _verdict(hits, vision_required_p=p).verdict == "review"
    assert _verdict(hits, vision_required_p=math.nextafter(p, 0)).verdict == "vision_required"


def test_min_blind_runs_boundary() -> None:
    hits = [True, True, True]
    assert _verdict(hits).verdict == "text_answerable"  # n == min_blind_runs (3)
    assert _verdict(hits, min_blind_runs=4).verdict == "undetermined"
    assert _verdict(hits, min_blind_runs=4).panel_needed == 4


def test_prior_answerable_comes_first_and_only_when_answerable() -> None:
    table = _table([_mc("q1")], {"q1": [True] * 5})
    params = ResultsAuditParams()
    yes = blind_verdicts(table, params, {"q1": SimpleNamespace(answerable=True)})
    no = blind_verdicts(table, params, {"q1": SimpleNamespace(answerable=False)})
    assert yes["q1"].verdict == "prior_answerable" and no["q1"].verdict == "text_answerable"


def test_verdict_fields_parse_failures_and_items_without_answers() -> None:
    items = [_mc("q0"), _mc("q1"), _mc("q2")]
    table = _table(items, {"q1": [True, True, False, None], "q2": [True, False, False]})
    verdicts = blind_verdicts(table, ResultsAuditParams())
    none = verdicts["q0"]
    assert (none.hits, none.n, none.fraction, none.chance, none.p_value, none.verdict,
            none.runs, none.parse_failed) == (0, 0, None, 0.25, None, None, {}, 0)
    one = verdicts["q1"]
    p1, p2 = binomial_p_greater(2, 3, 0.25), binomial_p_greater(1, 3, 0.25)
    assert (one.hits, one.n, one.fraction, one.chance, one.parse_failed) == \
        (2, 3, 0.6667, 0.25, 1)
    assert one.runs == {"m0/no_image": True, "m1/no_image": True, "m2/no_image": False}
    assert one.p_value == sig(p1) and one.gain == round((2 / 3 - 0.25) / 0.75, 4)
    # BH over the tested items only (q0 had no answer), in item order
    assert [one.q_value, verdicts["q2"].q_value] == bh_qvalues([p1, p2])


def test_blind_modes_choose_the_runs() -> None:
    table = _table([_mc("q1")], {"q1": [True] * 4}, mode="blank_image")
    assert _verdict_in(table, ["no_image"]).n == 0
    assert _verdict_in(table, ["blank_image"]).n == 4


def _verdict_in(table: ScoreTable, modes: list[str]):
    return blind_verdicts(table, ResultsAuditParams(blind_modes=modes))["q1"]


def test_blind_findings_messages_evidence_and_scores() -> None:
    items = [_mc("t"), _mc("r"), _mc("v")]
    table = _table(items, {"t": [True] * 5, "r": [True, True, False],
                           "v": [False] * 5})
    verdicts = blind_verdicts(table, ResultsAuditParams(vision_required_p=0.5))
    assert [verdicts[k].verdict for k in "trv"] == ["text_answerable", "review",
                                                     "vision_required"]
    found = {f.id: f for f in blind_findings(verdicts)}
    assert set(found) == {"t", "r"}
    t, r = found["t"], found["r"]
    assert (t.check, t.severity, t.score) == ("redundancy.text_answerable", "warn", 1.0)
    # a review finding scores as its severity (not its hit rate, 0.6667)
    assert (r.check, r.severity, r.score) == ("redundancy.blind_review", "info", 0.25)
    assert t.message == (f"5/5 models answer right without the image (chance 0.25, "
                         f"p={verdicts['t'].p_value:.3g}, q={verdicts['t'].q_value:.3g})")
    assert t.evidence == {"statistic": "blind_model_hits", "blind_hits": 5, "blind_runs": 5,
                          "ties": 0, "members": {f"m{k}": "hit" for k in range(5)},
                          "fraction": 1.0, "chance": 0.25, "gain": 1.0,
                          "p_value": verdicts["t"].p_value, "q_value": verdicts["t"].q_value,
                          "parse_failed": 0, "runs": verdicts["t"].runs}


def test_vision_gain_mg_ml_and_base_mode() -> None:
    items = [_mc("a", capability="x.one"), _mc("b", capability="x.two")]
    runs = {("vlm", "image"): {"a": _score("a", "vlm", "image", True),
                               "b": _score("b", "vlm", "image", True)},
            ("vlm", "no_image"): {"a": _score("a", "vlm", "no_image", True),
                                  "b": _score("b", "vlm", "no_image", False)},
            ("vlm", "blank_image"): {"a": _score("a", "vlm", "blank_image", False),
                                     "b": _score("b", "vlm", "blank_image", False)},
            ("llm", "image"): {"a": _score("a", "llm", "image", False),
                               "b": _score("b", "llm", "image", False)}}
    table = ScoreTable(items=items, runs=runs, errors={})
    gains = vision_gain(table, ResultsAuditParams(base_models={"vlm": "llm"}))
    vlm = gains["vlm"]
    assert (vlm["mg"], vlm["mg_blank"], vlm["ml"]) == (0.5, 1.0, 0.5)
    assert vlm["base_model"] == "llm" and vlm["base_mode"] == "image"  # its only mode
    assert vlm["accuracy"] == {"image": 1.0, "no_image": 0.5, "blank_image": 0.0}
    assert vlm["by_capability"] == {"x.one": {"mg": 0.0, "ml": 1.0},
                                    "x.two": {"mg": 1.0, "ml": 0.0}}
    assert gains["llm"]["ml"] is None and gains["llm"]["mg"] is None
    # a base model with a no_image run is compared on it
    runs[("llm", "no_image")] = {"a": _score("a", "llm", "no_image", True),
                                 "b": _score("b", "llm", "no_image", True)}
    again = vision_gain(ScoreTable(items=items, runs=runs, errors={}),
                        ResultsAuditParams(base_models={"vlm": "llm"}))["vlm"]
    assert again["base_mode"] == "no_image" and again["ml"] == 0.0  # max(0, 0.5 - 1)


def test_verdict_counts_shares() -> None:
    items = [_mc("t", capability="c.a"), _mc("v", capability="c.a"), _mc("n", capability="c.b")]
    table = _table(items, {"t": [True] * 5, "v": [False] * 5})
    counts = verdict_counts(blind_verdicts(table, ResultsAuditParams()), items)
    assert counts["judged"] == 2
    overall = counts["overall"]
    assert (overall["text_answerable"], overall["vision_required"], overall["no_blind_runs"],
            overall["text_answerable_share"], overall["vision_required_share"]) == \
        (1, 1, 1, 0.5, 0.5)
    assert counts["by_capability"]["c.b"]["no_blind_runs"] == 1
    assert counts["by_capability"]["c.b"]["text_answerable_share"] is None


def test_answer_spaces_per_task_and_the_open_floor() -> None:
    rows = [make_item(id="mc", task="mc", choices={"A": "a", "B": "b", "C": "c"},
                      answers=["A"]),
            make_item(id="yn", task="yesno", answers=["yes"]),
            make_item(id="cl", task="checklist", answers=[], checks=[
                {"name": "x", "answer": True}, {"name": "y", "answer": False}]),
            *[make_item(id=f"n{k}", answers=[str(k)]) for k in range(6)],
            make_item(id="o1", task="open", answers=["red"], capability="c.other")]
    items = [Item.model_validate(r) for r in rows]
    spaces = answer_spaces(items, ResultsAuditParams())
    assert (spaces["mc"], spaces["yn"], spaces["cl"]) == (3, 2, 4)
    assert spaces["n0"] == 6  # six distinct golds in the group, above the floor of 4
    assert spaces["o1"] == 4  # one gold: the floor open_min_options
    assert answer_spaces(items, ResultsAuditParams(open_min_options=9))["n0"] == 9
    assert chance_rates(items)["yn"] == 0.5 and chance_rates(items)["o1"] == 0.25


def test_answer_groups_and_gold_keys() -> None:
    templated = Item.model_validate(make_item(id="t", source="template:count_red",
                                              answers=[" Three "]))
    hand = Item.model_validate(make_item(id="h", source="manual", answers=["x"]))
    assert answer_group(templated) == "template:count_red|numeric"
    assert answer_group(hand) == "perception.count|numeric"
    assert gold_key(hand) == "x" and gold_key(templated) == gold_key(
        Item.model_validate(make_item(id="u", answers=["three"])))


def _numeric_group(golds: list[str]) -> list[Item]:
    return [Item.model_validate(make_item(id=f"i{k}", source="template:g", answers=[g]))
            for k, g in enumerate(golds)]


def test_prior_group_boundaries() -> None:
    params = ResultsAuditParams(prior_share=0.7, prior_min_items=5)
    # 7 of 10 share the gold "2": share exactly 0.7 is skewed (>=)
    group = prior_groups(_numeric_group(["2"] * 7 + ["1", "3", "4"]), params)["template:g|numeric"]
    assert (group.items, group.majority, group.count, group.share, group.skewed) == \
        (10, "2", 7, 0.7, True)
    assert group.answer_space == 4
    assert group.p_value == sig(min(1.0, 4 * binomial_p_greater(7, 10, 0.25)))
    below = prior_groups(_numeric_group(["2"] * 6 + ["1", "3", "4", "5"]), params)
    assert below["template:g|numeric"].skewed is False
    # 4 items all alike: fewer than prior_min_items is never skewed; 5 is
    assert prior_groups(_numeric_group(["2"] * 4), params)["template:g|numeric"].skewed is False
    assert prior_groups(_numeric_group(["2"] * 5), params)["template:g|numeric"].skewed is True
    # ties go to the alphabetically first gold
    tie = prior_groups(_numeric_group(["b", "a", "b", "a"]), params)["template:g|numeric"]
    assert (tie.majority, tie.majority_shown) == ("a", "a")


def test_prior_verdicts_and_the_template_table() -> None:
    params = ResultsAuditParams()
    items = _numeric_group(["2"] * 12 + ["1"])
    verdicts = prior_verdicts(items, params)
    assert verdicts["i0"].answerable and verdicts["i0"].majority_gold
    assert not verdicts["i12"].answerable and verdicts["i12"].p_value == 1.0
    # a huge FDR level still needs the majority gold of a skewed group
    loose = prior_verdicts(items, ResultsAuditParams(fdr=0.99))
    assert not loose["i12"].answerable
    blind = {"i0": SimpleNamespace(hits=2, n=4), "i1": SimpleNamespace(hits=1, n=4)}
    rows = prior_by_template(prior_groups(items, params), blind, items, params)
    assert rows == [{"group": "template:g|numeric", "items": 13, "majority_answer": "2",
                     "prior_accuracy": round(12 / 13, 4), "chance": 0.25,
                     "p_value": rows[0]["p_value"], "q_value": rows[0]["q_value"],
                     "skewed": True,
                     "blind_accuracy": 0.375}]


def test_significance_branches() -> None:
    assert sig(0.000123456) == 0.0001235 and sig(0.123456, 2) == 0.12
    assert binomial_p_greater(0, 5, 0.5) == 1.0 and binomial_p_greater(-1, 5, 0.5) == 1.0
    assert binomial_p_greater(1, 1, 0.5) == 0.5
    assert binomial_p_greater(5, 5, 0.5) == pytest.approx(1 / 32)
    assert max_share_p(0, 5, 0.5, 2) == 1.0
    assert max_share_p(6, 5, 0.5, 2) == 0.0  # more than all votes: impossible
    assert max_share_p(3, 5, 0.5, 0) == 1.0  # no wrong option to vote for
    assert max_share_p(1, 1, 0.0, 1) == pytest.approx(1.0)
    assert max_share_p(1, 2, 0.5, 1) == pytest.approx(0.75)
    assert max_share_p(2, 2, 0.0, 2) == pytest.approx(0.5)
    assert bh_qvalues([]) == [] and bh_qvalues([0.5]) == [0.5]
    assert bh_qvalues([0.04, 0.01]) == [0.04, 0.02]
    assert bh_qvalues([0.9, 0.8]) == [0.9, 0.9]
    assert false_call_bound([]) == 0.0 and false_call_bound([0.01, 0.04, 0.02]) == 0.12


def test_blind_verdicts_use_the_params_chance_and_round_it() -> None:
    numeric = Item.model_validate(make_item(id="n1", answers=["2"]))
    three = Item.model_validate(make_item(id="m3", task="mc", answers=["A"],
                                          choices={"A": "a", "B": "b", "C": "c"}))
    table = _table([numeric, three], {"n1": [True] * 3})
    verdicts = blind_verdicts(table, ResultsAuditParams(open_min_options=10))
    assert verdicts["n1"].chance == 0.1
    assert verdicts["m3"].chance == 0.3333 and verdicts["m3"].n == 0  # no answers, rounded
    answered = blind_verdicts(_table([three], {"m3": [True, False, False]}),
                              ResultsAuditParams())["m3"]
    assert answered.chance == 0.3333


def test_blind_findings_go_on_past_a_skipped_verdict() -> None:
    items = [_mc("v"), _mc("t")]
    verdicts = blind_verdicts(_table(items, {"v": [False] * 5, "t": [True] * 5}),
                              ResultsAuditParams())
    assert [f.id for f in blind_findings(verdicts)] == ["t"]


def test_checklist_answer_space_and_an_empty_gold() -> None:
    def checklist(item_id: str, n: int) -> Item:
        return Item.model_validate(make_item(id=item_id, task="checklist", answers=[],
                                             checks=[{"name": f"c{k}", "answer": True}
                                                     for k in range(n)]))
    items = [checklist("one", 1), checklist("three", 3)]
    spaces = answer_spaces(items, ResultsAuditParams())
    assert (spaces["one"], spaces["three"]) == (2, 8)
    assert gold_key(items[0]) == ""
    group = prior_groups(items, ResultsAuditParams())["perception.count|checklist"]
    assert (group.majority, group.majority_shown) == ("", "")


def test_prior_p_value_is_capped_at_one() -> None:
    group = prior_groups(_numeric_group(["1", "2", "3", "4"]),
                         ResultsAuditParams())["template:g|numeric"]
    assert group.p_value == 1.0 and group.skewed is False


def test_prior_verdicts_need_majority_skew_and_q_strictly_below_fdr() -> None:
    params = ResultsAuditParams()
    # a group that is not skewed: its majority item is not answerable
    plain = prior_verdicts(_numeric_group(["2", "2", "1", "3", "4", "5"]), params)
    assert plain["i0"].majority_gold and not plain["i0"].answerable
    items = _numeric_group(["2"] * 12 + ["1"])
    verdicts = prior_verdicts(items, params)
    groups = prior_groups(items, params)
    first = verdicts["i0"]
    assert first.id == "i0" and first.group == groups["template:g|numeric"]
    # Benjamini–Hochberg over the groups (the unit of a prior), not the items: one group
    assert first.q_value == bh_qvalues([groups["template:g|numeric"].p_value])[0]
    assert not prior_verdicts(items, ResultsAuditParams(fdr=first.q_value))["i0"].answerable
    loose = ResultsAuditParams(fdr=math.nextafter(first.q_value, 1))
    assert prior_verdicts(items, loose)["i0"].answerable


def test_prior_findings_message_and_evidence() -> None:
    from bench_kit.audit.results.chance import prior_findings

    items = _numeric_group(["2"] * 12 + ["1"])
    verdicts = prior_verdicts(items, ResultsAuditParams())
    blind = {"i0": SimpleNamespace(hits=3, n=4, p_value=0.05)}
    found = {f.id: f for f in prior_findings(verdicts, blind)}
    assert set(found) == {f"i{k}" for k in range(12)}  # i12 (not the majority) is left out
    v = verdicts["i0"]
    first = found["i0"]
    assert (first.check, first.severity, first.score) == \
        ("redundancy.prior_answerable", "warn", round(12 / 13, 4))
    assert first.message == (f"12/13 items of template:g have the gold '2'; guessing it "
                             f"without the image is right 92% of the time "
                             f"(q={v.q_value:.3g})")
    assert first.evidence == {"statistic": "majority_gold_share", "share": round(12 / 13, 4),
                              "group": "template:g|numeric", "majority_answer": "2",
                              "group_items": 13, "majority_items": 12, "answer_space": 4,
                              "p_value": v.p_value, "q_value": v.q_value, "blind_hits": 3,
                              "blind_runs": 4, "blind_p_value": 0.05}
    assert "blind_hits" not in found["i1"].evidence


def test_prior_by_template_order_rounding_and_missing_blind_runs() -> None:
    three = [Item.model_validate(make_item(id=f"m{k}", task="mc", source="template:mc",
                                           choices={"A": "a", "B": "b", "C": "c"},
                                           answers=["A" if k < 2 else "B"]))
             for k in range(3)]
    items = _numeric_group(["2"] * 12 + ["1"]) + three
    params = ResultsAuditParams()
    blind = {"m0": SimpleNamespace(hits=1, n=3)}
    rows = prior_by_template(prior_groups(items, params), blind, items, params)
    assert [r["group"] for r in rows] == ["template:g|numeric", "template:mc|mc"]
    assert rows[0]["blind_accuracy"] is None  # no blind run in the group
    assert rows[1]["chance"] == 0.3333 and rows[1]["blind_accuracy"] == 0.3333
    assert rows[1]["prior_accuracy"] == 0.6667
