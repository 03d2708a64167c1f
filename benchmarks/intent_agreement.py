"""Extraction against intent labels written by a second reader.

Two sets:

- the frozen intent sets (``--family mc|yesno|open|all``): 2,100 responses each, mostly
  real model outputs (``benchmarks/intent_labels/README.md``), labelled by a reader who did
  not write the extractor and saw only the question, the options or golds and the response
  (``<family>_set_labels.jsonl``). bench_kit's extraction and the field's references
  (VLMEvalKit ``can_infer`` / ``YOrN_Extraction``, MMMU's parsers with ``random.seed(0)``;
  run unmodified from checkouts outside the project with ``--vlmevalkit`` / ``--mmmu``,
  their outputs stored in ``<family>_reference.jsonl``) are compared with the labels, per
  family, per source, and separately on the two halves of a seeded split by benchmark
  item (``SPLIT_SEED``): extraction may be tuned on the ``tune`` half only; the ``held-out``
  half is the figure to report;
- with ``--set NAME``, a report set in ``intent_labels/NAME/`` (``report2``, ``report5``:
  responses from other public files, frozen before any extractor ran on them, never tuned
  on): the same files and comparisons, reported over the whole set (no tune / held-out
  split) and with no disagreements printed unless ``--show`` asks for them;
- a report-set family that was tuned on (``SPLIT_SETS``: ``report3``'s yes/no, whose chat
  prose the tuning sets do not hold, the GAOKAO-Bench rows of ``report3``'s multiple
  choice, answered in Chinese, and the grade-school-math rows of its open answers, closed by
  an ``A: n`` line) is split by question like the frozen sets: both halves are
  reported, and the family's unsplit rows apart (``other``); ``--show`` prints
  disagreements of the ``tune`` half only, and ``--tune-only`` measures the ``tune`` half
  alone (no held-out or other figure at all, for tuning); ``--show-all`` prints the
  disagreements of every row, held-out and unsplit ones too: a set looked at so is tuning
  data from then on (``report3`` since a later set, ``report4``, was frozen; ``report4``
  since 2026-12-02, when ``report5`` was set to be built from other files: docs/METRICS.md);
- with no ``--family``, the earlier 300-row sample of the generated multiple-choice vectors
  (``mc_sample.jsonl`` / ``mc_labels.jsonl``).

    python benchmarks/intent_agreement.py --family all
    python benchmarks/intent_agreement.py --set report2 --family all --labels-from /work/wt/readers2
    python benchmarks/intent_agreement.py --set report4 --family all --labels-from /work/wt/readers8
    python benchmarks/intent_agreement.py --set report5 --family all --labels-from /work/wt/readers10
    python benchmarks/intent_agreement.py --set report3 --family yesno --tune-only --show 40
    python benchmarks/intent_agreement.py --set report3 --family mc --tune-only --show 60
    python benchmarks/intent_agreement.py --set report3 --family open --tune-only --show 60
    python benchmarks/intent_agreement.py --set report3 --family open --show-all 80
    python benchmarks/intent_agreement.py --family mc --vlmevalkit /tmp/VLMEvalKit \\
        --mmmu /tmp/MMMU --show 40
    python benchmarks/intent_agreement.py --family grounding --vlmevalkit /tmp/VLMEvalKit \\
        --labels-from /work/wt/readers4   # box parsing (benchmarks/grounding_agreement.py)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_kit.scoring.extract.answers import extract_choice, extract_yesno  # noqa: E402
from bench_kit.scoring.extract.numbers import answer_number  # noqa: E402
from bench_kit.scoring.extract.response import clean_response  # noqa: E402
from bench_kit.scoring.metrics.answers import mmmu_candidates, mmmu_open_match  # noqa: E402

HERE = Path(__file__).parent / "intent_labels"
VECTORS = Path(__file__).parent.parent / "tests" / "scoring" / "reference" / "vectors" / "mc.jsonl"
SPLIT_SEED = "i25c-split-20261201"
FAMILIES = ("mc", "yesno", "open")
# Report-set families split by question into a tune and a held-out half (the set's README
# says which and why): family -> the source prefix of the rows split ("" = every row); the
# family's other rows are reported apart ("other") and never tuned on. Every other
# report-set family (report2's, report5's) is measured whole and never tuned on.
SPLIT_SETS = {"report3": {"yesno": "", "mc": "gaokao", "open": "gsm8k"}}
REPORT_SETS = ("report2", "report3", "report4", "report5")  # the report sets committed so far
# The set that is the report now: never read, so no disagreement of it is ever printed
# (report4 was until 2026-12-02; it is tuning data from then on and report5 is the report)
# (`--show`, `--show-all` and `--misses` are refused for it; totals only).
UNREAD_SETS = ("report5",)


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _letter(value: object) -> str:
    """A reference or bench_kit answer as a label: a letter, or ``none``."""
    return value if isinstance(value, str) and len(value) == 1 and value.isalpha() \
        and value.isupper() and value != "Z" else "none"


def half(row: dict) -> str:
    """``tune`` or ``held-out``: a seeded split by benchmark item, so the responses of
    several models to one question fall in the same half."""
    digest = hashlib.sha256(f"{SPLIT_SEED}:{row['item']}".encode()).digest()
    return "tune" if digest[0] % 2 == 0 else "held-out"


# --- intent of a label (the reader's answer), judged without bench_kit's code ------------

_NUM = re.compile(r"^[-+]?(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)%?$")


_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}


# "\frac{1}{2}" / "-\dfrac{3}{4}": the LaTeX spelling of a fraction, which the readers
# write as often as "1/2" (the report set's third reader: 8 of 11 differences were that).
_LATEX_FRACTION = re.compile(r"^([-+]?)\\[dt]?frac\{\s*(\d+)\s*\}\{\s*(\d+)\s*\}$")


# "4e-05", "5.27 × 10^-25", "9.98*10^-25", "10^5", "2*10^3" (a LaTeX gold "$2 \\times 10^{3}$" as plain
# math): a number in scientific notation, as TheoremQA's golds and its readers write them.
_SCIENTIFIC = re.compile(r"^(?:([-+]?\d+(?:\.\d+)?)\s*(?:[eE]([-+]?\d+)|(?:[×x*·]|\\times|\\cdot)\s*"
                         r"10\s*\^\s*[{(]?\s*([-+]?\d+)\s*[})]?)|10\s*\^\s*[{(]?\s*([-+]?\d+)\s*[})]?)$")


def _number(text: str) -> float | None:
    text = text.strip().replace("−", "-").rstrip(".")
    scientific = _SCIENTIFIC.match(text)
    if scientific:
        exponent = next(part for part in scientific.groups()[1:] if part is not None)
        return float(scientific.group(1) or 1) * 10.0 ** int(exponent)
    fraction = _LATEX_FRACTION.match(text)
    if fraction:
        text = f"{fraction.group(1)}{fraction.group(2)}/{fraction.group(3)}"
    if text.lower() in _WORDS:
        return float(_WORDS[text.lower()])
    if _NUM.match(text):
        return float(text.replace(",", "").rstrip("%"))
    if re.match(r"^[-+]?\d+/\d+$", text):
        top, bottom = text.split("/")
        return float(top) / float(bottom) if float(bottom) else None
    return None


# TheoremQA's own grader compares a float gold within 4% of its size (TIGER-AI-Lab/TheoremQA,
# number_utils.py, `within_eps` via `compare_two_numbers`, commit acfc9686): the comparison used
# for a gold in scientific notation or below the decimals' step, where 2 decimals would call
# every small reading ("0", "5e-05" for 4e-05) right.
_RELATIVE_TOLERANCE = 0.04


def _same_float(value: float, gold: float, gold_text: str, row: dict) -> bool:
    """A float reading and gold: within 4% of the gold (TheoremQA's tolerance) when the gold
    is written in scientific notation or is smaller than the item's decimals can show
    ("4e-05", "0.0025" at 2 decimals), else equal at the item's decimals."""
    places = _places(row)
    if gold and (_SCIENTIFIC.match(gold_text.strip()) or abs(gold) < 10.0 ** -places):
        return abs(value - gold) <= _RELATIVE_TOLERANCE * abs(gold)
    return round(value, places) == round(gold, places)


def _places(row: dict) -> int:
    """The decimals a float gold is compared at: the item's precision, else 2 (a source
    that gives none, as the report set's: the rounding MMMU's ``eval_open`` applies, so
    the reader's "4.25" is not a gold "4.36", as 0 decimals had it)."""
    return 2 if row.get("precision") is None else int(row["precision"])


# A gold in LaTeX math ("$\\frac{2}{3}$", "$y=2 x$", "$(0,+\\infty)$") and the reader's answer
# ("2/3", "y=2x", "(0,+∞)") compared as plain math: written here, not with bench_kit's code.
_LATEX_SYMBOL = {"pi": "π", "infty": "∞", "cdot": "*", "times": "*", "leq": "≤", "le": "≤",
                 "geq": "≥", "ge": "≥", "neq": "≠", "circ": "°", "%": "%", "rightarrow": "→", "to": "→"}
_LATEX_SYMBOLS = re.compile(r"\\(" + "|".join(_LATEX_SYMBOL) + r")(?![a-zA-Z])")
_LATEX_WRAPPER = re.compile(r"\\(?:text|mathrm|mathbf|boxed)\s*\{([^{}]*)\}")
_LATEX_ROOT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_LATEX_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")


def _term(part: str) -> str:
    """A numerator in parentheses unless it is one product ("3√10" in "3√10/10")."""
    return part if re.fullmatch(r"[\w.√π∞]+", part) else f"({part})"


# One factor: a number, a letter or a root of one ("2", "x", "√3", "√(2x)"). A denominator,
# a root's argument or an exponent (`_power`) of more is in parentheses: "\frac{1}{2x}" is "1/(2x)"
# (not "1/2x", "x/2"), "\sqrt{2x}" is "√(2x)" (not "\sqrt{2}x"), "2^{x+1}" is "2^(x+1)".
_FACTOR = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|[a-zA-Zπ∞]|√(?:\d+(?:\.\d+)?|[a-zA-Zπ]|\([^()]*\)))")
_LATEX_POWER = re.compile(r"([_^])\s*\{([^{}]*)\}(?=([\w√(]?))")  # ("a_{1}2" is "a_(1)2")
# "3\frac{1}{2}": a mixed number, 3.5 (not 31/2); a proper fraction of digits only.
_LATEX_MIXED = re.compile(r"(?<![\w.}])([-+]?)(\d+)\s*\\[dt]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}")
# "$1, 100$": values listed, not the number 1100 ("$10,\!404$" is one number).
_LISTED = re.compile(r"\d,\s+\d")


