"""Boundaries and branches of the text and label checks (bench_kit/audit/text_checks.py,
label_checks.py), each expected value worked out by hand in the comment beside it.

The cases sit exactly on a threshold (≥ vs >, a window's last character), pick between
two candidates (first vs last, a tie) or take a documented branch that the case table in
test_audit_text.py does not reach.
"""

from __future__ import annotations

import pytest
from conftest import make_item
from test_audit_text import run_check

from bench_kit.audit.label_checks import strip_negation
from bench_kit.audit.text_checks import (
    question_words,
    quoted_spans,
    unquoted,
    unresolved_pronoun,
)


def _one(name, params=None, **fields):
    findings = run_check(name, [make_item(**fields)], **(params or {}))
    assert len(findings) <= 1
    return findings[0] if findings else None


# --- ambiguity.long_question ----------------------------------------------------------------


@pytest.mark.parametrize("question, words", [
    ("图" * 21, 11),                 # 21 CJK characters / 2 = 10.5, rounded up
    ("How many 图图图?", 4),          # 2 words + ceil(3 / 2)
    ("It's 3.5 cm-wide", 3),         # inner apostrophe, decimal point and hyphen keep a word
])
def test_question_words(question, words):
    assert question_words(question) == words


def test_long_question_counts_cjk_halves_rounded_up():
    # 21 characters are 11 words (10.5 rounded up): over a limit of 10
    finding = _one("ambiguity.long_question", question="图" * 21, params={"max_question_words": 10})
    assert finding is not None and finding.evidence["words"] == 11


def test_long_question_score_evidence_and_cap():
    q60 = " ".join(["word"] * 60)
    finding = _one("ambiguity.long_question", question=q60, params={"max_question_words": 40})
    # (60 - 40) / 40 = 0.5; the check's evidence names both numbers
    assert finding.score == 0.5 and finding.severity == "info"
    assert finding.message == "question has 60 words (max 40)"
    # 299 characters: the span is the first 119 and an ellipsis
    assert finding.evidence == {"field": "question", "span": q60[:119] + "…", "words": 60,
                                "max_question_words": 40}
    # (100 - 40) / 40 = 1.5, capped at 1
    assert _one("ambiguity.long_question", question=" ".join(["word"] * 100),
                params={"max_question_words": 40}).score == 1.0


def test_long_question_span_is_cut_after_120_characters():
    q120 = "ab " * 40          # 120 characters, 40 words
    assert len(q120) == 120
    finding = _one("ambiguity.long_question", question=q120, params={"max_question_words": 1})
    assert finding.evidence["span"] == q120   # 120 is kept whole
    q121 = q120 + "c"
    finding = _one("ambiguity.long_question", question=q121, params={"max_question_words": 1})
    assert finding.evidence["span"] == q121[:119] + "…"
    assert len(finding.evidence["span"]) == 120


def test_long_question_does_not_count_quoted_words():
    # 'Is' and 'long' are the ask (2 words); the five quoted words are what it asks about
    question = 'Is "one two three four five" long?'
    assert _one("ambiguity.long_question", question=question, params={"max_question_words": 2}) is None
    assert _one("ambiguity.long_question", question=question, params={"max_question_words": 1}) is not None


# --- quoted spans and pronouns --------------------------------------------------------------


def test_quoted_spans_ask_line_is_the_first_ending_in_a_colon_or_question_mark():
    # line 1 is a statement, line 2 ends in ':' (the ask), line 3 is quoted
    text = "A passage.\nWhich word is a verb:\nMona runs."
    assert quoted_spans(text) == [(0, 10), (33, 43)]
    # two asks: the first one is the ask, the second is quoted
    text = "Who?\nWhat?"
    assert quoted_spans(text) == [(5, 10)]
    # one line: nothing is quoted
    assert quoted_spans("What is it?") == []
    # no line ends the ask: the last line is the ask (a passage, then the question)
    assert quoted_spans("One.\nTwo.\nWho wrote it") == [(0, 4), (5, 9)]
    # a trailing space after the "?" still ends the ask
    assert quoted_spans("A passage.\nWho wrote it? \nMore.") == [(0, 10), (26, 31)]


def test_unquoted_blanks_the_quote_in_place():
    # '"ab"' (offsets 3-7) becomes four spaces; the rest keeps its offsets
    assert unquoted('Is "ab" ok?') == "Is      ok?"


