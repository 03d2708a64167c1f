"""Pins of scoring/extract/boxes.py beyond tests/cases/extract_box.json (mutation testing,
benchmarks/mutation.py target `extract_boxes`): the `auto` scale rule exactly on its
thresholds, the checks of `_scaled`, and the padding geometry with odd sizes. Expected
values are worked out by hand from the module docstring's rules, in the comments."""

from __future__ import annotations

import pytest

from bench_kit.errors import InputError
from bench_kit.scoring.extract.boxes import (
    NO_BOX,
    box_from_padded,
    box_spans,
    box_to_padded,
    detect_format,
    extract_box_detailed,
    found_boxes,
    square_padding,
    to_pixels,
)
from bench_kit.scoring.extract.response import FAILED


@pytest.mark.parametrize("box, expected", [
    ((0.0, 0.0, 1.0, 1.0), "norm1"),        # 0 and 1 are inside [0, 1]
    ((0.0, 0.0, 1.0, 1.5), "pixel"),        # 1.5 > 1; nothing beyond 640x480 -> pixel
    ((-0.5, 0.0, 1.0, 1.0), "pixel"),       # -0.5 < 0
    ((100, 10, 640, 20), "pixel"),          # x2 = width exactly: not beyond
    ((100, 10, 641, 20), "norm1000"),       # x2 = width + 1: beyond, all <= 1000
    ((641, 10, 100, 20), "norm1000"),       # x1 is the larger: max(x1, x2) is what counts
    ((10, 100, 20, 480), "pixel"),          # y2 = height exactly
    ((10, 481, 20, 100), "norm1000"),       # y1 = height + 1 (the larger of y1, y2)
    ((10, 10, 1000, 20), "norm1000"),       # 1000 exactly is on the grid
    ((10, 10, 1000.5, 20), "pixel"),        # above 1000: beyond the grid too
    ((10, 10, 20, 1001), "pixel"),
])
def test_detect_format_thresholds(box, expected):
    assert detect_format(box, 640, 480) == expected


def test_grid_tokens_make_an_in_image_box_norm1000_but_not_one_above_1000():
    assert detect_format((100, 200, 300, 400), 640, 480) == "pixel"
    assert detect_format((100, 200, 300, 400), 640, 480, grid_tokens=True) == "norm1000"
    assert detect_format((100, 200, 300, 1001), 640, 480, grid_tokens=True) == "pixel"


def test_to_pixels_scales_and_orders_corners():
    # norm1000 on 640x480: x * 0.64, y * 0.48; the corners are swapped back in order
    assert to_pixels((500, 1000, 250, 0), 640, 480, "norm1000") == (160.0, 0.0, 320.0, 480.0)
    # norm1: x * 640, y * 480
    assert to_pixels((0.5, 0.25, 0.25, 0.5), 640, 480, "norm1") == (160.0, 120.0, 320.0, 240.0)
    # pixel: unchanged but ordered
    assert to_pixels((30, 40, 10, 20), 640, 480, "pixel") == (10.0, 20.0, 30.0, 40.0)
    # auto default: (100, 200, 300, 400) fits 640x480 -> pixel
    assert to_pixels((100, 200, 300, 400), 640, 480) == (100.0, 200.0, 300.0, 400.0)


@pytest.mark.parametrize("width, height", [(0, 480), (640, 0), (-1, 480), (640, -1)])
def test_image_size_must_be_positive(width, height):
    with pytest.raises(InputError, match="image size must be positive"):
        to_pixels((1, 2, 3, 4), width, height, "pixel")
    with pytest.raises(InputError, match="image size must be positive"):
        extract_box_detailed("", width, height)  # checked before the text is read


def test_size_one_is_accepted():
    assert to_pixels((0, 0, 1, 1), 1, 1, "pixel") == (0.0, 0.0, 1.0, 1.0)
    assert extract_box_detailed("[0, 0, 1, 1]", 1, 1).detail == "auto:norm1"


def test_unknown_box_format_names_the_field():
    with pytest.raises(InputError, match="box_format must be one of auto, pixel, norm1, "
                                         "norm1000, got 'norm100'") as info:
        to_pixels((1, 2, 3, 4), 640, 480, "norm100")
    assert info.value.field == "box_format"


def test_detail_says_auto_only_when_detected():
    found = extract_box_detailed("[100, 200, 300, 400]", 640, 480)
    assert (found.value, found.parse, found.detail) == ((100.0, 200.0, 300.0, 400.0), "ok",
                                                        "auto:pixel")
    found = extract_box_detailed("[100, 200, 300, 400]", 640, 480, box_format="norm1000")
    # 100 * 0.64 = 64, 200 * 0.48 = 96, 300 * 0.64 = 192, 400 * 0.48 = 192
    assert (found.value, found.detail) == ((64.0, 96.0, 192.0, 192.0), "norm1000")


