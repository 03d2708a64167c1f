"""Pins of scoring/metrics/masks.py beyond tests/cases/masks.json and defect_maps.json
(mutation testing, benchmarks/mutation.py target `metrics_masks`): PRO's regions (8-connected,
counted over every image), its ties, its cut at `max_fpr` with interpolation, pycocotools'
compressed counts with multi-group and negative values, and the PNG scales. Expected values
are worked out by hand from the rules in the module's docstrings (the PRO curve is written
out point by point in each comment) or, where said, from pycocotools' own output."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from bench_kit.errors import InputError
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

# One row of 11 pixels: normal pixels at 0.9 (1), 0.5 (4) and 0.1 (5); the one defect pixel
# (a region of its own) ties with the four normal ones at 0.5 and comes first among them.
TIE_MAP = np.array([[0.9, 0.5, 0.5, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1, 0.1, 0.1]])
TIE_MASK = np.array([[0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]], dtype=bool)


@pytest.mark.parametrize("max_fpr, expected", [
    # The curve, one point per distinct score (a tie is one point, after all its pixels):
    # start (0, 0); 0.9 -> (0.1, 0); 0.5 -> (0.5, 1); 0.1 -> (1, 1).
    # 0.3 lies inside (0.1, 0.5): PRO there = 0 + (0.3 - 0.1) / (0.5 - 0.1) * 1 = 0.5;
    # area = 0.2 * (0 + 0.5) / 2 = 0.05; / 0.3 = 1/6.
    (0.3, 1 / 6),
    # 0.5 is a point: area = 0.4 * (0 + 1) / 2 = 0.2; / 0.5 = 0.4.
    (0.5, 0.4),
    # the whole curve: 0.2 + 0.5 * 1 = 0.7; / 1 = 0.7 (the last point (1, 1) counts).
    (1.0, 0.7),
])
def test_pro_merges_a_tie_into_one_point_and_interpolates_at_max_fpr(max_fpr, expected):
    # Were the tie split (defect first), the curve would rise at FPR 0.1: 0.2 / 0.3 = 2/3.
    assert pro_score([TIE_MAP], [TIE_MASK], max_fpr) == pytest.approx(expected, abs=1e-12)


def test_pro_default_max_fpr_is_0_3():
    assert pro_score([TIE_MAP], [TIE_MASK]) == pytest.approx(1 / 6, abs=1e-12)


def test_pro_counts_regions_over_every_image():
    # Image 1: regions A (score 0.9) and B (0.1), one pixel each; image 2: region C of two
    # pixels (0.8 and 0.2). 3 regions, so A weighs 1/3 and each pixel of C 1/6; the six
    # normal pixels all score 0.5. Curve: (0, 0); 0.9 -> (0, 1/3); 0.8 -> (0, 1/2);
    # 0.5 -> (1, 1/2); 0.2 -> (1, 2/3); 0.1 -> (1, 1). Up to 0.3 PRO is 1/2: 0.15 / 0.3.
    maps = [np.array([[0.9, 0.5, 0.1, 0.5, 0.5]]), np.array([[0.8, 0.2, 0.5, 0.5, 0.5]])]
    masks = [np.array([[1, 0, 1, 0, 0]], bool), np.array([[1, 1, 0, 0, 0]], bool)]
    assert pro_score(maps, masks) == pytest.approx(0.5, abs=1e-12)


def test_pro_regions_are_8_connected_as_mvtec_ad_labels_them():
    # MVTec AD's evaluation (mvtec_ad_evaluation, pro_curve_util.py) labels regions with
    # `structure = np.ones((3, 3))`: a pixel touching another only at a corner joins it.
    # Here (0,0), (0,1) and (1,2) are one region of 3 pixels; only (1,2) scores above the
    # normal pixels (all 0.5), so PRO is 1/3 up to FPR 1 (0.1 / 0.3). With 4-connectivity
    # it would be two regions, {(0,0), (0,1)} at 0 and {(1,2)} at 1: 1/2.
    mask = np.array([[1, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool)
    scores = np.array([[0.0, 0.0, 0.5], [0.5, 0.5, 0.9], [0.5, 0.5, 0.5]])
    assert pro_score([scores], [mask]) == pytest.approx(1 / 3, abs=1e-12)


def test_pro_curve_exactly_on_max_fpr():
    # Ten normal pixels 1.0 ... 0.1 and two one-pixel regions: D1 at 1.5 and D2 at 0.75,
    # which falls after three normal pixels. Curve: (0, 0); 1.5 -> (0, 1/2); 1.0, 0.9, 0.8
    # -> (0.1, 1/2), (0.2, 1/2), (0.3, 1/2); 0.75 -> (0.3, 1); ... The point at 0.3 ends
    # the area: 0.3 * 1/2 = 0.15; / 0.3 = 0.5.
    scores = np.array([[1.5, 1.0, 0.9, 0.8, 0.75, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]])
    mask = np.array([[1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]], dtype=bool)
    assert pro_score([scores], [mask]) == pytest.approx(0.5, abs=1e-12)
    # up to 0.4: the rise at 0.3 adds no area, then (0.3, 1) -> (0.4, 1) adds 0.1 * 1:
    # 0.25 / 0.4 = 0.625.
    assert pro_score([scores], [mask], 0.4) == pytest.approx(0.625, abs=1e-12)


def test_pro_none_without_a_region_or_without_a_normal_pixel():
    assert pro_score([np.array([[0.1, 0.2]])], [np.zeros((1, 2), bool)]) is None
    assert pro_score([np.array([[0.1, 0.2]])], [np.ones((1, 2), bool)]) is None
    assert pro_score([], []) is None


def test_pro_perfect_map_is_exactly_one():
    # every defect pixel above every normal one: PRO is 1 from FPR 0, area 0.3 * 1 / 0.3
    mask = np.array([[1, 1, 0, 0]], dtype=bool)
    assert pro_score([np.array([[0.9, 0.8, 0.2, 0.1]])], [mask]) == pytest.approx(1.0)


def test_pair_checks_name_counts_and_the_map():
    with pytest.raises(InputError, match="2 score maps but 1 masks"):
        pro_score([np.zeros((1, 2)), np.zeros((1, 2))], [np.zeros((1, 2), bool)])
    with pytest.raises(InputError, match=r"map 1: shape \(1, 3\) differs from its mask \(1, 2\)"):
        pixel_auroc([np.zeros((1, 2)), np.zeros((1, 3))],
                    [np.zeros((1, 2), bool), np.zeros((1, 2), bool)])


def test_pixel_auroc_none_for_no_maps_or_one_class():
    assert pixel_auroc([], []) is None
    assert pixel_auroc([np.array([[0.1, 0.9]])], [np.ones((1, 2), bool)]) is None
    assert pixel_auroc([np.array([[0.1, 0.9]])], [np.zeros((1, 2), bool)]) is None


def test_pixel_auroc_reads_a_0_255_mask_as_defect_or_not():
    # a mask as a PNG holds it (0 / 255): defect 0.9 vs normal 0.1 -> 1
    mask = np.array([[255, 0]], dtype=np.uint8)
    assert pixel_auroc([np.array([[0.9, 0.1]])], [mask]) == 1.0
    assert pixel_auroc([np.array([[0.9, 0.1]])], [np.array([[255, 255]], np.uint8)]) is None


def test_pro_ranks_unsigned_integer_maps_by_value():
    # an 8-bit map read raw: defect 200 above normal 100 and 0: PRO 1 from FPR 0 (negating
    # the unsigned values themselves would put 0 first)
    scores = np.array([[200, 100, 0]], dtype=np.uint8)
    assert pro_score([scores], [np.array([[1, 0, 0]], bool)]) == 1.0


def test_pro_is_capped_at_one_against_rounding():
    # a region of 9 pixels weighs 1/9 a pixel; nine of them add up to 1.0000000000000002
    # in floating point. Every defect pixel above every normal one: PRO is exactly 1.
    mask = np.zeros((1, 12), dtype=bool)
    mask[0, :9] = True
    scores = np.array([[0.9] * 9 + [0.1] * 3])
    assert pro_score([scores], [mask]) == 1.0


def test_pixel_auroc_pools_images():
    # defect 0.6 (image 1) vs normal 0.7 (image 2) and 0.2 (image 1): (0 + 1) / 2
    assert pixel_auroc([np.array([[0.6, 0.2]]), np.array([[0.7]])],
                       [np.array([[1, 0]], bool), np.array([[0]], bool)]) == 0.5


# pycocotools' compressed counts, encoded by hand from its rule (5-bit groups from chr(48),
# 0x20 = more groups, 0x10 of the last group = negative, from the fourth run on the value
# is the difference to the run two before); pycocotools 2.0.11's `frPyObjects` gives the
# same strings (run outside the project):
@pytest.mark.parametrize("counts, string, row", [
    # 40 = 0b1_01000: group 8 with 0x20 (chr(48 + 40) = "X"), then 1 ("1"); 2; 38 likewise
    # "V1" (the third run, index 2, is still written as is). Runs alternate from 0:
    # 40 zeros, 2 ones, 38 zeros.
    ([40, 2, 38], "X12V1", [0] * 40 + [1, 1] + [0] * 38),
    # index 3: 1 - 3 = -2 -> group 30 (0b11110, 0x10 set, -2 >> 5 = -1 ends it): "N";
    # index 4: 4 - 1 = 3: "3". 2 zeros, 3 ones, 1 zero, 1 one, 4 zeros.
    ([2, 3, 1, 1, 4], "231N3", [0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0]),
])
def test_compressed_counts_by_hand(counts, string, row):
    assert counts_to_string(counts) == string
    size = [1, len(row)]  # one row: column-major order is the row itself
    assert rle_decode({"size": size, "counts": string}).astype(int).tolist() == [row]
    assert rle_decode({"size": size, "counts": counts}).astype(int).tolist() == [row]
    assert rle_encode(np.array([row], bool))["counts"] == counts


def test_compressed_counts_that_end_inside_a_number_are_an_error():
    # "X" is group 8 with the 0x20 "more" bit and nothing after it
    with pytest.raises(InputError, match="ends inside a number"):
        rle_decode({"size": [1, 40], "counts": "X"})


def test_rle_is_column_major():
    # counts [1, 3, 2] on 2 x 3: column by column 0 | 1 1 | 1 0 | 0 -> columns (0,1) (1,1) (0,0)
    mask = rle_decode({"size": [2, 3], "counts": [1, 3, 2]})
    assert mask.astype(int).tolist() == [[0, 1, 0], [1, 1, 0]]
    assert rle_encode(mask) == {"size": [2, 3], "counts": [1, 3, 2]}


def test_rle_encode_starts_with_a_zero_run_when_the_first_pixel_is_foreground():
    # column major 1 1 | 0 1: no background first, so a run of 0; pycocotools 2.0.11's
    # `encode` of this mask gives "021O" (index 3: 1 - 2 = -1, group 31 = "O")
    encoded = rle_encode(np.array([[1, 0], [1, 1]], dtype=bool))
    assert encoded == {"size": [2, 2], "counts": [0, 2, 1, 1]}
    assert counts_to_string(encoded["counts"]) == "021O"


def _exactly(message: str) -> str:
    return f"^{re.escape(message)}$"


def test_rle_errors_word_for_word():
    needs = "an RLE mask needs 'size': [h, w] and 'counts'"
    with pytest.raises(InputError, match=_exactly(needs)):
        rle_decode({"size": [2, 2]})
    with pytest.raises(InputError, match=_exactly(needs)):
        rle_decode({"size": ["a", 2], "counts": [4]})
    with pytest.raises(InputError, match=_exactly("RLE counts must not be negative")):
        rle_decode({"size": [1, 2], "counts": [3, -1]})
    # 2 x 3 = 6 pixels, counts sum to 5
    with pytest.raises(InputError, match=_exactly("RLE counts sum to 5, not h*w = 6")):
        rle_decode({"size": [2, 3], "counts": [1, 4]})
    with pytest.raises(InputError, match=_exactly("RLE counts string ends inside a number")):
        rle_decode({"size": [1, 40], "counts": "X"})


def test_rle_counts_written_as_floats_and_the_mask_is_boolean():
    # a JSON writer may give 1.0 for 1: the same runs
    mask = rle_decode({"size": [2, 3], "counts": [1.0, 2.0, 3.0]})
    assert mask.dtype == bool
    assert mask.tolist() == [[False, True, False], [True, False, False]]


def test_rle_encode_reads_any_non_zero_as_foreground():
    # 2 and 1 are both foreground: one run of 2 after a zero-length background run
    assert rle_encode(np.array([[2], [1]])) == {"size": [2, 1], "counts": [0, 2]}


def test_mask_iou_by_hand():
    # intersection 1, union 3
    a = np.array([[1, 1, 0]], dtype=bool)
    b = np.array([[0, 1, 1]], dtype=bool)
    assert mask_iou(a, b) == 1 / 3


def _png(path, array, mode=None):
    from PIL import Image

    Image.fromarray(array, mode=mode).save(path) if mode else Image.fromarray(array).save(path)


def test_png_score_maps_scale_by_their_depth(tmp_path):
    # 8-bit: 255 -> 1.0, 51 -> 0.2; 16-bit: 65535 -> 1.0, 13107 -> 0.2
    _png(tmp_path / "a.png", np.array([[255, 51, 0]], dtype=np.uint8))
    assert load_array("a.png", tmp_path).tolist() == [[1.0, 0.2, 0.0]]
    _png(tmp_path / "b.png", np.array([[65535, 13107, 0]], dtype=np.uint16))
    assert load_array("b.png", tmp_path).tolist() == [[1.0, 0.2, 0.0]]
    # a dark 16-bit map (nothing above 255) is still 16-bit: 255 / 65535, 256 / 65535
    _png(tmp_path / "c.png", np.array([[255, 256, 0]], dtype=np.uint16))
    assert load_array("c.png", tmp_path).tolist() == [[255 / 65535, 256 / 65535, 0.0]]
    _png(tmp_path / "d.png", np.array([[255, 0]], dtype=np.uint16))
    assert load_array("d.png", tmp_path).tolist() == [[255 / 65535, 0.0]]


def test_a_colour_png_map_is_read_as_its_grey_level(tmp_path):
    # white -> 1.0, black -> 0.0: one value a pixel, not three channels
    _png(tmp_path / "rgb.png", np.array([[[255, 255, 255], [0, 0, 0]]], dtype=np.uint8))
    assert load_array("rgb.png", tmp_path).tolist() == [[1.0, 0.0]]


def test_an_npy_of_objects_is_refused_not_unpickled(tmp_path):
    np.save(tmp_path / "o.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match="^cannot read score map 'o.npy': "):
        load_array("o.npy", tmp_path)


def test_bad_rle_json_message_quotes_its_first_40_characters(tmp_path):
    spec = "{" + "x" * 60
    with pytest.raises(InputError, match=_exactly(f"mask {spec[:40]!r} is not valid RLE JSON")):
        load_array(spec, tmp_path)


def test_load_array_reads_rle_json_and_reports_bad_input(tmp_path):
    spec = json.dumps({"size": [1, 2], "counts": [1, 1]})
    assert load_array(f"  {spec} ", tmp_path).tolist() == [[False, True]]
    with pytest.raises(InputError, match="not valid RLE JSON"):
        load_array("{size: [1, 2]}", tmp_path)
    (tmp_path / "bad.npy").write_bytes(b"not numpy")
    with pytest.raises(InputError, match="cannot read score map 'bad.npy'"):
        load_array("bad.npy", tmp_path)
    (tmp_path / "bad.png").write_bytes(b"not a png")
    with pytest.raises(InputError, match="^cannot read mask 'bad.png': ") as err:
        load_array("bad.png", tmp_path)
    # Pillow's error has no strerror: its own text is the reason, not "None"
    assert "cannot identify image file" in str(err.value)


def test_load_mask_png_is_non_zero_and_npy_upper_case_suffix(tmp_path):
    _png(tmp_path / "m.png", np.array([[0, 1, 200]], dtype=np.uint8))
    png = load_mask("m.png", tmp_path)
    assert png.dtype == bool and png.tolist() == [[False, True, True]]
    np.save(tmp_path / "m.npy", np.array([[0.0, 0.5]]))
    (tmp_path / "m.npy").rename(tmp_path / "M.NPY")
    assert load_array("M.NPY", tmp_path).tolist() == [[0.0, 0.5]]


def test_polygons_need_the_image_size_three_points_and_pairs(tmp_path):
    with pytest.raises(InputError, match=_exactly("a polygon mask needs the image size")):
        load_mask("[[0, 0], [1, 0], [1, 1]]", tmp_path)
    # three points are a polygon: the triangle (0,0) (2,0) (0,2) covers row 0 fully,
    # the first two pixels of row 1 and the first of row 2 (Pillow fills edges inclusively)
    triangle = load_mask("[[0, 0], [2, 0], [0, 2]]", tmp_path, shape=(3, 3))
    assert triangle.dtype == bool
    assert triangle.astype(int).tolist() == [[1, 1, 1], [1, 1, 0], [1, 0, 0]]
    long = "[[0, 0, 1], [1, 0, 1], [1, 1, 1], [2, 2, 2], [3, 3, 3]]"
    with pytest.raises(InputError, match=_exactly(f"polygon {long[:40]!r} is not [[x, y], ...]")):
        load_mask(long, tmp_path, shape=(2, 3))
    # two points draw nothing: an empty mask of the image's size (height 2, width 3)
    line = load_mask("[[0, 0], [2, 1]]", tmp_path, shape=(2, 3))
    assert line.shape == (2, 3) and not line.any()
    with pytest.raises(InputError, match="is not \\[\\[x, y\\], ...\\]"):
        load_mask("[[0, 0, 1], [1, 0, 1], [1, 1, 1]]", tmp_path, shape=(2, 3))


def test_pro_equals_mvtec_3d_ad_evaluation_on_every_generated_case():
    # tests/scoring/reference/vectors/pro.jsonl: 150 seeded cases scored by MVTec 3D-AD's
    # evaluation code run unmodified (README.md there). Its FPRs are float32: 1e-6.
    from pathlib import Path

    vectors = Path(__file__).parent / "reference" / "vectors" / "pro.jsonl"
    rows = [json.loads(line) for line in vectors.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 150
    for number, row in enumerate(rows, start=1):
        value = pro_score([np.array(m, dtype=float) for m in row["maps"]],
                          [np.array(m, dtype=bool) for m in row["masks"]], row["max_fpr"])
        assert value == pytest.approx(row["mvtec_pro"], abs=1e-6), number
