"""The data audit on real public benchmark excerpts (tests/audit/fixtures/real)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bench_kit.audit.stage import audit_data

REPO = Path(__file__).resolve().parents[2]


def _real_items() -> Any:
    spec = importlib.util.spec_from_file_location("real_items",
                                                  REPO / "benchmarks" / "real_items.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("real_items", module)
    spec.loader.exec_module(module)
    return module


real_items = _real_items()


def _findings(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def _write_items(root: Path, items: list[dict[str, Any]]) -> Path:
    path = root / "items.jsonl"
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items),
                    encoding="utf-8")
    return path


def _sqa(root: Path, *pids: str, **changes: Any) -> list[dict[str, Any]]:
    rows = real_items.scienceqa_rows()
    return [{**real_items.scienceqa_item(pid, rows[pid], root), **changes} for pid in pids]


def test_a_topical_group_is_a_warning_and_every_item_still_gets_content_checks(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # ScienceQA "Designing experiments" problems, grouped by their category as a benchmark
    # owner would: several images in one group.
    items = _sqa(tmp_path, "81", "156", "667", group="designing-experiments")
    # one item also asks a deictic question so a content check has something to find
    items[2]["question"] = "Which one of these is that one?"
    result = audit_data(_write_items(tmp_path, items), tmp_path / "out", params_path=None)
    found = {(f["id"], f["check"]): f for f in _findings(result.findings_path)}
    assert found[("sqa-156", "schema.group_images")]["severity"] == "warn"
    assert found[("sqa-667", "schema.group_images")]["severity"] == "warn"
    assert ("sqa-81", "schema.group_images") not in found  # the group's first item
    assert ("sqa-667", "ambiguity.vague_deixis") in found
    assert result.summary["invalid_lines"] == 0


def _audit_sqa(tmp_path: Path, pids: list[str], **kwargs: Any) -> dict[tuple[str, str], Any]:
    rows = real_items.scienceqa_rows()
    items = _sqa(tmp_path, *pids)
    splits = tmp_path / "splits"
    splits.mkdir()
    for name in ("train", "val", "test"):
        (splits / f"{name}.jsonl").write_text("".join(
            json.dumps({"id": f"sqa-{p}"}) + "\n" for p in pids if rows[p]["split"] == name))
    result = audit_data(_write_items(tmp_path, items), tmp_path / "out", params_path=None,
                        splits_dir=splits, **kwargs)
    return {(f["id"], f["check"]): f for f in _findings(result.findings_path)}


def test_quoted_sentences_are_not_the_questions_own_words(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # "What kind of sentence is this?\nWhose responsibility is it to wake the mayor …?"
    rows = real_items.scienceqa_rows()
    assert rows["1271"]["question"].count("?") == 2
    found = _audit_sqa(tmp_path, ["291", "1089", "1271", "1539"])
    assert not [key for key in found if key[1] in ("ambiguity.vague_deixis",
                                                   "ambiguity.compound_question")]


def test_options_differing_only_in_case_are_information(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    found = _audit_sqa(tmp_path, ["663", "794", "1207"])  # capitalisation questions
    for pid in ("663", "794", "1207"):
        finding = found[(f"sqa-{pid}", "label.duplicate_options")]
        assert finding["severity"] == "info", finding
        assert finding["evidence"]["kind"] == "different only in case or punctuation"


def test_template_siblings_across_splits_are_not_leakage(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = real_items.scienceqa_rows()
    # same stem (and hint) in test and train, different options
    assert rows["188"]["question"] == rows["504"]["question"]
    assert (rows["188"]["split"], rows["504"]["split"]) == ("test", "train")
    assert rows["663"]["question"] == rows["1605"]["question"]
    found = _audit_sqa(tmp_path, ["188", "504", "663", "1605"])
    assert not [key for key in found if key[1] == "leakage.cross_split"]


def test_exact_contamination_joins_the_hint_as_the_reference_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from bench_kit.audit.reference import build_reference

    source = real_items.mathvista_reference_source(tmp_path / "ref")
    reference = build_reference([source], tmp_path / "ref" / "mathvista.ref.jsonl")
    assert reference == 200
    # 667 is copied into MathVista testmini (pid 18) with its passage before the question;
    # 19 and 242 share the text of MathVista pid 64 but are asked about other images.
    found = _audit_sqa(tmp_path, ["667", "19", "242"],
                       references=[tmp_path / "ref" / "mathvista.ref.jsonl"])
    copied = found[("sqa-667", "contamination.exact")]
    assert copied["severity"] == "error" and copied["evidence"]["ref_id"] == "mathvista-18"
    assert copied["evidence"]["matched"] == "question+options"
    for pid in ("19", "242"):
        sibling = found[(f"sqa-{pid}", "contamination.exact")]
        assert sibling["severity"] == "info" and sibling["evidence"]["template_siblings"] >= 1
        # an info row says what it asks of the reviewer
        assert sibling["message"].endswith("compare the images)")
        for check in ("contamination.ngram", "contamination.minhash",
                      "contamination.embedding"):
            row = found.get((f"sqa-{pid}", check))
            assert row is None or row["severity"] != "info" or "compare" in row["message"]


def test_a_template_on_many_images_with_a_skewed_gold_is_info(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # POPE asks "Is there a person in the image?" about 22 images, `yes` on 21: a second
    # reader judged it POPE's design (benchmarks/audit_precision_real_verdicts.json), so the
    # rows are info naming the skew, and no benchmark-level warn row is raised
    items = real_items.build_pope(tmp_path / "pope")
    result = audit_data(items, tmp_path / "out", params_path=None)
    rows = [f for f in _findings(result.findings_path)
            if f["check"] == "redundancy.repeated_question"]
    assert len(rows) == 22 and {f["severity"] for f in rows} == {"info"}
    assert all("gold 'yes' on 21 of them" in f["message"] for f in rows)
    assert not [f for f in rows if f["id"] == "(benchmark)"]


def test_a_warn_check_on_many_items_is_one_benchmark_finding(tmp_path, monkeypatch):
    from bench_kit.audit.registry import spec_of
    from bench_kit.audit.stage import load_checks, roll_up

    monkeypatch.chdir(tmp_path)
    load_checks()
    spec = spec_of("ambiguity.viewpoint")
    produced = [spec.finding(f"q{k:02d}", f"message {k}", {}) for k in range(12)]
    out = roll_up(spec, produced, 100, 0.1)
    [rolled] = [f for f in out if f.id == "(benchmark)"]
    assert rolled.severity == "warn" and rolled.evidence["count"] == 12
    assert rolled.evidence["examples"] == ["q00", "q01", "q02", "q03", "q04"]
    assert rolled.message.endswith("First: q00: message 0")
    assert {f.severity for f in out if f.id != "(benchmark)"} == {"info"}
    # on exactly the share (12 of 120 = 10%) nothing is rolled up
    assert roll_up(spec, produced, 120, 0.1) == produced


def test_error_checks_are_never_rolled_up(tmp_path, monkeypatch):
    from bench_kit.audit.registry import spec_of
    from bench_kit.audit.stage import load_checks, roll_up

    monkeypatch.chdir(tmp_path)
    load_checks()
    spec = spec_of("label.inconsistent_answers")
    produced = [spec.finding(f"q{k}", "m", {}) for k in range(50)]
    assert roll_up(spec, produced, 60, 0.1) == produced
    warn_spec = spec_of("ambiguity.viewpoint")
    produced = [warn_spec.finding(f"q{k}", "m", {}) for k in range(50)]
    assert roll_up(warn_spec, produced, 60, 0.1)[-1].id == "(benchmark)"


def test_a_text_only_item_that_says_shown_is_flagged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = real_items.scienceqa_rows()
    assert rows["102"]["image"] is None  # "Select the temperature shown by this thermometer."
    # 1360 says "as shown by the fact" inside the quoted passage: not a picture
    found = _audit_sqa(tmp_path, ["102", "1360", "291"])
    finding = found[("sqa-102", "ambiguity.missing_image")]
    assert finding["severity"] == "warn" and finding["evidence"]["span"] == "shown"
    assert ("sqa-1360", "ambiguity.missing_image") not in found
    assert ("sqa-291", "ambiguity.missing_image") not in found


def _chartqa(tmp_path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in
            real_items.CHARTQA.read_text(encoding="utf-8").splitlines()[:3]]
    return [{**real_items.BASE, "id": r["id"], "question": r["question"], "task": "open",
             "answers": [r["answer"]], "capability": "understanding.chart",
             "layer": "understanding",
             "image": real_items.placeholder(tmp_path, r["imgname"])} for r in rows]


def test_contradictory_accepted_answers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # real ChartQA questions, golds made contradictory
    count, diff, bars = _chartqa(tmp_path)  # "How many food item is shown …?" (14), …
    items = [{**count, "answers": ["14", "4"]},                           # open: two counts
             {**count, "id": "numeric", "task": "numeric", "answers": ["14", "4"]},
             {**diff, "id": "colours", "answers": ["black", "green"]},
             {**bars, "id": "vqa", "answers": ["3", "4", "3"], "metric": "vqa"},
             {**bars, "id": "multi", "answers": ["3", "4"], "meta": {"multi_answer": True}},
             {**bars, "id": "same", "answers": ["3", "three"]}]
    for item in items[3:]:  # one image each: not the same question on one image
        item["image"] = real_items.placeholder(tmp_path, item["id"])
    result = audit_data(_write_items(tmp_path, items), tmp_path / "out", params_path=None)
    found = {(f["id"], f["check"]): f for f in _findings(result.findings_path)}
    assert found[(count["id"], "label.contradictory_answers")]["severity"] == "warn"
    assert found[("colours", "label.contradictory_answers")]["evidence"]["kind"] == "two_colour"
    assert found[("numeric", "label.inconsistent_answers")]["severity"] == "error"
    for ident in ("vqa", "multi", "same"):
        assert not [k for k in found if k[0] == ident and k[1].startswith("label.")], ident


def test_two_runs_write_byte_identical_findings_and_summaries(tmp_path):
    """Separate processes with different hash seeds (set iteration order differs)."""
    import os
    import subprocess

    from bench_kit.audit.reference import build_reference

    items = real_items.build_scienceqa(tmp_path / "sqa")
    source = real_items.mathvista_reference_source(tmp_path / "ref")
    build_reference([source], tmp_path / "ref" / "mv.jsonl")
    outs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        run = subprocess.run(
            [sys.executable, "-m", "bench_kit", "audit", "data", "--items", str(items),
             "--out", str(out), "--splits", str(tmp_path / "sqa" / "splits"),
             "--reference", str(tmp_path / "ref" / "mv.jsonl")],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        assert "splits read: test.jsonl, train.jsonl, val.jsonl (named by file names)" \
            in run.stderr + run.stdout
        outs.append(out)
    ngram = [f for f in _findings(outs[0] / "findings.jsonl")
             if f["check"] == "contamination.ngram"]
    assert len(ngram) >= 5  # the n-gram spans were the unstable part
    for name in ("findings.jsonl", "summary.json"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name


def test_splits_are_the_files_the_manifest_names(tmp_path, monkeypatch):
    from bench_kit.audit.stage import read_splits, split_files
    from bench_kit.errors import InputError

    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "splits"
    folder.mkdir()
    for name in ("dev", "test", "stray_notes"):
        (folder / f"{name}.jsonl").write_text('{"id": "a"}\n')
    assert sorted(read_splits(folder)) == ["dev", "test"]  # the stray file is not a split
    (folder / "manifest.json").write_text(json.dumps({"counts": {"dev": 1, "holdout": 1}}))
    with pytest.raises(InputError, match="holdout.jsonl"):
        split_files(folder)
    (folder / "holdout.jsonl").write_text('{"id": "b"}\n')
    files, named_by = split_files(folder)
    assert [p.name for p in files] == ["dev.jsonl", "holdout.jsonl"]
    assert named_by == "manifest.json"


def test_a_hint_with_a_dropped_word_is_dirty_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = real_items.scienceqa_rows()
    dropped = [pid for pid in ("1299", "1471", "1506", "1527") if " 's " in rows[pid]["hint"]]
    assert dropped  # e.g. "The 's beak is adapted to …": the animal's name is missing
    found = _audit_sqa(tmp_path, [*dropped, "291"])
    for pid in dropped:
        finding = found[(f"sqa-{pid}", "ambiguity.dirty_text")]
        assert finding["evidence"]["kind"] == "dropped_word"
        assert finding["evidence"]["field"] == "meta.hint"
    assert ("sqa-291", "ambiguity.dirty_text") not in found


def _run(check: str, question: str) -> list[Any]:
    from conftest import make_item

    from bench_kit.audit.registry import AuditContext, spec_of
    from bench_kit.audit.stage import list_checks
    from bench_kit.types import Item

    list_checks()
    spec = spec_of(check)
    ctx = AuditContext(items=[Item.model_validate(make_item(question=question))],
                       root=Path("."))
    return list(spec.run(ctx, spec.params()))


def _mmlu_question(subject: str, line: int) -> str:
    import csv

    path = real_items.REAL / "mmlu" / f"{subject}_test_excerpt.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))[line - 1][0]


def test_a_statement_then_one_question_is_one_ask():
    """MMLU abstract algebra (line 34): "… is known to be abelian. Then which one of the
    following is TRUE for G?" — a second reader judged the compound finding false."""
    question = _mmlu_question("abstract_algebra", 34)
    assert ". Then which" in question
    assert _run("ambiguity.compound_question", question) == []
    # the same words after a question are a second ask
    second = _run("ambiguity.compound_question",
                  "Is G abelian, then which one of the following holds?")
    assert [f.evidence["span"] for f in second] == ["then which"]


