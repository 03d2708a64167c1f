"""Variant families: rewrite rules, the gate, recomputed golds, the CLI and the paraphraser."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import shape_obj

from bench_kit.authoring import counterfactual as cf
from bench_kit.authoring.gate import GateThresholds, edit_ratio, judge
from bench_kit.authoring.lexicon import (
    condition_prefix,
    deixis_rewrite,
    register_rewrite,
    synonym_rewrite,
)
from bench_kit.authoring.scenes import SceneAnn
from bench_kit.authoring.templates import (
    GenerateParams,
    VariantForms,
    generate_items,
    load_taxonomy,
    load_templates,
)
from bench_kit.cli import cli
from bench_kit.io import read_jsonl
from bench_kit.items import read_items
from bench_kit.params import load_params
from tests.openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
TAXONOMY = load_taxonomy(load_params(ROOT / "params.yaml"))
SPECS = {s.id: s for s in load_templates(ROOT / "datasets/demo/templates.yaml", TAXONOMY)}


_obj = shape_obj


SCENE = SceneAnn.model_validate({
    "scene": "t1", "image": "images/t1.png", "kind": "shapes", "width": 400, "height": 300,
    "objects": [_obj("o1", "circle", "red", "small", [10, 10, 50, 50]),
                _obj("o2", "square", "blue", "medium", [100, 10, 160, 70]),
                _obj("o3", "triangle", "green", "large", [200, 100, 300, 187]),
                _obj("o4", "circle", "red", "medium", [320, 200, 380, 260])]})


def _item(template: str, key_part: str = ""):
    spec = SPECS[template].model_copy(update={"scene_share": 1.0, "max_per_scene": None})
    items = generate_items([SCENE], [spec], TAXONOMY, GenerateParams(seed=1))
    return next(i for i in items if key_part in i.id)


@pytest.mark.parametrize("rewrite, question, expected", [
    (synonym_rewrite, "How many shapes are there in the image?",
     "How many shapes does the picture contain?"),
    (synonym_rewrite, "Are there more squares than circles in the image?",
     "Does the picture contain more squares than circles?"),
    (synonym_rewrite, "Which colour do the most shapes in the image have?",
     "Which colour is the most common among the shapes in the picture?"),
    (synonym_rewrite, "Among the circles in the image, what colour is the largest one?",
     "Of the circles in the picture, what is the colour of the largest one?"),
    (synonym_rewrite, 'Give the bounding box of the text "EXIT" as x1,y1,x2,y2 in image pixels.',
     'Provide the enclosing box for the text "EXIT" as x1,y1,x2,y2 in pixel coordinates.'),
    (synonym_rewrite, "图中有几个红色的五角星？", "图片里有多少个红色的五角星？"),
    (deixis_rewrite, "What colour is the triangle?", "What colour is this object?"),
    (deixis_rewrite, "What does the red sign say?", "What does this sign say?"),
    (deixis_rewrite, 'Give the bounding box of the text "出口" as x1,y1,x2,y2 in image pixels.',
     "Give the bounding box of this text as x1,y1,x2,y2 in image pixels."),
    (deixis_rewrite, "图中的三角形是什么颜色？", "这个物体是什么颜色？"),
    (deixis_rewrite, "图中有几个红色的五角星？", "图中有几个这种颜色、这种形状的物体？"),
    (deixis_rewrite, "Which bar in the chart is the tallest?", "Which bar here is the tallest?"),
    (lambda q: register_rewrite(q, "colloquial", 0), "What colour is the triangle?",
     "Hey, quick question: what colour is the triangle?"),
    (lambda q: register_rewrite(q, "formal", 0), "Can you see a red star in this picture?",
     "Please answer the following question: is it possible to see a red star in this picture?"),
    (lambda q: register_rewrite(q, "formal", 0), "Give the bounding box of the red star.",
     "With reference to the image provided, please give the bounding box of the red star."),
    (lambda q: register_rewrite(q, "colloquial", 0), "Give the bounding box of the red star.",
     "Hey, can you give the bounding box of the red star?"),
    (lambda q: register_rewrite(q, "formal", 0), "牌子上写的是什么字？", "请根据图像回答：牌子上所写的是何字？"),
    (lambda q: register_rewrite(q, "colloquial", 0),
     "In the image as shown, is the red square above the blue circle?",
     "Hey, quick question: looking at the pic, is the red square above the blue circle?"),
    (lambda q: register_rewrite(q, "colloquial", 1), "图中的三角形是什么颜色？",
     "问一下哈，图里的三角形是啥颜色呢？"),
    (lambda q: condition_prefix(q, "the red square were removed"), "How many shapes are there?",
     "If the red square were removed, how many shapes are there?"),
    (lambda q: condition_prefix(q, "去掉红色的正方形"), "图中有几个图形？",
     "如果去掉红色的正方形，图中有几个图形？"),
])
def test_rewrite_rules(rewrite, question, expected):
    assert rewrite(question) == expected


def test_rules_leave_quoted_text_and_vocabulary_alone():
    question = 'What does the sign "in the image" say about the red circle?'
    out = synonym_rewrite(question)
    assert '"in the image"' in out and "red circle" in out


@pytest.mark.parametrize("a, b, ratio", [
    ("what colour is the circle", "what colour is the circle", 0.0),
    ("what colour is the circle", "what colour is this object", 0.4),
    ("图中有几个", "图里有几个", 0.2),
    ("", "", 0.0),
])
def test_edit_ratio(a, b, ratio):
    assert edit_ratio(a, b) == pytest.approx(ratio)


def test_gate_verdicts_name_the_failed_threshold():
    limits = GateThresholds(min_similarity=0.7, min_edit_ratio=0.1)
    assert judge(0.9, 0.3, limits).accepted
    assert judge(0.5, 0.3, limits).reason.startswith("meaning drifted: similarity 0.500")
    assert judge(0.9, 0.05, limits).reason.startswith("barely rewritten: edit ratio 0.050")


def _source(item):
    return cf.find_source(item, SPECS, {SCENE.scene: SCENE})


@pytest.mark.parametrize("template, question, expected", [
    ("spatial_left_of", "From the viewer's perspective, is the blue square to the left of the "
     "green triangle?", "From the viewer's perspective, is it true that the blue square is not "
     "to the left of the green triangle?"),
    ("spatial_left_of_zh", "从观看者的角度看，蓝色的正方形在绿色的三角形的左边吗？",
     "从观看者的角度看，蓝色的正方形不在绿色的三角形的左边，对吗？"),
    ("pope_zh", "图中有绿色的三角形吗？", "图中没有绿色的三角形，对吗？"),
])
def test_yesno_negation_is_a_statement_check_with_the_literal_gold(template, question,
                                                                     expected):
    """A negated yes/no reads as a statement to confirm ("Is it true that … is not …?",
    "…不在…，对吗？"), not "is X NOT …?" / "是否不…", whose yes or no reads either way; the
    gold is the literal answer: the statement is false where the positive question's is yes."""
    spec = SPECS[template].model_copy(update={"scene_share": 1.0, "max_per_scene": None})
    items = generate_items([SCENE], [spec], TAXONOMY, GenerateParams(seed=1))
    item = next(i for i in items if i.question == question)
    draft = cf.negation(item, _source(item))
    assert draft.question == expected
    assert item.answers == ["yes"] and draft.answers == ["no"]