def test_pronoun_rules():
    # 请问 + 它 opens the question
    assert unresolved_pronoun("请问它是什么？").group(0) == "请问它"
    # a name after a non-possessive pronoun does not resolve it
    assert unresolved_pronoun("What did they give Brown?").group(0) == "they"
    # the name must be in the same sentence as the possessive
    assert unresolved_pronoun("What is its colour? Brown says red.").group(0) == "its"
    # a noun before the pronoun is its antecedent
    assert unresolved_pronoun("What is the dog holding in its mouth?") is None


# --- ambiguity.vague_deixis -----------------------------------------------------------------


def test_vague_deixis_pronoun_and_phrase_are_sorted_by_position():
    # "it" (offset 3) comes before "that one" (offset 16)
    finding = _one("ambiguity.vague_deixis", question="Is it next to that one?")
    assert finding.evidence["span"] == "it" and finding.evidence["at"] == [3, 5]
    assert finding.evidence["spans"] == ["it", "that one"]
    assert finding.evidence["field"] == "question"
    assert finding.message.startswith("'it' does not say which object is meant")


def test_vague_deixis_reads_the_items_after_a_marked_one():
    marked = make_item(id="m", question="What colour is this one?",
                       meta={"visual_prompt": {"kind": "box", "bbox": [1, 1, 9, 9]}})
    plain = make_item(id="p", question="What colour is this one?")
    assert [f.id for f in run_check("ambiguity.vague_deixis", [marked, plain])] == ["p"]


def test_vague_deixis_in_an_item_that_quotes_its_referent():
    # a bare "this" or pronoun refers to the quote ...
    assert _one("ambiguity.vague_deixis",
                question="What kind of sentence is this?\nMona will print her name.") is None
    assert _one("ambiguity.vague_deixis", question='What is it in "the red car"?') is None
    # ... which is what makes them quiet: without the quote both fire
    assert _one("ambiguity.vague_deixis", question="What kind of sentence is this?") is not None
    assert _one("ambiguity.vague_deixis", question="What is it?") is not None
    # "this one" does not point at a quote
    finding = _one("ambiguity.vague_deixis", question='Is this one the "red car"?')
    assert finding.evidence["span"] == "this one" and "spans" not in finding.evidence


# --- ambiguity.compound_question ------------------------------------------------------------


@pytest.mark.parametrize("question, span", [
    ("X is abelian. Then which group is it?", None),   # "Then" opens the only ask
    ("Then which one is red?", None),                  # nothing before "Then"
    ("Wow! Then which one is red?", None),
    ("Is G abelian, then which group is it?", "then which"),  # after a comma: a second ask
    ('Which is a question: "Is it red? Is it blue?"', None),  # the marks are quoted
    ("What is it? Where is it? Why?", "Where is it?"),  # the second ask, not the third
    # the second ask starts before the "and how many" inside it: quoted first
    ("What is it? Where is it and how many are there?", "Where is it and how many are there?"),
])
def test_compound_question_branches(question, span):
    finding = _one("ambiguity.compound_question", question=question)
    assert (finding and finding.evidence["span"]) == span


# --- ambiguity.multi_attribute_count --------------------------------------------------------


def test_multi_attribute_count_grades():
    two = _one("ambiguity.multi_attribute_count", question="How many small red balls are there?")
    assert two.severity == "warn" and two.evidence["attributes"] == 2
    assert "counting and two attribute filters at once" in two.message
    one = _one("ambiguity.multi_attribute_count", question="How many red balls are there?")
    assert one.severity == "info" and one.evidence["attributes"] == 1
    assert "counting and attribute recognition at once" in one.message


# --- ambiguity.dirty_text -------------------------------------------------------------------


def test_dirty_text_first_hit_kinds_and_fields():
    finding = _one("ambiguity.dirty_text", task="open", question="Is it  red?",
                   answers=["yes "])
    # the question comes first; every kind and field is listed, sorted
    assert finding.evidence == {"field": "question", "kind": "doubled_space", "span": "  ",
                                "at": [5, 7], "kinds": ["doubled_space", "edge_space"],
                                "fields": ["answers.0", "question"]}
    assert finding.message == "dirty text in question: doubled_space '  '"


def test_dirty_text_reports_kinds_in_table_order_and_escapes_the_message():
    # the control character is at offset 0 but html_escape comes first in the table
    finding = _one("ambiguity.dirty_text", question="\x07 &amp; cat?")
    assert finding.evidence["kind"] == "html_escape" and finding.evidence["at"] == [2, 7]
    finding = _one("ambiguity.dirty_text", question="Is it red?\x07")
    assert finding.message == "dirty text in question: control_char '\\x07'"


