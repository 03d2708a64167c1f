"""Template engine: solvers against hand-made annotations, template checks, and the demo set."""

from __future__ import annotations

import collections
import re
from pathlib import Path

import pytest
from conftest import shape_obj

from bench_kit.authoring.generate import Coverage, format_coverage, run_generate
from bench_kit.authoring.scenes import (
    SceneAnn,
    SceneParams,
    read_annotations,
    render_scenes,
)
from bench_kit.authoring.solvers import SOLVERS
from bench_kit.authoring.templates import (
    GenerateParams,
    generate_items,
    load_taxonomy,
    parse_templates,
)
from bench_kit.errors import ConfigError
from bench_kit.items import read_items
from bench_kit.params import load_params, section
from bench_kit.types import ID_PATTERN, LAYERS

ROOT = Path(__file__).resolve().parents[2]
PARAMS = ROOT / "params.yaml"
TEMPLATES = ROOT / "datasets" / "demo" / "templates.yaml"
TAXONOMY = load_taxonomy(load_params(PARAMS))


_obj = shape_obj


SHAPES = SceneAnn.model_validate({
    "scene": "t1", "image": "images/t1.png", "kind": "shapes", "width": 400, "height": 300,
    "objects": [_obj("o1", "circle", "red", "small", [10, 10, 50, 50]),
                _obj("o2", "square", "red", "medium", [100, 10, 160, 70]),
                _obj("o3", "triangle", "blue", "large", [200, 100, 300, 187]),
                _obj("o4", "circle", "green", "medium", [320, 200, 380, 260]),
                _obj("o5", "star", "black", "small", [40, 120, 90, 170])]})
SIGNS = SceneAnn.model_validate({
    "scene": "t2", "image": "images/t2.png", "kind": "sign", "width": 400, "height": 300,
    "texts": [{"text": "EXIT", "lang": "en", "colour": "green", "bbox": [20, 20, 140, 60]},
              {"text": "出口", "lang": "zh", "colour": "red", "bbox": [20, 180, 120, 230]}]})
ONE_SIGN = SceneAnn.model_validate({
    "scene": "t3", "image": "images/t3.png", "kind": "sign", "width": 400, "height": 300,
    "texts": [{"text": "书店", "lang": "zh", "bbox": [20, 20, 140, 60]}]})


def _chart(values: list[int]) -> SceneAnn:
    labels = ["Apples", "Pears", "Plums"][:len(values)]
    bars = [{"label": lab, "value": v, "bbox": [10 + 50 * i, 200 - v, 40 + 50 * i, 200]}
            for i, (lab, v) in enumerate(zip(labels, values))]
    return SceneAnn.model_validate({
        "scene": "t4", "image": "images/t4.png", "kind": "chart", "width": 400, "height": 300,
        "chart": {"title": "Fruit sold", "labels": labels, "values": values, "bars": bars}})


CHART, TIED = _chart([12, 30, 7]), _chart([10, 10, 5])
# A square is a rectangle: "how many kinds of shape" has no single answer beside both.
_RECTANGLE = _obj("o6", "rectangle", "blue", "large", [150, 200, 250, 250])
WITH_RECTANGLE = SceneAnn.model_validate(
    {**SHAPES.model_dump(), "objects": [*SHAPES.model_dump()["objects"], _RECTANGLE]})
RECTANGLE_NO_SQUARE = SceneAnn.model_validate(
    {**SHAPES.model_dump(), "objects": [o for o in WITH_RECTANGLE.model_dump()["objects"]
                                        if o["shape"] != "square"]})

