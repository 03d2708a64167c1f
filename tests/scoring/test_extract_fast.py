"""The keyword-anchored clause search (`last_clause`) finds the same answer clause as a
full regex scan, on every case-table input, the benchmark's generated responses and the
12,600 real responses of the intent sets."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench_kit.scoring.extract.answer_clause import (
    _CLAUSE_KEYS,
    ANSWER_CLAUSE,
    clause_matches,
    last_clause,
    may_have_clause,
)
from bench_kit.scoring.extract.choice_clause import CHOICE_CLAUSE, CHOICE_KEYS, clause_letter
from bench_kit.scoring.extract.no_answer import NO_ANSWER, last_refusal
from bench_kit.scoring.extract.response import clean_response

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from extract_corpus import make_corpus  # noqa: E402
from intent_agreement import UNREAD_SETS  # noqa: E402


def _inputs() -> list[str]:
    texts: list[str] = []
    for path in sorted((ROOT / "tests" / "cases").glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")).get("cases", []):
            for key in ("input", "response", "pred"):
                if isinstance(case.get(key), str):
                    texts.append(case[key])
    for mix in ("short", "cot"):
        texts += [response for response, _, _ in make_corpus(1500, mix, seed=7)]
    # real model responses (the intent sets: MathVista, HallusionBench, MATH-Vision, MMMU,
    # TempCompass, BIG-Bench-Hard), the long and many-keyword texts the fast paths skip in;
    # the unread report set is left out: no extractor code runs on its rows before it is read
    for path in sorted((ROOT / "benchmarks" / "intent_labels").glob("**/*_set.jsonl")):
        if path.name == "grounding_set.jsonl":  # built locally, not in the repository
            continue
        if path.parent.name in UNREAD_SETS:
            continue
        texts += [json.loads(line)["response"] for line in
                  path.read_text(encoding="utf-8").splitlines() if line]
    return [clean_response(text) for text in texts]


INPUTS = _inputs()


def _scan_last(text: str):
    last = None
    if may_have_clause(text):
        for last in ANSWER_CLAUSE.finditer(text):  # noqa: B007 - keeps the last
            pass
    return last


REFUSALS = [  # refusals the way models write them, inside reasoning and at its ends
    "I'm sorry, but I can't determine the answer from this image.",
    "Let me look. " * 40 + "Without the specific values provided, a numerical answer cannot be given.",
    "The question does not provide enough information to determine the number of bags.",
    "It is impossible to determine which is larger. " + "The bars are tall. " * 30,
    "As an AI, I DO NOT HAVE ENOUGH INFORMATION to say, and the chart is unclear.",
    "不确定。图中看不清楚。", "We need more information; it would depend on the scale.",
    "For the most accurate figures, you might consider checking official trade databases.",
    "I recommend consulting the UN. You would need to look up the 2050 projections.",
]


@pytest.mark.parametrize("chunk", range(10))
def test_windowed_refusal_search_equals_the_full_scan(chunk):
    for text in (INPUTS + REFUSALS)[chunk::10]:
        for start in (0, len(text) // 2):
            every = list(NO_ANSWER.finditer(text, start))
            fast = last_refusal(text, start)
            assert (fast.span() if fast else None) == (every[-1].span() if every else None), text


@pytest.mark.parametrize("chunk", range(10))
def test_anchored_choice_clause_equals_the_full_scan(chunk):
    for text in INPUTS[chunk::10]:
        assert clause_letter(text) == clause_letter(text, scan=True), text


@pytest.mark.parametrize("chunk", range(10))
def test_anchored_answer_clause_ends_where_the_full_scan_does(chunk):
    for text in INPUTS[chunk::10]:
        fast = last_clause(text, ANSWER_CLAUSE, _CLAUSE_KEYS)
        full = _scan_last(text)
        assert (fast.end() if fast else None) == (full.end() if full else None), text


@pytest.mark.parametrize("chunk", range(10))
def test_anchored_clause_matches_equal_finditer(chunk):
    """`answered_again` reads every choice clause: the keyword-anchored matches are
    `finditer`'s, span and letter."""
    for text in INPUTS[chunk::10]:
        fast = [(m.span(), m.group(1)) for m in clause_matches(text, CHOICE_CLAUSE, CHOICE_KEYS)]
        assert fast == [(m.span(), m.group(1)) for m in CHOICE_CLAUSE.finditer(text)], text


