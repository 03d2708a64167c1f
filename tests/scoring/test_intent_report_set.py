"""benchmarks/intent_agreement.py --set: a report set is measured whole, from its own folder."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "intent_agreement.py"


@pytest.fixture()
def agreement(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("intent_agreement_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    folder = tmp_path / "report9"
    folder.mkdir()
    rows = [{"id": "r-1", "family": "mc", "source": "s:a", "item": "i/1", "question": "Q?",
             "choices": {"A": "cat", "B": "dog"}, "response": "The answer is B."},
            {"id": "r-2", "family": "mc", "source": "s:b", "item": "i/2", "question": "Q?",
             "choices": {"A": "cat", "B": "dog"}, "response": "I cannot tell."}]
    (folder / "mc_set.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    readers = tmp_path / "readers"
    readers.mkdir()
    (readers / "mc_part1.labels.jsonl").write_text(
        '{"id": "r-2", "label": "A"}\n{"id": "r-1", "label": "B"}\n')
    return module, folder, readers


def _run(module, monkeypatch, *argv: str) -> None:
    monkeypatch.setattr(sys, "argv", ["intent_agreement.py", *argv])
    module.main()


def test_report_set_is_measured_whole_from_its_folder(agreement, monkeypatch, capsys):
    module, folder, readers = agreement
    _run(module, monkeypatch, "--set", "report9", "--family", "mc", "--labels-from", str(readers))
    labels = [json.loads(line) for line in (folder / "mc_set_labels.jsonl").read_text().splitlines()]
    assert [r["id"] for r in labels] == ["r-1", "r-2"]  # gathered in set order, in the set's folder
    out = capsys.readouterr().out
    assert "== mc: 2 responses" in out
    assert "held-out" not in out and "tune" not in out  # no split on a report set
    assert "1/2 (50.0%)" in out  # r-2: the reader says A, the response commits to nothing
    assert "r-2" not in out  # disagreements are not printed unless asked for
    _run(module, monkeypatch, "--set", "report9", "--family", "mc", "--show", "5")
    assert "r-2 (s:b): reader 'A', bench_kit 'none'" in capsys.readouterr().out


def test_a_family_the_set_lacks_is_reported_absent(agreement, monkeypatch, capsys):
    """A report set without a yes/no or open family (report7 has none of yes/no) is measured
    on the families it has; the missing ones are named, not a traceback."""
    module, folder, readers = agreement
    _run(module, monkeypatch, "--set", "report9", "--family", "all", "--labels-from", str(readers))
    out = capsys.readouterr().out
    assert "== mc: 2 responses" in out
    assert f"yesno: no set in {folder}" in out and f"open: no set in {folder}" in out


def test_unknown_set_is_a_one_line_error(agreement, monkeypatch, capsys):
    module, _, _ = agreement
    with pytest.raises(SystemExit):
        _run(module, monkeypatch, "--set", "nope", "--family", "mc")
    assert "--set nope: no folder" in capsys.readouterr().err


def _split_yesno_set(module, tmp_path) -> list[dict]:
    """A yes/no family in a folder named like a split report set: one item in each half,
    bench_kit missing one response in each."""
    items = {module.half({"item": f"q/{n}"}): f"q/{n}" for n in range(40)}
    rows = []
    for where in ("tune", "held-out"):
        for n, response in enumerate(("Yes, it is.", "I cannot tell.")):
            rows.append({"id": f"{where}-{n}", "family": "yesno", "source": "s:a",
                         "item": items[where], "question": "Is it?", "response": response})
    folder = tmp_path / "report3"
    folder.mkdir()
    (folder / "yesno_set.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "yesno_set_labels.jsonl").write_text("".join(
        json.dumps({"id": r["id"], "label": "yes"}) + "\n" for r in rows))
    return rows


def test_split_report_family_reports_both_halves_and_shows_tune_misses_only(
        agreement, monkeypatch, capsys, tmp_path):
    module, _, _ = agreement
    assert module.is_split("report3", "yesno") and module.is_split("report3", "open")
    assert not module.is_split("report2", "open")
    assert not module.is_split("report2", "mc") and module.is_split(None, "mc")
    assert all(not module.is_split("report4", f) for f in module.FAMILIES)  # measured whole
    assert all(not module.is_split("report5", f) for f in module.FAMILIES)
    assert not module.is_split("report6", "mc") and not module.is_split("report6", "yesno")
    assert module.is_split("report6", "open")  # its tune half is tuning data
    assert "report6" in module.UNREAD_SETS
    assert "report7" in module.UNREAD_SETS  # the report since its freezing commit
    assert module.is_split("report7", "mc") and module.is_split("report7", "open")  # halves
    assert "report8" in module.UNREAD_SETS  # unread from the commits that froze it
    assert all(module.is_split("report8", f) for f in module.FAMILIES)  # tune / held-out
    assert set(module.UNREAD_SETS) <= set(module.REPORT_SETS)
    assert set(module.SPLIT_SETS) <= set(module.REPORT_SETS)
    assert all((SCRIPT.parent / "intent_labels" / name).is_dir() for name in module.REPORT_SETS)
    _split_yesno_set(module, tmp_path)
    _run(module, monkeypatch, "--set", "report3", "--family", "yesno", "--show", "10")
    out = capsys.readouterr().out
    assert "tune" in out and "held-out" in out
    line = next(x for x in out.splitlines() if x.startswith("bench_kit "))
    assert line.split()[1:] == ["2/4", "(50.0%)", "1/2", "(50.0%)", "1/2", "(50.0%)"]
    assert "tune-1" in out and "held-out-1" not in out  # misses of the tune half only
    with pytest.raises(SystemExit):
        _run(module, monkeypatch, "--set", "report3", "--family", "yesno", "--misses", "all")
    assert "--misses" in capsys.readouterr().err


def test_tune_only_never_measures_the_held_out_half(agreement, monkeypatch, capsys, tmp_path):
    module, _, _ = agreement
    _split_yesno_set(module, tmp_path)
    _run(module, monkeypatch, "--set", "report3", "--family", "yesno", "--tune-only",
         "--show", "10")
    out = capsys.readouterr().out
    assert "== yesno: 2 responses" in out and "held-out" not in out


def _three_part_set(module, tmp_path, family: str, sources: tuple[str, str, str],
                    fields: dict, answer: str, label: str) -> None:
    """A family in a report3 folder: rows of the split source in each half (sources[0] in
    the tune half, sources[1] in the held-out half) and rows of another source
    (sources[2]), bench_kit missing one response in each of the three parts."""
    items = {module.half({"item": f"q/{n}"}): f"q/{n}" for n in range(40)}
    rows = []
    for where, source, item in (("tune", sources[0], items["tune"]),
                                ("held-out", sources[1], items["held-out"]),
                                ("other", sources[2], items["tune"])):
        for n, response in enumerate((answer, "I cannot tell.")):
            rows.append({"id": f"{where}-{n}", "family": family, "source": source,
                         "item": item, **fields, "response": response})
    folder = tmp_path / "report3"
    folder.mkdir()
    (folder / f"{family}_set.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / f"{family}_set_labels.jsonl").write_text("".join(
        json.dumps({"id": r["id"], "label": label}) + "\n" for r in rows))


def _reports_three_parts(module, monkeypatch, capsys, family: str, other: str) -> None:
    """all / tune / held-out / other columns; misses of the tune half only; --tune-only
    measures the tune half alone."""
    _run(module, monkeypatch, "--set", "report3", "--family", family, "--show", "10")
    out = capsys.readouterr().out
    header = next(x for x in out.splitlines() if x.startswith("extractor"))
    assert header.split()[1:] == ["all", "tune", "held-out", "other"]
    line = next(x for x in out.splitlines() if x.startswith("bench_kit "))
    assert line.split()[1:] == ["3/6", "(50.0%)"] + ["1/2", "(50.0%)"] * 3
    # misses of the tune half only: never the held-out half nor the other sources
    assert "tune-1" in out and "held-out-1" not in out and "other-1" not in out
    _run(module, monkeypatch, "--set", "report3", "--family", family, "--tune-only",
         "--show", "10")
    out = capsys.readouterr().out
    assert f"== {family}: 2 responses" in out
    assert "held-out" not in out and "other" not in out and other not in out


def test_mc_family_splits_gaokao_rows_only(agreement, monkeypatch, capsys, tmp_path):
    module, _, _ = agreement
    assert module.split_prefix("report3", "mc") == "gaokao"
    _three_part_set(module, tmp_path, "mc", ("gaokao:Biology", "gaokao:History", "mmlu-pro:x"),
                    {"question": "Q?", "choices": {"A": "cat", "B": "dog"}},
                    "The answer is B.", "B")
    _reports_three_parts(module, monkeypatch, capsys, "mc", "mmlu-pro")


def test_number_rows_and_latex_fraction_labels(agreement):
    module, _, _ = agreement
    # a reader's "\frac{1}{2}" is the same value as "1/2" (readers write both)
    assert module._number(r"\frac{1}{2}") == module._number("1/2") == 0.5
    assert module._number(r"-\dfrac{24}{5}") == -4.8
    assert module._number(r"\frac{\sqrt{3}}{2}") is None
    # a Chinese multiplier word kept by the reader is the value's magnitude
    assert module._number("21.78万") == 217800 and module._number("3亿") == 3e8
    assert module._number("万") is None and module._number("x万") is None
    assert module._number("5000余") == 5000 and module._number("1万余") == 10000
    assert module._number("12 million") == 12e6 and module._number("million") is None
    assert module.label_is_correct("3.05万", {"golds": ["30500"], "answer_type": "integer"})
    assert not module.label_is_correct("3.05万", {"golds": ["3.05"], "answer_type": "float"})
    row = {"golds": [r"-\frac{24}{25}"], "answer_type": "text"}
    assert not module.label_is_correct(r"\frac{24}{25}", row)  # the sign counts
    assert module.label_is_correct("-24/25", row)
    # "none" counts as a number row only where the gold holds a digit: a word-sorting
    # item's cut-off response is not one the numeric extractor would read
    assert module.is_number_row("none", {"golds": ["4\\pi"]})
    assert not module.is_number_row("none", {"golds": ["apple banana cherry"]})
    assert module.is_number_row(r"\frac{4}{5}", {"golds": ["x"]})
    assert not module.is_number_row("apple", {"golds": ["1"]})


@pytest.mark.parametrize(("label", "gold", "same"), [
    ("2/3", r"$\frac{2}{3}$", True), ("y=2x", "$y=2 x$", True), ("(0,+∞)", r"$(0,+\infty)$", True),
    ("π/3", r"$\frac{\pi}{3}$", True), (r"3\sqrt{10}/10", r"$\frac{3 \sqrt{10}}{10}$", True),
    ("A", "$A$", True), ("3", "$-3$", False), ("(0,1]", "$(0,1)$", False),
    (r"\sqrt{3}", r"$2 \sqrt{3}$", False)])
def test_a_latex_gold_is_compared_as_plain_math(agreement, label, gold, same):
    """A gold in LaTeX math is the reader's answer when both read the same without LaTeX;
    the minus sign and the bracket of an interval count (the punctuation-free comparison of
    text golds called "3" right for "$-3$")."""
    module, _, _ = agreement
    assert module.label_is_correct(label, {"golds": [gold], "answer_type": "text"}) is same


@pytest.mark.parametrize(("label", "gold", "same"), [
    ("5.272859 × 10^-25", "1e-24", False), ("9.98*10^-25", "1e-24", True),
    ("4.63 * 10^-34", "4.7e-34", True), ("0", "4e-05", False), ("1.2e3", "1200", True),
    # a gold in scientific notation or below 2 decimals' step: within 4% (TheoremQA's
    # `within_eps`), so neither "0" nor a wrong exponent nor a sign error agrees
    ("5e-05", "4e-05", False), ("-4e-05", "4e-05", False), ("3.9e-05", "4e-05", True),
    ("4.2e-05", "4e-05", False), ("0.001", "0.0025", False), ("0.0026", "0.0025", True),
    ("10^5", "1e5", True), ("2.998e8", "3e8", True), ("0.001", "0", True), ("0.254", "0.25", True),
    # a word after a LaTeX gold's math: dropped from both, or from the gold when a unit
    ("1/2 cm", r"$\frac{1}{2}$ cm", True), ("3/2 R", r"$\frac{3}{2}$ R", True),
    ("√2 a", r"$\sqrt{2}$ a", True), ("√2", r"$\sqrt{2}$ a", False), ("4", "$4$ x", False),
    ("2", "$2$ squared", False), ("4π", r"$4\pi$ cm^2", True), ("12", "$12$ cm", True),
    # "1/2π" inline is 1/(2π), never π/2; spaced, "1/2 π" is (1/2)π
    ("1/2π", r"$\frac{\pi}{2}$", False), ("1/2π", r"$\frac{1}{2\pi}$", True),
    ("1/2 π", r"$\frac{\pi}{2}$", True), ("2/3π", r"$\frac{2}{3}\pi$", True),
    ("2000", r"$2 \times 10^{3}$", True), ("3 x 10^8", "3e8", True), ("3 x 10^8", "3e9", False),
    ("2π/3", r"$\frac{2}{3}\pi$", True), ("-π/2", r"$-\frac{\pi}{2}$", True),
    ("π/3", r"$\frac{\pi}{4}$", False), ("2π", r"$\frac{2}{\pi}$", False),
    ("1/2", r"$\frac{1}{2}$ cm", True), ("2", "$2x$", False)])
def test_scientific_notation_pi_multiples_and_units_after_the_math(agreement, label, gold, same):
    """TheoremQA's golds and readers write numbers in scientific notation ("4e-05",
    "5.27 × 10^-25"), compared within 4% (TheoremQA's tolerance) when the gold is written so
    or is below the decimals' step, else at 2 decimals as every float; a multiple of π is one
    value however its factor is written ("2π/3", "$\\frac{2}{3}\\pi$", not "2/π"); a unit after a
    LaTeX gold's math is not part of its value."""
    module, _, _ = agreement
    assert module.label_is_correct(label, {"golds": [gold], "answer_type": "float"}) is same


@pytest.mark.parametrize(("label", "gold", "source", "same"), [
    # ZeroEval's CRUXEval grader: exact after stripping outer quotes; case and punctuation count
    ("hello", "'hello'", "zeroeval:m/crux", True), ("'hello'", "'hello'", "zeroeval:m/crux", True),
    ("Hello", "'hello'", "zeroeval:m/crux", False), ("hello!", "'hello'", "zeroeval:m/crux", False),
    ("{'a': '1'}", "{'a': 1}", "zeroeval:m/crux", False), ("[1, 2]", "[1, 2]", "zeroeval:m/crux", True),
    ("a\nb", "'a\\nb'", "zeroeval:m/crux", True), ('""', "''", "zeroeval:m/crux", True),
    ("30", "30", "zeroeval:m/crux", True), ("31", "30", "zeroeval:m/crux", False),
    # ... or CRUXEval's own (the assertion `gold == answer`: equal Python values)
    ("30.0", "30", "zeroeval:m/crux", True), ('["a", "b"]', "['a', 'b']", "zeroeval:m/crux", True),
    ('{"H": 1, "i": 2}', "{'i': 2, 'H': 1}", "zeroeval:m/crux", True),
    ('["a", "c"]', "['a', 'b']", "zeroeval:m/crux", False), ("hello", "'hellp'", "zeroeval:m/crux", False),
    # BIG-Bench-Hard's dyck_languages: the run of brackets, exactly; spaces do not count
    (") ]", ") ]", "bbh:r/dyck_languages", True), (")]", ") ]", "bbh:r/dyck_languages", True),
    ("] )", ") ]", "bbh:r/dyck_languages", False), (") ] }", ") ]", "bbh:r/dyck_languages", False),
    ("empty", "}", "bbh:r/dyck_languages", False),
    # any other source: case- and punctuation-insensitive as before
    ("Hello", "'hello'", "zeroeval:m/gsm", True), ("] )", ") ]", "bbh:r/word_sorting", True)])
def test_tasks_graded_exactly_by_their_own_graders(agreement, label, gold, source, same):
    """CRUXEval's rows (right if ZeroEval's grader or CRUXEval's assertion accepts them) and
    BIG-Bench-Hard's bracket runs are compared as their own graders compare them, not case- and
    punctuation-insensitively ("] )" is not ") ]"; "Hello" is not 'hello')."""
    module, _, _ = agreement
    row = {"golds": [gold], "answer_type": "text", "source": source}
    assert module.label_is_correct(label, row) is same


def test_open_family_splits_grade_school_math_rows_only(agreement, monkeypatch, capsys, tmp_path):
    module, _, _ = agreement
    assert module.split_prefix("report3", "open") == "gsm8k"
    _three_part_set(module, tmp_path, "open", ("gsm8k:6b", "gsm8k:175b", "zeroeval:x"),
                    {"question": "How many?", "golds": ["12"], "answer_type": "integer"},
                    "The answer is 12.", "12")
    _reports_three_parts(module, monkeypatch, capsys, "open", "zeroeval")


def test_show_all_prints_the_misses_of_every_part(agreement, monkeypatch, capsys, tmp_path):
    """--show-all (a set that is tuning data as a whole): the held-out half's and the other
    sources' disagreements too, with the same counts as without it."""
    module, _, _ = agreement
    _three_part_set(module, tmp_path, "mc", ("gaokao:Biology", "gaokao:History", "mmlu-pro:x"),
                    {"question": "Q?", "choices": {"A": "cat", "B": "dog"}},
                    "The answer is B.", "B")
    _run(module, monkeypatch, "--set", "report3", "--family", "mc", "--show-all", "10")
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("bench_kit "))
    assert line.split()[1:] == ["3/6", "(50.0%)"] + ["1/2", "(50.0%)"] * 3
    assert "tune-1" in out and "held-out-1" in out and "other-1" in out
    assert "tune-0" not in out  # agreements are not printed
    _run(module, monkeypatch, "--set", "report3", "--family", "mc", "--show-all", "1")
    assert capsys.readouterr().out.count("reader 'B', bench_kit 'none'") == 1  # N at most