def _factor(part: str) -> str:
    return part if _FACTOR.fullmatch(part) else f"({part})"


def _power(match: re.Match) -> str:
    """An exponent or a subscript, in parentheses when it is more than one factor or a
    factor follows it."""
    part = re.sub(r"\s+", "", match.group(2))
    return match.group(1) + (f"({part})" if match.group(3) else _factor(part))


def _mixed(match: re.Match) -> str:
    whole, top, bottom = (int(match.group(i)) for i in (2, 3, 4))
    if not 0 < top < bottom:
        return match.group()
    return f"{match.group(1)}{whole + top / bottom!r}"


def plain_math(text: str) -> str:
    """A math answer without its LaTeX: "$\\frac{3 \\sqrt{10}}{10}$" -> "3√10/10"."""
    text = re.sub(r"\\(?:left|right)(?![a-zA-Z])|\\[,;!: ]|\$", "", text.strip().rstrip("."))
    text = _LATEX_SYMBOLS.sub(lambda m: _LATEX_SYMBOL[m.group(1)], text)
    text = _LATEX_MIXED.sub(_mixed, text)
    for _ in range(3):  # nested wrappers, roots, fractions and powers, innermost first
        text = _LATEX_WRAPPER.sub(r"\1", text)
        text = _LATEX_ROOT.sub(lambda m: "√" + _factor(re.sub(r"\s+", "", m.group(1))), text)
        text = _LATEX_FRAC.sub(lambda m: _term(re.sub(r"\s+", "", m.group(1))) + "/"
                               + _factor(re.sub(r"\s+", "", m.group(2))), text)
        text = _LATEX_POWER.sub(_power, text)
    text = text.replace("{", "").replace("}", "").replace("\\", "").replace("−", "-")
    return re.sub(r"\s+", "", text).lower()