# (solver, scene, args, expected gold); None = the engine must skip the item.
SOLVER_CASES = [
    ("count_objects", SHAPES, {}, 5),
    ("count_objects", SHAPES, {"colour": "red"}, 2),
    ("count_objects", SHAPES, {"colour": "red", "shape": "circle"}, 1),
    ("count_objects", SHAPES, {"shape": "diamond"}, 0),
    ("count_objects", SHAPES, {"shape": "diamond", "min_count": 1}, None),
    ("count_objects", SHAPES, {"colour": "red", "max_count": 0}, None),
    ("colour_of", SHAPES, {"shape": "triangle"}, "blue"),
    ("colour_of", SHAPES, {"shape": "circle"}, None),
    ("colour_of", SHAPES, {"shape": "circle", "size": "small"}, "red"),
    ("colour_of_extreme", SHAPES, {"shape": "circle"}, "green"),
    ("colour_of_extreme", SHAPES, {"shape": "circle", "largest": False}, "red"),
    ("colour_of_extreme", SHAPES, {"shape": "triangle"}, None),
    ("shape_of", SHAPES, {"colour": "blue"}, "triangle"),
    ("shape_of", SHAPES, {"colour": "red"}, None),
    ("shape_of", SHAPES, {"colour": "red", "size": "medium"}, "square"),
    ("bbox_of", SHAPES, {"colour": "blue", "shape": "triangle"}, [200, 100, 300, 187]),
    ("bbox_of", SHAPES, {"colour": "red", "shape": "triangle"}, None),
    ("object_present", SHAPES, {"colour": "red", "shape": "circle"}, True),
    ("object_present", SHAPES, {"colour": "purple", "shape": "star"}, False),
    ("describe_object", SHAPES, {"colour": "red", "shape": "square"}, "red square"),
    ("describe_object", SHAPES, {"colour": "red", "shape": "star"}, None),
    ("left_of", SHAPES, {"a_colour": "red", "a_shape": "circle", "b_colour": "blue",
                         "b_shape": "triangle"}, True),
    ("left_of", SHAPES, {"a_colour": "blue", "a_shape": "triangle", "b_colour": "red",
                         "b_shape": "circle"}, False),
    ("left_of", SHAPES, {"a_colour": "red", "a_shape": "circle", "b_colour": "black",
                         "b_shape": "star"}, None),  # x ranges overlap
    ("left_of", SHAPES, {"a_colour": "red", "a_shape": "circle", "b_colour": "red",
                         "b_shape": "circle"}, None),
    ("above", SHAPES, {"a_colour": "red", "a_shape": "circle", "b_colour": "blue",
                       "b_shape": "triangle"}, True),
    ("above", SHAPES, {"a_colour": "green", "a_shape": "circle", "b_colour": "blue",
                       "b_shape": "triangle"}, False),
    ("leftmost_object", SHAPES, {}, "red circle"),
    ("count_after_removal", SHAPES, {"colour": "red"}, 3),
    ("count_after_removal", SHAPES, {"shape": "star"}, 4),
    ("count_after_removal", SHAPES, {"colour": "purple"}, None),
    ("more_than", SHAPES, {"a_shape": "circle", "b_shape": "triangle"}, True),
    ("more_than", SHAPES, {"a_shape": "triangle", "b_shape": "circle"}, False),
    ("more_than", SHAPES, {"a_shape": "triangle", "b_shape": "star"}, False),
    ("more_than", SHAPES, {"a_shape": "triangle", "b_shape": "star", "min_gap": 1}, None),
    ("more_than", SHAPES, {"a_shape": "circle", "b_shape": "star", "min_gap": 1}, True),
    ("most_common_colour", SHAPES, {}, "red"),
    ("distinct_count", SHAPES, {"attribute": "shape"}, 4),
    ("distinct_count", SHAPES, {"attribute": "colour"}, 4),
    ("distinct_count", SHAPES, {"attribute": "weight"}, None),
    ("distinct_count", WITH_RECTANGLE, {"attribute": "shape"}, None),
    ("distinct_count", WITH_RECTANGLE, {"attribute": "colour"}, 4),
    ("distinct_count", RECTANGLE_NO_SQUARE, {"attribute": "shape"}, 4),
    ("read_text", SIGNS, {}, None),
    ("read_text", SIGNS, {"colour": "green"}, "EXIT"),
    ("read_text", SIGNS, {"lang": "zh"}, "出口"),
    ("read_text", ONE_SIGN, {}, "书店"),
    ("text_bbox", SIGNS, {"text": "EXIT"}, [20, 20, 140, 60]),
    ("text_bbox", SIGNS, {"text": "STOP"}, None),
    ("chart_title", CHART, {}, "Fruit sold"),
    ("chart_title", SHAPES, {}, None),
    ("bar_value", CHART, {"label": "Pears"}, 30),
    ("bar_value", CHART, {"label": "Kiwis"}, None),
    ("bar_count", CHART, {}, 3),
    ("tallest_bar", CHART, {}, "Pears"),
    ("tallest_bar", TIED, {}, None),
    ("shortest_bar", CHART, {}, "Plums"),
    ("bar_greater", CHART, {"a": "Apples", "b": "Plums"}, True),
    ("bar_greater", CHART, {"a": "Plums", "b": "Apples"}, False),
    ("bar_greater", TIED, {"a": "Apples", "b": "Pears"}, None),
    ("bar_difference", CHART, {"a": "Pears", "b": "Apples"}, 18),
    ("bar_difference", CHART, {"a": "Apples", "b": "Pears"}, None),
    ("tallest_after_removal", CHART, {"label": "Pears"}, "Apples"),
    ("tallest_after_removal", CHART, {"label": "Apples"}, None),
]


