"""Pins of scoring/extract/prose_letters.py beyond the choice case table (mutation testing,
benchmarks/mutation.py target `extract_prose`): the span helpers on their edges, the
24-character negation window, and how affirmed, neutral and ruled-out letters combine.
Expected values are worked out by hand from the docstrings, in the comments."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.concluding import concluding_letters
from bench_kit.scoring.extract.prose_letters import (
    _inside,
    _merged,
    echoed_option_spans,
    is_article_or_pronoun,
    prose_letters,
    rules_out,
)

OPTIONS = {"A": "a", "B": "b", "C": "c", "D": "d"}


@pytest.mark.parametrize("text, expected", [
    ("this is wrong", True),
    ("NOT", True),            # upper case: the hint scan lower-cases, the regex is re.I
    ("fine", False),          # ASCII with no hint literal
    ("不对", True),            # non-ASCII skips the hint scan
    ("看起来好", False),        # non-ASCII, no negative
    ("nothing here", False),  # the hint "no" found, but `\bnot\b` does not match "nothing"
])
def test_rules_out(text, expected):
    assert rules_out(text) is expected


@pytest.mark.parametrize("text, letter, expected", [
    ("A cat", "A", True),       # the article: a lowercase word follows
    ("A is", "A", False),       # a copula: the letter
    ("I think", "I", True),     # the pronoun
    ("I is right", "I", False),
    ("B cat", "B", False),      # only A and I can be words
])
def test_is_article_or_pronoun(text, letter, expected):
    assert is_article_or_pronoun(text, letter, 1) is expected


def test_echoed_option_spans():
    # "Vitamin C" found twice (case-insensitive) at 5-14 and 19-28; "iron" has no capital
    # (islower), "(A)" strips to one character, "b" has no capital: none of them count
    text = "Take Vitamin C and vitamin c daily"
    assert echoed_option_spans(text, ["Vitamin C", "iron", "(A)", "b"]) == [(5, 14), (19, 28)]
    # two characters after stripping ("C!") with a letter C: an echo, found at 4-6
    assert echoed_option_spans("say C! now", ["C!"]) == [(4, 6)]
    # "AB" holds no letter that is a word (each capital touches the other): no echo
    assert echoed_option_spans("in AB", ["AB"]) == []
    # a capital that is no letter of _LETTER ("K2" has K outside A-J): not an echo
    assert echoed_option_spans("K2 and K2", ["K2"]) == []


def test_merged_joins_overlapping_and_touching_spans():
    # (0,5) touches (5,8) (a == previous end) and (7,12) overlaps: one span (0,12)
    assert _merged([(5, 8), (0, 5), (7, 12), (20, 21)]) == [(0, 12), (20, 21)]
    # a span inside the previous one keeps the previous end (max)
    assert _merged([(0, 10), (2, 4)]) == [(0, 10)]
    assert _merged([]) == []


@pytest.mark.parametrize("spans, at, expected", [
    ([(0, 5)], 0, True),     # the start is inside
    ([(0, 5)], 4, True),
    ([(0, 5)], 5, False),    # the end is outside
    ([(3, 5)], 2, False),    # before the first span
    ([(0, 2), (6, 9)], 6, True),
    ([(0, 2), (6, 9)], 3, False),
    ([], 0, False),
])
def test_inside(spans, at, expected):
    assert _inside(spans, at) is expected


def test_a_letter_inside_an_echo_is_skipped():
    # "Vitamin C" echoed at 0-9: its C is not named; B is
    text = "Vitamin C is not it. B is right."
    assert prose_letters(text, OPTIONS, [(0, 9)]) == {"B"}
    assert prose_letters(text, OPTIONS, []) == {"B"}  # C ruled out by "not" anyway


def test_negation_window_is_24_characters():
    # "not" + 21 spaces: A starts at 24, the window (0, 24) holds "not": A ruled out
    assert prose_letters("not" + " " * 21 + "A is right.", OPTIONS, []) == set()
    # "not" + 22 spaces: A starts at 25, the window (1, 25) holds only "ot": A affirmed
    assert prose_letters("not" + " " * 22 + "A is right.", OPTIONS, []) == {"A"}


def test_affirmed_letters_win_over_neutral_ones():
    assert prose_letters("B fits best. C is plausible.", OPTIONS, []) == {"B"}


def test_one_neutral_letter_left_after_ruling_out_is_the_answer():
    # C neutral, D ruled out: one left -> {C}
    assert prose_letters("C is plausible. D is wrong.", OPTIONS, []) == {"C"}
    # B and C neutral, D ruled out: two left -> the neutral set unchanged
    assert prose_letters("B is plausible. C is plausible. D is wrong.", OPTIONS, []) == \
        {"B", "C"}
    # nothing ruled out: both neutral
    assert prose_letters("C is plausible. D is plausible.", OPTIONS, []) == {"C", "D"}


def test_linked_letters_share_the_verdict():
    assert prose_letters("C or D could be right.", OPTIONS, []) == {"C", "D"}
    # "could be" is not one of _REJECTED_AFTER's verbs: D's own segment rules C and D out
    assert prose_letters("C or D could be wrong. B is plausible.", OPTIONS, []) == {"B"}


def test_a_not_before_the_next_letter_belongs_to_it():
    # "B, not A.": the segment of B is ", not " cut at the negation -> B neutral, A out
    assert prose_letters("B, not A.", OPTIONS, []) == {"B"}


def test_letters_not_among_the_options_are_ignored():
    assert prose_letters("E is right.", OPTIONS, []) == set()


def test_concluding_letters_read_the_last_concluding_sentence():
    text = "A is good. So B is right. Finally, C is right."
    assert concluding_letters(text, OPTIONS, []) == {"C"}
    assert concluding_letters("A is good.", OPTIONS, []) == set()
    # the concluding sentence ends at its period: D after it is not read
    assert concluding_letters("Thus B is right. D is also plausible", OPTIONS, []) == {"B"}
    # a concluding sentence at offset 0 with no end: the rest of the text
    assert concluding_letters("Therefore C", OPTIONS, []) == {"C"}


def test_an_echo_at_offset_zero():
    assert echoed_option_spans("Vitamin C is good", ["Vitamin C"]) == [(0, 9)]


def test_a_segment_stops_at_the_next_letter():
    # A's segment is " is plain, " (up to B), B's " fits, " (up to C), C's " is odd.":
    # only B is affirmed. Were A's segment to run to C, its "fits" would affirm A.
    assert prose_letters("A is plain, B fits, C is odd.", OPTIONS, []) == {"B"}


def test_a_segment_stops_at_the_sentence_end():
    # B's segment " seems plausible" ends at ". ": the "Wrong" after it is not B's, so B
    # and C are both neutral
    assert prose_letters("B seems plausible. Wrong guesses abound, C is plausible", OPTIONS,
                         []) == {"B", "C"}
    # a sentence end after the next letter does not count for this one: B's segment is
    # ", " (no verdict, no link word) -> B neutral; C's " fits." affirms C alone
    assert prose_letters("B, C fits.", OPTIONS, []) == {"C"}


def test_a_link_word_then_a_sentence_end_links_nothing():
    # "B or" then a line break: B's segment " or" ends at the sentence end, so B is not
    # linked to C's verdict: B neutral, C affirmed -> {C}
    assert prose_letters("B or\nC fits.", OPTIONS, []) == {"C"}


def test_the_negation_cut_looks_at_the_next_letter_only():
    # C neutral; B's segment ", not " is cut at "not" (the next letter A is ruled out
    # right here), so B is neutral; A out -> {B, C} (two left: the neutral set)
    assert prose_letters("C is odd. B, not A.", OPTIONS, []) == {"B", "C"}


def test_a_letter_rejected_at_the_start_of_the_text_only():
    # "Wrong" opens the text, not the words after B: B affirmed
    assert prose_letters("Wrong ones aside, B fits.", OPTIONS, []) == {"B"}


def test_a_neutral_letter_later_ruled_out_leaves_one():
    # C and D neutral, D then "is wrong": neutral - ruled out = {C}, exactly one -> {C}
    assert prose_letters("C is plausible. D is plausible. D is wrong.", OPTIONS, []) == {"C"}


def test_concluding_letters_skip_echoed_option_texts():
    # "Vitamin C" echoes option C's text inside the concluding sentence: its C is no letter
    options = {"B": "Iron", "C": "Vitamin C"}
    assert concluding_letters("So the answer is Vitamin C.", options, ["Iron", "Vitamin C"]) == set()


def test_concluding_sentence_ends_at_its_own_end():
    # "Thus B." ends at ". ": only B (neutral) is read; D's "is right" after it is not
    assert concluding_letters("Thus B. D is right.", OPTIONS, []) == {"B"}


# --- the review's letter lists (neither/nor, "not A or C", "between A and B", comma lists) ---

@pytest.mark.parametrize("text, expected", [
    # A, B: bare commas before "and C are incorrect": the list shares C's verdict -> D alone
    ("A, B, and C are incorrect. D.", {"D"}),
    # C's verdict is its own segment (" seems unlikely"), linked to B by "or": the comma
    # list before it shares it -> A ruled out too; D neutral and alone
    ("A, B or C seems unlikely; D it is.", {"D"}),
    # no "and/or" before the verdict: the comma only separates; C alone is wrong
    ("B, C is wrong.", {"B"}),
    # two commas, no link word: A and B neutral, C ruled out -> both left
    ("A, B, C is wrong.", {"A", "B"}),
    # the next letter negated before it ("not B"): the comma list ends there, A neutral
    ("A, not B.", {"A"}),
    # "or" after a negated letter negates the next one too; B neutral
    ("not A or C, but B.", {"B"}),
    # "nor": each negated where it stands
    ("Neither A nor B.", set()),
    # the two letters after "between" set up a comparison; the third one is the choice
    ("Between A and B, B is better.", {"B"}),
    # "between" alone before one letter: also a comparison's first term
    ("Between option A and the rest, C stands out.", {"C"}),
])
def test_letter_lists(text, expected):
    assert prose_letters(text, OPTIONS, []) == expected


def test_a_negation_joined_by_or_reaches_only_the_next_letter():
    # "not A" then " or C" negates C; D follows C after ", " (no "or"): D stays
    assert prose_letters("not A or C, D.", OPTIONS, []) == {"D"}
    # the link must sit right between the two letters: "not A. Or maybe C" has a sentence
    # end in between -> C neutral
    assert prose_letters("not A. So C.", OPTIONS, []) == {"C"}


def test_a_run_of_spaces_between_letters_is_read_in_linear_time():
    # were the verdict regexes backtracking, 2,000 spaces would take minutes
    assert prose_letters("We see A" + " " * 2000 + "B here", OPTIONS, []) == {"A", "B"}


def test_a_comma_list_shares_only_a_ruling_out():
    # no verdict after "B": A (listed) and B both neutral
    assert prose_letters("A, B here.", OPTIONS, []) == {"A", "B"}
    # C's own segment rules it out ("too small", not a verdict right after the letter);
    # B is linked to it by "or", and the comma list before B shares it: A, B, C out, D left
    assert prose_letters("A, B or C might be too small; D it is.", OPTIONS, []) == {"D"}


@pytest.mark.parametrize("spaces, expected", [
    (33, {"C"}),        # "between" starts 40 characters before A: A set up, C the choice
    (34, {"A", "C"}),   # 41 characters: outside the window, A and C both named
])
def test_the_comparison_window_is_40_characters(spaces, expected):
    assert prose_letters("between" + " " * spaces + "A and C here", OPTIONS, []) == expected


# report5's rules: letters naming things, symbols of a formula, units, lower-case letters in
# brackets (values worked out by hand from the docstrings and the patterns).
from bench_kit.scoring.extract.letter_names import letter_uses, name_words  # noqa: E402
from bench_kit.scoring.extract.prose_letters import (  # noqa: E402
    _bracketed,
    _opens_line,
    _unit,
    upper_cased_letters,
)


@pytest.mark.parametrize("text, expected", [
    ("Machine A and Machine B run.", {"machine"}),   # one word before two letters
    ("Machine A and Machine A run.", set()),          # the same letter twice: no name
    ("options A and options B", set()),              # a word for options
    ("between A and between B", set()),              # a word of the grammar
    ("City A to City B", {"city"}),                  # case does not matter ("City" -> city)
    ("Go A B", set()),                               # under four spaces: nothing read
    ("ox A then ox B", set()),                       # a word of two letters is never read
    ("Vitamin E, vitamin A", {"vitamin"}),
])
def test_name_words(text, expected):
    assert name_words(text) == expected


@pytest.mark.parametrize("text, raw, expected", [
    ("A = P(1 + r), where A is", ["1", "2"], (frozenset(), frozenset({"A"}))),
    ("so 2 * D here", ["1", "2"], (frozenset(), frozenset({"D"}))),
    ("C/2 and A==B", ["1", "2"], (frozenset(), frozenset({"B", "C"}))),  # C before "/", B after "="; not A before "=="
    ("x = (A) here", ["1", "2"], (frozenset(), frozenset())),      # a letter in brackets is no symbol
    ("A = 1, B = 2", ["(A)", "(B)"], (frozenset(), frozenset())),   # options that are letters: nothing
    ("no operator A here", ["1", "2"], (frozenset(), frozenset())),
])
def test_letter_uses(text, raw, expected):
    assert letter_uses(text, raw) == expected


@pytest.mark.parametrize("text, start, end, expected", [
    ("(A) x", 1, 2, True),
    ("[B] x", 1, 2, True),
    ("(A x", 1, 2, False),     # no closing bracket
    ("A) x", 0, 1, False),     # at the start: nothing before it
    (" A) x", 1, 2, False),    # a space, not a bracket, before it
])
def test_bracketed(text, start, end, expected):
    assert _bracketed(text, start, end) is expected


@pytest.mark.parametrize("text, start, expected", [
    ("is 0.01 A now", 8, True),
    ("is 0.01A now", 7, False),   # no space between: not this rule
    ("is x A now", 5, False),     # not a number before
    ("1 A", 2, True),
    (" A", 1, False),             # too near the start
])
def test_unit(text, start, expected):
    assert _unit(text, start) is expected


@pytest.mark.parametrize("text, at, expected", [
    ("(a) x", 0, True),
    ("x\n  (a) y", 4, True),
    ("x (a) y", 2, False),
    (" " * 199 + "(a)", 199, True),     # under 200 characters from the start: the line's opening
    (" " * 200 + "(a)", 200, False),    # no line break in the 200 characters before it
    ("x\n" + " " * 197 + "(a)", 199, True),
])
def test_opens_line(text, at, expected):
    assert _opens_line(text, at) is expected


TEXTS = {"A": "cat", "B": "dog", "C": "bird", "D": "fish"}


@pytest.mark.parametrize("text, expected", [
    ("It is (b).", "It is (B)."),                              # ends its sentence
    ("It is (b) dog here", "It is (B) dog here"),              # its own text follows
    ("It is (b) or (c), f (d)", "It is (b) or (c), f (d)"),    # "or" after (b), "or" before (c); f (d) an argument
    ("It is shown in (b).", "It is shown in (b)."),            # a panel: "in (b)"
    ("See part (c), then", "See part (c), then"),
    ("The answer: (c), clearly", "The answer: (C), clearly"),  # a comma ends the clause
    ("f(c) is (e)", "f(c) is (e)"),                            # "(e)" is no option (A-D)
    ("(a) x. (b) y.", "(a) x. (b) y."),                        # one opens a line: parts, none read
    ("It is (i).", "It is (i)."),                              # a numeral
    ("It is (b)=2.", "It is (b)=2."),                          # a formula follows
    ("It is (B).", "It is (B)."),
    ("It is (b)", "It is (B)"),                                # the end of the text
])
def test_upper_cased_letters(text, expected):
    assert upper_cased_letters(text, OPTIONS, ["cat", "dog"], TEXTS) == expected


def test_upper_cased_letters_keeps_letter_options():
    assert upper_cased_letters("It is (b).", OPTIONS, ["(a)", "(b)"], TEXTS) == "It is (b)."
    assert upper_cased_letters("It is (b).", OPTIONS, ["1", "2"], TEXTS) == "It is (B)."  # digits are no letters


@pytest.mark.parametrize("text, expected", [
    ("Machine A is slow and Machine B is fast, so B.", {"B"}),   # "so" (two letters) names nothing
    ("The answer (A) is right; A = 2 * B.", {"A"}),               # the bracketed A stays
    ("Current 0.5 A flows; pick C.", {"C"}),                      # the unit A is dropped
])
def test_prose_letters_with_uses(text, expected):
    assert prose_letters(text, OPTIONS, [], lambda: letter_uses(text, ["cat", "dog"])) == expected


from bench_kit.scoring.extract.prose_letters import _set_aside_as_others  # noqa: E402


@pytest.mark.parametrize("text, named, expected", [
    # two letters after "the other options" in its paragraph, the answer in an earlier one: set aside
    ("E.\n\nThe other options: A x, B y", [("E", 0, 1), ("A", 23, 24), ("B", 28, 29)],
     [("E", 0, 1), ("A", 23, -1), ("B", 28, -1)]),
    # ... or in a later one
    ("The other options: A x, B y\n\nE.", [("A", 19, 20), ("B", 24, 25), ("E", 30, 31)],
     [("A", 19, -1), ("B", 24, -1), ("E", 30, 31)]),
    # the answer in the same paragraph: nothing set aside (review mc4, item 5)
    ("E. The other options: A x, B y", [("E", 0, 1), ("A", 22, 23), ("B", 27, 28)],
     [("E", 0, 1), ("A", 22, 23), ("B", 27, 28)]),
    # one letter after it: kept
    ("E.\n\nThe other options: B y", [("E", 0, 1), ("B", 23, 24)], [("E", 0, 1), ("B", 23, 24)]),
    # the same letter twice is one letter: kept
    ("E.\n\nThe other options: B y, B z", [("E", 0, 1), ("B", 23, 24), ("B", 28, 29)],
     [("E", 0, 1), ("B", 23, 24), ("B", 28, 29)]),
    # a blank line between: kept
    ("The other options\n\nA x, B y", [("A", 19, 20), ("B", 24, 25)], [("A", 19, 20), ("B", 24, 25)]),
    # a letter ruled out by its verdict (-2) is set aside with the others (-1)
    ("E.\n\nThe other options: A x, B is wrong", [("E", 0, 1), ("A", 23, 24), ("B", 28, -2)],
     [("E", 0, 1), ("A", 23, -1), ("B", 28, -1)]),
    # no "other" at all
    ("E.\n\nOptions: A x, B y", [("E", 0, 1), ("A", 13, 14), ("B", 18, 19)],
     [("E", 0, 1), ("A", 13, 14), ("B", 18, 19)]),
])
def test_set_aside_as_others(text, named, expected):
    assert _set_aside_as_others(text, named) == expected


# Pins from the extract_prose mutation run after the report5 round (values worked out by hand).
from bench_kit.scoring.extract.letter_names import names_thing  # noqa: E402
from bench_kit.scoring.extract.prose_letters import own_text_follows  # noqa: E402


@pytest.mark.parametrize("text, at, own, expected", [
    ("is (e), I and III only", 5, "i and iii only", True),    # ")" "," " " stripped, then the text
    ("is (e), I and III only.", 5, "i and iii only", True),   # the full stop normalises away
    ("is (e), I and III only too", 5, "i and iii only", True),  # more words after it
    ("is (e), I and II", 5, "i and iii only", False),
    ("is (e), I and IIIx", 5, "i and iii", False),            # not at a word's end
    ("is (e), I", 5, None, False),                            # an option without a text
    ("is (e), I", 5, "", False),
    ("(b)Xdog", 2, "dog", False),    # only brackets, commas, colons and spaces are stripped
])
def test_own_text_follows(text, at, own, expected):
    assert own_text_follows(text, at, own) is expected


@pytest.mark.parametrize("text, at, expected", [
    ("\n" + " " * 250 + "(a)", 251, False),   # the line break is more than 200 characters back
    ("\n" + " " * 200 + "(a)", 201, False),   # ... 201 back
    ("\n" + " " * 199 + "(a)", 200, True),    # ... 200 back: the line's opening
    ("x (a)\n", 2, False),                    # a line break after it does not count
    ("\n x\n (a)", 5, True),                 # the last line break before it counts
])
def test_opens_line_window(text, at, expected):
    assert _opens_line(text, at) is expected


@pytest.mark.parametrize("text, expected", [
    ("options A, Machine A, Machine B", {"machine"}),   # a word that names nothing does not stop the scan
    ("Machine A, vitamin B here", set()),              # two words, one letter each: no name
])
def test_name_words_more(text, expected):
    assert name_words(text) == expected


@pytest.mark.parametrize("text, start, names, expected", [
    ("Machine-A", 8, frozenset({"machine"}), False),   # no space before the letter
    ("Bus A", 4, frozenset({"bus"}), True),            # a three-letter word at the start
    ("Bus A", 4, frozenset(), False),
])
def test_names_thing(text, start, names, expected):
    assert names_thing(text, start, names) is expected


def test_bracketed_and_unit_at_the_start():
    assert _bracketed("A) (", 0, 1) is False   # nothing before it, though the text ends with "("
    assert _unit(" A 5", 1) is False           # nothing two characters before it


def test_set_aside_as_others_blank_line_after():
    # set aside only when a letter is named in another paragraph (review mc4): "So C." here
    text = "The other options: A x, B y\n\nSo C."
    assert text.index("C") == 32
    assert _set_aside_as_others(text, [("A", 19, 20), ("B", 24, 25), ("C", 32, 33)]) \
        == [("A", 19, -1), ("B", 24, -1), ("C", 32, 33)]
    # ... and with no letter outside the paragraph, none is set aside
    text = "The other options: A x, B y\n\nEnd"
    assert _set_aside_as_others(text, [("A", 19, 20), ("B", 24, 25)]) == [("A", 19, 20), ("B", 24, 25)]


def test_concluding_letters_drop_named_things():
    # "Machine A" and "Machine B" name machines: the concluding sentence's B is one; C fits
    text = "Machine A is fast. Machine B is slow. So Machine B wins, and C fits."
    assert concluding_letters(text, OPTIONS, ["x", "y"]) == {"C"}




@pytest.mark.parametrize("text, at, expected", [
    ("is 0.01 A", 8, True),    # ampere after a number
    ("is 1.6 C", 7, True),
    ("Answer: 2 B", 10, False),  # B is no SI unit: an option after an item number (review mc4)
    ("1 B", 2, False),
    ("is 0.01A", 7, False),     # no space
    ("is x A", 5, False),       # no digit
])
def test_unit_si_letters(text, at, expected):
    assert _unit(text, at) is expected


def test_one_concluding_sentence_definition_for_letters_and_yes_no_verdicts():
    """`CONCLUDES` is shared: "To summarize, …" concludes for the letters, and "Finally, …"
    for the yes/no verdict of a restated predicate (concluded_verdict had its own copy)."""
    from bench_kit.scoring.extract.concluded_verdict import concluded

    assert concluding_letters("A looks fine. To summarize, C is right.", OPTIONS, []) == {"C"}
    question = 'Is the opening "1. e4 e5" legal?'
    assert concluded("Move one is fine. Finally, the opening is legal.", question) == "yes"
    assert concluded("Move one is fine. Finally, the opening is not legal.", question) == "no"
    assert concluded("Move one is fine. The opening is legal.", question) is None


def test_the_question_predicate_is_read_once_per_question():
    """`concluded` reads a question's predicate (`_predicate`) once for all its responses."""
    from bench_kit.scoring.extract.concluded_verdict import _predicate, concluded

    question = 'Under the variant, is the opening "1. d4 d5" playable?'
    _predicate.cache_clear()
    assert concluded("Thus the opening is playable.", question) == "yes"
    assert concluded("Thus the opening is unplayable.", question) == "no"
    assert concluded("Thus the opening is not playable.", question) == "no"
    assert concluded("Thus the opening is odd.", question) is None
    assert _predicate.cache_info().misses == 1
    assert _predicate("What is the opening?") is None


def test_a_segment_reads_its_verdicts_once(monkeypatch):
    """`prose_letters` reads whether a verdict right before a letter is denied (`_denied_at`)
    once per letter: "does not exactly match option C" rules C out, strictly."""
    import bench_kit.scoring.extract.prose_letters as module

    calls: list[int] = []
    denied_at = module._denied_at
    monkeypatch.setattr(module, "_denied_at", lambda text, at: calls.append(at) or denied_at(text, at))
    dropped: set[str] = set()
    text = "B is fine. It does not exactly match option C."
    assert prose_letters(text, OPTIONS, [], dropped=dropped) == {"B"}
    assert dropped == {"C"}
    assert sorted(calls) == sorted(set(calls))  # each letter's once
