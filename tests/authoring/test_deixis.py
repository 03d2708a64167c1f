"""Deixis variants with visual prompts, the round-trip answerability oracle and the audit gate
on what the kit generates (docs/AUTHORING.md)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item, shape_obj

from bench_kit.audit.registry import AuditContext, NoParams
from bench_kit.audit.text_checks import vague_deixis
from bench_kit.authoring import counterfactual as cf
from bench_kit.authoring.answerability import (
    AnswerabilityOracle,
    judge_item,
    scene_readings,
)
from bench_kit.authoring.deixis import DeixisSettings, deixis_variant
from bench_kit.authoring.gate import edit_ratio
from bench_kit.authoring.lexicon import deixis_rewrites
from bench_kit.authoring.scenes import SceneAnn, read_annotations
from bench_kit.authoring.solvers import matching
from bench_kit.authoring.templates import (
    GenerateParams,
    generate_items,
    load_taxonomy,
    load_templates,
)
from bench_kit.authoring.visual_prompt import (
    MarkStyle,
    contrast_ratio,
    place_mark,
    protected_regions,
)
from bench_kit.cli import cli
from bench_kit.io import read_jsonl
from bench_kit.items import read_items
from bench_kit.params import load_params
from bench_kit.types import Item

ROOT = Path(__file__).resolve().parents[2]
TAXONOMY = load_taxonomy(load_params(ROOT / "params.yaml"))
SPEC_LIST = load_templates(ROOT / "datasets/demo/templates.yaml", TAXONOMY)
SPECS = {s.id: s for s in SPEC_LIST}

SCENE = SceneAnn.model_validate({
    "scene": "t1", "image": "images/t1.png", "kind": "shapes", "width": 400, "height": 300,
    "objects": [shape_obj("o1", "circle", "red", "small", [10, 10, 50, 50]),
                shape_obj("o2", "diamond", "blue", "medium", [100, 10, 160, 70]),
                shape_obj("o3", "triangle", "green", "large", [200, 100, 300, 187]),
                shape_obj("o4", "circle", "red", "medium", [320, 200, 380, 260]),
                shape_obj("o5", "rectangle", "blue", "large", [20, 200, 120, 250]),
                shape_obj("o6", "rectangle", "purple", "small", [150, 220, 190, 240])]})


def _items(template: str) -> list[Item]:
    spec = SPECS[template].model_copy(update={"scene_share": 1.0, "max_per_scene": None})
    return generate_items([SCENE], [spec], TAXONOMY, GenerateParams(seed=1))


def _with_image(tmp_path: Path) -> Path:
    from PIL import Image

    (tmp_path / "images").mkdir()
    Image.new("RGB", (400, 300), (230, 230, 230)).save(tmp_path / "images/t1.png")
    return tmp_path


def _settings(root: Path | None) -> DeixisSettings:
    return DeixisSettings(root, MarkStyle())


# --- the deixis kind -----------------------------------------------------------------------


def test_deixis_marks_the_one_referent_on_a_new_image_stored_by_content_hash(tmp_path):
    root = _with_image(tmp_path)
    item = next(i for i in _items("colour_of_shape") if "triangle" in i.id)
    draft = deixis_variant(item, SCENE, "colour_of", _settings(root))
    assert isinstance(draft, cf.Draft)
    assert draft.question == "What colour is this object?"
    prompt = draft.meta["visual_prompt"]
    assert prompt["bbox"] == [200, 100, 300, 187] and prompt["source_image"] == "images/t1.png"
    assert prompt["kind"] == "box" and draft.image.startswith("marked/")
    data = (root / draft.image).read_bytes()
    assert draft.image == f"marked/{hashlib.sha256(data).hexdigest()[:20]}.png"
    # the same mark again is the same file
    again = deixis_variant(item, SCENE, "colour_of", _settings(root))
    assert again.image == draft.image and len(list((root / "marked").iterdir())) == 1


def test_deixis_never_paints_over_an_annotated_region(tmp_path):
    from PIL import Image, ImageChops

    root = _with_image(tmp_path)
    item = next(i for i in _items("colour_of_shape") if "triangle" in i.id)
    draft = deixis_variant(item, SCENE, "colour_of", _settings(root))
    before = Image.open(root / "images/t1.png").convert("RGB")
    after = Image.open(root / draft.image).convert("RGB")
    diff = ImageChops.difference(before, after).convert("L")
    assert diff.getbbox() is not None  # something was drawn
    for box in protected_regions(SCENE):  # objects, including the referent itself
        assert diff.crop((box[0], box[1], box[2] + 1, box[3] + 1)).getbbox() is None, box


def test_an_ambiguous_demonstrative_is_rejected_with_the_reason(tmp_path):
    root = _with_image(tmp_path)
    # "the red circle": two red circles -> "this object" has no single referent; the
    # template's own rewrite is skipped and the next rule ("in the image" -> "here") is used
    item = make_item(id="x", question="Where is the red circle?", task="open",
                     answers=["top"], image="images/t1.png", group="t1")
    result = deixis_variant(Item.model_validate(item), SCENE, None, _settings(root))
    assert isinstance(result, cf.Skip)
    assert "names 2 objects" in result.reason and "ambiguous" in result.reason


def test_an_exemplar_marks_one_object_of_the_colour(tmp_path):
    root = _with_image(tmp_path)
    item = next(i for i in _items("count_colour_mc") if "red" in i.id)
    draft = deixis_variant(item, SCENE, "count_objects", _settings(root))
    assert draft.question == "How many shapes of this colour are in the image?"
    marked = [o for o in SCENE.objects if o.bbox == draft.meta["visual_prompt"]["bbox"]]
    assert marked and marked[0].colour == "red"


def test_mc_options_and_the_whole_image_need_no_mark(tmp_path):
    root = _with_image(tmp_path)
    leftmost = Item.model_validate(make_item(
        id="l", task="mc", image="images/t1.png", group="t1", answers=["A"],
        question="From the viewer's perspective, which object is furthest to the left?",
        choices={"A": "red circle", "B": "blue diamond"}))
    draft = deixis_variant(leftmost, SCENE, "leftmost_object", _settings(root))
    assert "which of these" in draft.question and draft.image is None
    assert draft.meta["referent"] == "options" and draft.meta["visual_prompt"] is None
    count = _items("count_all")[0]
    draft = deixis_variant(count, SCENE, "count_objects", _settings(root))
    assert draft.question == "How many shapes are there here?" and draft.image is None


def test_marks_that_give_the_answer_away_are_refused(tmp_path):
    root = _with_image(tmp_path)
    ground = next(i for i in _items("ground_object") if "triangle" in i.id)
    result = deixis_variant(ground, SCENE, "bbox_of", _settings(root))
    assert isinstance(result, cf.Skip) and "shows the box the question asks for" in result.reason


def test_place_mark_falls_back_when_a_box_would_cover_a_neighbour():
    crowded = SCENE.model_copy(update={"objects": [
        SCENE.objects[0].model_copy(update={"bbox": [100, 100, 140, 140]}),
        SCENE.objects[1].model_copy(update={"bbox": [143, 100, 183, 140]})]})
    mark = place_mark(crowded, (100, 100, 140, 140), MarkStyle(margins=[6]))
    assert mark is not None and mark.kind == "arrow"


# --- the oracle ----------------------------------------------------------------------------


def test_oracle_accepts_template_items_and_rejects_an_unmarked_this_object():
    readings = scene_readings(SCENE, SPEC_LIST)
    item = next(i for i in _items("colour_of_shape") if "triangle" in i.id)
    assert judge_item(item, readings).ok
    unmarked = item.model_copy(update={"question": "What colour is this object?"})
    verdict = judge_item(unmarked, readings)
    assert not verdict.ok and "not marked" in verdict.reason
    marked = unmarked.model_copy(update={"meta": {**item.meta, "visual_prompt": {
        "kind": "box", "bbox": [200, 100, 300, 187], "source_image": "images/t1.png"}}})
    assert judge_item(marked, readings).ok
    wrong_mark = marked.model_copy(update={"meta": {**item.meta, "visual_prompt": {
        "kind": "box", "bbox": [100, 10, 160, 70], "source_image": "images/t1.png"}}})
    verdict = judge_item(wrong_mark, readings)
    assert not verdict.ok and "not the stored gold" in verdict.reason


def test_oracle_catches_a_rewrite_that_changed_the_meaning():
    """The old deixis rule turned "Among the rectangles ..., what colour is the largest one?"
    (blue) into "Among these objects ..." and kept the gold, though the largest object of
    the scene is the green triangle."""
    readings = scene_readings(SCENE, SPEC_LIST)
    item = next(i for i in _items("colour_of_largest_mc") if "rectangle" in i.id)
    assert item.question.startswith("Among the rectangles")
    assert judge_item(item, readings).ok
    changed = item.model_copy(update={
        "question": "Among these objects in the image, what colour is the largest one?"})
    assert not judge_item(changed, readings).ok
    # the new rewrite names "the objects of this shape" and marks a rectangle
    rewrite = deixis_rewrites(item.question)[0]
    assert rewrite.question.startswith("Among the objects of this shape")
    rectangle = [20, 200, 120, 250]  # the blue rectangle: an exemplar of the shape
    marked = item.model_copy(update={"question": rewrite.question, "meta": {
        **item.meta, "visual_prompt": {"kind": "box", "bbox": rectangle, "source_image": "x"}}})
    assert judge_item(marked, readings).ok


def test_oracle_reads_negation_and_hypothetical_rewrites():
    oracle = AnswerabilityOracle(SPECS, {"t1": SCENE})
    item = _items("spatial_above")[0]
    source = cf.find_source(item, SPECS, {"t1": SCENE})
    negated = cf.negation(item, source)
    variant = item.model_copy(update={"question": negated.question, "answers": negated.answers,
                                      "variant_kind": "negation"})
    assert oracle.judge(variant).ok
    wrong = variant.model_copy(update={"answers": item.answers})
    assert not oracle.judge(wrong).ok
    count = _items("count_all")[0]
    draft = cf.hypothetical(count, cf.find_source(count, SPECS, {"t1": SCENE}), seed=0)
    hypo = count.model_copy(update={"question": draft.question, "answers": draft.answers,
                                    "variant_kind": "hypothetical"})
    assert oracle.judge(hypo).ok
    rates = {(r["template"], r["kind"]): (r["checked"], r["passed"]) for r in oracle.rates()}
    assert rates[("spatial_above", "negation")] == (2, 1)


# --- the audit ------------------------------------------------------------------------------


def test_the_audit_accepts_a_marked_demonstrative(tmp_path):
    prompt = {"kind": "box", "bbox": [1, 1, 9, 9], "source_image": "images/t1.png"}
    # "this one" (not "this object", which names a pictured object and is not flagged)
    items = [Item.model_validate(make_item(id="plain", question="What colour is this one?")),
             Item.model_validate(make_item(id="marked", question="What colour is this one?",
                                           meta={"visual_prompt": prompt}))]
    findings = list(vague_deixis(AuditContext(items=items, root=tmp_path), NoParams()))
    assert [f.id for f in findings] == ["plain"]


# --- the pipeline: every demo-sized variant answerable, marked, unflagged ------------------


@pytest.fixture
def fast_gate(monkeypatch):
    """The embedding gate replaced by a cheap stand-in (this file tests the plumbing)."""
    from bench_kit.authoring import variants

    monkeypatch.setattr(variants, "score_pairs", lambda pairs, encode=None: [
        (1 - edit_ratio(a, b) / 2, edit_ratio(a, b)) for a, b in pairs])


def _project(tmp_path: Path, **scenes: int) -> Path:
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["scenes"].update(scenes)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True),
                                          encoding="utf-8")
    shutil.copy(ROOT / "datasets/demo/templates.yaml", tmp_path / "templates.yaml")
    bench = tmp_path / "bench"
    steps = [["author", "scenes", "--out", str(bench)],
             ["author", "generate", "--annotations", str(bench / "annotations.jsonl"),
              "--templates", str(tmp_path / "templates.yaml"),
              "--out", str(bench / "items.v0.jsonl")],
             ["author", "variants", "--items", str(bench / "items.v0.jsonl"),
              "--annotations", str(bench / "annotations.jsonl"),
              "--templates", str(tmp_path / "templates.yaml"),
              "--out", str(bench / "items.jsonl")]]
    for args in steps:
        result = CliRunner().invoke(cli, [*args[:2], "--params", str(tmp_path / "params.yaml"),
                                          *args[2:]])
        assert result.exit_code == 0, result.stderr
    return bench


FILTER_STAGES = ("answerability", "audit")


def plan_problems(items: list[Item], rejects: list[dict], kinds: list[str],
                  max_filtered: float = 0.02) -> list[str]:
    """What the generator's plan says, read without the answerability oracle: every v0 item
    gets every kind once, as a variant or one reject row (none lost, none twice), and the
    filters after the gate (oracle, audit) drop at most `max_filtered` of a kind's drafts —
    so an over-strict filter is seen here even when every item it kept passes it."""
    problems = []
    bases = {i.id for i in items if i.variant == "v0"}
    outcomes: dict[tuple[str, str], list[str]] = {}
    for item in items:
        if item.variant != "v0":
            outcomes.setdefault((item.variant_of, item.variant_kind), []).append("accepted")
    for row in rejects:
        outcomes.setdefault((row["variant_of"], row["variant_kind"]), []).append(row["stage"])
    for kind in kinds:
        for base in sorted(bases):
            got = outcomes.get((base, kind), [])
            if len(got) != 1:
                problems.append(f"{base} {kind}: {len(got)} outcomes {got}")
        drafts = [o for (b, k), out in outcomes.items() if k == kind and b in bases
                  for o in out if o != "skip"]
        filtered = sum(o in FILTER_STAGES for o in drafts)
        if drafts and filtered > max_filtered * len(drafts):
            problems.append(f"{kind}: {filtered} of {len(drafts)} drafts dropped by the "
                            f"oracle or the audit (at most {max_filtered:.0%})")
    return problems


def test_the_plan_check_sees_an_over_strict_filter_and_a_lost_variant():
    base = Item(**make_item(id="q1", question="How many circles are there?", answers=["3"]))
    kept = [Item(**make_item(id=f"q1.v{n}", question=f"Count the circles {n}", answers=["3"],
                             variant=f"v{n}", variant_of="q1", variant_kind=kind))
            for n, kind in ((1, "synonym"), (5, "register"))]
    assert plan_problems([base, *kept], [], ["synonym", "register"]) == []
    # the oracle rejects a draft the gate accepted: an over-strict filter
    strict = [{"variant_of": "q1", "variant_kind": "register", "stage": "answerability"}]
    assert plan_problems([base, kept[0]], strict, ["synonym", "register"]) == [
        "register: 1 of 1 drafts dropped by the oracle or the audit (at most 2%)"]
    # a kind silently missing, or there twice
    assert plan_problems([base, kept[0]], [], ["synonym", "register"]) == [
        "q1 register: 0 outcomes []"]
    assert plan_problems([base, *kept, kept[0]], [], ["synonym"]) == [
        "q1 synonym: 2 outcomes ['accepted', 'accepted']"]
    # a skip (the kind does not apply to the item) is a planned outcome, not a filter
    skip = [{"variant_of": "q1", "variant_kind": "register", "stage": "skip"}]
    assert plan_problems([base, kept[0]], skip, ["synonym", "register"]) == []


def _check_demo(bench: Path) -> None:
    from PIL import Image, ImageChops

    from bench_kit.audit.stage import load_audit_settings  # noqa: F401 (registers checks)
    from bench_kit.authoring.audit_gate import audit_flags

    items = read_items(bench / "items.jsonl")
    scenes = {s.scene: s for s in read_annotations(bench / "annotations.jsonl")}
    by_id = {i.id: i for i in items}
    # 0. the plan, read without the oracle that filtered the variants
    kinds = load_params(bench.parent / "params.yaml")["variants"]["kinds"]
    assert plan_problems(items, read_jsonl(bench / "variant_rejects.jsonl"), kinds) == []
    oracle = AnswerabilityOracle(SPECS, scenes)
    kinds = set()
    for item in items:
        kinds.add(item.variant_kind)
        # 1. the solvers, reading the question as written, find the stored gold
        verdict = oracle.judge(item)
        assert verdict is not None and verdict.ok, (item.id, item.question, verdict.reason)
        # 2. the gold re-derived through the item's own template binding agrees
        base = by_id[item.variant_of] if item.variant_of else item
        source = cf.find_source(base, SPECS, scenes)
        assert isinstance(source, cf.TemplateSource), item.id
        if item.variant_kind in ("original", "synonym", "register", "deixis"):
            assert cf.gold_answers(source.spec, source.solve(), item.choices) == item.answers
        if item.variant_kind in ("hypothetical", "irrelevant_premise"):
            _check_condition(item, base, source, scenes[item.group])
        if item.variant_kind == "negation" and item.task == "mc":
            # one gold: the one option not in the scene; every other option is in it
            shown = {f"{o.colour} {o.shape}" for o in scenes[item.group].objects}
            assert [k for k, v in item.choices.items() if v not in shown] == item.answers
        if item.variant_kind != "deixis":
            continue
        # 3. a demonstrative on the v0 image only when it points at mc options or the image
        referent = item.meta["variant"]["referent"]
        prompt = item.meta.get("visual_prompt")
        if referent in ("options", "image"):
            assert item.image == base.image and prompt is None
            assert referent != "options" or item.task == "mc"
            continue
        assert prompt and item.image != base.image and item.image.startswith("marked/")
        scene = scenes[item.group]
        boxes = [o.bbox for o in matching(scene)] + [t.bbox for t in scene.texts] + \
            [t.plate for t in scene.texts if t.plate] + \
            [b.bbox for b in (scene.chart.bars if scene.chart else [])]
        assert prompt["bbox"] in boxes
        if any(t.plate for t in scene.texts if t.bbox == prompt["bbox"]):
            raise AssertionError(f"{item.id}: a sign is marked around its text, not its plate")
        # 4. the mark covers no annotated region (text to read, values, objects)
        before = Image.open(bench / base.image).convert("RGB")
        diff = ImageChops.difference(before, Image.open(bench / item.image).convert("RGB"))
        diff = diff.convert("L")
        for box in protected_regions(scene):
            assert diff.crop((box[0], box[1], box[2] + 1, box[3] + 1)).getbbox() is None
        # 5. outside its referent and every sign plate; 3:1 contrast with what is around it
        for box in [prompt["bbox"], *(t.plate for t in scene.texts if t.plate)]:
            assert diff.crop((box[0], box[1], box[2] + 1, box[3] + 1)).getbbox() is None
        after = Image.open(bench / item.image).convert("RGB")
        _check_mark_contrast(before, after, diff, item.id)
    assert {"original", "synonym", "negation", "hypothetical", "deixis", "register",
            "irrelevant_premise"} <= kinds
    # 6. the kit's own audit flags nothing it wrote at warn or above
    assert audit_flags(items, load_params(ROOT / "params.yaml"), bench) == {}


def _check_condition(item: Item, base: Item, source: cf.TemplateSource, scene: SceneAnn) -> None:
    """A counterfactual asks in the conditional mood, moves the gold (an irrelevant premise
    keeps it), and never removes the last member of a category the question asks about."""
    first, _, rest = item.question.partition("，" if "，" in item.question else ",")
    assert re.search(r"\bwould\b|会", rest), item.question
    assert first.startswith(("If ", "Suppose ", "如果", "假设")), item.question
    assert (item.answers != base.answers) == (item.variant_kind == "hypothetical"), item.id
    change = item.meta["variant"]["change"]
    if "-" not in change:   # a bar or a sign: the solver of a removed bar / repainted sign
        return              # finds nothing and the change is not offered
    colour, shape = change.removeprefix("remove:").split("-")
    removed = len(matching(scene, colour, shape))
    args = source.args()
    for side in ("", "a_", "b_"):
        asked_colour, asked_shape = args.get(f"{side}colour"), args.get(f"{side}shape")
        if asked_colour is None and asked_shape is None:
            continue
        if asked_colour not in (None, colour) or asked_shape not in (None, shape):
            continue   # the removed kind is outside the asked category
        members = len(matching(scene, asked_colour, asked_shape))
        assert members > 1 or removed > 1, f"{item.id}: removes the only {colour} {shape}"
        assert source.spec.gold.solver != "object_present", f"{item.id}: answers itself"


def _check_mark_contrast(before, after, diff, item_id: str) -> None:
    """The mark's colour (the most common changed pixel) against every colour covering 1% of
    the original pixels within 3 px of the mark: WCAG contrast ratio >= 3."""
    import numpy as np
    from PIL import ImageFilter

    mask = np.asarray(diff) > 0
    around = np.asarray(diff.point(lambda v: 255 if v else 0).filter(ImageFilter.MaxFilter(7))) > 0
    drawn, original = np.asarray(after)[mask], np.asarray(before)[around]  # under and beside
    values, counts = np.unique(drawn, axis=0, return_counts=True)
    colour = tuple(int(v) for v in values[counts.argmax()])
    values, counts = np.unique(original, axis=0, return_counts=True)
    for other, n in zip(values, counts):
        if n * 100 >= len(original):
            ratio = contrast_ratio(colour, tuple(int(v) for v in other))
            assert ratio >= 3.0, f"{item_id}: mark {colour} on {tuple(other)}: contrast {ratio:.2f}"


def test_wcag_contrast_matches_the_published_values():
    """WCAG 2.1: black on white is 21:1; #767676 on white is the 4.5:1 reference grey (4.54)."""
    assert contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast_ratio((0x76, 0x76, 0x76), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)
    assert contrast_ratio((255, 0, 0), (255, 255, 255)) == pytest.approx(4.0, abs=0.01)