def test_show_all_needs_a_set(agreement, monkeypatch, capsys):
    module, _, _ = agreement
    with pytest.raises(SystemExit):
        _run(module, monkeypatch, "--family", "mc", "--show-all", "5")
    assert "--show-all needs --set" in capsys.readouterr().err


def test_an_unread_set_shows_the_tune_half_of_a_split_family_only(
        agreement, monkeypatch, capsys, tmp_path):
    """An unread set's family split into halves may print its tune half (--show); --show-all
    and --show on a family measured whole (or on all families) are refused."""
    module, _, _ = agreement
    _split_yesno_set(module, tmp_path)
    monkeypatch.setattr(module, "UNREAD_SETS", ("report3",))
    _run(module, monkeypatch, "--set", "report3", "--family", "yesno", "--show", "10")
    out = capsys.readouterr().out
    assert "tune-1" in out and "held-out-1" not in out
    monkeypatch.setattr(module, "SPLIT_SETS", {"report3": {"yesno": ""}})
    for flags in (("--family", "yesno", "--show-all", "5"), ("--family", "mc", "--show", "5"),
                  ("--family", "all", "--show", "5")):
        with pytest.raises(SystemExit):
            _run(module, monkeypatch, "--set", "report3", *flags)
        assert "never read" in capsys.readouterr().err


def test_the_report_set_is_never_read(agreement, monkeypatch, capsys):
    """The unread set is the report: --show and --show-all are refused for it (totals only)."""
    module, _, _ = agreement
    monkeypatch.setattr(module, "UNREAD_SETS", ("report5",))
    for flags in (("--show", "5"), ("--show-all", "5")):
        with pytest.raises(SystemExit):
            _run(module, monkeypatch, "--set", "report5", "--family", "mc", *flags)
        assert "never read" in capsys.readouterr().err


def test_a_label_of_spaces_stays_spaces(agreement, tmp_path):
    """Labels are read stripped, but an answer that is only spaces (CRUXEval's "' ' * 11") is
    kept as written: stripped, it would be the empty answer."""
    module, _, _ = agreement
    rows = [{"id": "a", "label": "  B \n"}, {"id": "b", "label": "           "},
            {"id": "c", "label": ""}]
    (tmp_path / "open_set_labels.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    labels = module.load_labels("open", {"a", "b", "c"}, tmp_path)
    assert labels == {"a": "B", "b": " " * 11, "c": ""}
