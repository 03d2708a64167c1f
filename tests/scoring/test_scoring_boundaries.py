"""Boundaries of the scoring rules, each pinned by a case that sits on it; every expected
value is worked out by hand in the comment beside it (issue 29)."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.response import (
    answer_text,
    clean_response,
    contains_phrase,
    format_number,
    pick_candidate,
    strip_reasoning,
)
from bench_kit.scoring.metrics.answers import iou
from bench_kit.scoring.metrics.detection import (
    Detection,
    average_precision,
    detection_f1,
    extract_detections,
    extract_point_detailed,
    match_detections,
    point_in_box,
)
from bench_kit.scoring.metrics.text import lcs_length, macro_f1, rouge_l
from bench_kit.scoring.metrics.vqa import process_punctuation, vqa_accuracy


def test_iou_exactly_at_the_threshold_matches():
    # (0,0,10,10) vs (0,0,10,5): intersection 50, union 100 + 50 - 50 = 100 -> IoU 0.5
    assert iou((0, 0, 10, 10), (0, 0, 10, 5)) == 0.5
    assert match_detections([(0, 0, 10, 10)], [(0, 0, 10, 5)]) == [True]
    assert detection_f1([(0, 0, 10, 10)], [(0, 0, 10, 5)]) == 1.0
    assert match_detections([(0, 0, 10, 10)], [(0, 0, 10, 5)], threshold=0.51) == [False]
    # just under: (0,0,10,4.9) -> 49 / 100
    assert match_detections([(0, 0, 10, 10)], [(0, 0, 10, 4.9)]) == [False]


def test_a_detection_takes_the_gold_it_overlaps_most_not_the_first():
    # pred1 (0,0,10,10): gold A (0,0,10,6) IoU 60/100, gold B (0,0,10,9) IoU 90/100 -> B.
    # pred2 (0,2,10,9): A is left, intersection 10*4 = 40, union 70 + 60 - 40 = 90 -> 0.44,
    # under 0.5. Taking the first gold above 0.5 (A) would leave B for pred2
    # (70 / 90 = 0.78) and give [True, True].
    preds, golds = [(0, 0, 10, 10), (0, 2, 10, 9)], [(0, 0, 10, 6), (0, 0, 10, 9)]
    assert match_detections(preds, golds) == [True, False]
    # F1 of one hit out of 2 predictions and 2 golds: P = R = 1/2
    assert detection_f1(preds, golds) == 0.5


def test_a_gold_is_matched_once():
    # two identical predictions, one gold: the second finds it taken
    assert match_detections([(0, 0, 4, 4), (0, 0, 4, 4)], [(0, 0, 4, 4)]) == [True, False]


@pytest.mark.parametrize("pred, golds, expected", [
    ("paris", ["Paris"], 1.0),      # one gold: normalised gold equals the prediction
    ("PARIS", ["paris"], 1.0),
    # 3 of 10 say Paris: each of them sees 2 others (2/3), each other annotator sees 3 (1)
    # -> (3 * 2/3 + 7 * 1) / 10 = 0.9
    ("paris", ["Paris"] * 3 + ["london"] * 7, 0.9),
    # 4 of 10: every annotator sees at least 3 -> 1.0 (the min(1, n/3) cap)
    ("paris", ["Paris"] * 4 + ["london"] * 6, 1.0),
    # 1 of 10: that one sees 0, the 9 others see 1 -> 9 * (1/3) / 10 = 0.3
    ("paris", ["paris"] + ["london"] * 9, 0.3),
    ("paris", [], 0.0),
])
def test_vqa_accuracy_golds_are_normalised_and_counted(pred, golds, expected):
    assert vqa_accuracy(pred, golds) == pytest.approx(expected, abs=1e-12)


def test_lcs_length_by_hand():
    # the textbook pair (Cormen et al., 15.4): ABCBDAB and BDCABA share BCBA, length 4
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert lcs_length(list("BDCABA"), list("ABCBDAB")) == 4
    assert lcs_length(["a", "b"], ["b", "a"]) == 1
    assert lcs_length(["a", "b", "a"], ["a", "a"]) == 2
    # the 1 found at (q, q) carries right to (q, r) from the left neighbour in the row
    assert lcs_length(["p", "q"], ["q", "r"]) == 1
    assert lcs_length([], ["a"]) == 0 and lcs_length(["a"], []) == 0


def test_rouge_l_by_hand():
    # "red blue green" vs "blue red green white": LCS 2 (red green), P = 2/3, R = 2/4,
    # F1 = 2 P R / (P + R) = (2/3) / (7/6) = 4/7
    assert rouge_l("red blue green", ["blue red green white"]) == pytest.approx(4 / 7)
    # beta 2: F = 5 P R / (R + 4 P) = (5/3) / (1/2 + 8/3) = 10/19
    assert rouge_l("red blue green", ["blue red green white"], beta=2) == pytest.approx(10 / 19)
    # the best gold counts, in any position
    assert rouge_l("red blue green", ["white", "red blue green"]) == 1.0
    assert rouge_l("red", ["white"]) == 0.0


@pytest.mark.parametrize("response, expected", [
    ("<answer>A</answer> on reflection <answer>B</answer>", "B"),
    ("<answer>A</answer> then <answer>B", "B"),           # the last, even left open
    ("\\boxed{3} no wait, \\boxed{4}", "4"),
    ("<answer>x \\boxed{1} y \\boxed{2}</answer>", "2"),
])
def test_the_last_answer_tag_wins(response, expected):
    assert clean_response(response) == expected


def test_the_last_answer_clause_wins():
    assert answer_text("The answer is Paris. Wait, the answer is Rome.") == "Rome"


def test_the_first_candidate_after_the_last_clause_wins():
    text = "Maybe 1. The answer is 2, or 3."
    found = [(text.index("1"), "1"), (text.index("2"), "2"), (text.index("3"), "3")]
    pick = pick_candidate(text, found)
    assert (pick.value, pick.parse) == ("2", "ok")
    # no clause: the first candidate, lenient because the candidates differ
    pick = pick_candidate("1 or 2", [(0, "1"), (5, "2")])
    assert (pick.value, pick.parse) == ("1", "lenient")
    pick = pick_candidate("2 or 2", [(0, "2"), (5, "2")])
    assert (pick.value, pick.parse) == ("2", "ok")


def _dets(*rows):
    return [Detection(tuple(box), confidence, rank) for rank, (box, confidence) in enumerate(rows)]


def test_average_precision_by_hand():
    # ranked hit, miss, hit over 2 golds: precision 1, 1/2, 2/3 at recall 1/2, 1/2, 1;
    # envelope 1, 2/3, 2/3. The 51 recall levels 0.00-0.50 read 1, the 50 levels
    # 0.51-1.00 read 2/3: AP = (51 + 50 * 2/3) / 101
    detections = {"a": _dets(((0, 0, 10, 10), 0.9), ((50, 50, 60, 60), 0.8),
                             ((20, 20, 30, 30), 0.7))}
    golds = {"a": [(0, 0, 10, 10), (20, 20, 30, 30)]}
    assert average_precision(detections, golds) == pytest.approx((51 + 50 * 2 / 3) / 101)
    # a box on an image without golds is a false positive ranked first: precision 0, 1/2,
    # 1/3, 2/4 at recall 0, 1/2, 1/2, 1 -> envelope 1/2 everywhere -> AP 1/2
    detections["b"] = _dets(((0, 0, 5, 5), 0.95))
    assert average_precision(detections, golds) == pytest.approx(1 / 2)
    assert average_precision({}, {"a": []}) is None


def test_a_box_without_confidence_ranks_as_confidence_one_then_by_rank():
    # X (confidence 1.0, rank 0) is the gold box; Y (no confidence, rank 1) overlaps it
    # 60/100. Tied at 1.0, X comes first and takes the gold: precision 1 at recall 1 -> AP 1.
    # Were a missing confidence above 1.0, Y would take it: precision 0 then 1/2 -> AP 0.5.
    detections = {"a": _dets(((0, 0, 10, 10), 1.0), ((0, 0, 10, 6), None))}
    assert average_precision(detections, {"a": [(0, 0, 10, 10)]}) == 1.0


def test_a_failed_parse_is_not_the_label_none():
    # gold classes "none" and "cat"; the parse of the first failed (None): class "none" has
    # recall 0 (F1 0), class "cat" F1 1 -> macro-F1 1/2, accuracy 1/2
    result = macro_f1(["none", "cat"], [None, "cat"])
    assert (result["macro_f1"], result["accuracy"]) == (0.5, 0.5)
    assert result["per_class"]["none"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0,
                                           "support": 1}


@pytest.mark.parametrize("response, expected", [
    ("(0, 0.5)", (0.0, 50.0)),          # x exactly 0 is still the 0-1 convention
    ("(1, 0.5)", (200.0, 50.0)),        # x exactly 1
    ("(0.5, 0)", (100.0, 0.0)),         # y exactly 0
    ("(0.5, 1)", (100.0, 100.0)),       # y exactly 1
    ("(1.5, 0.5)", (1.5, 0.5)),         # one coordinate above 1: pixels
    ("(0.5, 1.5)", (0.5, 1.5)),
    ("(0.5, 50)", (0.5, 50.0)),
    ("(1000, 50)", (200.0, 5.0)),       # x exactly 1000 is on the grid
    ("(200, 100)", (200.0, 100.0)),     # on the far edge: pixels, not the grid
    ("(150, 500)", (30.0, 50.0)),       # only y beyond the image: 0-1000 grid
    ("(250, 50)", (50.0, 5.0)),         # only x beyond it
    ("(300, 1000)", (60.0, 100.0)),     # y exactly 1000 is on the grid
    ("(300, 1000.5)", (300.0, 1000.5)),  # beyond 1000: left as pixels
    ("(1000.5, 50)", (1000.5, 50.0)),
])
def test_point_scale_boundaries(response, expected):
    # image 200 x 100: all in 0-1 -> unit; beyond the image but <= 1000 -> grid; else pixels
    assert extract_point_detailed(response, 200, 100).value == expected


def test_a_declared_point_and_box_format_is_used():
    assert extract_point_detailed("(0.5, 0.5)", 640, 480, box_format="pixel").value \
        == (0.5, 0.5)
    assert extract_point_detailed("(0.5, 0.5)", 640, 480, box_format="norm1").value \
        == (320.0, 240.0)
    assert extract_point_detailed("(500, 250)", 640, 480, box_format="norm1000").value \
        == (320.0, 120.0)
    # a box's centre under norm1000: (0, 0, 256, 192) -> (128, 96); under auto the box
    # lies inside the image and stays pixels -> (200, 200)
    assert extract_point_detailed("[0, 0, 400, 400]", 640, 480, box_format="norm1000").value \
        == (128.0, 96.0)
    [det] = extract_detections("[0, 0, 400, 400]", 640, 480, box_format="norm1000")
    assert det.box == (0.0, 0.0, 256.0, 192.0)


@pytest.mark.parametrize("width, height", [(0, 100), (100, 0), (-1, 100)])
def test_an_image_without_size_reads_no_point_or_box(width, height):
    assert extract_point_detailed("(5, 5)", width, height).parse == "failed"
    assert extract_detections("[0, 0, 1, 1]", width, height) == []


def test_a_one_pixel_image_still_reads():
    assert extract_point_detailed("(0.5, 0.5)", 1, 1).value == (0.5, 0.5)
    assert [d.box for d in extract_detections("[0, 0, 1, 1]", 1, 1)] == [(0.0, 0.0, 1.0, 1.0)]


def test_a_point_beside_a_box_is_a_point():
    # the point is outside the box's text span, also when it starts right where it ends
    assert extract_point_detailed("(50, 60) and [10, 20, 30, 40]", 200, 100).value \
        == (50.0, 60.0)
    assert extract_point_detailed("[10, 20, 30, 40](50, 60)", 200, 100).value == (50.0, 60.0)
    assert extract_point_detailed("(50, 60)[10, 20, 30, 40]", 200, 100).value == (50.0, 60.0)


@pytest.mark.parametrize("point, box, inside", [
    ((0, 5), (0, 0, 10, 10), True), ((10, 5), (0, 0, 10, 10), True),      # x edges
    ((5, 0), (0, 0, 10, 10), True), ((5, 10), (0, 0, 10, 10), True),      # y edges
    ((8, 2), (0, 0, 10, 4), True), ((2, 8), (0, 0, 4, 10), True),         # wide, tall
    ((2, 10), (0, 5, 10, 20), True),
    ((5, 5), (10, 10, 0, 0), True), ((-0.1, 5), (0, 0, 10, 10), False),   # corner order
])
def test_point_in_box_edges(point, box, inside):
    assert point_in_box(point, box) is inside


def test_detection_f1_uses_its_threshold():
    # IoU (0,0,10,10) vs (0,0,10,6) = 0.6: a hit at 0.5, a miss at 0.7
    assert detection_f1([(0, 0, 10, 10)], [(0, 0, 10, 6)]) == 1.0
    assert detection_f1([(0, 0, 10, 10)], [(0, 0, 10, 6)], threshold=0.7) == 0.0


@pytest.mark.parametrize("text, expected", [
    ("yes! no", "yes no"),      # a mark next to a space is dropped ...
    ("yes !no", "yes no"),
    ("yes!no", "yes no"),       # ... else it becomes a space
    # the official script passes re.UNICODE (32) as `count` to the period strip: the
    # first 32 periods go, the 33rd stays
    ("x." * 33, "x" * 33 + "."),
])
def test_vqa_punctuation_step_as_the_official_script(text, expected):
    assert process_punctuation(text) == expected


@pytest.mark.parametrize("response, expected", [
    (None, ""),                                        # not text: nothing
    ("<thinking>a</thinking>B", "B"),
    ("<think>a</think>B</think>C", "B</think>C"),      # the first closing tag ends it
    ("a</think>B</think>C", "B</think>C"),             # opened by the chat template
    ("</think>B", "B"),                                # ... with nothing before the tag
])
def test_strip_reasoning_ends_at_the_first_closing_tag(response, expected):
    assert strip_reasoning(response) == expected


@pytest.mark.parametrize("response, expected", [
    ("the **B** one", "the B one"), ("__B__ it is", "B it is"), ("a*b", "a b"),
    ("`B`", "B"), ("$x$ is 5", "x  is 5"),
    # a star between two operands on one line, one a digit, is a times sign
    ("9.98*10^-25", "9.98×10^-25"), ("x * 2", "x × 2"), ("8 * 3", "8 × 3"), ("x * y", "x   y"),
    ("* 3 apples", "3 apples"), ("3 *\n* 4", "3  \n  4"),
])
def test_markdown_and_latex_marks_are_dropped(response, expected):
    assert clean_response(response) == expected


def test_answer_text_without_a_usable_clause_is_the_whole_response():
    assert answer_text("Paris") == "Paris"
    assert answer_text("The answer is") == "The answer is"
    assert answer_text("The answer is: Paris.") == "Paris"
    assert answer_text("The answer is: X-ray.") == "X-ray"
    # "İ" lower-cases to two characters, so offsets move: the whole text is scanned
    assert answer_text("İİ. The answer is Paris. Wait, the answer is Rome.") == "Rome"


@pytest.mark.parametrize("text, phrase, found", [
    ("xcat", "cat", False), ("catx", "cat", False), ("cat concatenate", "cat", True),
    ("xcat cat ycat", "cat", True), ("a cat", "", False), ("黑猫", "猫", True),
])
def test_contains_phrase_edges(text, phrase, found):
    assert contains_phrase(text, phrase) is found


@pytest.mark.parametrize("value, text", [
    (0.0, "0"), (-0.0, "0"), (12.0, "12"), (-3.0, "-3"), (0.5, "0.5"),
    (1e15, "1000000000000000"), (1e16, "1e+16"),   # integers below 1e16 only
])
def test_format_number(value, text):
    assert format_number(value) == text