def test_a_sign_is_marked_around_its_plate_in_a_contrasting_colour(tmp_path):
    """The old mark hugged the text inside a dark-green plate and read as its border."""
    import random

    from PIL import Image, ImageChops

    from bench_kit.authoring.scene_draw import draw_sign, make_background

    image, _ = make_background(random.Random(1), 400, 300, kinds=("plain",))
    plate, text = draw_sign(image, "EXIT", "green", 40, 100, 100, (18, 12))
    (tmp_path / "images").mkdir()
    image.save(tmp_path / "images/s.png")
    scene = SceneAnn.model_validate({
        "scene": "s", "image": "images/s.png", "kind": "sign", "width": 400, "height": 300,
        "texts": [{"text": "EXIT", "lang": "en", "colour": "green", "bbox": list(text),
                   "plate": list(plate)}]})
    item = Item.model_validate(make_item(id="o", image="images/s.png", group="s",
                                         question="What does the green sign say?",
                                         answers=["EXIT"]))
    draft = deixis_variant(item, scene, "read_text", _settings(tmp_path))
    assert draft.question == "What does this sign say?"
    assert draft.meta["visual_prompt"]["bbox"] == list(plate)
    before = Image.open(tmp_path / "images/s.png").convert("RGB")
    after = Image.open(tmp_path / draft.image).convert("RGB")
    diff = ImageChops.difference(before, after).convert("L")
    assert diff.crop((plate[0], plate[1], plate[2] + 1, plate[3] + 1)).getbbox() is None
    _check_mark_contrast(before, after, diff, "sign")


