"""The metrics beyond the task defaults: text (ROUGE-L, macro-F1), points and detections
(AP, mAP), masks (RLE, IoU) and defect maps (pixel AUROC, PRO), each from a case table."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CASES, cases

from bench_kit.errors import InputError
from bench_kit.scoring.metrics.detection import (
    Detection,
    detection_f1,
    detection_map,
    extract_detections,
    extract_point_detailed,
    match_detections,
    point_in_box,
)
from bench_kit.scoring.metrics.masks import (
    counts_to_string,
    load_array,
    load_mask,
    mask_iou,
    pixel_auroc,
    pro_score,
    rle_decode,
    rle_encode,
)
from bench_kit.scoring.metrics.text import macro_f1, rouge_l


@pytest.mark.parametrize("case", cases("rouge_l"))
def test_rouge_l(case):
    assert rouge_l(case["pred"], case["golds"], case.get("beta", 1.0)) == \
        pytest.approx(case["expected"])


@pytest.mark.parametrize("case", cases("macro_f1"))
def test_macro_f1(case):
    result = macro_f1(case["golds"], case["preds"])
    for key, value in case["expected"].items():
        assert result[key] == pytest.approx(value), key


def test_macro_f1_per_class_and_length_check():
    result = macro_f1(["cat", "cat", "dog"], ["cat", "dog", "dog"])
    assert result["per_class"]["cat"] == {"precision": 1.0, "recall": 0.5,
                                          "f1": pytest.approx(2 / 3), "support": 2}
    with pytest.raises(InputError, match="2 golds but 1 predictions"):
        macro_f1(["a", "b"], ["a"])


@pytest.mark.parametrize("case", cases("extract_point"))
def test_extract_point(case):
    found = extract_point_detailed(case["response"], case["width"], case["height"])
    expected = None if case["expected"] is None else tuple(case["expected"])
    assert (found.value, found.parse) == (expected, case["parse"])


@pytest.mark.parametrize("case", cases("point_in_box"))
def test_point_in_box(case):
    assert point_in_box(case["point"], case["box"]) is case["expected"]


def _detections(table: dict) -> dict[str, list[Detection]]:
    return {image: [Detection(tuple(box), confidence, rank)
                    for rank, (box, confidence) in enumerate(rows)]
            for image, rows in table.items()}


@pytest.mark.parametrize("case", cases("detection_map"))
def test_detection_map(case):
    result = detection_map(_detections(case["detections"]), case["golds"])
    for key, value in case["expected"].items():
        assert result[key] == (None if value is None else pytest.approx(value)), key


def test_extract_detections_reads_confidences_and_drops_repeats():
    text = ('[{"bbox_2d": [0, 0, 10, 10], "score": 0.3}, {"bbox_2d": [20, 20, 30, 30], '
            '"confidence": 0.9}, {"bbox_2d": [0, 0, 10, 10]}]')
    found = extract_detections(text, 64, 64)
    assert [(d.box, d.confidence, d.rank) for d in found] == [
        ((0.0, 0.0, 10.0, 10.0), 0.3, 0), ((20.0, 20.0, 30.0, 30.0), 0.9, 1)]
    assert extract_detections("none here", 64, 64) == []
    assert [d.box for d in extract_detections("[0.1, 0.1, 0.5, 0.5]", 100, 50)] == \
        [(10.0, 5.0, 50.0, 25.0)]


def test_match_and_f1_take_each_gold_once():
    golds = [(0, 0, 10, 10)]
    assert match_detections([(0, 0, 10, 10), (0, 0, 10, 10)], golds) == [True, False]
    assert detection_f1([], []) == 1.0 and detection_f1([], golds) == 0.0
    assert detection_f1([(0, 0, 10, 10)], golds, threshold=0.5) == 1.0


MASK_TABLE = __import__("json").loads((CASES / "masks.json").read_text())


@pytest.mark.parametrize("case", MASK_TABLE["cases"], ids=lambda c: c["name"])
def test_rle_decode_and_round_trip(case):
    mask = rle_decode(case["rle"])
    assert mask.astype(int).tolist() == case["mask"]
    encoded = rle_encode(mask)
    assert rle_decode(encoded).tolist() == mask.tolist()
    if isinstance(case["rle"]["counts"], str):
        assert counts_to_string(encoded["counts"]) == case["rle"]["counts"]


def test_rle_round_trips_random_masks():
    rng = np.random.default_rng(0)
    for _ in range(50):
        height, width = rng.integers(1, 30, 2)
        mask = rng.random((height, width)) > rng.random()
        encoded = rle_encode(mask)
        string = {"size": encoded["size"], "counts": counts_to_string(encoded["counts"])}
        assert (rle_decode(string) == mask).all()


@pytest.mark.parametrize("rle, message", [
    ({"counts": [1]}, "needs 'size'"), ({"size": [2, 2], "counts": [1, 1]}, "sum to 2"),
    ({"size": [1, 2], "counts": [3, -1]}, "negative"), ({"size": [2, 2], "counts": "3"},
                                                        "sum to 3")])
def test_bad_rle_is_an_input_error(rle, message):
    with pytest.raises(InputError, match=message):
        rle_decode(rle)


@pytest.mark.parametrize("case", MASK_TABLE["iou_cases"], ids=lambda c: c["name"])
def test_mask_iou(case):
    a, b = np.array(case["a"], dtype=bool), np.array(case["b"], dtype=bool)
    assert mask_iou(a, b) == pytest.approx(case["expected"])


def test_mask_iou_needs_equal_shapes():
    with pytest.raises(InputError, match="shapes differ"):
        mask_iou(np.zeros((2, 2), bool), np.zeros((2, 3), bool))


def test_masks_load_from_png_rle_and_polygon(tmp_path):
    from PIL import Image

    pixels = np.zeros((4, 6), dtype=np.uint8)
    pixels[1:3, 2:5] = 255
    Image.fromarray(pixels).save(tmp_path / "m.png")
    png = load_mask("m.png", tmp_path)
    assert png.shape == (4, 6) and int(png.sum()) == 6
    rle = load_mask(__import__("json").dumps(rle_encode(png)), tmp_path)
    assert (rle == png).all()
    polygon = load_mask("[[2, 1], [4, 1], [4, 2], [2, 2]]", tmp_path, shape=(4, 6))
    assert (polygon == png).all()
    with pytest.raises(InputError, match="outside|escapes|inside"):
        load_mask("../m.png", tmp_path / "sub")
    np.save(tmp_path / "map.npy", np.full((4, 6), 0.25))
    assert load_array("map.npy", tmp_path).max() == 0.25


DEFECTS = __import__("json").loads((CASES / "defect_maps.json").read_text())["cases"]


@pytest.mark.parametrize("case", DEFECTS, ids=lambda c: c["name"])
def test_pixel_auroc_and_pro(case):
    maps = [np.array(m, dtype=float) for m in case["maps"]]
    masks = [np.array(m, dtype=bool) for m in case["masks"]]
    for function, key in ((pixel_auroc, "auroc"), (pro_score, "pro")):
        value = function(maps, masks)
        assert value == (None if case[key] is None else pytest.approx(case[key])), key


def test_pixel_auroc_is_the_share_of_ordered_pixel_pairs():
    # Oracle: the definition, counted pair by pair here (not through rank_auroc, which
    # pixel_auroc and auroc both call): a defect pixel above a normal one counts 1, a tie 1/2.
    rng = np.random.default_rng(1)
    scores = rng.random((8, 8)).round(1)  # rounding to 0.1 makes many ties
    mask = rng.random((8, 8)) > 0.7
    defect, normal = scores[mask], scores[~mask]
    above = (defect[:, None] > normal[None, :]).sum()
    ties = (defect[:, None] == normal[None, :]).sum()
    assert ties > 0
    expected = (above + ties / 2) / (defect.size * normal.size)
    assert pixel_auroc([scores], [mask]) == pytest.approx(expected, abs=1e-12)


def test_pixel_auroc_by_hand():
    # defect pixels 0.9, 0.4; normal 0.4, 0.1: pairs (0.9>0.4, 0.9>0.1, 0.4=0.4, 0.4>0.1)
    # = (1 + 1 + 0.5 + 1) / 4
    scores = np.array([[0.9, 0.4], [0.4, 0.1]])
    mask = np.array([[True, True], [False, False]])
    assert pixel_auroc([scores], [mask]) == 3.5 / 4


def test_defect_maps_need_matching_shapes():
    with pytest.raises(InputError, match="shape"):
        pixel_auroc([np.zeros((2, 2))], [np.zeros((2, 3), bool)])