@pytest.mark.parametrize("name, scene, args, expected", SOLVER_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(SOLVER_CASES)])
def test_solver_gold(name, scene, args, expected):
    assert SOLVERS.get(name)(scene, **args) == expected


def test_every_solver_has_cases():
    assert {c[0] for c in SOLVER_CASES} == set(SOLVERS.names())


BASE = {"id": "t_count", "capability": "perception.count", "difficulty": "easy",
        "task": "numeric", "scene": "shapes", "question": "How many {shapes} are there?",
        "for_each": "shape", "gold": {"solver": "count_objects", "args": {"shape": "{shape}"}}}

BAD_TEMPLATES = [
    ({"capability": "perception.smell"}, "key 'capability': 'perception.smell' is not in"),
    ({"gold": {"solver": "count_objets"}}, "key 'gold.solver': unknown solver 'count_objets'; "
                                           "did you mean 'count_objects'?"),
    ({"question": "How many {colours}?"}, "key 'question': unknown slot(s) ['colours']"),
    ({"question": "How many {shapes?"}, "key 'question': bad slot syntax"),
    ({"task": "mc"}, "key 'choices': required for task mc"),
    ({"task": "yesno"}, "key 'task': solver 'count_objects' returns int, which cannot answer a yesno"),
    ({"task": "essay"}, "key 'task': Input should be"),
    ({"difficulty": "trivial"}, "key 'difficulty': Input should be"),
    ({"scene": "photo"}, "key 'scene.0': Input should be"),
    ({"colour": "red"}, "key 'colour': Extra inputs are not permitted"),
    ({"for_each": "objects"}, "key 'for_each': unknown binder 'objects'; did you mean 'object'?"),
    ({"constraints": {"min_cats": 2}}, "key 'constraints': unknown constraint 'min_cats'"),
    ({"task": "mc", "choices": {"pool": "letters"}}, "key 'choices.pool': unknown choice pool"),
    ({"task": "mc", "choices": {"pool": "numbers", "n": 9}}, "key 'choices.n'"),
    ({"gold": {"solver": "count_objects", "args": {"weight": 3}}}, "key 'gold.args': "),
    ({"gold": {"solver": "count_objects", "args": {"shape": "{size}"}}},
     "key 'gold.args.shape': unknown slot(s) ['size']"),
    ({"max_per_scene": 0}, "key 'max_per_scene'"),
    ({"scene_share": 1.5}, "key 'scene_share'"),
]


@pytest.mark.parametrize("change, message", BAD_TEMPLATES, ids=[str(c[0]) for c in BAD_TEMPLATES])
def test_bad_template_names_id_and_key(change, message):
    with pytest.raises(ConfigError) as info:
        parse_templates({"templates": [{**BASE, **change}]}, TAXONOMY, source="t.yaml")
    text = str(info.value)
    assert text.startswith("t.yaml: template 't_count': ") and message in text, text
    assert "\n" not in text