def test_dirty_text_fields_hint_and_answer_index():
    assert _one("ambiguity.dirty_text", question="Q?", meta={"hint": "a  b"}
                ).evidence["field"] == "meta.hint"
    assert _one("ambiguity.dirty_text", question="Q?", meta={"hint": ["a  b"]}) is None
    assert _one("ambiguity.dirty_text", question="Q?", answers=["2", "3 "]
                ).evidence["field"] == "answers.1"
    # the hint is read before the options
    finding = _one("ambiguity.dirty_text", task="mc", answers=["A"], question="Q?",
                   meta={"hint": "x "}, choices={"A": "y ", "B": "z"})
    assert finding.evidence["field"] == "meta.hint"
    assert finding.evidence["fields"] == ["choices.A", "meta.hint"]


# --- label.gold_not_in_choices --------------------------------------------------------------


def test_gold_not_in_choices_with_no_gold_and_non_mc_items():
    from pathlib import Path

    from bench_kit.audit.registry import AuditContext, spec_of
    from bench_kit.types import Item

    good = Item.model_validate(make_item(task="mc", answers=["A"], question="Which?",
                                         choices={"A": "x", "B": "y"}))
    empty = good.model_copy(update={"id": "empty", "answers": []})
    # an open item's answers are not letters: not this check's business
    open_item = Item.model_validate(make_item(id="open", task="open", answers=["C"]))
    spec = spec_of("label.gold_not_in_choices")
    # the open item first: the items after it are still read
    found = list(spec.run(AuditContext(items=[open_item, good, empty], root=Path(".")),
                          spec.params()))
    assert [f.id for f in found] == ["empty"]
    assert found[0].message == "gold (none) not among the choices ['A', 'B']"
    assert found[0].evidence == {"answers": [], "choices": ["A", "B"], "missing": []}


# --- label.answer_in_question ---------------------------------------------------------------


@pytest.mark.parametrize("question, answers, span", [
    ("Point A is where?", ["A"], None),               # a lone letter is a label
    ("Is segment AB longer?", ["AB"], "AB"),          # two letters are a word
    ("红色是什么？", ["红"], None),                     # one Chinese character is too common
    ("The sign says EXIT. What?", [" exit "], "EXIT"),  # the gold is stripped
    ("The sign says EXIT. What?", ["ＥＸＩＴ"], "EXIT"),  # and NFKC-normalised
    ("Is it Jamaica or Tonga?", ["Tonga"], None),     # "or" before: an offered alternative
    ("Is it Jamaica or Tonga?", ["Jamaica"], None),   # "or" after
    ("Is it Jamaica, or Tonga?", ["Jamaica"], None),  # ", or" after
    ("Or Tonga, is it?", ["Tonga"], None),            # "or" at the very start
    ("是蓝色或红色？", ["红色"], None),
    ("是红色还是蓝色？", ["红色"], None),
    ("Is it Tonga or Samoa? Fiji is near.", ["Tonga", "Fiji"], "Fiji"),  # next gold read
    ("The sign says EXIT above the door.", ["exit", "door"], "EXIT"),     # first gold only
])
def test_answer_in_question_cases(question, answers, span):
    findings = run_check("label.answer_in_question",
                         [make_item(task="open", question=question, answers=answers)])
    assert [f.evidence["span"] for f in findings] == ([span] if span else [])


def test_answer_in_question_alternative_window_is_12_characters():
    # "or" + 10 spaces = 12 characters before the gold: inside the window, exempt
    inside = "Is it Fiji or" + " " * 10 + "Tonga?"
    # "or" + 11 spaces: the "o" falls out of the window, so the gold is given away
    outside = "Is it Fiji or" + " " * 11 + "Tonga?"
    check = "label.answer_in_question"
    assert run_check(check, [make_item(task="open", question=inside, answers=["Tonga"])]) == []
    assert len(run_check(check, [make_item(task="open", question=outside,
                                           answers=["Tonga"])])) == 1
    # after the gold: 10 spaces + "or" = 12 characters, inside; 11 spaces, outside
    after_in = "Is it Tonga" + " " * 10 + "or Fiji?"
    after_out = "Is it Tonga" + " " * 11 + "or Fiji?"
    assert run_check(check, [make_item(task="open", question=after_in, answers=["Tonga"])]) == []
    assert len(run_check(check, [make_item(task="open", question=after_out,
                                           answers=["Tonga"])])) == 1