# "$\\frac{1}{2}$ cm", "$4\\pi$ cm^2": a LaTeX value with a word written after the math. The
# word is dropped from the gold when the reader wrote the same word after the answer ("3/2 R"
# for "$\\frac{3}{2}$ R") or when it is a unit (`_UNITS`): a letter such as "a" or "x" after
# the math may be a factor of the value ("$\\sqrt{2}$ a" is not "√2").
_MATH_THEN_UNIT = re.compile(r"\s*(\$[^$]+\$)\s*([A-Za-zµ°Ω]+(?:\^\d)?)\.?\s*")
_UNITS = frozenset(
    "mm cm m km nm µm in ft mi s ms min h hr hours g kg mg t l ml n kn j kj ev w kw v mv hz khz "
    "mhz pa kpa atm k °c ° rad deg degrees mol ω c cm^2 m^2 km^2 cm^3 m^3 percent dollars "
    "meters seconds minutes units thousand million billion".split())
# "1/2π" written inline (π not spaced from its denominator): commonly 1/(2π), so never read as
# the multiple (1/2)π of `_pi_multiple`; it is "$\\frac{1}{2\\pi}$" or the same text ("2/3π" for
# "$\\frac{2}{3}\\pi$"). Spaced, "2/3 π" is (2/3)π.
_INLINE_OVER_PI = re.compile(r"([-+]?\d+)/(\d+(?:\.\d+)?)π")