def test_no_yesno_negation_wording_is_stilted():
    for spec in SPECS.values():
        wording = spec.variants.negation if spec.variants else None
        if spec.task != "yesno" or not wording:
            continue
        assert "NOT" not in wording and "是否" not in wording, spec.id
        if spec.lang == "zh":
            assert wording.endswith("，对吗？"), spec.id
        else:
            assert "is it true that" in wording.lower(), spec.id
            assert re.search(r"\b(not|no|cannot)\b", wording), spec.id


def test_negation_flips_yesno_and_rebuilds_mc_options_with_one_gold():
    probe = _item("pope_random", "green-triangle")
    draft = cf.negation(probe, _source(probe))
    assert probe.answers == ["yes"] and draft.answers == ["no"]
    assert draft.question == "Is it true that there is no green triangle in the image?"
    # "Which of these objects does NOT appear?": every option but one is in the scene
    present = _item("present_object_mc")
    draft = cf.negation(present, _source(present))
    assert "NOT" in draft.question and len(draft.answers) == 1
    shown = {f"{o.colour} {o.shape}" for o in SCENE.objects}
    (gold,) = draft.answers
    assert draft.choices[gold] not in shown
    assert all(text in shown for letter, text in draft.choices.items() if letter != gold)
    assert len(draft.choices) == len(present.choices)
    # one right option only ("Which of these shapes is drawn in green?"): never generated
    mc = _item("shape_of_colour_mc", "green")
    skipped = cf.negation(mc, _source(mc))
    assert isinstance(skipped, cf.Skip) and "one right option" in skipped.reason