def test_answer_in_question_offsets_only_in_an_unchanged_question():
    plain = _one("label.answer_in_question", task="open",
                 question="The sign says EXIT. What?", answers=["exit"])
    assert plain.evidence == {"field": "question", "span": "EXIT", "answer": "exit",
                              "at": [14, 18]}
    assert plain.message == "the gold answer 'exit' appears in the question"
    # a full-width question is read after NFKC, whose offsets need not match the original
    wide = _one("label.answer_in_question", task="open",
                question="The sign says ＥＸＩＴ. What?", answers=["exit"])
    assert wide.evidence["span"] == "EXIT" and "at" not in wide.evidence


def test_answer_in_question_only_for_open_and_numeric():
    assert _one("label.answer_in_question", task="yesno", question="Is it yes?",
                answers=["yes"]) is None
    assert _one("label.answer_in_question", task="numeric", question="Is 12 more than 3?",
                answers=["12"]).evidence["span"] == "12"


# --- label.duplicate_options ----------------------------------------------------------------

SHAPES = {"task": "mc", "answers": ["A"], "question": "Shape?",
          "choices": {"A": "purple circle", "B": "purple circles"}}


def test_duplicate_options_similarity_threshold_is_inclusive():
    # keys "purplecircle" (12) and "purplecircles" (13): ratio 2 * 12 / 25 = 0.96
    finding = _one("label.duplicate_options", params={"option_similarity": 0.96}, **SHAPES)
    assert finding.score == 0.96 and finding.evidence["similarity"] == 0.96
    assert finding.evidence["kind"] == "near-identical" and finding.severity == "info"
    assert _one("label.duplicate_options", params={"option_similarity": 0.9601}, **SHAPES) is None


def test_duplicate_options_reports_the_identical_pair_over_a_case_pair():
    # A/B and B/C differ only in case, A/C are identical: all three score 1.0, the
    # identical pair is the one reported, and every pair is listed
    finding = _one("label.duplicate_options", task="mc", answers=["A"], question="Colour?",
                   choices={"A": "Red", "B": "red", "C": "Red"})
    assert finding.message == "options A and C are identical: 'Red' / 'Red'"
    assert finding.severity == "error" and finding.score == 1.0
    assert finding.evidence == {"options": ["A", "C"], "span": ["Red", "Red"],
                                "similarity": 1.0, "pairs": [["A", "B"], ["A", "C"], ["B", "C"]],
                                "kind": "identical"}
    case = _one("label.duplicate_options", task="mc", answers=["A"], question="Colour?",
                choices={"A": "Red", "B": "red"})
    assert case.evidence["kind"] == "different only in case or punctuation"
    assert case.severity == "info" and case.score == 1.0


def test_duplicate_options_near_pair_beats_a_less_similar_one():
    # A/B: 22 / 23 (articles dropped: "largecircle", "largecircles"), above 0.9;
    # A/C "largecircle" vs "largesquare": 2 * 6 / 22, below: only A/B
    finding = _one("label.duplicate_options", task="mc", answers=["A"], question="Shape?",
                   choices={"A": "a large circle", "B": "a large circles",
                            "C": "a large square"})
    assert finding.evidence["options"] == ["A", "B"] and finding.evidence["pairs"] == [["A", "B"]]
    assert finding.evidence["similarity"] == 0.9565       # 22 / 23 = 0.95652…, 4 places


# --- label.inconsistent_answers: within one item --------------------------------------------


def _kinds(rows, **params):
    return {f.id: (f.evidence["kind"], f.evidence.get("span"))
            for f in run_check("label.inconsistent_answers", rows, **params)}


def test_yes_and_no_quotes_the_first_yes_then_the_first_no():
    found = _kinds([make_item(task="open", question="Red?", answers=["no", "true", "yes"])])
    assert found == {"q1": ("yes_and_no", ["true", "no"])}
    [finding] = run_check("label.inconsistent_answers",
                          [make_item(task="open", question="Red?", answers=["no", "yes"])])
    assert finding.message == "yes and no: 'yes' vs 'no'" and finding.evidence["field"] == "answers"
    assert finding.evidence["answers"] == ["no", "yes"]