def _math_without_unit(gold: str, label: str) -> tuple[str, str]:
    """A LaTeX gold and the reader's answer without the word after the gold's math
    (`_MATH_THEN_UNIT`): dropped from both when the answer ends with it, from the gold alone
    when it is a unit; kept otherwise."""
    unit = _MATH_THEN_UNIT.fullmatch(gold)
    if unit is None:
        return gold, label
    word = unit.group(2)
    written = re.fullmatch(r"(.+?)\s*" + re.escape(word) + r"\.?\s*", label, re.IGNORECASE)
    if written:
        return unit.group(1), written.group(1)
    return (unit.group(1), label) if word.lower() in _UNITS else (gold, label)


def _pi_multiple(math: str) -> float | None:
    """The factor of a plain-math multiple of π ("2/3π", "2π/3", "π/4" -> 2/3, 2/3, 1/4),
    rounded to 6 decimals, or None when the text is no such multiple."""
    if math.count("π") != 1 or "/π" in math or "/(" in math:  # "2/π" is no multiple
        return None
    rest = math.replace("π", "", 1).replace("*", "")
    rest = "1" + rest if rest[:1] in ("/", "") else rest
    rest = rest[:-1] if rest.endswith("/") else rest
    number = _number(rest.replace("-/", "-1/")) if rest != "-" else -1.0
    return None if number is None else round(number, 6)


