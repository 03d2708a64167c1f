"""One model, one vote: blind modes combine per model, `random` is no panel member, a
panel too small for any call says `undetermined`, items without an image get `no_image`."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from conftest import make_item as _make_item

from bench_kit.audit.results.blind_panel import combine, panel_needed
from bench_kit.audit.results.significance import sig
from bench_kit.audit.results.simulation import simulate_panel, write_panel
from bench_kit.audit.results.stage import audit_results

MC = {"task": "mc", "choices": {"A": "red", "B": "blue", "C": "green", "D": "black"},
      "answers": ["A"], "capability": "perception.colour", "image": "img/q.png"}
YESNO = {"task": "yesno", "answers": ["yes"], "capability": "understanding.spatial",
         "layer": "understanding", "image": "img/q.png"}


def _run(folder: Path, items: list[dict], answers: dict, params: str = "") -> dict:
    """Audit {model: {mode: {id: answer}}} (hit = answer is the gold); the summary and
    the per-item rows."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    gold = {i["id"]: i["answers"][0] for i in items}
    for model, modes in answers.items():
        for mode, rows in modes.items():
            path = folder / "scores" / model / f"{mode}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(json.dumps(
                {"id": k, "model": model, "mode": mode, "metric": "accuracy", "extracted": a,
                 "parse": "ok", "score": float(a == gold[k]), "hit": a == gold[k],
                 "error": None}) + "\n" for k, a in rows.items()))
    (folder / "params.yaml").write_text("audit_results:\n  expansion: false\n" + params)
    result = audit_results(folder / "items.jsonl", folder / "scores", folder / "out",
                           params_path=folder / "params.yaml")
    rows = [json.loads(line) for line in
            (folder / "out/item_stats.jsonl").read_text().splitlines()]
    return {"summary": result.summary, "items": {r["id"]: r for r in rows}}


def test_combine_counts_identical_answers_once_and_states_ties() -> None:
    assert combine({"no_image": ("A", True), "blank_image": ("A", True)}) == "hit"
    assert combine({"no_image": ("B", False), "blank_image": ("B", False)}) == "miss"
    assert combine({"no_image": ("A", True), "blank_image": ("B", False)}) == "tie"
    assert combine({"a": ("A", True), "b": ("B", False), "c": ("C", False)}) == "miss"


def test_panel_needed_matches_the_unanimous_p() -> None:
    for chance in (0.5, 0.25, 1 / 6):
        n = panel_needed(chance, 0.05)
        assert chance ** n < 0.05 <= chance ** (n - 1)


def test_a_deterministic_model_is_one_vote(tmp_path) -> None:
    # three deterministic models, both blind modes alike, 4-option mc: 3 votes, not 6
    items = [_make_item(id="q", **MC)]
    answers = {f"m{k}": {"no_image": {"q": "A"}, "blank_image": {"q": "A"}} for k in range(3)}
    out = _run(tmp_path, items, answers)["items"]["q"]
    assert (out["blind_hits"], out["blind_runs"]) == (3, 3)
    assert out["p_value"] == sig(0.25 ** 3)
    assert out["members"] == {"m0": "hit", "m1": "hit", "m2": "hit"}


def test_a_tie_is_decided_by_the_first_blind_mode(tmp_path) -> None:
    items = [_make_item(id="q", **MC)]
    answers = {"m0": {"no_image": {"q": "A"}, "blank_image": {"q": "B"}},
               "m1": {"no_image": {"q": "C"}, "blank_image": {"q": "A"}},
               "m2": {"no_image": {"q": "A"}}}
    out = _run(tmp_path, items, answers)["items"]["q"]
    assert out["members"] == {"m0": "tie:hit", "m1": "tie:miss", "m2": "hit"}
    assert (out["blind_hits"], out["blind_ties"], out["blind_runs"]) == (2, 2, 3)


def test_random_is_not_a_panel_member(tmp_path) -> None:
    items = [_make_item(id="q", **MC)]
    answers = {m: {"no_image": {"q": "A"}} for m in ("m0", "m1", "m2", "random")}
    result = _run(tmp_path, items, answers)
    assert result["items"]["q"]["blind_runs"] == 3
    panel = result["summary"]["panel"]
    assert panel["members"] == ["m0", "m1", "m2"] and panel["size"] == 3
    assert panel["excluded"] == ["random"]


def test_a_unanimous_small_yesno_panel_is_undetermined(tmp_path) -> None:
    # three models right (or wrong) without the image on a yes/no item: p = 0.125 at best
    items = [_make_item(id="right", **YESNO), _make_item(id="wrong", **YESNO)]
    answers = {f"m{k}": {"no_image": {"right": "yes", "wrong": "no"}} for k in range(3)}
    result = _run(tmp_path, items, answers)
    for item_id in ("right", "wrong"):
        row = result["items"][item_id]
        assert row["verdict"] == "undetermined" and row["panel_needed"] == 5
    assert result["summary"]["blind_panel"]["overall"]["vision_required"] == 0
    detect = {d["chance"]: d for d in result["summary"]["panel"]["detectable"]}
    assert detect[0.5]["min_gain"] is None and detect[0.5]["panel_needed"] == 5


def test_items_without_an_image_get_their_own_verdict(tmp_path) -> None:
    no_image = {k: v for k, v in MC.items() if k != "image"}
    items = [_make_item(id="pic", **MC), _make_item(id="txt", **no_image)]
    answers = {f"m{k}": {"image": {"pic": "A", "txt": "A"},
                         "no_image": {"pic": "B", "txt": "A"}} for k in range(4)}
    result = _run(tmp_path, items, answers)
    assert result["items"]["txt"]["verdict"] == "no_image"
    assert result["items"]["pic"]["verdict"] == "vision_required"
    panel = result["summary"]["blind_panel"]
    assert panel["items_without_image"] == 1 and panel["judged"] == 1
    assert panel["overall"]["vision_required_share"] == 1.0
    # MG over the item with an image only: 100% with the image, 0% without
    assert result["summary"]["vision_gain"]["m0"]["mg"] == 1.0


def _verdicts(folder: Path, panel) -> dict[str, str]:
    folder.mkdir()
    items, scores, params = write_panel(panel, folder)
    audit_results(items, scores, folder / "out", params_path=params)
    return {json.loads(line)["id"]: json.loads(line)["verdict"] for line in
            (folder / "out/item_stats.jsonl").read_text().splitlines()}


def test_copying_no_image_answers_into_blank_image_changes_no_verdict(tmp_path) -> None:
    """A deterministic model answers alike with no image and a blank image: the verdicts
    with only its no-image run and with the copy as its blank-image run are the same."""
    panel = simulate_panel(6, seed=5)
    only = copy.deepcopy(panel)
    only.rows = {key: rows for key, rows in panel.rows.items() if key[1] != "blank_image"}
    copied = copy.deepcopy(only)
    for (model, mode), rows in only.rows.items():
        if mode == "no_image" and model.startswith("vlm"):
            copied.rows[(model, "blank_image")] = [{**r, "mode": "blank_image"} for r in rows]
    assert len(copied.rows) == len(only.rows) + 6
    before, after = _verdicts(tmp_path / "only", only), _verdicts(tmp_path / "copied", copied)
    assert before == after
    assert {"text_answerable", "vision_required"} <= set(before.values())