@pytest.mark.parametrize("answers, fields, conflict", [
    (["3", "3.5"], {"tolerance": 0.5}, None),              # gap 0.5, not above 0.5
    (["3", "3.5"], {"tolerance": 0.4}, ["3", "3.5"]),
    (["5", "3", "4"], {}, ["3", "5"]),                     # the lowest, then the highest
    (["3", "many"], {}, None),                             # one number: nothing to compare
    # relative for `relaxed`: gap / the larger magnitude
    (["95", "100"], {"metric": "relaxed", "tolerance": 0.05}, None),        # 5 / 100
    (["94", "100"], {"metric": "relaxed", "tolerance": 0.05}, ["94", "100"]),  # 6 / 100
    (["-100", "-90"], {"metric": "relaxed", "tolerance": 0.1}, None),       # 10 / |-100|
    (["-100", "-90"], {"metric": "relaxed", "tolerance": 0.09}, ["-100", "-90"]),
    (["3", "3.5"], {"metric": "relaxed"}, ["3", "3.5"]),   # no tolerance: absolute, 0
])
def test_numbers_differ_beyond_the_tolerance(answers, fields, conflict):
    found = _kinds([make_item(question="How long?", answers=answers, **fields)])
    assert found == ({"q1": ("different_numbers", conflict)} if conflict else {})


def test_consensus_and_multi_answer_golds_may_disagree():
    assert _kinds([make_item(task="open", question="Red?", answers=["yes", "no"],
                             metric="vqa")]) == {}
    assert _kinds([make_item(question="How many?", answers=["3", "4"],
                             meta={"multi_answer": True})]) == {}
    # an exempt mc item is still checked for an answer text naming another option
    mc = make_item(task="mc", answers=["A"], choices={"A": "cat", "B": "dog"},
                   meta={"multi_answer": True, "answer_text": "dog"})
    assert _kinds([mc]) == {"q1": ("answer_text_mismatch",
                                   ["meta.answer_text=dog (option B)", "gold ['A']"])}


def test_checklist_twins_message_and_a_repeat_with_the_same_answer():
    twins = make_item(task="checklist", answers=[], question="Check it.",
                      checks=[{"name": "Red circle", "answer": True},
                              {"name": "red circle", "answer": False}])
    [finding] = run_check("label.inconsistent_answers", [twins])
    assert finding.message == "check 'red circle' is answered False and True"
    assert finding.evidence == {"field": "checks", "kind": "checklist_twins",
                                "span": "red circle"}
    same = make_item(task="checklist", answers=[], question="Check it.",
                     checks=[{"name": "Red circle", "answer": True},
                             {"name": "red circle", "answer": True}])
    assert _kinds([same]) == {}


@pytest.mark.parametrize("meta, answers, conflict", [
    ({"answer_text": "B"}, ["A"], None),                    # a bare letter is not a text
    ({"answer_text": "  "}, ["A"], None),                   # blank
    ({"answer_text": "(B) dog"}, ["B"], None),              # prefixed, agrees
    ({"answer_text": "B. cat"}, ["B"], ["meta.answer_text=B. cat", "option B=dog"]),
    ({"answer_text": "B) dog"}, ["A"], ["meta.answer_text=B) dog", "gold ['A']"]),
    # an empty first key does not stop the next one from being read
    ({"answer_text": "", "gold_text": "dog"}, ["A"],
     ["meta.gold_text=dog (option B)", "gold ['A']"]),
    ({"answer": "bird"}, ["A"], None),                      # names no option
])
def test_mc_answer_text(meta, answers, conflict):
    row = make_item(task="mc", question="Which?", answers=answers,
                    choices={"A": "cat", "B": "dog"}, meta=meta)
    found = run_check("label.inconsistent_answers", [row])
    if conflict is None:
        assert found == []
        return
    [finding] = found
    assert finding.evidence["kind"] == "answer_text_mismatch"
    assert finding.evidence["span"] == conflict and finding.evidence["field"] == "meta"


# --- label.inconsistent_answers: across items -----------------------------------------------


def test_same_question_without_an_image_is_not_compared():
    rows = [make_item(id="a", question="How many bars?", answers=["3"]),
            make_item(id="b", question="How many bars?", answers=["4"])]
    assert _kinds(rows) == {}


def test_same_question_names_the_other_gold():
    rows = [make_item(id="a", image="x.png", question="How many bars?", answers=["3"]),
            make_item(id="b", image="x.png", question="How many bars?", answers=["4"])]
    assert _kinds(rows) == {"a": ("same_question_different_gold", ["a: 3", "b: 4"]),
                            "b": ("same_question_different_gold", ["b: 4", "a: 3"])}