def label_is_correct(label: str, row: dict) -> bool:
    """Whether the reader's answer equals a gold: numbers (number words 0-20 included, and
    scientific notation: "4e-05", "5.27 × 10^-25", "10^5") for floats as `_same_float` (within
    4% for a scientific or tiny gold, else at the item's precision or 2 decimals) and exactly
    otherwise; a gold in LaTeX math as plain math (`plain_math`; a word after the math as
    `_math_without_unit`, a multiple of π compared by its factor: "2π/3" is
    "$\\frac{2}{3}\\pi$", but an inline "1/2π" is 1/(2π)); other text case- and
    punctuation-insensitively."""
    if label == "none":
        return False
    for gold in row["golds"]:
        latex = "$" in gold or "\\" in gold
        answer = label
        if latex:
            listed = _LISTED.search(gold) is not None
            gold, answer = (plain_math(part) for part in _math_without_unit(gold, label))
            inline = None if re.search(r"\s(?:π|\\pi)", label) else _INLINE_OVER_PI.fullmatch(answer)
            if inline and gold == f"{inline.group(1)}/({inline.group(2)}π)":
                return True  # "1/2π" for "$\\frac{1}{2\\pi}$"
            if not listed and not inline and _pi_multiple(gold) is not None \
                    and _pi_multiple(gold) == _pi_multiple(answer):
                return True  # "2/3π" (LaTeX's) and "2π/3": one multiple of π
        g, v = (None if latex and listed else _number(gold)), _number(answer)
        if g is not None and v is not None:
            if row.get("answer_type") != "float":
                if v == g:
                    return True
            elif _same_float(v, g, gold, row):
                return True
        elif latex and answer == gold:
            return True
        elif not latex and re.sub(r"\W+", " ", answer).strip().lower() \
                == re.sub(r"\W+", " ", gold).strip().lower():
            return True
    return False


def is_number_row(label: str, row: dict) -> bool:
    """Whether a row counts in the number-value figure: the reader's answer is a number,
    or it is ``none`` on an item whose gold holds a digit (a number, a fraction, "4\\pi").
    An item whose golds have no digit (word sorting, a place, a letter) is not one the
    numeric extractor scores, so its unanswered rows say nothing about it."""
    if label == "none":
        return any(ch.isdigit() for gold in row["golds"] for ch in gold)
    return _number(label) is not None


def same_value(label: str, value: float | None) -> bool:
    """Whether an extracted number is the reader's answer (``none`` = no number)."""
    if label == "none" or value is None:
        return label == "none" and value is None
    number = _number(label)
    return number is not None and abs(number - value) <= 1e-9 * max(1.0, abs(number))


# --- bench_kit's reading of each row ------------------------------------------------------

def _yesno_of_choice(letter: str | None, choices: dict) -> str:
    text = (choices.get(letter) or "").strip().lower() if letter else ""
    return text if text in ("yes", "no") else "none"


def bench_kit_reading(family: str, row: dict) -> dict[str, str]:
    """What bench_kit answers for a row, as the scorer for that item would read it."""
    text = row["response"]
    question = row.get("question")
    if family == "mc":
        return {"answer": _letter(extract_choice(text, row["choices"], question))}
    if family == "yesno":
        plain = extract_yesno(text, question) or "none"
        if row.get("choices"):  # an item with Yes/No options is a multiple-choice item
            letter = extract_choice(text, row["choices"], question)
            return {"answer": _yesno_of_choice(letter, row["choices"]), "extract_yesno": plain}
        return {"answer": plain, "extract_yesno": plain}
    cleaned = clean_response(text)
    keys, _ = mmmu_candidates(cleaned)
    found, _ = answer_number(text)
    return {"mmmu_open": str(bool(keys) and mmmu_open_match(cleaned, row["golds"])),
            "number": "none" if found.value is None else repr(found.value)}


# --- the references, run from checkouts outside the project ------------------------------

def reference_readings(family: str, rows: list[dict], vlmevalkit: Path, mmmu: Path) -> list[dict]:
    """The references' readings of every row (unmodified code; MMMU's random fallback
    seeded with 0, and flagged when seeds 0-11 disagree)."""
    from reference_loader import load_mmmu, load_vlmevalkit, load_vlmevalkit_yorn

    _, matching = load_vlmevalkit(vlmevalkit)
    yorn = load_vlmevalkit_yorn(vlmevalkit)
    mmmu_utils = load_mmmu(mmmu)
    out = []
    for row in rows:
        ref: dict = {"id": row["id"]}
        choices = row.get("choices") or {}
        if choices:
            ref["can_infer"] = _letter(matching.can_infer(row["response"], dict(choices)) or None)
            picks = []
            for seed in range(12):
                random.seed(seed)
                picks.append(mmmu_utils.parse_multi_choice_response(
                    row["response"], list(choices), dict(choices)))
            ref["mmmu"], ref["mmmu_random"] = picks[0], len(set(picks)) > 1
        if family == "yesno":
            ref["yorn"] = {"Yes": "yes", "No": "no"}.get(yorn.YOrN_Extraction(row["response"]),
                                                         "none")
        if family == "open":
            parsed = mmmu_utils.parse_open_response(row["response"])
            ref["mmmu_open"] = str(bool(mmmu_utils.eval_open(row["golds"], parsed)))
        out.append(ref)
    return out


