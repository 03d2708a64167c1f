"""Demo scenes: determinism, annotation geometry, scene mix, fonts and OCR legibility."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from bench_kit.authoring import fonts
from bench_kit.authoring.scenes import (
    SceneParams,
    build_scene,
    read_annotations,
    render_scenes,
    scene_plan,
)
from bench_kit.errors import ConfigError, InputError

SMALL = SceneParams(seed=5, n_shapes=12, n_signs=6, n_charts=3)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("scenes")
    render_scenes(SMALL, out)
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_same_params_give_identical_bytes(rendered, tmp_path):
    render_scenes(SMALL, tmp_path)
    assert _files(tmp_path) == _files(rendered)


def test_another_seed_gives_other_scenes():
    first, _ = build_scene(SMALL, "s0001", "shapes")
    other, _ = build_scene(SMALL.model_copy(update={"seed": 6}), "s0001", "shapes")
    assert first.objects != other.objects


def test_plan_orders_kinds_and_numbers_scenes():
    plan = scene_plan(SceneParams(n_shapes=2, n_signs=1, n_charts=1))
    assert plan == [("s0001", "shapes"), ("s0002", "shapes"), ("s0003", "sign"),
                    ("s0004", "chart")]


def test_annotation_rows_match_the_images(rendered):
    scenes = read_annotations(rendered / "annotations.jsonl")
    assert [s.kind for s in scenes] == ["shapes"] * 12 + ["sign"] * 6 + ["chart"] * 3
    pngs = sorted(p.name for p in (rendered / "images").iterdir())
    assert pngs == sorted(Path(s.image).name for s in scenes)
    from PIL import Image

    for scene in scenes:
        with Image.open(rendered / scene.image) as img:
            assert img.size == (scene.width, scene.height) == (SMALL.width, SMALL.height)


def _boxes(scene) -> list[list[int]]:
    return [o.bbox for o in scene.objects] + [t.bbox for t in scene.texts] + (
        [b.bbox for b in scene.chart.bars] if scene.chart else [])


def _overlap(a: list[int], b: list[int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_boxes_inside_the_image_and_disjoint(rendered):
    for scene in read_annotations(rendered / "annotations.jsonl"):
        for x1, y1, x2, y2 in _boxes(scene):
            assert 0 <= x1 < x2 <= scene.width and 0 <= y1 < y2 <= scene.height, scene.scene
        for a, b in itertools.combinations(_boxes(scene), 2):
            assert not _overlap(a, b), (scene.scene, a, b)


def test_shape_scenes_have_variety_and_repeats(rendered):
    scenes = [s for s in read_annotations(rendered / "annotations.jsonl") if s.kind == "shapes"]
    assert all(2 <= len(s.objects) <= 7 for s in scenes)
    objects = [o for s in scenes for o in s.objects]
    assert len({o.shape for o in objects}) >= 5
    assert len({o.colour for o in objects}) >= 5
    assert {o.size for o in objects} == {"small", "medium", "large"}
    assert len({s.background.split(":")[0] for s in scenes}) >= 3
    repeated_colour = [s for s in scenes
                       if max(sum(o.colour == c for o in s.objects) for c in
                              {o.colour for o in s.objects}) >= 2]
    assert len(repeated_colour) >= 3


def test_signs_carry_english_and_chinese_text(rendered):
    signs = [s for s in read_annotations(rendered / "annotations.jsonl") if s.kind == "sign"]
    texts = [t for s in signs for t in s.texts]
    assert all(1 <= len(s.texts) <= 2 for s in signs)
    assert {t.lang for t in texts} == {"en", "zh"}
    assert all(t.bbox[3] - t.bbox[1] >= 28 for t in texts)  # glyphs big enough for OCR


def test_charts_have_distinct_integer_values_and_bars(rendered):
    charts = [s for s in read_annotations(rendered / "annotations.jsonl") if s.kind == "chart"]
    for scene in charts:
        chart = scene.chart
        assert 3 <= len(chart.labels) <= 5
        assert len(set(chart.values)) == len(chart.values)
        assert [b.label for b in chart.bars] == chart.labels
        assert [b.value for b in chart.bars] == chart.values
        tallest = max(chart.bars, key=lambda b: b.value)
        assert tallest.bbox[1] == min(b.bbox[1] for b in chart.bars)  # drawn tallest


def test_stale_scene_images_are_removed(tmp_path):
    render_scenes(SceneParams(n_shapes=3, n_signs=0, n_charts=0), tmp_path)
    keep = tmp_path / "images" / "notes.txt"
    keep.write_text("mine")
    render_scenes(SceneParams(n_shapes=1, n_signs=0, n_charts=0), tmp_path)
    assert sorted(p.name for p in (tmp_path / "images").iterdir()) == ["notes.txt", "s0001.png"]


@pytest.mark.parametrize("row, field", [
    ({"scene": "s1", "image": "images/s1.png", "kind": "photo", "width": 9, "height": 9}, "kind"),
    ({"scene": "s1", "image": "images/s1.png", "kind": "shapes", "width": 9, "height": 9,
      "objects": [{"id": "o1", "shape": "star", "colour": "red", "size": "small",
                   "bbox": [5, 5, 1, 1]}]}, "objects.0.bbox"),
    ({"image": "images/s1.png", "kind": "shapes", "width": 9, "height": 9}, "scene"),
])
def test_bad_annotation_row_names_line_and_field(tmp_path, row, field):
    good = {"scene": "s0", "image": "images/s0.png", "kind": "shapes", "width": 9, "height": 9}
    path = tmp_path / "annotations.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_annotations(path)
    assert info.value.line == 2 and info.value.field == field


def test_duplicate_scene_id_is_refused(tmp_path):
    row = {"scene": "s0", "image": "images/s0.png", "kind": "shapes", "width": 9, "height": 9}
    path = tmp_path / "annotations.jsonl"
    path.write_text((json.dumps(row) + "\n") * 2, encoding="utf-8")
    with pytest.raises(InputError, match="duplicate scene 's0'"):
        read_annotations(path)


def test_chinese_text_uses_the_bundled_cjk_font():
    assert fonts.has_cjk("出口") and not fonts.has_cjk("EXIT")
    font = fonts.font_for("出口", 40)
    assert Path(font.path).name == "wqy-microhei.ttc"
    assert font.getbbox("出口")[2] > 60  # real glyphs, not empty boxes of a Latin font


def test_missing_cjk_font_gives_config_error_with_hint(monkeypatch):
    monkeypatch.setattr(fonts, "CJK_PACKAGE", "no_such_font_package_xyz")
    fonts.cjk_font_path.cache_clear()
    try:
        with pytest.raises(ConfigError, match="pip install 'paperang-p2-fonts-cjk"):
            fonts.cjk_font_path()
    finally:
        fonts.cjk_font_path.cache_clear()


@pytest.mark.slow
def test_ocr_reads_rendered_signs(rendered):
    from rapidocr_onnxruntime import RapidOCR

    engine = RapidOCR()
    signs = [s for s in read_annotations(rendered / "annotations.jsonl") if s.kind == "sign"]
    picks = [next(s for s in signs if any(t.lang == lang for t in s.texts))
             for lang in ("en", "zh")]
    for scene in picks:
        result, _ = engine(str(rendered / scene.image))
        # OCR may split a two-word sign into two detections: compare the joined reading.
        read = "".join(line[1] for line in result or []).replace(" ", "")
        for text in scene.texts:
            assert text.text.replace(" ", "") in read, (scene.scene, text.text, read)


def test_counted_scene_parameters_are_stratified():
    """Object counts, shape kinds and bar counts take every value once per block of scenes,
    so no count is a safe blind guess (docs/AUTHORING.md, gold balance)."""
    from collections import Counter

    from bench_kit.authoring.scenes import OBJECT_COUNTS, SHAPE_KINDS, stratified

    params = SceneParams(seed=5, n_shapes=24, n_signs=0, n_charts=6)
    plan = scene_plan(params)
    shapes = [build_scene(params, sid, kind)[0] for sid, kind in plan if kind == "shapes"]
    counts = Counter(len(s.objects) for s in shapes)
    kinds = Counter(len({o.shape for o in s.objects}) for s in shapes)
    assert max(counts.values()) <= 6 and len(counts) >= 5   # 2..7, 4 each when all placed
    assert set(kinds) == {1, 2, 3, 4} and max(kinds.values()) <= 8
    bars = Counter(len(build_scene(params, sid, kind)[0].chart.bars)
                   for sid, kind in plan if kind == "chart")
    assert bars == {3: 2, 4: 2, 5: 2}
    block = [stratified(5, "objects", k, OBJECT_COUNTS) for k in range(6, 12)]
    assert sorted(block) == list(OBJECT_COUNTS)
    orders = {tuple(stratified(seed, "kinds", k, SHAPE_KINDS) for k in range(4))
              for seed in range(10)}
    assert len(orders) > 1 and all(sorted(o) == list(SHAPE_KINDS) for o in orders)
