"""Grounding against VLMEvalKit's GroundingME code (tests/scoring/reference/vectors/grounding.jsonl).

The reference is `vlmeval/dataset/groundingme.py` run unmodified: `parse_bbox` reads the
response, `normalize_bbox` reads the box as 0-1 or 0-999 of the image, `compute_iou`
scores both readings against the gold and the better one counts. Every row must agree
with it, or fall under a deliberate difference of docs/METRICS.md#reference-differences,
each checked here against the reference's own output (never against bench_kit's code).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_kit.scoring.extract.boxes import NO_BOX, extract_box, to_pixels
from bench_kit.scoring.metrics.answers import iou

ROWS = [json.loads(line) for line in (Path(__file__).parent / "reference" / "vectors"
                                      / "grounding.jsonl").read_text(encoding="utf-8").splitlines()]
ZERO = [0.0, 0.0, 0.0, 0.0]
# Notations the reference's parser reads (a JSON object with "bbox_2d", or four numbers
# separated by commas or spaces); the others are point pairs and keyed corners.
READ_BY_REFERENCE = {"json", "json_label", "json_fence", "json_prose", "bracket",
                     "bracket_space", "paren", "run", "prose_box", "zh_run"}
BOXES = [r for r in ROWS if r["written"] is not None]


def _sorted(box) -> tuple[float, ...]:
    return (min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3]))


def test_thousands_of_rows_cover_every_notation_and_scale():
    assert len(ROWS) >= 3000
    assert {r["notation"] for r in ROWS} >= READ_BY_REFERENCE | {"pairs", "qwen_tokens", "keyed",
                                                                 "json_null", "refusal"}
    assert {r["scale"] for r in BOXES} == {"pixel", "norm1", "norm1000"}


def test_the_reference_and_bench_kit_read_the_same_box_where_the_reference_reads_one():
    rows = [r for r in BOXES if r["notation"] in READ_BY_REFERENCE]
    for row in rows:
        assert row["vlmevalkit_parsed"] == row["written"], row  # the reference read it
        found = extract_box(row["response"], row["width"], row["height"], "pixel")
        assert found == pytest.approx(_sorted(row["vlmevalkit_parsed"])), row
    assert len(rows) > 2000


def test_iou_equals_compute_iou_on_every_box_in_order():
    rows = [r for r in BOXES if r["scale"] == "pixel" and r["notation"] in READ_BY_REFERENCE]
    in_order = [r for r in rows if _sorted(r["written"]) == tuple(r["written"])]
    for row in in_order:
        assert iou(row["written"], row["gold"]) == pytest.approx(row["vlmevalkit_iou_raw"]), row
    assert len(in_order) > 500


def test_difference_corners_written_in_the_other_order_are_put_in_order():
    # compute_iou takes (x2, y2, x1, y1) as written (negative widths); bench_kit orders the
    # corners first, and equals the reference on the ordered box (vlmevalkit_iou_sorted).
    rows = [r for r in BOXES if r["notation"] in READ_BY_REFERENCE and r["scale"] == "pixel"
            and _sorted(r["written"]) != tuple(r["written"])]
    differ = 0
    for row in rows:
        assert iou(row["written"], row["gold"]) == pytest.approx(row["vlmevalkit_iou_sorted"][0])
        differ += row["vlmevalkit_iou_raw"] != pytest.approx(row["vlmevalkit_iou_sorted"][0])
    assert len(rows) > 20 and differ > 0


def test_a_0_1_box_is_scaled_as_normalize_bbox_scales_it():
    rows = [r for r in BOXES if r["scale"] == "norm1" and r["notation"] in READ_BY_REFERENCE]
    for row in rows:
        mine = to_pixels(row["written"], row["width"], row["height"], "norm1")
        assert mine == pytest.approx(_sorted(row["vlmevalkit_scaled"])), row
        assert iou(mine, row["gold"]) == pytest.approx(row["vlmevalkit_iou_sorted"][1]), row
    assert len(rows) > 300


def test_difference_the_grid_has_1000_steps_not_999():
    # normalize_bbox divides by 999; Qwen-VL/InternVL/CogVLM write boxes on [0, 1000).
    rows = [r for r in BOXES if r["scale"] == "norm1000" and r["notation"] in READ_BY_REFERENCE
            and not all(v <= 1 for v in r["written"])]
    for row in rows:
        mine = to_pixels(row["written"], row["width"], row["height"], "norm1000")
        reference = [v * 999 / 1000 for v in _sorted(row["vlmevalkit_scaled"])]
        assert mine == pytest.approx(reference), row
    assert len(rows) > 300


def test_difference_point_pairs_and_keyed_corners_are_read():
    # parse_bbox finds no box in "(x1,y1),(x2,y2)", Qwen-VL box tokens or {"x1": ...}, and
    # answers [0, 0, 0, 0] (a rejection); bench_kit reads the box that is written.
    rows = [r for r in BOXES if r["notation"] not in READ_BY_REFERENCE and any(r["written"])]
    for row in rows:
        assert row["vlmevalkit_parsed"] == ZERO, row
        found = extract_box(row["response"], row["width"], row["height"], "pixel")
        assert found == pytest.approx(_sorted(row["written"])), row
    assert len(rows) > 500


def test_rejections_are_rejections_in_both():
    rows = [r for r in ROWS if r["notation"] in ("json_null", "zero_box", "refusal")]
    for row in rows:
        assert row["vlmevalkit_parsed"] == ZERO
        assert extract_box(row["response"], row["width"], row["height"]) == NO_BOX, row
    assert len(rows) > 150


def test_difference_an_unreadable_answer_is_a_parse_failure_not_a_rejection():
    # parse_bbox answers [0, 0, 0, 0] for text with no box, which scores 1.0 on an item
    # whose object is absent; bench_kit reports no answer (scored 0, counted as failed).
    rows = [r for r in ROWS if r["notation"] == "nothing"]
    for row in rows:
        assert row["vlmevalkit_parsed"] == ZERO
        assert extract_box(row["response"], row["width"], row["height"]) is None
    assert any(r["vlmevalkit_iou"] == 1 for r in rows if r["gold"] == [0, 0, 0, 0])


def test_difference_the_scale_is_not_chosen_with_the_gold():
    # GroundingME.evaluate keeps the better IoU of the box as written and rescaled: the gold
    # picks the scale. bench_kit reads the declared scale; on pixel rows that is the raw IoU.
    rows = [r for r in BOXES if r["scale"] == "pixel" and r["notation"] in READ_BY_REFERENCE]
    helped = [r for r in rows if r["vlmevalkit_iou"] > max(r["vlmevalkit_iou_raw"], 0) + 1e-9]
    for row in rows:
        found = extract_box(row["response"], row["width"], row["height"], "pixel")
        assert iou(found, row["gold"]) == pytest.approx(row["vlmevalkit_iou_sorted"][0])
    assert helped  # rows where the gold-chosen reading scores more than what was written