# --- The fast path for common shapes answers exactly as the full parser --------------

def _choice_inputs() -> list[tuple[str, dict]]:
    pairs: list[tuple[str, dict]] = []
    table = json.loads((ROOT / "tests" / "cases" / "extract_choice.json").read_text("utf-8"))
    default = table.get("defaults", {}).get("choices", {})
    for case in table["cases"]:
        pairs.append((case["input"], case.get("choices", default)))
    for mix in ("short", "cot", "reasoning"):
        pairs += [(r, c) for r, c, _ in make_corpus(1500, mix, seed=11)]
    for name in ("mc", "mmmu_mc"):
        path = ROOT / "tests" / "scoring" / "reference" / "vectors" / f"{name}.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            pairs.append((row["response"], row["choices"]))
    return pairs + _mutated_shapes() + _option_text_shapes()


def _intent_mc_rows() -> list[tuple[str, dict, str]]:
    """The real multiple-choice responses of the intent sets (the tuning sets, not the
    unread report), with their options and questions."""
    rows = []
    for name in ("mc_set.jsonl", "report2/mc_set.jsonl", "report3/mc_set.jsonl",
                 "report4/mc_set.jsonl"):
        path = ROOT / "benchmarks" / "intent_labels" / name
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows.append((row["response"], row["choices"], row.get("question")))
    return rows


def _mutated_shapes() -> list[tuple[str, dict]]:
    """The fast path's shapes with the edges that send them to the full rules: articles
    and pronouns (A, I), lower-case letters, letters that are not options, a second
    clause, "or", negations, option texts that hold a keyword or a letter."""
    import random

    rng = random.Random(25)
    texts = ["red cat", "a blue car", "the answer is no", "not shown", "B vitamins", "I think",
             "vitamin C", "or D", "maybe", "42", "wait here", "an apple", "cat", "Cat"]
    heads = ["The answer is ", "Answer: ", "The correct option is ", "The best answer is ",
             "I choose ", "answer:", "THE ANSWER IS ", "The final choice is ", "", "The answer is\n"]
    letters = ["A", "B", "C", "I", "a", "b", "(A)", "(B)", "[C]", "A.", "B)", "B:", "F", "A,"]
    tails = ["", ".", " red cat", " a blue car.", " or C", " not shown", " is wrong",
             ". Actually it's C", " because red", " I think", " - cat", "\nC", " C"]
    out = []
    for _ in range(6000):
        choices = dict(zip("ABCD", rng.sample(texts, 4)))
        shape = rng.random()
        if shape < 0.5:
            text = rng.choice(heads) + rng.choice(letters) + rng.choice(tails)
        elif shape < 0.75:
            text = rng.choice(heads) + rng.choice(list(choices.values()) + texts) \
                + rng.choice(["", ".", "!", " ."])
        else:
            text = rng.choice(letters) + rng.choice([" ", "  ", "\t"]) \
                + rng.choice(list(choices.values()) + texts) + rng.choice(["", ".", tails[4]])
        out.append((text, choices))
    return out


def _option_text_shapes() -> list[tuple[str, dict]]:
    """Responses that are an option's text or nearly (case, articles, punctuation, two
    options that read the same, Yes/No options, options that hold "answer", a refusal or
    LaTeX), alone, after "The answer is" and after a lead whose rest opens with "or"/"and"."""
    import random

    rng = random.Random(26)
    pool = ["red car", "Red car", "the red car", "red  car", "red car.", "cat", "Cat", "a cat",
            "yes", "No", "not sure", "cannot tell", "I cannot tell", "answer key", "the answer",
            "$2 \\mathrm{~cm}$", "2 cm", "\uff12 cm", "x^2", "x^3", "orange", "or D", "and C",
            "B", "I", "A", "42", "4,2", "none of the options", "None of the above", "vitamin C",
            "red car bottle", "un-sure", "phone", "an apple", "apple"]
    heads = ["", "", "", "The answer is ", "the answer is ", "Answer: ", "(B) ", "B. ", "[C] ",
             "B) ", "A: ", "(I) "]
    out = []
    for _ in range(6000):
        choices = dict(zip("ABCDE", rng.sample(pool, rng.choice((2, 4, 5)))))
        body = rng.choice(list(choices.values()) + pool)
        body = rng.choice([body, body, body.lower(), body.upper(), body.capitalize()])
        out.append((rng.choice(heads) + body + rng.choice(["", "", ".", "!", " ."]), choices))
    return out