def _reference_answer(family: str, row: dict, ref: dict, name: str) -> str:
    if family == "mc":
        return ref["can_infer"] if name == "vlmevalkit" else ref["mmmu"]
    if family == "yesno":
        if row.get("choices"):
            letter = ref["can_infer"] if name == "vlmevalkit" else ref["mmmu"]
            return _yesno_of_choice(None if letter == "none" else letter, row["choices"])
        return ref["yorn"] if name == "vlmevalkit" else "n/a"
    return ref["mmmu_open"]


# --- agreement -----------------------------------------------------------------------------

def load_labels(family: str, ids: set[str], folder: Path = HERE) -> dict[str, str]:
    path = folder / f"{family}_set_labels.jsonl"
    if not path.exists():
        raise SystemExit(f"{path}: no labels yet (the second reader writes them)")
    labels, problems = {}, []
    for number, row in enumerate(_jsonl(path), 1):
        if row.get("id") not in ids:
            problems.append(f"{path}:{number}: id {row.get('id')!r} is not in the set")
        elif row["id"] in labels:
            problems.append(f"{path}:{number}: id {row['id']} labelled twice")
        else:
            labels[row["id"]] = str(row.get("label", "")).strip()
    problems += [f"{path}: id {i} has no label" for i in sorted(ids - set(labels))]
    if problems:
        raise SystemExit("\n".join(problems[:20]))
    return labels


def _targets(family: str, row: dict, label: str) -> dict[str, str]:
    """What each compared reading must equal for the row to agree with the reader."""
    if family == "open":
        return {"mmmu_open": str(label_is_correct(label, row))}
    return {"answer": label.lower() if family == "yesno" else label}


def compare(family: str, rows: list[dict], labels: dict, refs: dict[str, dict],
            split: str | None = "") -> dict:
    """Agreement counts: ``counts[(extractor, half, source)] = [agree, total]``, plus the
    disagreements of bench_kit's main reading. ``split`` is the source prefix of the rows
    split into halves (``""``: all; the others are ``other``); ``None`` (a report set): one
    half, ``whole``."""
    counts: dict = defaultdict(lambda: [0, 0])
    misses = []
    main = "mmmu_open" if family == "open" else "answer"
    for row in rows:
        label, source = labels[row["id"]], row["source"].split(":")[0]
        where = "whole" if split is None else part(row, split)
        target = _targets(family, row, label)[main]
        mine = bench_kit_reading(family, row)
        readings = {"bench_kit": mine[main]}
        if family == "yesno":
            readings["bench_kit extract_yesno"] = mine["extract_yesno"]
        if family == "open" and is_number_row(label, row):
            readings["bench_kit answer_number (value)"] = \
                "ok" if same_value(label, None if mine["number"] == "none"
                                   else float(mine["number"])) else "miss"
        ref = refs.get(row["id"])
        if ref:
            readings["VLMEvalKit"] = _reference_answer(family, row, ref, "vlmevalkit") \
                if family != "open" else None
            readings["MMMU"] = _reference_answer(family, row, ref, "mmmu")
        for name, value in readings.items():
            if value is None or value == "n/a":
                continue
            ok = value == "ok" if name.endswith("(value)") else value == target
            for key in ((name, "all", "all"), (name, where, "all"), (name, "all", source),
                        (name, where, source)):
                counts[key][0] += ok
                counts[key][1] += 1
        if readings["bench_kit"] != target:
            misses.append((where, row, label, readings["bench_kit"], target))
    return {"counts": counts, "misses": misses}


def _pct(pair: list[int]) -> str:
    return f"{pair[0]}/{pair[1]} ({pair[0] / pair[1]:.1%})" if pair[1] else "-"


