"""Branches of the deixis kind (bench_kit/authoring/deixis.py) and of the answerability
oracle's verdict (bench_kit/authoring/answerability.py) on small hand-built scenes and
reading tables; every expected value is worked out by hand in the comment beside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_item, shape_obj

from bench_kit.authoring import counterfactual as cf
from bench_kit.authoring.answerability import (
    AnswerabilityOracle,
    Reading,
    format_rates,
    judge_item,
)
from bench_kit.authoring.deixis import (
    DeixisSettings,
    NoReferent,
    deixis_variant,
    phrase_attributes,
    referent_boxes,
)
from bench_kit.authoring.lexicon import DeixisRewrite
from bench_kit.authoring.scenes import SceneAnn
from bench_kit.authoring.templates import load_taxonomy, load_templates
from bench_kit.authoring.visual_prompt import MarkStyle
from bench_kit.params import load_params
from bench_kit.types import Item

ROOT = Path(__file__).resolve().parents[2]
SPECS = {s.id: s for s in load_templates(ROOT / "datasets/demo/templates.yaml",
                                         load_taxonomy(load_params(ROOT / "params.yaml")))}

# Three red objects listed largest first; the two small ones have the same area (900) and
# are listed out of id order, so "smallest first, then by id" is a different order.
SHAPES_SCENE = SceneAnn.model_validate({
    "scene": "s1", "image": "images/s1.png", "kind": "shapes", "width": 400, "height": 300,
    "objects": [shape_obj("b1", "circle", "red", "large", [0, 0, 100, 100]),
                shape_obj("a2", "square", "red", "small", [200, 0, 230, 30]),
                shape_obj("a1", "triangle", "red", "small", [300, 0, 330, 30]),
                shape_obj("g1", "star", "green", "medium", [0, 200, 60, 260])]})

SIGN_SCENE = SceneAnn.model_validate({
    "scene": "s2", "image": "images/s2.png", "kind": "sign", "width": 400, "height": 300,
    "texts": [{"text": "EXIT", "lang": "en", "colour": "green", "bbox": [20, 20, 60, 40],
               "plate": [10, 10, 70, 50]},
              {"text": "OPEN", "lang": "en", "colour": "red", "bbox": [200, 20, 260, 40]}]})


def _bar(label, bbox):
    return {"label": label, "value": 3, "bbox": bbox}


CHART_SCENE = SceneAnn.model_validate({
    "scene": "s3", "image": "images/s3.png", "kind": "chart", "width": 400, "height": 300,
    "chart": {"title": "Fruit", "labels": ["Apples", "Pears", "Pears"], "values": [3, 3, 3],
              "bars": [_bar("Apples", [10, 100, 40, 280]), _bar("Pears", [60, 100, 90, 280]),
                       _bar("Pears", [110, 100, 140, 280])]}})


def _boxes(erased, referent, scene):
    """The boxes, or the reason there is no single referent."""
    try:
        return referent_boxes(DeixisRewrite("Q?", erased, referent), scene)
    except NoReferent as exc:
        return str(exc)


# --- phrase attributes and referents -------------------------------------------------------


@pytest.mark.parametrize("phrase, attrs", [
    ("the small red circles", ("red", "circle", "small")),   # plural read as the shape
    ("红色的五角星", ("red", "star", None)),                     # Chinese names
    ("the Red Circle", ("red", "circle", None)),               # case ignored
    ("the reddish circle", (None, "circle", None)),            # a whole word only
    ("the large shapes", (None, None, "large")),
])
def test_phrase_attributes(phrase, attrs):
    assert phrase_attributes(phrase) == dict(zip(("colour", "shape", "size"), attrs))


def test_an_exemplar_lists_every_match_smallest_first_then_by_id():
    # areas: a1 30 x 30 = 900, a2 900, b1 100 x 100 = 10000
    assert _boxes("the red shapes", "exemplar", SHAPES_SCENE) == [
        (300, 0, 330, 30), (200, 0, 230, 30), (0, 0, 100, 100)]


@pytest.mark.parametrize("erased, referent, expected", [
    ("the green star", "object", [(0, 200, 60, 260)]),
    ("the small red square", "object", [(200, 0, 230, 30)]),
    ("the red shapes", "object", "'the red shapes' names 3 objects: 'this object' would be "
                                 "ambiguous"),
    ("the yellow star", "object", "'the yellow star' names nothing in the scene"),
    ("the yellow star", "exemplar", "'the yellow star' names nothing in the scene"),
    ("which object", "options", []),
    ("in the image", "image", []),
    ("the green star", "blob", "unknown referent kind 'blob'"),
])
def test_referent_boxes_of_objects(erased, referent, expected):
    assert _boxes(erased, referent, SHAPES_SCENE) == expected


def test_no_scene_locates_nothing_but_unmarked_referents():
    assert _boxes("the green star", "object", None) == \
        "no scene annotations: the referent cannot be located"
    assert _boxes("which object", "options", None) == []


@pytest.mark.parametrize("erased, referent, expected", [
    ("the green sign", "sign", [(10, 10, 70, 50)]),   # the plate, not the text inside it
    ("the red sign", "sign", [(200, 20, 260, 40)]),   # no plate: the text's box
    ("the sign", "sign", "'the sign' names 2 texts: 'this' would be ambiguous"),
    ("the white sign", "sign", "'the white sign' names 0 texts: 'this' would be ambiguous"),
    ('the text "OPEN"', "text", [(200, 20, 260, 40)]),
    ("the text", "text", "'the text' names 0 texts: 'this' would be ambiguous"),
])
def test_referent_boxes_of_texts(erased, referent, expected):
    assert _boxes(erased, referent, SIGN_SCENE) == expected


def test_referent_boxes_of_bars():
    assert _boxes("the Apples bar", "bar", CHART_SCENE) == [(10, 100, 40, 280)]
    assert _boxes("the Pears bar", "bar", CHART_SCENE) == "'the Pears bar' names 2 bars"
    assert _boxes("the Plums bar", "bar", CHART_SCENE) == "'the Plums bar' names 0 bars"
    assert _boxes("the Apples bar", "bar", SHAPES_SCENE) == "'the Apples bar' names 0 bars"


# --- the deixis kind's choices -------------------------------------------------------------


def _item(question, task="open", image="images/s1.png", **kw):
    return Item.model_validate(make_item(question=question, task=task, answers=["red"],
                                         image=image, group="s1", **kw))


def _write_image(root: Path) -> Path:
    from PIL import Image

    (root / "images").mkdir()
    Image.new("RGB", (400, 300), (230, 230, 230)).save(root / "images/s1.png")
    return root


NO_ROOT = DeixisSettings(None, MarkStyle())


def test_no_reference_to_erase():
    assert deixis_variant(_item("How are you?"), SHAPES_SCENE, None, NO_ROOT) == \
        cf.Skip("no explicit reference to erase")


def test_the_first_rewrite_that_can_be_shown_is_used():
    # "the red shape" names 3 objects; "in the image" needs no mark and comes next
    draft = deixis_variant(_item("What colour is the red shape in the image?"), SHAPES_SCENE,
                           None, NO_ROOT)
    assert draft == cf.Draft("What colour is the red shape here?", ["red"], None,
                             meta={"intentionally_harder": True, "erased": "in the image",
                                   "referent": "image", "visual_prompt": None})


def test_every_reason_is_joined_when_nothing_can_be_shown():
    # no scene for "the green star"; "which object" needs listed options, an open item has none
    skip = deixis_variant(_item("Which object is the green star?"), None, None, NO_ROOT)
    assert skip == cf.Skip("no scene annotations: the referent cannot be located; "
                           "'Which object': 'these' has no listed options to point at")


@pytest.mark.parametrize("task, solver, reason", [
    ("open", "object_present", "a mark on the object answers whether it is there"),
    ("open", "describe_object", "a mark on the object answers whether it is there"),
    ("grounding", None, "a mark on the referent shows the box the question asks for"),
    ("open", "colour_of", "no image folder to write the marked image to"),
])
def test_marks_refused(task, solver, reason):
    answers = ["0,200,60,260"] if task == "grounding" else ["green"]
    item = Item.model_validate(make_item(question="What colour is the green star?", task=task,
                                         answers=answers, image="images/s1.png", group="s1"))
    assert deixis_variant(item, SHAPES_SCENE, solver, NO_ROOT) == \
        cf.Skip(f"'the green star': {reason}")


def test_an_item_without_an_image_file_gets_no_mark(tmp_path):
    item = _item("What colour is the green star?", image=None)
    assert deixis_variant(item, SHAPES_SCENE, "colour_of", DeixisSettings(tmp_path, MarkStyle())) \
        == cf.Skip("'the green star': no image folder to write the marked image to")


def test_a_marked_draft_keeps_the_gold_and_names_the_referent(tmp_path):
    root = _write_image(tmp_path)
    draft = deixis_variant(_item("What colour is the green star?"), SHAPES_SCENE, "colour_of",
                           DeixisSettings(root, MarkStyle()))
    assert draft.question == "What colour is this object?" and draft.answers == ["red"]
    assert {k: v for k, v in draft.meta.items() if k != "visual_prompt"} == {
        "intentionally_harder": True, "erased": "the green star", "referent": "object"}
    assert draft.meta["visual_prompt"]["bbox"] == [0, 200, 60, 260]
    assert (root / draft.image).is_file()


# --- the oracle's verdict ------------------------------------------------------------------

COUNT = SPECS["count_all"]           # numeric
ABOVE = SPECS["spatial_above"]       # yesno
COUNT_MC = SPECS["count_colour_mc"]  # mc over numbers


def _judge(readings, task="numeric", answers=("6",), question="Q?", **kw):
    item = Item.model_validate(make_item(question=question, task=task, answers=list(answers),
                                         **kw))
    return judge_item(item, {"Q?": readings})


def test_one_reading_with_the_stored_gold_is_answerable():
    verdict = _judge([Reading(COUNT, 6)])
    assert verdict.ok and verdict.answers == (("6",),)


@pytest.mark.parametrize("readings, kw, reason", [
    ([Reading(COUNT, 6)], {"question": "Other?"},
     "no reading of the question as written (the oracle cannot parse it)"),
    ([Reading(COUNT, 5)], {}, "the question as written has the answer 5, not the stored gold 6"),
    # sorted as text: "10" before "6"
    ([Reading(COUNT, 6), Reading(COUNT, 10)], {},
     "the question as written has 2 answers: 10; 6"),
    ([Reading(COUNT, 6), Reading(COUNT, 6)], {}, None),   # two readings, one answer
    ([Reading(COUNT, None)], {},
     "the question as written is not answerable: ambiguous on these annotations"),
    # a numeric item: an ambiguous reading beside an answer is a second answer
    ([Reading(COUNT, 6), Reading(COUNT, None)], {},
     "the question as written has 2 answers: 6; ambiguous on these annotations"),
    ([Reading(ABOVE, True)], {}, "no reading fits the item's task and marked region"),
    ([Reading(COUNT, 6, needs_options=True)], {},
     "no reading fits the item's task and marked region"),
    ([Reading(COUNT, 6, marks=((1, 2, 3, 4),))], {},
     "the question as written is not answerable: a demonstrative whose referent is not "
     "marked on the image"),
    ([Reading(COUNT, 6, marks=((1, 2, 3, 4),))],
     {"meta": {"visual_prompt": {"kind": "box", "bbox": [1, 2, 3, 4]}}}, None),
    ([Reading(COUNT, 6, marks=((1, 2, 3, 4),))],
     {"meta": {"visual_prompt": {"kind": "box", "bbox": [1, 2, 3, 5]}}},
     "no reading fits the item's task and marked region"),
])
def test_verdicts(readings, kw, reason):
    assert _judge(readings, **kw).reason == reason


def test_mc_readings_off_the_options_and_ambiguous_ones_give_way():
    mc = {"task": "mc", "answers": ["A"], "choices": {"A": "2", "B": "3"}}
    # gold 5 is not an option: that reading is ruled out; the ambiguous one gives way to A
    assert _judge([Reading(COUNT_MC, 2), Reading(COUNT_MC, 5), Reading(COUNT_MC, None)],
                  **mc).ok
    # only off-option readings: nothing fits
    assert _judge([Reading(COUNT_MC, 5)], **mc).reason == \
        "no reading fits the item's task and marked region"
    # ambiguous alone stays ambiguous with options listed
    assert _judge([Reading(COUNT_MC, None)], **mc).reason == \
        "the question as written is not answerable: ambiguous on these annotations"


def test_negated_readings_flip_the_gold():
    # yes/no: the positive gold True ("yes") read through the negated wording is "no"
    assert _judge([Reading(ABOVE, True, negated=True)], task="yesno", answers=["no"]).ok
    assert _judge([Reading(ABOVE, False, negated=True)], task="yesno", answers=["yes"]).ok
    # mc without a scene to re-test the options: every other option
    assert _judge([Reading(COUNT_MC, 2, negated=True)], task="mc", answers=["B", "C"],
                  choices={"A": "2", "B": "3", "C": "4"}).ok


def test_the_oracle_applies_to_template_items_of_known_scenes_and_tallies_rates():
    oracle = AnswerabilityOracle(SPECS, {"s1": SHAPES_SCENE})
    hand = Item.model_validate(make_item(question="How many shapes are there in the image?",
                                         group="s1"))
    assert not oracle.applies(hand) and oracle.judge(hand) is None
    other_scene = hand.model_copy(update={"source": "template:count_all", "group": "zz"})
    assert oracle.judge(other_scene) is None
    # count_all on this scene: 4 shapes; the template's own question reads "4"
    right = hand.model_copy(update={"source": "template:count_all", "answers": ["4"]})
    wrong = right.model_copy(update={"answers": ["3"]})
    hypo = right.model_copy(update={"variant_kind": "hypothetical"})
    assert oracle.judge(right).ok and not oracle.judge(wrong).ok
    oracle.judge(right)
    oracle.judge(hypo)
    # 3 v0 checks, 2 passed (2 / 3 rounded to 4 places); 1 hypothetical, passed
    assert oracle.rates() == [
        {"template": "count_all", "kind": "hypothetical", "checked": 1, "passed": 1,
         "rate": 1.0},
        {"template": "count_all", "kind": "original", "checked": 3, "passed": 2,
         "rate": 0.6667}]


def test_format_rates_sums_kinds_over_templates_and_templates_over_kinds():
    rates = [{"template": "t1", "kind": "negation", "checked": 2, "passed": 1},
             {"template": "t2", "kind": "negation", "checked": 1, "passed": 1},
             {"template": "t1", "kind": "deixis", "checked": 4, "passed": 4}]
    # kinds: deixis 4/4, negation 2/3; templates: t1 5/6, t2 1/1; columns 28, 8, 8, 8 wide
    assert format_rates(rates).splitlines() == [
        "answerable: kind             checked  passed    rate",
        "deixis                             4       4  100.0%",
        "negation                           3       2   66.7%",
        "answerable: template         checked  passed    rate",
        "t1                                 6       5   83.3%",
        "t2                                 1       1  100.0%"]


# --- the oracle reads every wording the variant kinds write ---------------------------------


def _demo_items(template: str):
    from test_deixis import _items

    return _items(template)


def _demo_oracle():
    from test_deixis import SCENE
    from test_deixis import SPECS as DEMO_SPECS

    return AnswerabilityOracle(DEMO_SPECS, {"t1": SCENE}), DEMO_SPECS, SCENE


def test_synonym_and_register_wordings_are_read():
    from bench_kit.authoring.lexicon import register_rewrites, synonym_rewrite

    oracle, _, _ = _demo_oracle()
    item = _demo_items("count_all")[0]
    wordings = {synonym_rewrite(item.question), *register_rewrites(item.question)}
    wordings.discard(item.question)
    assert len(wordings) >= 2
    for wording in sorted(wordings):
        assert oracle.judge(item.model_copy(update={"question": wording})).ok, wording


LINE_SCENE = SceneAnn.model_validate({
    "scene": "t1", "image": "images/t1.png", "kind": "shapes", "width": 400, "height": 300,
    "objects": [shape_obj("o1", "circle", "red", "small", [10, 10, 50, 50]),
                shape_obj("o2", "diamond", "blue", "medium", [100, 10, 160, 70]),
                shape_obj("o3", "triangle", "green", "large", [200, 100, 300, 187])]})


def _leftmost_item() -> Item:
    from test_deixis import TAXONOMY

    from bench_kit.authoring.templates import GenerateParams, generate_items

    spec = SPECS["spatial_leftmost_mc"].model_copy(update={"scene_share": 1.0})
    [item] = generate_items([LINE_SCENE], [spec], TAXONOMY, GenerateParams(seed=1))
    return item


def test_unmarked_referents_are_read_whole_image_and_listed_options():
    from bench_kit.authoring.lexicon import deixis_rewrites

    oracle, _, _ = _demo_oracle()
    count = _demo_items("count_all")[0]
    here = count.model_copy(update={"question": "How many shapes are there here?"})
    assert oracle.judge(here).ok                       # "in the image" -> "here": no mark
    leftmost = _leftmost_item()
    [options] = [r for r in deixis_rewrites(leftmost.question) if r.referent == "options"]
    these = leftmost.model_copy(update={"question": options.question})
    line_oracle = AnswerabilityOracle(SPECS, {"t1": LINE_SCENE})
    assert "which of these" in these.question and line_oracle.judge(these).ok


def test_a_chinese_hypothetical_is_read_with_the_chinese_clause():
    oracle, specs, scene = _demo_oracle()
    item = _demo_items("count_colour_shape_zh")[0]
    draft = cf.hypothetical(item, cf.find_source(item, specs, {"t1": scene}), seed=0)
    assert isinstance(draft, cf.Draft) and draft.question.startswith("如果")
    hypo = item.model_copy(update={"question": draft.question, "answers": draft.answers,
                                   "variant_kind": "hypothetical"})
    assert oracle.judge(hypo).ok


# --- cases for the survivors of the after run -----------------------------------------------


def test_smallest_first_is_by_area_not_by_shape_or_position():
    # "z_wide": 60 x 10 = 600, wide and low in the image; "a_big": 40 x 40 = 1600 at the top
    scene = SceneAnn.model_validate({
        "scene": "s4", "image": "images/s4.png", "kind": "shapes", "width": 400, "height": 300,
        "objects": [shape_obj("a_big", "circle", "red", "large", [100, 0, 140, 40]),
                    shape_obj("z_wide", "rectangle", "red", "small", [0, 100, 60, 110])]})
    assert _boxes("the red shapes", "exemplar", scene) == [(0, 100, 60, 110), (100, 0, 140, 40)]


@pytest.mark.parametrize("question, solver, erased", [
    ("Which object is in the image?", None, "in the image"),           # after 'these'
    ("Is the green star in the image?", "object_present", "in the image"),  # after a give-away
    ("What colour is the green star in the image?", "colour_of", "in the image"),  # no root
])
def test_a_refused_rewrite_does_not_stop_the_next(question, solver, erased):
    draft = deixis_variant(_item(question), SHAPES_SCENE, solver, NO_ROOT)
    assert isinstance(draft, cf.Draft) and draft.meta["erased"] == erased


def test_drafts_keep_the_options(tmp_path):
    choices = {"A": "red", "B": "green"}
    mc = Item.model_validate(make_item(question="What colour is the green star in the image?",
                                       task="mc", answers=["B"], choices=choices,
                                       image="images/s1.png", group="s1"))
    assert deixis_variant(mc, None, None, NO_ROOT).choices == choices          # unmarked
    root = _write_image(tmp_path)
    marked = deixis_variant(mc, SHAPES_SCENE, "colour_of", DeixisSettings(root, MarkStyle()))
    assert marked.choices == choices and marked.meta["visual_prompt"] is not None


def test_the_marked_image_goes_to_the_style_folder(tmp_path):
    root = _write_image(tmp_path)
    draft = deixis_variant(_item("What colour is the green star?"), SHAPES_SCENE, "colour_of",
                           DeixisSettings(root, MarkStyle(folder="prompts")))
    assert draft.image.startswith("prompts/") and (root / draft.image).is_file()


def test_verdict_answers_and_readings_after_one_that_does_not_fit():
    assert _judge([Reading(COUNT, 6)], question="Other?").answers == ()
    assert _judge([Reading(COUNT, 5)]).answers == (("5",),)
    assert _judge([Reading(COUNT, 6), Reading(COUNT, 10)]).answers == (("10",), ("6",))
    assert _judge([Reading(COUNT, None)]).answers == ("ambiguous on these annotations",)
    # a reading of another task, or marking another box, is passed over for the next one
    assert _judge([Reading(ABOVE, True), Reading(COUNT, 6)]).ok
    marked = {"meta": {"visual_prompt": {"kind": "box", "bbox": [1, 2, 3, 4]}}}
    assert _judge([Reading(COUNT, 6, marks=((1, 2, 3, 5),)),
                   Reading(COUNT, 6, marks=((1, 2, 3, 4),))], **marked).ok