@pytest.mark.parametrize("token", ["<box>", "<|box_start|>"])
def test_qwen_box_tokens_select_the_grid(token):
    # an in-image box between Qwen-VL tokens is on the 0-1000 grid: 100*0.64 = 64 ...
    found = extract_box_detailed(f"{token}(100,200),(300,400)", 640, 480)
    assert (found.value, found.detail) == ((64.0, 96.0, 192.0, 192.0), "auto:norm1000")


def test_four_zeros_is_a_rejection_keeping_the_parse():
    found = extract_box_detailed("[0, 0, 0, 0]", 640, 480)
    assert (found.value, found.parse, found.detail) == (NO_BOX, "ok", "rejection")
    # one non-zero coordinate: a real (degenerate) box
    assert extract_box_detailed("[0, 0, 0, 1]", 640, 480).value == (0.0, 0.0, 0.0, 480.0)


def test_no_box_no_rejection_and_empty_text_fail():
    assert extract_box_detailed("", 640, 480) is FAILED
    assert extract_box_detailed("I see a cat.", 640, 480) is FAILED
    found = extract_box_detailed("There is no such object.", 640, 480)
    assert (found.value, found.parse, found.detail) == (NO_BOX, "ok", "rejection")


def test_only_a_run_of_exactly_four_numbers_is_a_box():
    assert found_boxes("10 20 30") == []
    assert found_boxes("10 20 30 40") == [(0, (10.0, 20.0, 30.0, 40.0))]
    assert found_boxes("10 20 30 40 50") == []


def test_keyed_corners_need_a_colon_or_equals_and_boxes_come_in_text_order():
    # keyed corners at offset 0; the bracketed box after "x1=1 y1=2 x2=3 y2=4" (19
    # characters) + " then " (6) = offset 25
    text = "x1=1 y1=2 x2=3 y2=4 then [5, 6, 7, 8]"
    assert found_boxes(text) == [(0, (1.0, 2.0, 3.0, 4.0)), (25, (5.0, 6.0, 7.0, 8.0))]
    # the point pair (offset 0) and the four (offset 14) sorted by offset
    assert found_boxes("(1,2),(3,4) , [5 6 7 8]") == [(0, (1.0, 2.0, 3.0, 4.0)),
                                                      (14, (5.0, 6.0, 7.0, 8.0))]
    # the larger box first in the text: sorted by offset, not by the coordinates
    # ("[5 6 7 8]" at 0, 9 characters + " then " = the pair at 15)
    assert found_boxes("[5 6 7 8] then (1,2),(3,4)") == [(0, (5.0, 6.0, 7.0, 8.0)),
                                                         (15, (1.0, 2.0, 3.0, 4.0))]


def test_box_spans_are_sorted_start_end():
    # "[5, 6, 7, 8]" at 0-12, "(1,2),(3,4)" at 17-28
    assert box_spans("[5, 6, 7, 8] and (1,2),(3,4)") == [(0, 12), (17, 28)]


def test_square_padding_with_odd_sizes():
    # portrait 320x641: side 641, dx = (641 - 320) // 2 = 160 (floor of 160.5), dy = 0
    assert square_padding(320, 641) == (641, 160, 0)
    # landscape 641x320: dx = 0, dy = 160
    assert square_padding(641, 320) == (641, 0, 160)


def test_padding_round_trip_on_a_portrait_image():
    # 320x640: side 640, dx 160, dy 0. Box (0, 0, 320, 640) -> x (0+160)/640 = 0.25,
    # (320+160)/640 = 0.75; y 0 and 1
    assert box_to_padded((0, 0, 320, 640), 320, 640) == (0.25, 0.0, 0.75, 1.0)
    assert box_from_padded((0.25, 0.0, 0.75, 1.0), 320, 640) == (0.0, 0.0, 320.0, 640.0)
    # a box off the origin: (10, 20, 30, 40) -> ((170)/640, 20/640, 190/640, 40/640)
    assert box_to_padded((10, 20, 30, 40), 320, 640) == (170 / 640, 20 / 640, 190 / 640,
                                                         40 / 640)
    assert box_from_padded((170 / 640, 20 / 640, 190 / 640, 40 / 640), 320, 640) == \
        pytest.approx((10, 20, 30, 40))