def report(family: str, result: dict, show: int, misses: str = "tune",
           halves: tuple[str, ...] = ("all", "tune", "held-out")) -> None:
    counts = result["counts"]
    names = sorted({k[0] for k in counts}, key=lambda n: (not n.startswith("bench_kit"), n))
    print(f"\n== {family}: {counts[('bench_kit', 'all', 'all')][1]} responses")
    print(f"{'extractor':<34} " + " ".join(f"{h:>20}" for h in halves))
    for name in names:
        print(f"{name:<34} " + " ".join(f"{_pct(counts[(name, h, 'all')]):>20}"
                                       for h in halves))
    sources = sorted({k[2] for k in counts if k[2] != "all"})
    print("per source (all rows): " + ", ".join(
        f"{s} " + " / ".join(f"{n} {_pct(counts[(n, 'all', s)])}" for n in names
                             if counts[(n, 'all', s)][1]) for s in sources))
    shown = [m for m in result["misses"] if misses in ("all", m[0]) or m[0] == "whole"]
    for where, row, label, mine, target in shown[:show]:
        print(f"  [{where}] {row['id']} ({row['source']}): reader {label!r}, bench_kit {mine!r}"
              f" (needs {target!r}): {row['response'][-300:]!r}")


def run_family(family: str, args: argparse.Namespace) -> None:
    folder = HERE / args.set if args.set else HERE
    rows = _jsonl(folder / f"{family}_set.jsonl")
    if args.labels_from:  # the reader's part files, gathered into one file in set order
        parts = sorted(args.labels_from.glob(f"{family}_part*.labels.jsonl"))
        got = {r["id"]: r for part in parts for r in _jsonl(part) if "id" in r}
        (folder / f"{family}_set_labels.jsonl").write_text("".join(
            json.dumps({"id": r["id"], "label": got[r["id"]].get("label")}, ensure_ascii=False)
            + "\n" for r in rows if r["id"] in got), encoding="utf-8")
    store = folder / f"{family}_reference.jsonl"
    if args.vlmevalkit and args.mmmu:
        refs = reference_readings(family, rows, args.vlmevalkit, args.mmmu)
        store.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in refs),
                         encoding="utf-8")
        print(f"wrote {store}")
    if not (folder / f"{family}_set_labels.jsonl").exists():
        print(f"{family}: no labels yet ({folder / f'{family}_set_labels.jsonl'})")
        return
    labels = load_labels(family, {r["id"] for r in rows}, folder)
    refs = {r["id"]: r for r in _jsonl(store)} if store.exists() else {}
    prefix = split_prefix(args.set, family)
    if args.tune_only and prefix is not None:  # the held-out half is not even measured
        rows = [r for r in rows if part(r, prefix) == "tune"]
    halves = ("all", "tune", "held-out") + (("other",) if prefix else ())
    halves = ("tune",) if args.tune_only and prefix is not None else halves
    if args.show_all is not None:  # every row's disagreements: the set is tuning data now
        report(family, compare(family, rows, labels, refs, split=prefix), args.show_all, "all",
               halves=("all",) if prefix is None else halves)
    elif prefix is None:  # a report set: the whole set, no tune / held-out split
        report(family, compare(family, rows, labels, refs, split=None),
               0 if args.show is None else args.show, "all", halves=("all",))
    elif args.set:  # a split report-set family: misses of the tune half only, never others
        report(family, compare(family, rows, labels, refs, split=prefix),
               0 if args.show is None else args.show, "tune", halves=halves)
    else:
        report(family, compare(family, rows, labels, refs), 20 if args.show is None
               else args.show, args.misses, halves=halves)


def split_prefix(name: str | None, family: str) -> str | None:
    """The source prefix of a family's rows split into a tune and a held-out half (``""``:
    every row; always so on the frozen sets), or ``None`` for a family measured whole."""
    return "" if name is None else SPLIT_SETS.get(name, {}).get(family)


def is_split(name: str | None, family: str) -> bool:
    """Whether a family is split (in part) into a tune and a held-out half."""
    return split_prefix(name, family) is not None