def test_negation_pairs_need_the_same_image():
    yes = {"task": "yesno", "answers": ["yes"]}
    rows = [make_item(id="p", image="x.png", question="Is the cat on the mat?", **yes),
            make_item(id="n", image="y.png", question="Isn't the cat on the mat?", **yes)]
    assert _kinds(rows) == {}
    # two plain questions with the same gold are not a negation pair either
    rows = [make_item(id="p", image="x.png", question="Is the cat on the mat?", **yes),
            make_item(id="n", image="x.png", question="Is the cat on the mat ?", **yes)]
    assert _kinds(rows) == {}


# --- redundancy.repeated_question -----------------------------------------------------------


def _repeats(n_same: int, n_other: int, **kw):
    rows = [make_item(id=f"r{i:03d}", question="Describe the chart.", task="open",
                      answers=["-"], **kw) for i in range(n_same)]
    rows += [make_item(id=f"o{i:03d}", question=f"What is value {i}?", task="open",
                       answers=["-"]) for i in range(n_other)]
    return rows


def test_repeated_question_share_is_inclusive():
    # 20 of 400 items = 0.05, the default share exactly: flagged
    found = run_check("redundancy.repeated_question", _repeats(20, 380))
    assert len(found) == 20
    first = min(found, key=lambda f: f.id)
    assert first.message == "the same question in 20 items (5% of the file)"
    assert first.severity == "warn" and first.score == 0.05
    assert first.evidence == {"field": "question", "kind": "repeated_across_items",
                              "span": "Describe the chart.", "items": 20, "share": 0.05,
                              "examples": ["r000", "r001", "r002", "r003", "r004"]}
    # 20 of 401 is under 0.05
    assert run_check("redundancy.repeated_question", _repeats(20, 381)) == []


def test_repeated_question_item_count_is_inclusive():
    assert len(run_check("redundancy.repeated_question", _repeats(5, 5),
                         repeated_question_items=5)) == 5
    assert run_check("redundancy.repeated_question", _repeats(4, 5),
                     repeated_question_items=5) == []


def test_same_image_copies_skip_variants_and_siblings():
    def shown(id_, **kw):
        return make_item(id=id_, image="x.png", question="What is shown?", task="open",
                         answers=["a"], **kw)

    # a variant of its v0, and two variants of one v0, are meant to share the question
    assert run_check("redundancy.repeated_question",
                     [shown("v0"), shown("v1", variant_of="v0")]) == []
    assert run_check("redundancy.repeated_question",
                     [shown("s1", variant_of="z"), shown("s2", variant_of="z")]) == []
    found = {f.id: f for f in run_check("redundancy.repeated_question",
                                        [shown("c1"), shown("c2")])}
    assert found["c1"].message == "the same question, image and gold as c2"
    # 2 of 2 items + 0.5 for a same-image copy, capped at 1
    assert found["c1"].score == 1.0 and found["c1"].evidence["examples"] == ["c2"]
    assert found["c1"].evidence["kind"] == "same_image_copy"


# --- survivors of the first run: branches the cases above did not reach ----------------------


@pytest.mark.parametrize("answers, fields, conflict", [
    # both zero: the relative gap is 0 / 1e-12 = 0, not a division by zero
    (["0", "0.0"], {"metric": "relaxed", "tolerance": 0.05}, None),
    # magnitudes under 1 are not rounded up to 1: 0.1 / 0.2 = 0.5 > 0.4
    (["0.1", "0.2"], {"metric": "relaxed", "tolerance": 0.4}, ["0.1", "0.2"]),
])
def test_relative_gap_of_small_numbers(answers, fields, conflict):
    found = _kinds([make_item(question="How long?", answers=answers, **fields)])
    assert found == ({"q1": ("different_numbers", conflict)} if conflict else {})


def test_multi_select_golds_may_disagree_in_any_task():
    assert _kinds([make_item(question="How many?", answers=["3", "4"],
                             meta={"multi_select": True})]) == {}


def test_several_mc_golds_kind_and_every_gold_quoted():
    row = make_item(task="mc", question="Which?", answers=["B", "A"],
                    choices={"A": "cat", "B": "dog"})
    [finding] = run_check("label.inconsistent_answers", [row])
    assert finding.evidence["kind"] == "several_mc_golds"
    assert finding.evidence["span"] == ["A", "B"]    # sorted
    assert finding.message == "several mc golds: 'A' vs 'B'"