def test_small_demo_every_item_answerable_marked_and_unflagged(tmp_path, fast_gate):
    bench = _project(tmp_path, n_shapes=6, n_signs=3, n_charts=3)
    _check_demo(bench)
    rejects = read_jsonl(bench / "variant_rejects.jsonl")
    assert any(r["variant_kind"] == "deixis" and r["stage"] == "skip" for r in rejects)


@pytest.mark.slow
def test_full_demo_every_variant_has_its_gold_rederived_by_the_solvers(tmp_path, fast_gate):
    """The demo's scene counts (params.yaml): every item and variant passes the oracle."""
    _check_demo(_project(tmp_path))


def test_generate_sends_audit_flagged_items_to_the_rejects_unless_keep_flagged(tmp_path):
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["scenes"].update(n_shapes=3, n_signs=0, n_charts=0)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    templates = {"version": 1, "templates": [
        {"id": "vague", "capability": "perception.count", "difficulty": "easy",
         "task": "numeric", "scene": ["shapes"], "question": "How many are like this one?",
         "gold": {"solver": "count_objects"}},
        {"id": "clear", "capability": "perception.count", "difficulty": "easy",
         "task": "numeric", "scene": ["shapes"], "question": "How many shapes are there?",
         "gold": {"solver": "count_objects"}}]}
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(templates), encoding="utf-8")
    run = CliRunner()
    base = ["--params", str(tmp_path / "params.yaml")]
    assert run.invoke(cli, ["author", "scenes", *base, "--out", str(tmp_path / "b")]).exit_code == 0
    args = ["author", "generate", *base, "--annotations", str(tmp_path / "b/annotations.jsonl"),
            "--templates", str(tmp_path / "t.yaml"), "--out", str(tmp_path / "b/items.v0.jsonl")]
    result = run.invoke(cli, args)
    assert result.exit_code == 0, result.stderr
    assert "rejected 3 item(s)" in result.stderr
    kept = read_items(tmp_path / "b/items.v0.jsonl")
    assert {i.source for i in kept} == {"template:clear"}
    rejects = read_jsonl(tmp_path / "b/generate_rejects.jsonl")
    assert {r["stage"] for r in rejects} == {"audit"}
    assert all("ambiguity.vague_deixis" in r["reason"] for r in rejects)
    assert json.loads(json.dumps(rejects[0]["findings"]))[0]["check"] == "ambiguity.vague_deixis"
    result = run.invoke(cli, [*args, "--keep-flagged"])
    assert result.exit_code == 0 and len(read_items(tmp_path / "b/items.v0.jsonl")) == 6