def part(row: dict, prefix: str) -> str:
    """``tune`` / ``held-out`` (``half()``) for a row whose source starts with ``prefix``,
    else ``other`` (reported apart, never tuned on)."""
    return half(row) if row["source"].startswith(prefix) else "other"


def run_sample() -> None:
    """The 300-row sample of the generated multiple-choice vectors."""
    sample = _jsonl(HERE / "mc_sample.jsonl")
    labels = {row["row"]: row["label"] for row in _jsonl(HERE / "mc_labels.jsonl")}
    vectors = _jsonl(VECTORS)
    ours, theirs, disagreements = Counter(), Counter(), []
    for row in sample:
        label = labels[row["row"]]
        mine = _letter(extract_choice(row["response"], row["choices"]))
        ref = _letter(vectors[row["row"]]["can_infer"])
        shape = vectors[row["row"]]["shape"]
        ours[(shape, mine == label)] += 1
        theirs[(shape, ref == label)] += 1
        if mine != label:
            disagreements.append((row["row"], row["response"], label, mine))
    n = len(sample)
    agree = sum(v for (_, ok), v in ours.items() if ok)
    ref_agree = sum(v for (_, ok), v in theirs.items() if ok)
    print(f"responses: {n}")
    print(f"bench_kit extract_choice agrees with the reader: {agree}/{n} ({agree / n:.1%})")
    print(f"VLMEvalKit can_infer agrees with the reader:    {ref_agree}/{n} ({ref_agree / n:.1%})")
    print("\nper shape (bench_kit / can_infer):")
    for shape in sorted({s for s, _ in ours}):
        total = ours[(shape, True)] + ours[(shape, False)]
        print(f"  {shape:<11} {ours[(shape, True)]:>3}/{total}  {theirs[(shape, True)]:>3}/{total}")
    for row, response, label, mine in disagreements:
        print(f"  row {row}: reader {label}, bench_kit {mine}: {response!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=FAMILIES + ("all", "grounding"),
                        help="'grounding': box parsing, see benchmarks/grounding_agreement.py "
                             "(not part of 'all')")
    parser.add_argument("--vlmevalkit", type=Path, help="VLMEvalKit checkout (outside the project)")
    parser.add_argument("--mmmu", type=Path, help="MMMU checkout (outside the project)")
    parser.add_argument("--labels-from", type=Path,
                        help="gather <family>_part*.labels.jsonl from this folder first")
    parser.add_argument("--set", help="a report set folder under intent_labels/ "
                                      f"({', '.join(REPORT_SETS)})")
    parser.add_argument("--show", type=int,
                        help="disagreements to print per family (default 20; 0 with --set)")
    parser.add_argument("--misses", choices=("tune", "held-out", "all"), default="tune",
                        help="which half's disagreements to print (tune on 'tune' only)")
    parser.add_argument("--show-all", type=int, metavar="N",
                        help="with --set: print N disagreements of every row, held-out and "
                             "unsplit rows too (the set is tuning data from then on)")
    parser.add_argument("--tune-only", action="store_true",
                        help="measure only the tune half of split families (no held-out figure)")
    args = parser.parse_args()
    if args.set and args.misses != "tune":
        parser.error("--misses: a report set prints only the tune half's disagreements")
    if args.show_all is not None and not args.set:
        parser.error("--show-all needs --set (the frozen sets print both halves with --misses all)")
    if args.set in UNREAD_SETS and (args.show or args.show_all is not None):
        parser.error(f"--set {args.set} is the report and is never read: totals only "
                     "(no --show / --show-all)")
    if args.set and not (HERE / args.set).is_dir():
        parser.error(f"--set {args.set}: no folder {HERE / args.set}")
    if not args.family:
        if args.set:
            parser.error("--set needs --family")
        run_sample()
        return
    if args.family == "grounding":
        from grounding_agreement import run as run_grounding

        run_grounding(args, HERE / args.set if args.set else HERE)
        return
    for family in FAMILIES if args.family == "all" else (args.family,):
        run_family(family, args)


if __name__ == "__main__":
    main()