def test_negation_skips_with_a_reason():
    count = _item("count_all")
    assert cf.negation(count, _source(count)).reason.startswith("task numeric")
    mc = _item("shape_of_colour_mc", "green")
    no_form = SPECS["shape_of_colour_mc"].model_copy(update={"variants": VariantForms()})
    source = cf.TemplateSource(no_form, SCENE, _source(mc).binding)
    assert "declares no negated wording" in cf.negation(mc, source).reason
    human = mc.model_copy(update={"source": "human"})
    assert "not a template" in cf.negation(human, cf.find_source(human, SPECS, {})).reason


def test_hypothetical_recomputes_the_gold_in_the_conditional_mood():
    count = _item("count_all")
    assert count.answers == ["4"]
    draft = cf.hypothetical(count, _source(count), seed=0)
    assert re.match(r"If (the|one of the) \w+ \w+ were removed, how many shapes would there be "
                    r"in the image\?$", draft.question)
    assert draft.answers == ["3"] and draft.meta["gold_changed"]
    zh = _item("count_colour_shape_zh", "red-circle")
    draft = cf.hypothetical(zh, _source(zh), seed=0)
    assert zh.answers == ["2"] and draft.answers == ["1"]
    assert draft.question == "如果去掉一个红色的圆形，图中会有几个红色的圆形？"


def test_a_condition_that_cannot_matter_is_an_irrelevant_premise():
    colour = _item("colour_of_shape", "triangle")
    assert isinstance(cf.hypothetical(colour, _source(colour), seed=0), cf.Skip)
    draft = cf.irrelevant_premise(colour, _source(colour), seed=0)
    assert draft.answers == colour.answers and not draft.meta["gold_changed"]
    assert re.match(r"If .+ were removed, what colour would the triangle be\?$", draft.question)
    assert "triangle" not in draft.question.split(",")[0]


def test_a_premise_about_the_asked_category_is_not_irrelevant():
    """"Suppose one of the red circles were removed. If all the red shapes were removed, how
    many shapes would remain?" keeps the gold only because the question removes it anyway."""
    item = _item("hypo_remove_colour", "red")
    found = cf.conditions(item, _source(item))
    assert found and not any(c.key == "remove:red-circle" for c in found)
    draft = cf.irrelevant_premise(item, _source(item), seed=0)
    assert isinstance(draft, cf.Skip) or "red" not in draft.question.split(".")[0]


@pytest.mark.parametrize("template, key", [
    ("count_colour_shape_zh", "blue-square"), ("pope_random", "blue-square"),
    ("absent_count", "blue-square"), ("count_shape", "square")])
def test_no_counterfactual_answers_itself(template, key):
    """Removing the only blue square, then asking about blue squares (or squares: it is the
    only one) gives the answer away: that change is never used, by either kind."""
    item = _item(template, key)
    source = _source(item)
    assert all(c.key != "remove:blue-square" for c in cf.conditions(item, source))
    for kind in (cf.hypothetical, cf.irrelevant_premise):
        draft = kind(item, source, seed=0)
        assert isinstance(draft, cf.Skip) or draft.meta["change"] != "remove:blue-square"