def test_mark_colour_contrasts_with_the_referent_and_its_surroundings():
    from PIL import Image, ImageDraw

    from bench_kit.authoring.visual_prompt import MARK_PALETTE, contrast_colour

    img = Image.new("RGB", (200, 200), (224, 224, 224))
    ImageDraw.Draw(img).ellipse((80, 80, 120, 120), fill=(34, 150, 60))  # a green circle
    name, rgb = contrast_colour(img, (80, 80, 120, 120), list(MARK_PALETTE))
    assert name != "lime" and rgb == MARK_PALETTE[name]
    img = Image.new("RGB", (200, 200), (236, 0, 140))  # a magenta field
    assert contrast_colour(img, (80, 80, 120, 120), list(MARK_PALETTE))[0] != "magenta"


def test_a_marked_copy_is_not_a_near_duplicate_of_its_source_image(tmp_path):
    from PIL import Image, ImageDraw

    from bench_kit.audit.image_checks import PhashParams, near_duplicate_image
    from bench_kit.authoring.visual_prompt import prompt_meta, save_marked

    (tmp_path / "images").mkdir()
    img = Image.new("RGB", (400, 300), (224, 224, 224))
    ImageDraw.Draw(img).rectangle((200, 100, 300, 187), fill=(34, 150, 60))
    img.save(tmp_path / "images/t1.png")
    mark = place_mark(SCENE, (200, 100, 300, 187), MarkStyle())
    marked = save_marked(tmp_path, "images/t1.png", mark)

    def flagged(meta: dict) -> set[str]:
        rows = [make_item(id="v0", image="images/t1.png"),
                make_item(id="v4", image=marked, meta=meta)]
        ctx = AuditContext(items=[Item.model_validate(r) for r in rows], root=tmp_path)
        return {f.id for f in near_duplicate_image(ctx, PhashParams())
                if f.severity == "warn"}

    assert flagged({}) == {"v0", "v4"}  # the check sees the two files as near duplicates
    assert flagged({"visual_prompt": prompt_meta(mark, "images/t1.png")}) == set()


def test_variants_send_audit_flagged_variants_to_the_rejects(tmp_path, fast_gate):
    from bench_kit.authoring.variants import Context, VariantParams, build_variants
    from bench_kit.types import Finding

    root = _with_image(tmp_path)
    items = _items("colour_of_shape")
    ctx = Context(specs=SPECS, scenes={"t1": SCENE}, seed=1, root=root)

    def audit(variants: list[Item]) -> dict[str, list[Finding]]:
        return {v.id: [Finding(id=v.id, check="ambiguity.vague_deixis", severity="warn",
                               score=0.5, message="planted", evidence={})]
                for v in variants if v.variant_kind == "register"}

    params = VariantParams(kinds=["synonym", "register"])
    out, rejects, summary = build_variants(items, ctx, params, audit=audit)
    assert not any(i.variant_kind == "register" for i in out)
    flagged = [r for r in rejects if r["stage"] == "audit"]
    assert len(flagged) == len(items) and summary.flagged["register"] == len(items)
    assert summary.accepted["register"] == 0 and "planted" in flagged[0]["reason"]
    out, _, _ = build_variants(items, ctx, params)  # no gate: kept
    assert sum(i.variant_kind == "register" for i in out) == len(items)
