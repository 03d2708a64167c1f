"""The paraphrase-surviving evidence of the contamination audit on small hand-made texts
(bench_kit/audit/contamination_rephrase.py) and the rule that demotes a text match which
cannot show a copy (contamination_specific.py): the stemmer's length edges, which tokens are
names, numbers, quoted words and CJK bigrams, the IDF-weighted overlap and the combined score
worked out by hand, the inclusive document-frequency bound and the strict question-share
bound. Every expected value is derived in the comment beside it; the end-to-end audits on
planted data are in test_audit_rephrase.py and test_text_cannot_show.py."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import make_item

from bench_kit.audit import contamination_rephrase as cr
from bench_kit.audit import contamination_specific as cs
from bench_kit.audit.registry import AuditContext
from bench_kit.text.idf import Idf
from bench_kit.types import Item

F = cr.text_features


def feats(tokens: str, entities: str = "", numbers: str = "") -> cr.TextFeatures:
    return cr.TextFeatures(frozenset(tokens.split()), frozenset(entities.split()),
                           frozenset(numbers.split()))


# --- the stemmer and the tokens -----------------------------------------------------------------


@pytest.mark.parametrize("word, stem", [
    ("cities", "city"), ("flies", "fly"),     # "ies" after more than 4 letters: y
    ("ties", "tie"),                          # 4 letters: not the "ies" rule, the plain s
    ("cats", "cat"), ("bars", "bar"),         # a plain plural (more than 3 letters)
    ("gas", "gas"), ("its", "its"),           # 3 letters: kept
    ("glass", "glass"), ("virus", "virus"), ("axis", "axis"),   # ss / us / is: kept
    ("tree", "tree"),
])
def test_stem(word, stem):
    assert cr._stem(word) == stem


def test_names_are_capitalised_words_after_the_first_of_a_sentence():
    # "Which" opens the text, "Paris" follows "?" + space (a new sentence): neither is a
    # name; "Rome" mid-sentence is; "Lyon" follows "." + a letter ("e.g.Lyon"): no new
    # sentence there, so a name
    f = F("Which city? Paris is near Rome, e.g.Lyon")
    assert f.tokens == {"city", "paris", "near", "rome", "lyon"}
    assert f.entities == {"rome", "lyon"}
    # after "!" and "." too; a stop word or a 1-letter word also ends the sentence start
    assert F("Go. Paris! Rome").entities == set()
    assert F("The Paris").entities == {"paris"}        # "The" was the sentence start
    assert F("x Paris").entities == {"paris"}          # a 1-letter word as well
    assert F("In 2015 Paris won").entities == {"2015", "paris"}    # and a number
    # a new sentence only after . ? ! followed by a non-letter: not after a comma, not in
    # "Rome.Lyon"
    assert F("Is it near, Rome").entities == {"rome"}
    assert F("Is Rome.Lyon").entities == {"rome", "lyon"}


def test_quoted_words_are_names_and_possessives_lose_their_s():
    f = F("What does the sign 'exit now' say about Slovenia’s map?")
    assert f.entities == {"exit", "now", "slovenia"}   # quoted words, a mid-sentence name
    assert "slovenia" in f.tokens and "slovenia's" not in f.tokens
    assert F('What does "stop" mean?').entities == {"stop"}
    # a typographic apostrophe reads as "'": "don’t" is one word (not "don" + "t", two
    # stop words)
    assert F("I don’t know").tokens == {"don't", "know"}


def test_numbers_are_canonical_tokens_and_entities():
    # "16.90" -> "16.9", "007" -> "7"; "fourth" and "4th" -> "4"; "twice" -> "2"
    f = F("Is 16.90 more than 007 in the fourth or 4th row, twice?")
    assert f.numbers == {"16.9", "7", "4", "2"}
    assert f.numbers <= f.entities and f.numbers <= f.tokens
    assert "MORE" in f.tokens and "row" in f.tokens
    assert F("Which is -6?").numbers == {"-6"}
    assert F("Ｖａｌｕｅ in ２０１５").tokens == {"value", "2015"}   # NFKC first


def test_synonyms_and_stems_map_to_one_token():
    # largest -> MAX; "percentages" is stemmed to "percentage", then mapped to "percent";
    # "charts" -> "chart"; "Colors" -> "colour" (and a name: capitalised mid-sentence)
    f = F("the largest percentages of charts in Colors")
    assert f.tokens == {"MAX", "percent", "chart", "colour"}
    assert f.entities == {"colour"}
    assert F("b c x").tokens == set()                     # words of one letter are dropped


def test_cjk_runs_become_character_bigrams_without_stop_words():
    # 图中有几个红色 -> 图中 (a stop word), 中有, 有几, 几个, 个红, 红色
    assert F("图中有几个红色").tokens == {"中有", "有几", "几个", "个红", "红色"}
    assert F("猫").tokens == {"猫"}                       # one character: itself
    assert F("图").tokens == set()                        # a one-character stop word
    # a CJK run ends a sentence start: the next capitalised word is a name
    assert F("猫 Paris").entities == {"paris"}


# --- overlap, numbers, contrasts ----------------------------------------------------------------


def test_weighted_overlap_by_hand():
    idf = Idf(3, Counter({"bar": 2, "paris": 1}))
    # idf(bar) = ln(4/3) + 1 = 1.2877, idf(paris) = ln(4/2) + 1 = 1.6931,
    # unseen = ln(4) + 1 = 2.3863; paris is a name in a (x2 with boost 2), not in b
    a = feats("bar paris", entities="paris")
    b = feats("bar paris lyon")
    bar, paris, unseen = math.log(4 / 3) + 1, math.log(2) + 1, math.log(4) + 1
    total = (bar + 2 * paris) + (bar + paris + unseen)
    shared = (bar + 2 * paris) + (bar + paris)
    assert cr.weighted_overlap(a, b, idf, 2.0) == pytest.approx(shared / total)
    # total (1.2877 + 3.3863) + (1.2877 + 1.6931 + 2.3863) = 10.0411, shared 4.6740 + 2.9808
    assert shared / total == pytest.approx(0.7623, abs=1e-4)
    # boost 1: the name weighs like any token
    plain = (2 * bar + 2 * paris) / (2 * bar + 2 * paris + unseen)
    assert cr.weighted_overlap(a, b, idf, 1.0) == pytest.approx(plain)
    # the boost counts on each side by its own entities (b names paris: both x2)
    b_named = feats("bar paris lyon", entities="paris")
    both = (2 * bar + 4 * paris) / (2 * bar + 4 * paris + unseen)
    assert cr.weighted_overlap(a, b_named, idf, 2.0) == pytest.approx(both)
    assert cr.weighted_overlap(feats(""), feats(""), idf, 2.0) == 0.0
    assert cr.weighted_overlap(a, a, idf, 2.0) == 1.0


def test_number_agreement():
    assert cr.number_agreement(feats("", numbers="1 2"), feats("", numbers="2 3")) == 1 / 3
    assert cr.number_agreement(feats("", numbers="1"), feats("")) == 0.0
    assert cr.number_agreement(feats(""), feats("")) is None


def test_contrasts():
    # colour: red vs blue (no shared member); extreme: MAX on both sides (no contrast);
    # position: only one side names one
    a, b = feats("red MAX left"), feats("blue MAX")
    assert cr.contrasts(a, b) == ["colour"]
    # a shared member cancels the class even when others differ
    assert cr.contrasts(feats("red blue"), feats("red green")) == []
    # several classes, sorted by name
    assert cr.contrasts(feats("boy last MIN"), feats("girl 1 MAX")) == ["extreme", "group",
                                                                        "order"]


def test_score_pair_by_hand():
    idf = Idf(4, Counter({"slovenia": 1, "value": 3, "2015": 1, "red": 2}))
    # slovenia: ln(5/2) + 1 = 1.9163, value: ln(5/4) + 1 = 1.2231, 2015: 1.9163,
    # 2016 (unseen): ln 5 + 1 = 2.6094, red: ln(5/3) + 1 = 1.5108, blue: 2.6094
    item = feats("slovenia value 2015 red", entities="slovenia 2015", numbers="2015")
    ref = feats("slovenia value 2016 blue", entities="slovenia 2016", numbers="2016")
    sl, va, y5, un, red = (math.log(5 / 2) + 1, math.log(5 / 4) + 1, math.log(5 / 2) + 1,
                           math.log(5) + 1, math.log(5 / 3) + 1)
    total = (2 * sl + va + 2 * y5 + red) + (2 * sl + va + 2 * un + un)
    overlap = (4 * sl + 2 * va) / total
    # numbers 0 of 2 agree: + 0.3 * (0 - 0.5); one contrast (red / blue): - 0.4
    combined = 0.8 * 0.9 + 0.5 * overlap + 0.3 * (0.0 - 0.5) - 0.4
    pair = cr.score_pair(0.9, item, ref, idf, cr.RephraseWeights())
    assert pair.overlap == pytest.approx(overlap) and pair.numbers == 0.0
    assert pair.combined == pytest.approx(combined)
    assert pair.contrasts == ("colour",) and pair.cosine == 0.9
    assert pair.shared == ("slovenia", "value")             # rarest first
    # no numbers on either side: no numbers term (not - 0.15)
    plain = cr.score_pair(0.5, feats("value"), feats("value"), idf, cr.RephraseWeights())
    assert plain.numbers is None and plain.combined == pytest.approx(0.8 * 0.5 + 0.5)
    # the weights are the arguments': all zero but the cosine
    weights = cr.RephraseWeights(cosine=1.0, overlap=0.0, numbers=0.0, contrast=0.0)
    assert cr.score_pair(0.9, item, ref, idf, weights).combined == pytest.approx(0.9)


def test_shared_tokens_rarest_first_at_most_six():
    idf = Idf(10, Counter({t: n for n, t in enumerate("abcdefgh", start=1)}))
    tokens = feats("a b c d e f g h")
    # a is the rarest (df 1); the first six: a..f
    assert cr.score_pair(0.0, tokens, tokens, idf, cr.RephraseWeights()).shared == tuple("abcdef")
    # rarest first against the alphabet: h (df 1) ... a (df 8)
    backwards = Idf(10, Counter({t: 9 - n for n, t in enumerate("abcdefgh", start=1)}))
    assert cr.score_pair(0.0, tokens, tokens, backwards,
                         cr.RephraseWeights()).shared == tuple("hgfedc")
    # equal IDF: alphabetical
    same = Idf(10, Counter({"z": 1, "y": 1}))
    assert cr.score_pair(0.0, feats("z y"), feats("y z"), same,
                         cr.RephraseWeights()).shared == ("y", "z")


def test_pair_evidence_is_rounded():
    pair = cr.PairScore(0.123456, 0.654321, 1 / 3, 0.987654, ("a", "b"), ("colour",))
    assert pair.as_evidence() == {"cosine": 0.1235, "overlap": 0.6543, "numbers": 0.3333,
                                  "combined": 0.9877, "shared_rare": ["a", "b"],
                                  "contrasts": ["colour"]}
    assert cr.PairScore(0.5, 0.5, None, 0.5, ()).as_evidence()["numbers"] is None


def test_lexical_candidates_keep_the_first_best_row():
    idf = Idf(4, Counter())            # every token weighs the same: ln(5) + 1
    items = [feats("paris map"), feats("rome tower", entities="rome"), feats("oslo")]
    refs = [feats("paris zurich"),     # item 0: 1 of 2 shared -> 2 / 4 (zurich: no item has it)
            feats("paris map"),        # item 0: 1.0 (better)
            feats("map paris"),        # item 0: 1.0 again: not better, row 1 kept
            feats("rome")]             # item 1: rome x2 (the item's name) + rome: 3 of 4
    best = cr.lexical_candidates(items, refs, idf, 2.0)
    assert best[0] == (1, 1.0)
    assert best[1] == (3, pytest.approx(3 / 4))
    assert best[2] == (-1, 0.0)        # oslo: no row shares a token


# --- when a text match cannot show a copy -------------------------------------------------------


def test_specific_tokens_df_bound_is_inclusive():
    # 100 items: a token in 3 of them is 0.03 <= 0.03, specific; in 4, 0.04, not
    idf = Idf(100, Counter({"three": 3, "four": 4, "one": 1, "two": 2}))
    item = feats("three four one two")
    assert cs.specific_tokens(item, item, idf, 0.03) == ["one", "three", "two"]
    assert cs.specific_tokens(item, item, idf, 0.04) == ["four", "one", "three", "two"]
    # max_df 0: only the token of one item (count 1 <= 1, whatever the share)
    assert cs.specific_tokens(item, item, idf, 0.0) == ["one"]
    # in no other item (count 1, or not counted): specific however small the file
    small = Idf(2, Counter({"own": 1, "both": 2}))
    assert cs.specific_tokens(feats("own both new"), feats("own both new"), small, 0.03) == [
        "new", "own"]
    # a name is specific however common; a number is judged by its count like any token
    named = feats("paris 2", entities="paris 2", numbers="2")
    common = Idf(100, Counter({"paris": 50, "2": 50}))
    assert cs.specific_tokens(named, feats("paris 2"), common, 0.03) == ["paris"]
    # only tokens on both sides
    assert cs.specific_tokens(feats("one three"), feats("three"), idf, 0.03) == ["three"]
    # no documents: max(documents, 1) keeps the division (2 / 1 > 0.03: not specific)
    assert cs.specific_tokens(item, item, Idf(0, Counter({"two": 2})), 0.03) == [
        "four", "one", "three"]


def _ctx(items: list[dict]) -> AuditContext:
    return AuditContext(items=[Item.model_validate(row) for row in items], root=Path("."))


SETTINGS = SimpleNamespace(same_question_share=0.5, specific_df=0.03)


def _row(question: str, original: str | None = None, text: str | None = None) -> dict:
    return {"question": question, "original": original, "text": text or question.lower()}


def test_passage_rule_share_bound_is_strict():
    passage = "In a group of horses some have brown coats and others have black coats"
    ctx = _ctx([make_item(id="q", question="What is the coat of Bambi here?",
                          meta={"hint": passage})])
    # trigrams "what is the", "is the coat", "the coat of", "coat of bambi", "of bambi
    # here": 5; a reference holding 2 of them (share 0.4 < 0.5) is a shared passage
    two = _row("x", text=f"{passage.lower()} what is the coat")
    assert cs.text_cannot_show(ctx, "q", two, SETTINGS) == (cs.PASSAGE, {"question_share": 0.4})
    # holding "what is the coat of bambi" (4 of 5 = 0.8): not the passage rule; the
    # reference names Bambi (capitalised mid-sentence in the item: a name): a copy may show
    four = _row("It shows Bambi", text=f"{passage.lower()} what is the coat of bambi")
    assert cs.text_cannot_show(ctx, "q", four, SETTINGS) is None
    # exactly 0.5 (share < 0.5 is strict): "what is the coat" holds 2 of 4 trigrams
    ctx4 = _ctx([make_item(id="q", question="What is the coat?", meta={"hint": passage})])
    half = _row("It shows nothing", text="what is the coat")
    # 2 of 2 trigrams -> 1.0; with "what is the" only: 1 of 2 = 0.5, not < 0.5
    only_first = _row("It shows nothing", text="what is the colour")
    assert cs.question_share("What is the coat?", "what is the colour") == 0.5
    assert cs.text_cannot_show(ctx4, "q", only_first, SETTINGS) == (cs.GENERIC, {})
    assert cs.text_cannot_show(ctx4, "q", half, SETTINGS) == (cs.GENERIC, {})


def test_generic_rule_reads_the_original_and_the_items_file():
    ctx = _ctx([make_item(id="a", question="What is the value of the lowest bar?", task="open",
                          answers=["x"]),
                make_item(id="b", question="What is the value of the highest bar?",
                          task="open", answers=["x"])])
    # shared tokens "value", "bar" are in both items (count 2 of 2 > 0.03, not own)
    row = _row("what is the value of the bar", "What is the value of the bar?")
    assert cs.text_cannot_show(ctx, "a", row, SETTINGS) == (cs.GENERIC, {})
    # "lowest" and "smallest" both map to MIN, in item a only: specific, a copy may show
    ctx_one = _ctx([make_item(id="a", question="What is the lowest bar?", task="open",
                              answers=["x"]),
                    make_item(id="b", question="What is the highest bar?", task="open",
                              answers=["x"])])
    assert cs.text_cannot_show(ctx_one, "a", _row("the smallest", "The smallest"),
                               SETTINGS) is None
    # the reference's original text is read (its names), else its question
    ctx_name = _ctx([make_item(id="a", question="Is the bar of Oslo low?", task="open",
                               answers=["x"]),
                     make_item(id="b", question="Is the bar of Oslo high?", task="open",
                               answers=["x"])])
    assert cs.text_cannot_show(ctx_name, "a", _row("is oslo low", "Is Oslo low"),
                               SETTINGS) is None      # "low": only item a; oslo: a name
    assert cs.text_cannot_show(ctx_name, "a", _row("bar of oslo", None), SETTINGS) is None
    assert cs.text_cannot_show(ctx_name, "a", _row("the bar", None), SETTINGS) == (
        cs.GENERIC, {})


def test_demote():
    ctx = _ctx([make_item(id="a", question="What is the value of the bar?", task="open",
                          answers=["x"]),
                make_item(id="b", question="What is the value of the bar now?", task="open",
                          answers=["x"])])
    row = _row("value of the bar", "Value of the bar")
    evidence: dict = {"score": 1.0}
    assert cs.demote(ctx, "a", row, SETTINGS, "warn", "msg", evidence) == (
        "info", f"{cs.GENERIC} — msg")
    assert evidence == {"score": 1.0, "text_cannot_show": cs.GENERIC,
                        "severity_without_rule": "warn"}
    # info stays as it is, the evidence untouched
    evidence = {}
    assert cs.demote(ctx, "a", row, SETTINGS, "info", "msg", evidence) == ("info", "msg")
    assert evidence == {}
    # a specific token: unchanged
    evidence = {}
    now = _row("the bar now", "The bar now")
    assert cs.demote(ctx, "b", now, SETTINGS, "error", "msg", evidence) == ("error", "msg")
    assert evidence == {}


def test_specific_tokens_come_from_hint_and_question_and_the_original_text():
    passage = "Zanzibar exports cloves."
    items = [make_item(id="a", question="What is the value on the chart?", task="open",
                       answers=["x"], meta={"hint": passage}),
             make_item(id="b", question="What is the value on the chart now?", task="open",
                       answers=["x"])]
    ctx = _ctx(items)
    # the reference holds the whole question (share 1: not the passage rule) and "cloves",
    # a word of item a's hint only: specific
    row = _row("x", "Cloves: what is the value on the chart",
               text="cloves what is the value on the chart")
    assert cs.text_cannot_show(ctx, "a", row, SETTINGS) is None
    # the original is read, not the normalised question: "16.90" is the number 16.9 there,
    # "16 90" (two numbers) once normalised
    ctx = _ctx([make_item(id="a", question="Is the value 16.9 on the chart?", task="open",
                          answers=["x"]),
                make_item(id="b", question="Is the value 20 on the chart?", task="open",
                          answers=["x"])])
    row = _row("is the value 16 90 on the chart", "Is the value 16.90 on the chart?")
    assert cs.text_cannot_show(ctx, "a", row, SETTINGS) is None
    assert cs.text_cannot_show(ctx, "a", {**row, "original": None}, SETTINGS) == (cs.GENERIC, {})


def test_question_share_is_rounded_to_4_places():
    passage = "In a group of horses some have brown coats and others have black coats"
    ctx = _ctx([make_item(id="q", question="What is the coat colour?", meta={"hint": passage})])
    # trigrams "what is the", "is the coat", "the coat colour": the row holds the first: 1/3
    row = _row("x", text="what is the colour")
    assert cs.text_cannot_show(ctx, "q", row, SETTINGS) == (cs.PASSAGE, {"question_share": 0.3333})