@pytest.mark.parametrize("doc, message", [
    ({"templates": [BASE, BASE]}, "template 't_count': key 'id': duplicate template id"),
    ({"templates": [{k: v for k, v in BASE.items() if k != "id"}]},
     "template #1: key 'id': Field required"),
    ({"templates": [BASE], "quotas": {}}, "unknown top-level key(s) ['quotas']"),
    ({"items": []}, "expected a mapping with a 'templates' list"),
    ({"templates": ["oops"]}, "template #1: expected a mapping"),
])
def test_bad_templates_document(doc, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_templates(doc, TAXONOMY, source="t.yaml")


def test_defaults_apply_unless_overridden():
    doc = {"defaults": {"max_per_scene": 2, "difficulty": "hard"},
           "templates": [BASE, {**BASE, "id": "t_two", "max_per_scene": 5}]}
    one, two = parse_templates(doc, TAXONOMY)
    assert (one.max_per_scene, one.difficulty, two.max_per_scene) == (2, "easy", 5)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The default demo: params.yaml scenes and the repository's templates.yaml."""
    params = load_params(PARAMS)
    root = tmp_path_factory.mktemp("demo")
    render_scenes(section(params, "scenes", SceneParams), root)
    out = root / "items.jsonl"
    summary = run_generate(PARAMS, root / "annotations.jsonl", TEMPLATES, out)
    return root, out, summary


def test_demo_covers_taxonomy_tasks_and_layers(demo):
    _, out, summary = demo
    items = read_items(out)  # every row validates as an Item, ids unique
    assert len(items) >= 300
    assert {i.capability for i in items} == set(TAXONOMY)
    assert {i.task for i in items} == {"mc", "yesno", "numeric", "open", "grounding"}
    assert {i.layer for i in items} == set(LAYERS)
    assert all(i.layer == TAXONOMY[i.capability] for i in items)
    assert any(i.meta.get("lang") == "zh" for i in items)
    assert summary.coverage.total == len(items) and not summary.coverage.missing_capabilities
    shares = collections.Counter(i.source for i in items)
    assert max(shares.values()) / len(items) <= 0.10


def test_demo_items_are_well_formed(demo):
    root, out, _ = demo
    items = read_items(out)
    scenes = {s.scene: s for s in read_annotations(root / "annotations.jsonl")}
    for item in items:
        template = item.source.removeprefix("template:")
        assert re.match(ID_PATTERN, item.id) and item.id.startswith(f"{template}.{item.group}")
        assert item.image == scenes[item.group].image and (root / item.image).is_file()
        assert (item.variant, item.variant_kind, item.variant_of) == ("v0", "original", None)
        assert item.created_at.isoformat() == "2026-11-01T00:00:00+00:00"
        if item.task == "mc":
            assert 2 <= len(item.choices) <= 5 and list(item.choices) == list("ABCDE"[:len(item.choices)])
            assert len(set(item.choices.values())) == len(item.choices)
        if item.task == "grounding":
            assert item.metric == "iou" and item.answers == [",".join(map(str, item.meta["target"]["bbox"]))]
    per_scene = collections.Counter((i.group, i.question) for i in items)
    assert max(per_scene.values()) == 1  # identical questions per scene deduplicated


def test_demo_golds_agree_with_annotations(demo):
    root, out, _ = demo
    scenes = {s.scene: s for s in read_annotations(root / "annotations.jsonl")}
    checked = collections.Counter()
    for item in read_items(out):
        scene, template = scenes[item.group], item.source.removeprefix("template:")
        if template == "count_all":
            assert item.answers == [str(len(scene.objects))]
        elif template in ("pope_random", "pope_adversarial", "pope_zh"):
            probe = item.meta["probe"]
            present = any(o.colour == probe["colour"] and o.shape == probe["shape"]
                          for o in scene.objects)
            assert item.answers == ["yes" if present else "no"] and present == probe["present"]
        elif template == "colour_of_shape":
            target = item.meta["target"]
            assert sum(o.shape == target["shape"] for o in scene.objects) == 1
            assert item.answers[0] == target["colour"]
        elif template == "chart_tallest_mc":
            assert item.choices[item.answers[0]] == scene.chart.labels[
                scene.chart.values.index(max(scene.chart.values))]
        else:
            continue
        checked[template] += 1
    assert len(checked) == 6


@pytest.mark.parametrize("template", ["pope_random", "pope_adversarial", "spatial_left_of",
                                      "compare_bars"])
def test_yes_no_templates_are_balanced(demo, template):
    answers = collections.Counter(i.answers[0] for i in read_items(demo[1])
                                  if i.source == f"template:{template}")
    assert answers["yes"] and abs(answers["yes"] - answers["no"]) <= 1


def test_mc_gold_letters_are_spread(demo):
    letters = collections.Counter(i.answers[0] for i in read_items(demo[1]) if i.task == "mc")
    assert set(letters) >= set("ABCD") and max(letters.values()) < 2 * min(
        letters[k] for k in "ABCD")


def test_demo_meets_every_quota(demo):
    """The demo's templates break no quota, gold balance included (docs/AUTHORING.md)."""
    summary = demo[2]
    assert [v.message for v in summary.violations] == []
    judged = [t for t in summary.coverage.gold.values() if len(t.families) >= 8]
    assert len(judged) >= 25
    numeric = {k[0]: t.majority()[1] for k, t in summary.coverage.gold.items()
               if t.task == "numeric"}
    # The templates whose gold used to be one value most of the time (absent_count: always 0).
    for template in ("absent_count", "hypo_remove_colour", "count_colour_shape_zh", "count_all"):
        assert numeric[template] <= 0.5, template


def test_mc_gold_letters_follow_uniform_with_mixed_option_counts():
    """Items with 2 and 4 options in one template: the gold letter goes to the position
    furthest behind its uniform share, so A is not under-used (a blind 'A' gains nothing)."""
    two = SceneAnn.model_validate({**SHAPES.model_dump(), "scene": "t5",
                                   "objects": [o.model_dump() for o in SHAPES.objects[:2]]})
    doc = {"templates": [{"id": "t_left", "capability": "understanding.spatial",
                          "difficulty": "hard", "task": "mc", "scene": "shapes",
                          "question": "Which object is furthest to the left?",
                          "gold": {"solver": "leftmost_object"},
                          "choices": {"pool": "scene_objects", "n": 4}}]}
    specs = parse_templates(doc, TAXONOMY)
    scenes = [SHAPES.model_copy(update={"scene": f"a{k}"}) if k % 2 else
              two.model_copy(update={"scene": f"b{k}"}) for k in range(24)]
    items = generate_items(scenes, specs, TAXONOMY, GenerateParams())
    sizes = collections.Counter(len(i.choices) for i in items)
    assert sizes == {2: 12, 4: 12}
    letters = collections.Counter(i.answers[0] for i in items)
    # uniform: A 12/2 + 12/4 = 9, B 9, C 3, D 3
    assert all(abs(letters[k] - n) <= 1 for k, n in {"A": 9, "B": 9, "C": 3, "D": 3}.items())


def test_generation_is_deterministic_and_prefix_stable(demo, tmp_path):
    root, out, _ = demo
    again = tmp_path / "items.jsonl"
    run_generate(PARAMS, root / "annotations.jsonl", TEMPLATES, again)
    assert again.read_bytes() == out.read_bytes()
    # Generating from the first scenes only gives exactly their items: appending scenes
    # never changes an existing scene's items.
    scenes = read_annotations(root / "annotations.jsonl")
    params = load_params(PARAMS)
    from bench_kit.authoring.templates import load_templates

    specs = load_templates(TEMPLATES, TAXONOMY)
    settings = section(params, "generate", GenerateParams)
    part = generate_items(scenes[:30], specs, TAXONOMY, settings)
    full = [i for i in read_items(out) if i.group in {s.scene for s in scenes[:30]}]
    assert [i.model_dump() for i in part] == [i.model_dump() for i in full]


def test_chinese_templates_render_chinese_slots():
    doc = {"templates": [{**BASE, "id": "t_zh", "lang": "zh", "question": "图中有几个{shape}？",
                          "gold": {"solver": "count_objects",
                                   "args": {"shape": "{shape}", "min_count": 1}}},
                         {"id": "t_mc", "capability": "perception.colour", "difficulty": "easy",
                          "task": "mc", "lang": "zh", "scene": "shapes",
                          "question": "图中的{shape}是什么颜色？", "for_each": "object",
                          "gold": {"solver": "colour_of", "args": {"shape": "{shape}"}},
                          "choices": {"pool": "colours", "n": 3}}]}
    specs = parse_templates(doc, TAXONOMY)
    items = generate_items([SHAPES], specs, TAXONOMY, GenerateParams())
    questions = {i.question: i for i in items}
    assert questions["图中有几个圆形？"].answers == ["2"]
    triangle = questions["图中的三角形是什么颜色？"]
    assert triangle.choices[triangle.answers[0]] == "蓝色"
    assert all(i.meta["lang"] == "zh" for i in items)


def test_coverage_table_lists_every_capability_and_template():
    cov = Coverage.of([], TAXONOMY, ["t_a"])
    text = format_coverage(cov)
    assert all(c in text for c in TAXONOMY) and "t_a" in text
    assert "no items for: " in text and cov.missing_capabilities == list(TAXONOMY)
