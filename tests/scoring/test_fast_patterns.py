"""Regexes written for speed find exactly what their readable forms find (docs/BENCHMARKS.md,
"Extraction speed beside VLMEvalKit's can_infer"): each is checked against the readable
pattern on generated strings of the pieces it reads."""

from __future__ import annotations

import random
import re
import time

from bench_kit.scoring.extract.set_aside_options import _CLAUSE


def _strings(atoms: list[str], n: int, seed: int = 0):
    rng = random.Random(seed)
    for _ in range(n):
        yield "".join(rng.choice(atoms) for _ in range(rng.randint(1, 12)))


def test_clause_pattern_matches_its_readable_form() -> None:
    readable = re.compile(r"[^.!?\n;]+?(?=\s*(?:[.!?\n;]|,?\s+(?:but|however|although|though)\b"
                          r"|,\s+(?:as|because|since|compared\s+to)\b|$))", re.I)
    atoms = [" ", "  ", "\t", "\n", " \n", "\u00a0", ",", ", ", ".", "!", "?", ";", "a", "x", "but",
             "But", "however", "though", "although", "as", "AS", "because", "since", "compared to",
             "compared  to", "butter", "as1", "\u0130"]
    for text in _strings(atoms, 30_000):
        assert [m.span() for m in _CLAUSE.finditer(text)] == \
            [m.span() for m in readable.finditer(text)], text


def test_clauses_after_a_blanked_condition_are_found_fast() -> None:
    """A condition blanked out (`by_option_text`: 160 characters at most) cost ~10 ms per
    scan of the readable form (cubic in the blanks); now well under 1 ms."""
    text = " " * 160 + " the crayfish population will decrease. This is because they are prey."
    start = time.process_time()
    for _ in range(10):
        spans = [m.span() for m in _CLAUSE.finditer(text)]
    assert spans == [(0, 198), (199, 229)]
    assert time.process_time() - start < 0.05


def test_full_width_forms_replaced_as_one_substitution() -> None:
    """`clean_response` replaces each full-width character found with `str.replace` (for
    speed): the same text as one `_WIDE` substitution, on generated strings."""
    import random

    from bench_kit.scoring.extract.response import _WIDE, _WIDE_TEXT, clean_response

    atoms = [wide for wide, ascii in _WIDE_TEXT.items() if not set(ascii) & set('*`_#$<\\"')]
    atoms += ["a", " ", "答", "B", "1"]  # (forms of markup the other cleaning steps read left out)
    rng = random.Random(0)
    for _ in range(20_000):
        text = "答" + "".join(rng.choice(atoms) for _ in range(rng.randint(1, 12)))
        expected = _WIDE.sub(lambda m: _WIDE_TEXT[m.group()], text)
        assert clean_response(text) == expected.strip(), repr(text)


def test_letter_run_pattern_matches_its_readable_form() -> None:
    """`prompt_echo._LETTER_RUN` reads its "A" before the look-back (the engine skips to each
    "A"): the same matches as the readable `(?<![A-Za-z])A…`."""
    from bench_kit.scoring.extract.prompt_echo import _LETTER_RUN

    readable = re.compile(r"(?<![A-Za-z])A(?:\s*[,，、/]\s*[B-J])+(?![A-Za-z])")
    atoms = ["A", "B", "C", "J", "K", "a", "x", ",", "，", "、", "/", " ", "\n", "1", "选"]
    for text in _strings(atoms, 40_000):
        assert [m.span() for m in _LETTER_RUN.finditer(text)] == \
            [m.span() for m in readable.finditer(text)], text


_LABEL_ATOMS = [" ", "\t", "\n", ".", ";", ",", ":", "?", "!", "]", "[", "(", ")", "A", "B", "E", "J",
                "K", "a", "x", "答", "：", "1", "  "]


def test_listed_option_label_matches_its_readable_form() -> None:
    """`listed_options._LABEL` reads the bracket or letter before its look-back (5x faster on
    reasoning): the same spans and groups as the readable form."""
    from bench_kit.scoring.extract.listed_options import _LABEL

    readable = re.compile(r"(?:^|(?<=[\s.;,:?!\]]))(?:[(\[]([A-J])[)\]][ \t]*+:?|([A-J])[ \t]*+[:.)])"
                          r"[ \t]*+")
    for text in _strings(_LABEL_ATOMS, 60_000, seed=3):
        assert [(m.span(), m.groups()) for m in _LABEL.finditer(text)] == \
            [(m.span(), m.groups()) for m in readable.finditer(text)], repr(text)


def test_invented_option_labels_match_their_readable_form() -> None:
    """`invented_options.labels` reads the line or sentence mark instead of looking back at
    every position: the same labels as the readable form."""
    from bench_kit.scoring.extract.invented_options import labels

    readable = re.compile(r"(?:^|(?<=[\n.;!?]))[ \t]*+(?:\[([A-J])\][ \t]*+:?|([A-J])[ \t]*+:)"
                          r"[ \t]*+(?=[^\s:：0-9])")
    for text in _strings(_LABEL_ATOMS, 60_000, seed=4):
        assert [m.groups() for m in labels(text)] == \
            [m.groups() for m in readable.finditer(text)], repr(text)


def test_invented_label_precheck_lets_every_label_past_the_last_through() -> None:
    """`invents_options` scans for labels only when `_may_label` finds "[X]" or "X:" for a
    letter past the last option: every text holding such a label passes it."""
    from bench_kit.scoring.extract.invented_options import _PAST, _may_label, labels

    atoms = ["F", "G", "I", "E", "D", "A", ":", " :", "\t:", " ", "\t", "\n", ".", "。", "[", "]",
             "[F]", "[E]", "x", "2", "：", "!", "?", ";"]
    for text in _strings(atoms, 30_000, seed=4):
        for last in "ACD":
            found = any((m.group(1) or m.group(2)) > last for m in labels(text))
            assert not found or _may_label(text, _PAST[last]), (text, last)