def test_different_checks_are_not_twins():
    row = make_item(task="checklist", answers=[], question="Check it.",
                    checks=[{"name": "Red circle", "answer": True},
                            {"name": "Blue square", "answer": False}])
    assert _kinds([row]) == {}


def test_a_gold_letter_written_as_the_answer_text_is_read_as_the_letter():
    # option B's text is "A": an answer text "A" is the gold letter, not option B
    row = make_item(task="mc", question="Which letter?", answers=["A"],
                    choices={"A": "x", "B": "A"}, meta={"answer_text": "A"})
    assert _kinds([row]) == {}


def test_every_answer_text_key_is_read_after_one_that_agrees():
    row = make_item(task="mc", question="Which?", answers=["A"],
                    choices={"A": "cat", "B": "dog"},
                    meta={"answer_text": "(A) cat", "gold_text": "dog"})
    assert _kinds([row]) == {"q1": ("answer_text_mismatch",
                                    ["meta.gold_text=dog (option B)", "gold ['A']"])}


def test_across_items_gold_keys_of_checklists_and_several_answers():
    checks = {"task": "checklist", "answers": [], "image": "x.png", "question": "Check it."}
    rows = [make_item(id="a", checks=[{"name": "Red circle", "answer": True},
                                      {"name": "Blue square", "answer": True}], **checks),
            make_item(id="b", checks=[{"name": "Red circle", "answer": False},
                                      {"name": "Blue square", "answer": True}], **checks)]
    found = {f.id: f for f in run_check("label.inconsistent_answers", rows)}
    assert found["a"].evidence["span"] == ["a: Red circle=True|Blue square=True",
                                           "b: Red circle=False|Blue square=True"]
    rows = [make_item(id="a", image="x.png", question="How many?", answers=["three", "3"]),
            make_item(id="b", image="x.png", question="How many?", answers=["4"])]
    # the golds sorted and joined: "3" before "three"
    assert _kinds(rows)["a"] == ("same_question_different_gold", ["a: 3|three", "b: 4"])


def test_same_question_with_other_options_is_another_question():
    # the same words over options in another order: golds A and B both mean "red"
    rows = [make_item(id="a", task="mc", image="x.png", question="Which colour?",
                      answers=["A"], choices={"A": "red", "B": "blue"}),
            make_item(id="b", task="mc", image="x.png", question="Which colour?",
                      answers=["B"], choices={"A": "blue", "B": "red"})]
    assert _kinds(rows) == {}


@pytest.mark.parametrize("question, expected", [
    ("Isn't the cat on the mat?", ("is the cat on the mat", True)),
    ("Isn’t the cat on the mat?", ("is the cat on the mat", True)),   # curly apostrophe
    ("Is the dog not red?", ("is the dog red", True)),
    ("Is the dog red?", ("is the dog red", False)),
])
def test_strip_negation(question, expected):
    assert strip_negation(question) == expected


def test_negation_pairs_need_an_image_and_both_are_named():
    yes = {"task": "yesno", "answers": ["yes"]}
    rows = [make_item(id="p", question="Is the cat on the mat?", **yes),
            make_item(id="n", question="Isn't the cat on the mat?", **yes)]
    assert _kinds(rows) == {}
    rows = [{**row, "image": "x.png"} for row in rows]
    span = ["Is the cat on the mat?", "Isn't the cat on the mat?"]
    assert _kinds(rows) == {"p": ("negation_same_gold", span), "n": ("negation_same_gold", span)}


def test_messages_of_the_ambiguity_checks():
    compound = _one("ambiguity.compound_question",
                    question="What colour is the ball and how many are there?")
    assert compound.message == ("two asks in one question ('and how many'); split it so one "
                                "question tests one ability")
    assert compound.evidence == {"field": "question", "span": "and how many", "at": [24, 36]}
    side = _one("ambiguity.viewpoint", question="Is the cup to the left of the plate?")
    assert side.message == ("'to the left' depends on the viewpoint; state it (e.g. \"from the "
                            "viewer's perspective\")")
    assert side.evidence == {"field": "question", "span": "to the left", "at": [11, 22]}
    # a stated frame in English or Chinese silences it
    assert _one("ambiguity.viewpoint", question="In the image, is the cup to the left?") is None
    assert _one("ambiguity.viewpoint", question="图中杯子在盘子的左边吗？") is None