def test_the_solver_decides_whether_the_text_gives_the_answer_away():
    from bench_kit.authoring.changes import answers_itself, scene_changes
    from bench_kit.authoring.solvers import count_objects

    changes = {c.key: c for c in scene_changes(SCENE)}
    red_circles = {"colour": "red", "shape": "circle"}
    solve = lambda args: (lambda scene: count_objects(scene, **args))  # noqa: E731
    # one of two red circles removed: how many red circles needs the image
    assert not answers_itself(solve(red_circles), red_circles, changes["remove:red-circle"], SCENE)
    # the only blue square removed: "how many blue squares" is 0 whatever the image shows
    blue = {"colour": "blue", "shape": "square"}
    assert answers_itself(solve(blue), blue, changes["remove:blue-square"], SCENE)
    # counting every shape after a removal needs the image
    assert not answers_itself(solve({}), {}, changes["remove:blue-square"], SCENE)


@pytest.fixture
def fast_gate(monkeypatch):
    """Replace the embedding model by a cheap stand-in (similarity = 1 - edit ratio / 2), for
    tests about the plumbing rather than the model's judgement."""
    from bench_kit.authoring import variants

    monkeypatch.setattr(variants, "score_pairs", lambda pairs, encode=None: [
        (1 - edit_ratio(a, b) / 2, edit_ratio(a, b)) for a, b in pairs])


def _project(tmp_path: Path, n_shapes: int = 4, **variants) -> Path:
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["scenes"].update(n_shapes=n_shapes, n_signs=1, n_charts=1)
    params["variants"].update(variants)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True),
                                          encoding="utf-8")
    shutil.copy(ROOT / "datasets/demo/templates.yaml", tmp_path / "templates.yaml")
    run = CliRunner()
    for args in (["author", "scenes", "--out", str(tmp_path / "bench")],
                 ["author", "generate", "--annotations", str(tmp_path / "bench/annotations.jsonl"),
                  "--templates", str(tmp_path / "templates.yaml"),
                  "--out", str(tmp_path / "bench/items.v0.jsonl")]):
        result = run.invoke(cli, [*args[:2], "--params", str(tmp_path / "params.yaml"), *args[2:]])
        assert result.exit_code == 0, result.stderr
    return tmp_path


def _variants(project: Path, *extra: str):
    return CliRunner().invoke(cli, [
        "author", "variants", "--params", str(project / "params.yaml"),
        "--items", str(project / "bench/items.v0.jsonl"),
        "--annotations", str(project / "bench/annotations.jsonl"),
        "--templates", str(project / "templates.yaml"),
        "--out", str(project / "bench/items.jsonl"), *extra])


KINDS = {"synonym", "negation", "hypothetical", "deixis", "register", "irrelevant_premise"}


@pytest.mark.slow
def test_variants_cli_builds_gated_families(tmp_path):
    """The real gate (sentence embeddings): every v0 item of a small demo gets >= 4 kinds,
    except grounding items, whose deixis variant is refused (a mark would show the box)."""
    project = _project(tmp_path, n_shapes=2)
    result = _variants(project)
    assert result.exit_code == 0, result.stderr
    v0 = read_items(project / "bench/items.v0.jsonl")
    items = read_items(project / "bench/items.jsonl")
    by_id = {i.id: i for i in items}
    variants = [i for i in items if i.variant != "v0"]
    counts = {i.id: sum(1 for v in variants if v.variant_of == i.id) for i in v0}
    rejects = {r["id"]: r for r in read_jsonl(project / "bench/variant_rejects.jsonl")}
    for item_id, n in counts.items():
        if n < 4:  # every missing kind is explained by a reject row
            refused = {r["variant_kind"]: r for r in rejects.values()
                       if r.get("variant_of") == item_id}
            assert len(refused) >= len(KINDS) - n, item_id
            if by_id[item_id].task == "grounding":
                assert "shows the box" in rejects[f"{item_id}.v4"]["reason"]
    for item in variants:
        base = by_id[item.variant_of]
        assert item.id == f"{base.id}.{item.variant}" and item.group == base.group
        assert item.question != base.question
        assert 0.5 <= item.meta["variant"]["similarity"] <= 1.0
        if item.variant_kind == "negation" and item.task == "yesno":
            assert item.answers != base.answers
        if item.variant_kind == "deixis":
            assert item.meta["variant"]["intentionally_harder"] is True
    kinds = {i.variant_kind for i in variants}
    assert kinds == KINDS
    for item in variants:
        if item.variant_kind in ("hypothetical", "irrelevant_premise"):  # conditional mood
            assert re.search(r"\bwould\b|会", item.question.split(",", 1)[-1]), item.question
            assert item.meta["variant"]["gold_changed"] == (item.variant_kind == "hypothetical")
        if item.variant_kind == "negation" and item.task == "mc":
            assert len(item.answers) == 1
    rejects = read_jsonl(project / "bench/variant_rejects.jsonl")
    assert rejects and all(r["reason"] for r in rejects)
    assert all(r["similarity"] is not None for r in rejects if r["stage"] == "gate")


