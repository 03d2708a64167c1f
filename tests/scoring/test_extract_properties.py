"""Property tests: every extractor accepts any string without raising, and returns a value
of its declared kind (time per call is measured in benchmarks/extract_bench.py)."""

from __future__ import annotations

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bench_kit.scoring.extract.answers import (  # noqa: E402
    extract_box_detailed,
    extract_choice_detailed,
    extract_number_detailed,
    extract_yesno_detailed,
)
from bench_kit.scoring.extract.checklist import parse_checklist  # noqa: E402
from bench_kit.scoring.extract.response import (  # noqa: E402
    answer_text,
    clean_response,
    normalize_text,
)
from bench_kit.scoring.metric_scorers import mask_spec  # noqa: E402
from bench_kit.scoring.metrics.detection import (  # noqa: E402
    extract_detections,
    extract_point_detailed,
)

# Pieces that steer the extractors into their rarer branches.
FRAGMENTS = ["The answer is ", "Answer:", "答案是", "选", "option ", "(", ")", "[", "]", "{",
             "}", "<think>", "</think>", "<answer>", "</answer>", "\\boxed{", "**", "`", "$",
             "#", " A ", "B", "c", "not ", "n't", "yes", "No", "是", "不", "没有", "三个", "十二",
             "two hundred and five", "1,234", "-3.5", "45%", "3/0", "1e999", ".", ",", "\n",
             "0.5", "1000", '{"bbox_2d": [', '"score": ', '<point x="1" y="', "\x00", "\ufeff",
             "（", "）", "Ｂ", "I ", "A cat", "〇", "亿", "万"]
RESPONSES = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=5)), max_size=40)
    .map("".join),
)
CHOICES = st.one_of(
    st.dictionaries(st.sampled_from(list("ABCDEFGHIJ") + ["a", "K", "", "AB", " b "]),
                    st.text(max_size=20), max_size=10),
    st.just({}),
)
FAST = settings(max_examples=200, deadline=None, database=None)  # no .hypothesis/ folder
PARSES = {"ok", "lenient", "failed"}


@FAST
@given(RESPONSES, CHOICES)
def test_extract_choice_never_raises(response, choices):
    before = dict(choices)
    found = extract_choice_detailed(response, choices)
    assert found.parse in PARSES
    lettered = [k for k in choices if len(k.strip()) == 1 and k.strip().upper() in "ABCDEFGHIJ"]
    # choices without a single letter key read like empty choices: any letter A-J
    assert found.value is None or found.value in choices or (not lettered and found.value
                                                             in "ABCDEFGHIJ")
    assert choices == before  # the caller's mapping is never changed


@FAST
@given(RESPONSES)
def test_extract_yesno_and_number_never_raise(response):
    yesno = extract_yesno_detailed(response)
    assert yesno.value in (None, "yes", "no") and yesno.parse in PARSES
    number = extract_number_detailed(response)
    assert number.parse in PARSES
    assert number.value is None or isinstance(number.value, float)


@FAST
@given(RESPONSES, st.integers(1, 5000), st.integers(1, 5000))
def test_spatial_extractors_never_raise(response, width, height):
    box = extract_box_detailed(response, width, height)
    assert box.value is None or len(box.value) == 4
    point = extract_point_detailed(response, width, height)
    assert point.value is None or len(point.value) == 2
    for detection in extract_detections(response, width, height):
        assert len(detection.box) == 4


@FAST
@given(RESPONSES, st.lists(st.text(max_size=10), max_size=5))
def test_text_helpers_never_raise(response, names):
    assert isinstance(clean_response(response), str)
    assert isinstance(answer_text(response), str)
    assert isinstance(normalize_text(response), str)
    assert len(parse_checklist(response, names)) == len(names)
    spec = mask_spec(response)
    assert spec is None or isinstance(spec, str)