def test_checks_read_every_item_after_one_they_skip():
    clean = make_item(id="a", task="yesno", question="Is it red?", answers=["yes"])
    dirty = make_item(id="b", task="open", question="Is it  red?", answers=["red"])
    assert [f.id for f in run_check("ambiguity.dirty_text", [clean, dirty])] == ["b"]
    given = make_item(id="c", task="open", question="The sign says EXIT. What?", answers=["exit"])
    assert [f.id for f in run_check("label.answer_in_question", [clean, given])] == ["c"]


def test_label_checks_read_every_item_after_one_they_pass():
    fine = make_item(id="a", task="open", question="Red?", answers=["yes"])
    both = make_item(id="b", task="open", question="Red?", answers=["yes", "no"])
    assert [f.id for f in run_check("label.inconsistent_answers", [fine, both])] == ["b"]
    # the same question: one item without an image (no copy), then two copies on one image
    shown = {"question": "What is shown?", "task": "open", "answers": ["a"]}
    rows = [make_item(id="n", **shown), make_item(id="c1", image="x.png", **shown),
            make_item(id="c2", image="x.png", **shown)]
    assert [f.id for f in run_check("redundancy.repeated_question", rows)] == ["c1", "c2"]


def test_repeated_question_info_message_in_full():
    other = [make_item(id=f"o{i:02d}", question=f"What is value {i}?", task="open",
                       answers=["-"]) for i in range(80)]
    constant = [make_item(id=f"t{i:02d}", image=f"img{i}.png", task="open",
                          question="Is there a person in the image?", answers=[gold])
                for i, gold in enumerate(["yes"] * 18 + ["no"] * 2)]
    found = {f.id: f for f in run_check("redundancy.repeated_question", constant + other)}
    # 20 of 100 items: 20%; 18 of the 20 golds are "yes"
    assert found["t00"].message == (
        "the same question in 20 items (20% of the file), gold 'yes' on 18 of them: see the "
        "model audit's answer prior for what a blind answer scores")
    assert found["t00"].score == 0.25   # info's default score (SEVERITY_SCORE), not the share 0.2


def test_every_item_giving_its_answer_away_is_reported():
    rows = [make_item(id=i, task="open", question="The sign says EXIT. What?", answers=["exit"])
            for i in ("a", "b")]
    assert [f.id for f in run_check("label.answer_in_question", rows)] == ["a", "b"]


def test_a_bare_that_refers_to_the_quote():
    # a quoting item: a bare "that" (like "this") points at the quoted word
    assert _one("ambiguity.vague_deixis", question='Is "cat" a noun like that?') is None
    assert _one("ambiguity.vague_deixis", question="Is it a noun like that?") is not None


def test_after_a_pair_that_differs_in_number_the_next_pairs_are_compared():
    # A/B differ in a number (skipped), A/C are identical
    finding = _one("label.duplicate_options", task="mc", answers=["A"], question="Length?",
                   choices={"A": "12 cm", "B": "13 cm", "C": "12 cm"})
    assert finding.evidence["options"] == ["A", "C"] and finding.severity == "error"


def test_a_checklist_conflict_does_not_stop_the_check():
    twins = make_item(id="c", task="checklist", answers=[], question="Check it.",
                      checks=[{"name": "Red", "answer": True}, {"name": "red", "answer": False}])
    both = make_item(id="y", task="open", question="Red?", answers=["yes", "no"])
    assert [f.id for f in run_check("label.inconsistent_answers", [twins, both])] == ["c", "y"]


@pytest.mark.parametrize("question, core", [
    ("Won't the cat sit?", "will the cat sit"),     # the contraction, not its stem
    ("Can't the cat sit?", "can the cat sit"),
])
def test_strip_negation_expands_contractions(question, core):
    assert strip_negation(question) == (core, True)


def test_repeated_question_share_and_score_of_a_copy():
    # 20 of 300 = 0.06666…: 0.0667 at 4 places
    found = run_check("redundancy.repeated_question", _repeats(20, 280))
    assert {f.evidence["share"] for f in found} == {0.0667}
    # two copies on one image among 10 items: 2 / 10 + 0.5
    shown = {"question": "What is shown?", "task": "open", "answers": ["a"], "image": "x.png"}
    rows = [make_item(id="c1", **shown), make_item(id="c2", **shown)] + _repeats(0, 8)
    found = {f.id: f for f in run_check("redundancy.repeated_question", rows)}
    assert found["c1"].score == 0.7 and set(found) == {"c1", "c2"}
