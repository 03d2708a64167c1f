"""Label and redundancy checks that compare items with each other (bench_kit/audit/label_checks.py)."""

from __future__ import annotations

from conftest import make_item
from test_audit_text import run_check

from bench_kit.audit.label_checks import strip_negation


def _ids(findings):
    return {f.id: f for f in findings}


def test_same_question_same_image_different_gold_is_inconsistent():
    rows = [make_item(id="a", image="x.png", question="How many bars?", answers=["3"]),
            make_item(id="b", image="x.png", question="How many bars ?", answers=["4"]),
            make_item(id="c", image="y.png", question="How many bars?", answers=["5"])]
    found = _ids(run_check("label.inconsistent_answers", rows))
    assert set(found) == {"a", "b"}
    assert found["a"].evidence["kind"] == "same_question_different_gold"
    assert found["a"].severity == "error"


def test_negation_pair_with_the_same_gold_is_inconsistent_and_opposite_gold_is_not():
    yes = {"task": "yesno", "image": "x.png"}
    rows = [make_item(id="p", question="Is the cat on the mat?", answers=["yes"], **yes),
            make_item(id="n", question="Isn't the cat on the mat?", answers=["yes"], **yes),
            make_item(id="q", question="Is the dog red?", answers=["no"],
                      **{**yes, "image": "z.png"}),
            make_item(id="r", question="Is the dog not red?", answers=["yes"],
                      **{**yes, "image": "z.png"})]
    found = _ids(run_check("label.inconsistent_answers", rows))
    assert set(found) == {"p", "n"}
    assert found["n"].evidence["kind"] == "negation_same_gold"
    assert strip_negation("猫不在垫子上吗？") == ("猫在垫子上吗", True)


def test_mc_golds_and_answer_text():
    mc = {"task": "mc", "choices": {"A": "cat", "B": "dog", "C": "Cat."}}
    rows = [make_item(id="two", answers=["A", "B"], **mc),
            make_item(id="same_text", answers=["A", "C"], **mc),
            make_item(id="multi", answers=["A", "B"], meta={"multi_select": True}, **mc),
            make_item(id="text", answers=["A"], meta={"answer_text": "dog"}, **mc),
            make_item(id="prefixed", answers=["B"], meta={"answer": "A. cat"}, **mc),
            make_item(id="agrees", answers=["B"], meta={"answer_text": "dog"}, **mc)]
    found = _ids(run_check("label.inconsistent_answers", rows))
    assert set(found) == {"two", "text", "prefixed"}
    assert found["text"].evidence["kind"] == "answer_text_mismatch"


def test_signed_and_unit_options_are_not_duplicates():
    mc = {"task": "mc", "answers": ["A"]}
    rows = [make_item(id="sign", choices={"A": "-6", "B": "6"}, **mc),
            make_item(id="dec", choices={"A": "-16.9", "B": "16.9"}, **mc),
            make_item(id="unit", choices={"A": "16.9%", "B": "16.9", "C": "$16.9"}, **mc),
            make_item(id="same", choices={"A": "16.90", "B": "16.9"}, **mc)]
    found = _ids(run_check("label.duplicate_options", rows))
    assert set(found) == {"same"} and found["same"].severity == "error"


def test_repeated_question_many_items_or_same_image():
    rows = [make_item(id=f"r{i:02d}", question="Describe the chart.", task="open",
                      answers=["-"]) for i in range(20)]
    rows += [make_item(id=f"o{i:02d}", question=f"What is value {i}?", task="open",
                       answers=["-"]) for i in range(80)]
    rows += [make_item(id="c1", image="x.png", question="What is shown?", task="open",
                       answers=["a"]),
             make_item(id="c2", image="x.png", question="What is shown?", task="open",
                       answers=["a"])]
    found = _ids(run_check("redundancy.repeated_question", rows))
    assert {i for i in found if i.startswith("r")} == {f"r{i:02d}" for i in range(20)}
    assert found["c1"].evidence["kind"] == "same_image_copy"
    assert not any(i.startswith("o") for i in found)
    # below the share: a template question on 3% of a file is not a finding
    few = rows[:3] + rows[20:100]
    assert not _ids(run_check("redundancy.repeated_question", few,
                              repeated_question_items=3, repeated_question_share=0.05))


def _on_images(question: str, golds: list[str]) -> list:
    return [make_item(id=f"t{i:02d}", image=f"img{i}.png", question=question, task="open",
                      answers=[gold]) for i, gold in enumerate(golds)]


def test_repeated_question_on_different_images_is_info_only_with_a_constant_gold():
    other = [make_item(id=f"o{i:02d}", question=f"What is value {i}?", task="open",
                       answers=["-"]) for i in range(60)]
    varied = _on_images("What colour is the car?", ["red", "blue", "green", "grey"] * 5)
    assert not _ids(run_check("redundancy.repeated_question", varied + other))
    # 18 of 20 (0.9, the default share exactly) one gold: flagged, the gold named
    constant = _on_images("Is there a person in the image?", ["yes"] * 18 + ["no"] * 2)
    found = _ids(run_check("redundancy.repeated_question", constant + other))
    assert set(found) == {f"t{i:02d}" for i in range(20)}
    assert "gold 'yes' on 18 of them" in found["t00"].message
    assert found["t00"].evidence["kind"] == "repeated_across_items"
    assert {f.severity for f in found.values()} == {"info"}
    # the same repeats with no image are a copy error, at warn
    copies = [make_item(id=f"n{i:02d}", question="Is there a person in the image?",
                        task="yesno", answers=["yes"]) for i in range(20)]
    assert {f.severity for f in _ids(run_check("redundancy.repeated_question",
                                               copies + other)).values()} == {"warn"}
    # 17 of 20 (0.85) is under the share: template siblings
    below = _on_images("Is there a person in the image?", ["yes"] * 17 + ["no"] * 3)
    assert not _ids(run_check("redundancy.repeated_question", below + other))
    assert _ids(run_check("redundancy.repeated_question", below + other,
                          repeated_question_gold_share=0.85))
