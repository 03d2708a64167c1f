"""The chart renderer records where it drew each bar's value and category label, and the
mark placer protects exactly those boxes (no layout constants copied from the renderer)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bench_kit.authoring.scenes import SceneParams, build_scene
from bench_kit.authoring.visual_prompt import protected_regions
from bench_kit.errors import InputError

INK = 80  # the labels are drawn in (30, 30, 30) on a light background


def _dark(image: Image.Image, box: tuple[int, int, int, int]) -> set[tuple[int, int]]:
    x1, y1, x2, y2 = box
    return {(x, y) for x in range(max(x1, 0), min(x2, image.width))
            for y in range(max(y1, 0), min(y2, image.height))
            if max(image.getpixel((x, y))) < INK}


@pytest.mark.parametrize("scene_id", ["s0000", "s0001", "s0002"])
def test_recorded_label_boxes_hold_the_drawn_text(scene_id: str) -> None:
    scene, png = build_scene(SceneParams(seed=11, width=480, height=360), scene_id, "chart")
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert scene.chart is not None
    for bar in scene.chart.bars:
        assert bar.value_box is not None and bar.label_box is not None
        x1, y1, x2, y2 = bar.bbox
        vx1, vy1, vx2, vy2 = bar.value_box
        lx1, ly1, lx2, ly2 = bar.label_box
        assert vy2 <= y1 and ly1 >= y2  # the value above its bar, the label below
        # every dark pixel of the band above the bar is inside the value box ...
        band = (min(x1, vx1) - 4, vy1 - 6, max(x2, vx2) + 4, y1 - 1)
        value_ink = _dark(image, band)
        assert value_ink and value_ink <= _dark(image, (vx1, vy1, vx2 + 1, vy2 + 1))
        # ... and the label box holds ink (the label's own glyphs)
        assert _dark(image, (lx1, ly1, lx2 + 1, ly2 + 1))
        for box in (bar.bbox, bar.value_box, bar.label_box):
            assert tuple(box) in protected_regions(scene)


def test_annotations_without_recorded_boxes_are_refused() -> None:
    scene, _ = build_scene(SceneParams(seed=11), "s0000", "chart")
    assert scene.chart is not None
    old = scene.model_copy(update={"chart": scene.chart.model_copy(update={"bars": [
        bar.model_copy(update={"value_box": None, "label_box": None})
        for bar in scene.chart.bars]})})
    with pytest.raises(InputError, match="re-run `bench-kit author scenes`"):
        protected_regions(old)