def test_a_possessive_whose_name_follows_is_resolved():
    """MMLU sociology (line 35): "In their study of depression, Brown & Harris (1978) found
    that:" — 'their' is Brown & Harris; a second reader judged the deixis finding false."""
    question = _mmlu_question("sociology", 35)
    assert question.startswith("In their study")
    assert _run("ambiguity.vague_deixis", question) == []
    # with no name after it, the possessive still has nothing to refer to
    bare = _run("ambiguity.vague_deixis", "What colour is their roof?")
    assert [f.evidence["span"] for f in bare] == ["their"]


def test_synonyms_the_generator_accepts_are_not_contradictions():
    """The demo's own alias table (purple/violet, diamond/rhombus, rectangle/oblong): a
    generated open item accepting both is one answer, not a contradiction (the audit gate
    dropped two demo items for "purple" vs "violet")."""
    from conftest import make_item

    from bench_kit.audit.answer_checks import contradiction
    from bench_kit.authoring.vocab import ALIASES
    from bench_kit.types import Item

    checked = 0
    for canonical, extras in ALIASES.items():
        for extra in extras:
            item = Item.model_validate(make_item(task="open", answers=[canonical, extra]))
            assert contradiction(item) is None, (canonical, extra)
            checked += 1
    assert checked >= 3
    two = Item.model_validate(make_item(task="open", answers=["purple", "green"]))
    assert contradiction(two) == ("two_colour", ["purple", "green"])