def test_variants_output_is_deterministic_and_refuses_rerun_on_its_output(tmp_path, fast_gate):
    project = _project(tmp_path)
    assert _variants(project).exit_code == 0
    first = (project / "bench/items.jsonl").read_bytes()
    assert _variants(project).exit_code == 0
    assert (project / "bench/items.jsonl").read_bytes() == first
    again = CliRunner().invoke(cli, [
        "author", "variants", "--params", str(project / "params.yaml"),
        "--items", str(project / "bench/items.jsonl"),
        "--out", str(project / "bench/items2.jsonl")])
    assert again.exit_code == 1 and "already exists in the input" in again.stderr
    assert again.stderr.count("\n") == 1


def test_strict_fails_when_families_are_short(tmp_path, fast_gate):
    project = _project(tmp_path, kinds=["synonym"])
    result = _variants(project, "--strict")
    assert result.exit_code == 1 and "fewer than 4 variant kinds (--strict)" in result.stderr


class Paraphraser(FakeOpenAI):
    """Replies to the paraphrase prompt: a good rewrite for count questions, a rewrite that
    drops the object for colour questions, and an unrelated reply for everything else."""

    def _respond(self, body, headers, *rest):
        prompt = body["messages"][0]["content"]
        prompt = prompt if isinstance(prompt, str) else " ".join(
            p.get("text", "") for p in prompt if p.get("type") == "text")
        question = prompt.split("Question: ", 1)[1].split("\n", 1)[0]
        if question.startswith("How many"):
            text = "Rewritten question: " + question.replace("How many", "Can you count how many")
        elif "colour" in question:
            text = "What is the colour?"  # drops the object name: refused before the gate
        else:
            text = "The answer is B."
        return 200, {}, json.dumps(self.ok_reply(body, "ok", text)).encode()


def test_llm_paraphraser_through_an_openai_compatible_server(tmp_path, fast_gate):
    with Paraphraser() as server:
        project = _project(tmp_path, kinds=["synonym"], paraphraser="para")
        params = yaml.safe_load((project / "params.yaml").read_text(encoding="utf-8"))
        params["models"]["para"] = {"adapter": "openai", "model": "p",
                                    "base_url": server.url, "max_retries": 0}
        params["eval"]["cache"] = str(tmp_path / "calls.sqlite")  # paraphrases are cached
        (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True),
                                             encoding="utf-8")
        result = _variants(project)
        assert result.exit_code == 0, result.stderr
        prompt = server.requests[0]["body"]["messages"][0]["content"]
        prompt = prompt if isinstance(prompt, str) else prompt[0]["text"]
        assert "correct answer stays" in prompt
    items = read_items(project / "bench/items.jsonl")
    para = [i for i in items if i.variant_kind == "paraphrase"]
    assert para and all(i.question.startswith("Can you count how many") for i in para)
    assert all(i.id.endswith(".v6") for i in para)
    rejects = [r for r in read_jsonl(project / "bench/variant_rejects.jsonl")
               if r["variant_kind"] == "paraphrase"]
    reasons = {r["reason"].split(":")[0].split(" [")[0] for r in rejects}
    assert "barely rewritten" in reasons or "meaning drifted" in reasons
    assert any(r["reason"].startswith("the paraphrase dropped key term") for r in rejects)


@pytest.mark.parametrize("command", ["variants", "coverage"])
def test_help_has_an_example(command):
    result = CliRunner().invoke(cli, ["author", command, "--help"])
    assert result.exit_code == 0 and "Example:" in result.output
    assert f"bench-kit author {command}" in result.output