CHOICE_INPUTS = _choice_inputs()


@pytest.mark.parametrize("chunk", range(10))
def test_fast_path_answers_as_the_full_parser(chunk):
    from bench_kit.scoring.extract.answers import extract_choice_detailed

    for response, choices in CHOICE_INPUTS[chunk::10]:
        if not clean_response(response):
            continue
        full = extract_choice_detailed(response, choices, fast=False)
        assert extract_choice_detailed(response, choices) == full, (response, choices)


def test_fast_path_reads_the_common_shapes():
    """Every answer form of the benchmark's short mix (extract_corpus.SHORT_FORMS: letters,
    clauses, leads, an option's text alone or after "The answer is") is read by the fast
    path, not handed to the full rules: its cheap pre-checks must not turn these away."""
    import random

    from extract_corpus import SHORT_FORMS, make_item

    from bench_kit.scoring.extract.choice_clause import option_keys
    from bench_kit.scoring.extract.fast_choice import fast_choice

    rng = random.Random(5)
    for index in range(300):
        choices = make_item(rng, index)["choices"]
        letter = rng.choice(list(choices))
        for form in SHORT_FORMS + ("The correct answer is {L}.", "Correct answer: {L}",
                                   "I pick {L}", "Final answer: ({L})", "{L}) {T}"):
            text = clean_response(form.format(L=letter, T=choices[letter]))
            found = fast_choice(text, choices, option_keys(choices))
            assert found is not None and found.value == letter, (form, text, choices)


@pytest.mark.parametrize("chunk", range(4))
def test_fast_path_answers_as_the_full_parser_on_the_intent_sets(chunk):
    from bench_kit.scoring.extract.answers import extract_choice_detailed

    for response, choices, question in _intent_mc_rows()[chunk::4]:
        full = extract_choice_detailed(response, choices, question, fast=False)
        assert extract_choice_detailed(response, choices, question) == full, (response, choices)


def test_plain_word_normalisation_shortcut_equals_the_full_normalisation():
    """normalize_for_match skips NFKC and punctuation for plain ASCII words; a trailing
    no-break space (NFKC -> space) sends the same text through the full steps."""
    import random

    from bench_kit.text.normalize import normalize_for_match

    rng = random.Random(3)
    alphabet = "abcXYZ019 "
    words = ["the", "The", "A", "an", "AN", "cat", "Dog", "42", "3", "x"]
    for _ in range(5000):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 5))) \
            if rng.random() < 0.5 else "".join(rng.choice(alphabet) for _ in range(12))
        assert normalize_for_match(text) == normalize_for_match(text + "\u00a0"), text


def test_option_texts_memo_follows_the_options():
    """option_texts returns its last result again only for the same mapping holding the
    same value objects: a changed value, an equal value of another type, another mapping."""
    from bench_kit.scoring.extract.choice_clause import option_keys
    from bench_kit.scoring.extract.option_texts import option_texts

    choices = {"A": "Red car", "B": 1}
    options = option_keys(choices)
    assert option_texts(choices, options) == {"A": "red car", "B": "1"}
    choices["B"] = 1.0  # equal to 1, another object: read again
    assert option_texts(choices, options) == {"A": "red car", "B": "1.0"}
    choices["A"] = "the blue car"
    assert option_texts(choices, options) == {"A": "blue car", "B": "1.0"}
    other = {"A": "cat", "B": "dog"}
    assert option_texts(other, option_keys(other)) == {"A": "cat", "B": "dog"}


def test_prose_letter_pattern_matches_as_the_look_behind_first_one():
    """_LETTER matches the capital before its look-back (the engine skips to A-J); the
    matches are those of the pattern written look-back first."""
    import random
    import re

    from bench_kit.scoring.extract.prose_letters import _LETTER

    before = re.compile(r"(?<![A-Za-z0-9_∠△▲⊙∥⊥√$\\])[A-J](?![A-Za-z0-9_'^=²]|/\d|-[A-Za-z])")
    rng = random.Random(9)
    alphabet = "ABCDEFGHIJKabcdefgh xyz0123456789_∠△▲⊙∥⊥√$\\'^=²/-.,()\n"
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert [m.span() for m in _LETTER.finditer(text)] == \
            [m.span() for m in before.finditer(text)], text
