"""Pins of scoring/extract/answers.py beyond the choice case table (mutation testing,
benchmarks/mutation.py target `extract_answers`): the rules of the module docstring one
by one, each threshold exactly on its edge and each first-vs-last choice with two
candidates, and the fast path for the common shapes on inputs where a pre-check decides.
Expected values are worked out by hand from the module docstring, in the comments."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.answers import extract_choice, extract_choice_detailed
from bench_kit.scoring.extract.choice_clause import late_letter, option_keys
from bench_kit.scoring.extract.response import FAILED, Extraction

ABC = {"A": "cat", "B": "dog", "C": "cow"}
ABCD = {"A": "cat", "B": "dog", "C": "cow", "D": "pig"}
YES_NO = {"A": "Yes", "B": "No"}


def ok(letter: str) -> Extraction:
    return Extraction(letter, "ok")


def lenient(letter: str) -> Extraction:
    return Extraction(letter, "lenient")


def both_paths(text: str, choices, question: str | None = None) -> Extraction:
    """The answer of the fast path and of the full rules, which must agree."""
    fast = extract_choice_detailed(text, choices, question)
    assert extract_choice_detailed(text, choices, question, fast=False) == fast
    return fast


# --- rule 1: the whole response is a letter form ---------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("B", ok("B")), ("(B)", ok("B")), ("B.", ok("B")), ("[B]", ok("B")),
    ("Option B", ok("B")), ("选项B", ok("B")),
    ("b", ok("B")),            # a lower-case letter form is the letter
    ("选B", ok("B")), ("答案是C", ok("C")),  # the Chinese clause shapes, whole
    ("选E", FAILED),           # … naming a letter outside the options: no answer
    ("E", FAILED),             # a letter outside A-C: no answer, not a guess
])
def test_a_whole_response_letter_form(text, expected):
    assert both_paths(text, ABC) == expected


def test_a_short_letter_list_is_no_answer_up_to_39_characters():
    # "A" + 35 spaces + "- B" is 39 characters: a list of two letters under 40 -> failed
    assert both_paths("A" + " " * 35 + "- B", ABC) == FAILED
    # 40 characters: not a short list; rule 4 reads the lead "A -" (a letter and a dash)
    assert both_paths("A" + " " * 36 + "- B", ABC) == ok("A")


@pytest.mark.parametrize("text", ["(B) C", "[B] C", "B) C", "(B) c", "(B)  C."])
def test_a_lead_followed_by_a_second_letter_is_a_letter_list_on_the_fast_path_too(text):
    # rule 1: "(B) C" lists two letters -> failed. The fast path read it as the lead
    # "(B)" with the text "C" (B, ok) while the full rules failed it (fixed)
    assert both_paths(text, ABC) == FAILED


def test_a_lead_written_with_a_letter_valued_options_text():
    # "B. C" is no letter list ("B." is not a list item); rule 4 reads the lead B
    assert both_paths("B. C", {"A": "A", "B": "C", "C": "B"}) == ok("B")


def test_a_letter_list_needs_two_different_letters_and_is_not_an_options_text():
    # "(D) (D)": one letter named twice is no list; the lead (D) is the answer
    assert both_paths("(D) (D)", ABCD) == ok("D")
    # "A and B" is option A's own text: the response equals it (rule 5), not a list
    assert both_paths("A and B", {"A": "A and B", "B": "C", "C": "D"}) == lenient("A")
    assert both_paths("A and B", ABC) == FAILED


# --- rule 2: the answer clause ---------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    # a filler ("clearly", "most likely") between the clause and a lower-case letter:
    # the letter a is named (nothing alphabetic follows it) -> A, ok
    ("The answer is clearly a.", ok("A")),
    ("The answer is most likely a.", ok("A")),
    # the last clause is "I mean b" (a correction) -> B, ok
    ("The answer is cat i mean b.", ok("B")),
    ("The answer is so i choose a", ok("A")),
])
def test_a_clause_with_lower_case_words_is_read_by_the_full_rules(text, expected):
    assert both_paths(text, {"A": "cat", "B": "dog"}) == expected


def test_an_outside_letter_with_yes_no_options_reads_the_yes_no_with_the_question():
    text = "The correct option letter is D. The nest is smaller than a fist."
    # D is not an option; Yes/No options read the yes/no the response states: "smaller"
    # against the "larger" asked -> No (B), lenient
    assert both_paths(text, YES_NO, "Is this nest larger than a fist?") == lenient("B")
    # without the question no sentence says yes or no -> no answer
    assert both_paths(text, YES_NO) == FAILED


# --- rules 3-4: the last line, the leading letter --------------------------------------

def test_the_last_line_written_out_as_an_option():
    # rule 3: after reasoning naming A and C, the last line is option B written out
    # (its letter and its text) -> B, lenient; both lead forms "(B)" and "B."
    head = "Option A says cat and option C says cow, neither fits.\n"
    assert both_paths(head + "(B) dog", ABCD) == lenient("B")
    assert both_paths(head + "B. dog", ABCD) == lenient("B")
    # a last line whose text is not its letter's ("(B) pig", B is dog) is no written option;
    # the prose names C and B with no concluding sentence, no option text -> failed
    assert both_paths("Option C looks close.\n(B) pig", ABC) == FAILED


def test_a_bare_letter_on_the_last_line():
    assert both_paths("Let me think.\nB", ABC) == lenient("B")
    assert both_paths("Let me think.\nb", ABC) == lenient("B")    # upper-cased
    assert both_paths("Let me think.\n(E)", ABC) == FAILED        # not an option
    # three lines: the last line (B) is read, not the second ("Step 2 …") nor all after
    # the first; the prose's C is the superseded step
    assert both_paths("Step 1 gives C.\nStep 2 corrects it.\nB", ABC) == lenient("B")


def test_a_lead_is_not_read_when_the_lines_enumerate_options():
    # two lines led by options A and B: the options echoed, no answer
    assert both_paths("A. cat\nB. dog", ABC) == FAILED
    # one led line followed by prose: the lead B is the answer (rule 4, ok)
    assert both_paths("B. dog\nbecause it barks", ABC) == ok("B")


def test_a_lead_ruled_out_in_its_own_segment():
    # "B. is incorrect …": the segment after the lead rules B out; C is the one letter left
    assert both_paths("B. is incorrect because dogs bark. C fits.", ABC) == lenient("C")


def test_a_lead_outside_the_options_and_two_leads_offered():
    assert both_paths("(E) 3", ABC) == FAILED        # options end at C
    assert both_paths("(A) or (C)", ABC) == FAILED   # two options offered


# --- rule 5: the response equals an option's text --------------------------------------

def test_the_whole_text_equal_to_an_option_holding_the_word_answer():
    # "the answer is no" is option A's text exactly (rule 5, lenient), though B ("no")
    # is inside it
    choices = {"A": "The answer is no", "B": "no"}
    assert both_paths("The answer is no.", choices) == lenient("A")


def test_extract_choice_returns_the_value():
    assert extract_choice("The answer is clearly a.", {"A": "cat", "B": "dog"}) == "A"


# --- rule 7: option texts ---------------------------------------------------------------

CLOCK = {"A": "half", "B": "quarter", "C": "o'clock", "D": "quarter to", "E": "quarter past"}
CLOCK_QUESTION = "What time is shown? Answer by typing a time word. It is (_) past three."


def test_the_blank_rule_on_a_response_over_200_characters():
    # 232 characters (the exact-text rule 5 reads only up to 200, so the normalised text is
    # made here first): the option written before "past three", the words after the
    # question's blank, is "quarter" (B), not the longer text "quarter past" (E)
    text = ("Looking at the clock face carefully, the long hand points straight at the three on "
            "the dial and the short hand sits just after the three, which is where it should be "
            "at this time of the afternoon. The clock shows quarter past three.")
    assert len(text) == 232
    assert both_paths(text, CLOCK, CLOCK_QUESTION) == lenient("B")
    # without the question there is no blank: the longer option text "quarter past" wins
    assert both_paths(text, CLOCK) == lenient("E")


# --- the options: which keys are letters ------------------------------------------------

@pytest.mark.parametrize("text, choices, expected", [
    # choices that are not a mapping of keys (None): any letter A-J
    ("The answer is C", None, ok("C")),
    # … also in the prose (rule 6): the one letter C; with no option texts nothing else
    ("I think C fits", None, lenient("C")),
    ("It is a dog.", None, FAILED),
    # a list of keys: the letters A and B only, C is none of them
    ("C", ["A", "B"], FAILED),
    # keys are stripped and upper-cased to find their letter; the caller's key is returned
    ("B", {" b ": "dog", "a": "cat"}, ok(" b ")),
    # two keys for one letter: the first one given is the option
    ("A", {"a": "x", "A": "y"}, ok("a")),
    # no key is a letter ("1", "2"): any letter A-J, H among them
    ("The answer is H", {"1": "cat", "2": "dog"}, ok("H")),
    # "AB" is two characters, no letter: A is not an option, B is
    ("A", {"AB": "cat", "B": "dog"}, FAILED),
    ("B", {"AB": "cat", "B": "dog"}, ok("B")),
    # … so its text is no option's either: "cat" answers nothing
    ("cat", {"AB": "cat", "B": "dog"}, FAILED),
    # keys that are not text (1, 2): no letter among them, any letter A-J
    ("B", {1: "cat", 2: "dog"}, ok("B")),
])
def test_option_keys(text, choices, expected):
    assert both_paths(text, choices) == expected


# --- rule 2: what a clause names ------------------------------------------------------

def test_a_lower_case_letter_followed_by_a_word_within_16_characters_is_a_word():
    # "a" + 15 spaces + "fish": the 16 characters after the letter hold the "f" of a word:
    # "the answer is a fish", no letter named, and no option text -> failed
    assert both_paths("The answer is a" + " " * 15 + "fish", ABC) == FAILED
    # 16 spaces: the 16 characters after the letter are blank -> the letter a, A, ok
    assert both_paths("The answer is a" + " " * 16 + "fish", ABC) == ok("A")


def test_a_clause_letter_offered_with_a_second_one():
    assert both_paths("The answer is B or B", ABC) == ok("B")      # the same letter twice
    assert both_paths("The answer is B or C", ABC) == FAILED       # two: no one answer
    # two letters with Yes/No options: no letter, and the text says neither yes nor no
    assert both_paths("The answer is A or B", YES_NO) == FAILED


def test_a_letter_with_the_other_yes_no_word():
    # A = Yes written with "no": the answer is No (B), lenient
    assert both_paths("A: no", YES_NO) == lenient("B")


# --- a \boxed{} value no option has ------------------------------------------------------

def test_a_boxed_value_is_answered_only_by_a_letter_form_around_it():
    # the box holds 12, no option: the clause around it names B -> B, ok
    assert both_paths("The answer is B. \\boxed{12}", ABC) == ok("B")
    # LaTeX around the box is read as plain text too
    assert both_paths("The answer is B. \\boxed{\\frac{1}{2}}", ABC) == ok("B")
    # LaTeX in the text around the box ("$\\left(B\\right)$") is read as plain text: "(B)"
    assert both_paths("The answer is $\\left(B\\right)$, \\boxed{12}", ABC) == ok("B")
    # only the prose names an option's text ("dog"): never read around a box -> failed
    assert both_paths("The dog fits best. \\boxed{12}", ABC) == FAILED


def test_the_answer_before_a_new_question_the_model_wrote():
    # "\nQuestion:" starts a continuation; the answer before it (B) counts, not the clause
    # of the continuation (C)
    assert both_paths("The answer is B.\nQuestion: Which is C? Answer: C", ABC) == ok("B")
    # the new question right after a one-character answer (the cut at offset 1): B
    assert both_paths("B\nQuestion: Which is C? Answer: C", ABC) == ok("B")
    # a head that answers only leniently is not enough: the whole text is read, and its
    # last clause names C
    assert both_paths("The dog, I guess\nQuestion: Which is C? Answer: C", ABC) == ok("C")


def test_a_pronoun_or_article_after_the_clause_is_no_letter():
    # "I think": the pronoun, not option I; the only letter left in the prose is B (rule 6)
    assert both_paths("The answer is I think B.", ABCD) == lenient("B")
    # "a U-turn": a one-letter word ("U") after "a" is still a word, so "a" is the article;
    # the clause's tail "a U-turn" is option B's text (rule 7)
    assert both_paths("The answer is a U-turn.", {"A": "left", "B": "U-turn", "C": "right"}) \
        == lenient("B")


NEST = "Is this nest larger than a fist?"


def test_yes_no_options_read_the_answer_with_the_question():
    # rule 8: "smaller" against the "larger" asked -> No (B), lenient; without the question
    # the sentence holds no yes/no word -> failed
    assert both_paths("The nest is smaller than a fist.", YES_NO, NEST) == lenient("B")
    assert both_paths("The nest is smaller than a fist.", YES_NO) == FAILED
    # a leading "(C)" outside the two options: still the yes/no the response states
    assert both_paths("(C) The nest is smaller than a fist.", YES_NO, NEST) == lenient("B")
    assert both_paths("(C) The nest is smaller than a fist.", YES_NO) == FAILED


def test_a_lead_with_a_second_option_offered_after_it():
    # not a bare letter list (text follows), but the lead (A) offers (C) beside it -> failed
    assert both_paths("(A) or (C), both look right.", ABC) == FAILED


def test_a_leading_i_followed_by_a_lower_case_word_is_the_pronoun():
    # "I" then a line break and "believe": the pronoun, not option I; the text names the
    # dog (B) -> B, lenient
    nine = dict(zip("ABCDEFGHI", ["cat", "dog", "cow", "pig", "hen", "fox", "owl", "bee", "ant"]))
    assert both_paths("I\nbelieve the dog is right.", nine) == lenient("B")


# --- rules 5-6: the whole text, letters in the prose ------------------------------------

def test_a_response_equal_to_an_option_text_holding_another_options_letter():
    # "C major chord" is option A's text ("The C major chord", articles dropped): A (rule 5),
    # not the letter C standing in it
    chords = {"A": "The C major chord", "B": "The G major chord", "C": "A minor"}
    assert both_paths("C major chord", chords) == lenient("A")


def test_a_letter_inside_an_echoed_option_text_is_not_a_letter():
    # "Vitamin C" is option A's text echoed: its C is no letter; the text names A (rule 7)
    vitamins = {"A": "Vitamin C", "B": "Vitamin D", "C": "Iron"}
    assert both_paths("It is Vitamin C, since it helps.", vitamins) == lenient("A")


def test_a_concluding_sentence_naming_two_letters_is_no_answer():
    # B and C in the prose, and the concluding sentence names both: several -> failed
    text = "B looks right and C looks right. Therefore, both B and C fit."
    assert both_paths(text, ABC) == FAILED


def test_a_refusal_voids_only_a_lenient_letter():
    # the lead "(B)" is a clean answer form (ok): the refusal after it does not void it
    assert both_paths("(B) dog. It is impossible to determine from the image.", ABC) == ok("B")


def test_hypothetical_clauses_leave_the_concluding_sentence():
    # two "If …, the answer is" clauses naming A and B are set aside (no clause answer);
    # the prose names A, B, A and the concluding sentence "Therefore, (A)." names A (rule 6)
    text = ("If it is small, the answer is (A). If it is big, the answer is (B). It is small. "
            "Therefore, (A).")
    assert both_paths(text, ABC) == lenient("A")


@pytest.mark.parametrize("rest, expected", [
    # two letters that cannot start a separator: no list can follow the lead
    ("red", False), ("blue", False), ("green", False), ("piano", False),
    # ... unless the second may open "and" / "or" ("c" + "and D"): "cat" and "dog" go on
    # to the pattern (which then rejects them)
    ("cat", True), ("dog", True),
    # a single letter, a bracket or a separator first: maybe a list ("(B) C", "(B), C")
    ("C", True), ("C.", True), ("(C)", True), (", C", True), ("- C", True), ("/C", True),
    # a second letter that may open "and" / "or" glued to the first ("Cand D", "Cor D")
    ("Cand D", True), ("Cor D", True), ("CAND D", True), ("COR D", True),
    # "and" / "or" themselves, in any case
    ("and C", True), ("AND C", True), ("or C", True), ("Or C", True),
])
def test_may_list_is_a_necessary_test_for_a_letter_list(rest, expected):
    from bench_kit.scoring.extract.fast_choice import may_list

    assert may_list(rest) is expected


# Options past J (`option_keys`, `late_letter`); values by hand from their docstrings.
A_TO_L = {letter: letter for letter in "ABCDEFGHIJKL"}
A_TO_J = {letter: letter for letter in "ABCDEFGHIJ"}


def test_letters_past_j_count_only_running_on_from_a():
    assert option_keys({"K": "x", "L": "y"}) == A_TO_J  # no usable option: every letter A-J
    # a gap (A, B, C, then K): K is dropped, A-C kept
    assert option_keys({"A": "a", "B": "b", "C": "c", "K": "k"}) == {"A": "A", "B": "B", "C": "C"}
    assert option_keys(A_TO_L) == A_TO_L


def test_late_letter():
    assert late_letter("(S)", A_TO_L) is None          # a bare letter that is no option
    assert late_letter("选项K也是错误的", A_TO_L) is None  # named to be ruled out
    # a later "answer is a cat" names no letter: the clause naming K stands
    assert late_letter("So the answer is (K). The answer is a cat.", A_TO_L) == "K"


# report5's rules in choice_clause.py and answers.py (values worked out by hand).
from bench_kit.scoring.extract.answers import extract_choice as _choice  # noqa: E402

WIDE = {letter: letter.lower() * 3 for letter in "ABCDEFGHIJKLMNOPQR"}


@pytest.mark.parametrize("text, expected", [
    ("the answer is (k).", "K"),
    ("the answer is [m]", "M"),
    ("the answer is (k", None),      # no closing bracket: not a late letter
    ("the answer is k.", None),      # lower case needs brackets
    ("the answer is (z).", None),    # past the options
    ("the answer is (k) or (l).", None),        # a second lower-case letter offered
    ("the answer is (k) and [l].", None),
    ("the answer is (k), or maybe (l).", None),
    ("the answer is (k) or (k).", "K"),         # the same letter again
    ("the answer is (k), not (l).", "K"),       # the second ruled out
    ("the answer is (k). No, it's (b).", None),  # a later lower-case letter: the A-J rules read it
    ("the answer is (k). (m) is wrong.", "K"),
    ("the answer is (k). So (k).", "K"),
    ("The answer is (K) or L.", None),           # upper case: unchanged, an upper-case letter after "or"
    ("The answer is (K). Then (b) is next.", "K"),  # upper case: a later lower-case letter is not read
])
def test_late_lower_case_letter(text, expected):
    options = {letter: letter for letter in WIDE}
    assert late_letter(text, options) == expected


@pytest.mark.parametrize("text, expected", [
    ("I cannot determine it. The only choice left is (a) 20%, so that is the answer.", "A"),
    ("I cannot determine it. The only choice left is (a) 20%, which must be our final answer!", "A"),
    ("I cannot determine it. The only choice left is (a) 20%, this will be my answer\n", "A"),
    ("I cannot determine it. The only choice left is (a) 20%, so that is the answer key", None),
    ("I cannot determine it. The only choice left is (a) 20%, that was the answer.", None),
    ("I cannot determine it exactly. So A is correct.", "A"),               # a verdict ending its sentence
    ("I cannot determine it exactly. So (A) must be the correct answer!", "A"),
    ("I cannot determine it exactly. So A is correct in part.", None),       # not ending its sentence
    ("I cannot determine it exactly. Thus, (A) is correct.", "A"),          # opening its sentence
    ("I cannot determine it exactly. Some say A is correct.", None),        # not opening its sentence
    ("I cannot determine it exactly. If x is 20%, A is correct.", None),    # under a condition
    ("I cannot determine it exactly; the closest is A, hence A is correct.", "A"),
    ("I cannot determine it exactly, whether A is correct.", None),
])
def test_commits_after_a_refusal(text, expected):
    assert _choice(text, {"A": "20%", "B": "30%", "C": "40%"}) == expected
