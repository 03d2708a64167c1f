"""Templates as the unit of a prior, on real ScienceQA text (fixtures/scienceqa/README.md):
the train split is the prior's data, imported items group by their source's skill field
and by question pattern, and the prior is over answer text, not letters."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from bench_kit.audit.results.chance import prior_by_template, prior_groups, prior_verdicts
from bench_kit.audit.results.inputs import ResultsAuditParams
from bench_kit.audit.results.prior_units import gold_text, prior_units, question_pattern
from bench_kit.exchange.importers import read_import
from bench_kit.exchange.rows import ImportOptions
from bench_kit.text.normalize import normalize_for_audit
from bench_kit.types import Item

FIXTURE = Path(__file__).parent / "fixtures/scienceqa/problems_excerpt.json"
PARAMS = ResultsAuditParams()


def _problems() -> dict[str, dict]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def _import(tmp_path: Path, split: str) -> list[Item]:
    """The split's problems through the real JSONL importer (skill, category -> meta)."""
    rows = [{"id": f"sqa{pid}", "question": p["question"], "choices": p["choices"],
             "answer": p["choices"][p["answer"]], "task": "mc", "skill": p["skill"],
             "category": p["category"], "split": p["split"]}
            for pid, p in _problems().items() if p["split"] == split]
    path = tmp_path / f"{split}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = read_import("jsonl", path, ImportOptions(capability="science.qa",
                                                      layer="reasoning"))
    assert not result.rejects
    return result.items


@pytest.fixture(scope="module")
def splits(tmp_path_factory) -> tuple[list[Item], list[Item]]:
    folder = tmp_path_factory.mktemp("sqa")
    return _import(folder, "train"), _import(folder, "test")


def _expected_skills() -> dict[str, str]:
    """Skill -> majority gold text, by plain counting over the raw train records: the
    skills with at least prior_min_items items whose top gold text has share >= 0.7."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for p in _problems().values():
        if p["split"] == "train":
            counts[p["skill"]][p["choices"][p["answer"]]] += 1
    out = {}
    for skill, c in counts.items():
        (text, top), n = c.most_common(1)[0], sum(c.values())
        if n >= PARAMS.prior_min_items and top / n >= PARAMS.prior_share:
            out[skill] = text
    return out


def test_the_skills_with_a_dominant_answer_text_in_train_are_found(splits) -> None:
    train, test = splits
    expected = _expected_skills()
    assert expected  # the excerpt holds some (e.g. inherited vs acquired traits)
    groups = prior_groups(test, PARAMS, prior_items=train)
    skewed = {g.group.removeprefix("skill:").rsplit("|", 1)[0]: g.majority_shown
              for g in groups.values() if g.skewed and g.group.startswith("skill:")}
    assert skewed == expected
    rows = prior_by_template(groups, {}, test, PARAMS)
    listed = {r["group"] for r in rows if r["skewed"]}
    assert {f"skill:{s}|mc" for s in expected} <= listed


def test_test_items_are_judged_by_the_train_prior_over_answer_text(splits) -> None:
    train, test = splits
    expected = _expected_skills()
    verdicts = prior_verdicts(test, PARAMS, prior_items=train)
    seen = 0
    for item in test:
        v = verdicts[item.id]
        # the importer keeps the source's own fields under meta.source (older: meta)
        skill = (item.meta.get("source") or {}).get("skill", item.meta.get("skill"))
        if skill not in expected:
            continue
        seen += 1
        majority = gold_text(item) == normalize_for_audit(expected[skill])
        assert v.majority_gold == majority, item.id
        if majority:
            # the most telling of its units: the skill or a question pattern inside it
            assert v.group.skewed and v.group.majority == gold_text(item)
            assert v.answerable == (v.q_value < PARAMS.fdr)
    assert seen  # the test split holds items of those skills


def test_letters_are_not_the_prior(splits) -> None:
    """Options in another order change no group: the prior counts gold text, so a
    benchmark whose gold letter is always A has no letter prior here."""
    train, _ = splits
    letters = Counter(i.answers[0] for i in train)
    rotated = []
    for item in train:
        texts = list(item.choices.values())
        gold = item.choices[item.answers[0]]
        order = [gold] + [t for t in texts if t != gold]  # gold always first: letter A
        choices = dict(zip("ABCDE", order))
        rotated.append(item.model_copy(update={"choices": choices, "answers": ["A"]}))
    assert len(letters) > 1
    before = prior_groups(train, PARAMS)
    after = prior_groups(rotated, PARAMS)
    assert {k: (g.majority, g.count) for k, g in before.items()} == \
        {k: (g.majority, g.count) for k, g in after.items()}


def test_question_patterns_group_imported_items(splits) -> None:
    train, _ = splits
    units = Counter(u for item in train for u in prior_units(item, PARAMS.prior_group_fields)
                    if u.startswith("pattern:"))
    experiment = "pattern:identify the question that <name> and <name> experiment can " \
                 "best answer|mc"
    assert units[experiment] >= 2
    # a stem with a quoted word or a number masks it
    assert question_pattern('Which word would you find on a dictionary page? "cow"') == \
        "which word would you find on a dictionary page <quote>"
    assert question_pattern("What is the mass of 3 apples?") == \
        "what is the mass of <num> apples"


def test_cli_reads_the_prior_from_prior_items(tmp_path) -> None:
    """`--prior-items`: the dev split's golds are the prior the test items are judged by."""
    from click.testing import CliRunner

    from bench_kit.cli import cli

    def row(item_id: str, gold: str) -> dict:
        return {"id": item_id, "image": "img/q.png", "question": "How many are absent?",
                "task": "numeric", "answers": [gold], "capability": "perception.count",
                "layer": "perception", "difficulty": "easy", "source": "template:absent",
                "created_at": "2026-11-01T00:00:00Z"}

    dev = [row(f"d{k}", "0") for k in range(8)]
    test = [row("t0", "0"), row("t1", "2")]
    for name, rows in (("dev.jsonl", dev), ("test.jsonl", test)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    for model in ("m0", "m1", "m2"):
        folder = tmp_path / "scores" / model
        folder.mkdir(parents=True)
        folder.joinpath("no_image.jsonl").write_text("".join(json.dumps(
            {"id": r["id"], "model": model, "mode": "no_image", "metric": "exact",
             "extracted": "5", "parse": "ok", "score": 0.0, "hit": False, "error": None})
            + "\n" for r in test))
    (tmp_path / "params.yaml").write_text("audit_results:\n  expansion: false\n")
    args = ["audit", "results", "--items", str(tmp_path / "test.jsonl"), "--scores",
            str(tmp_path / "scores"), "--params", str(tmp_path / "params.yaml")]
    with_prior = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "a"),
                                          "--prior-items", str(tmp_path / "dev.jsonl")])
    alone = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "b")])
    assert with_prior.exit_code == 0 and alone.exit_code == 0, with_prior.output
    assert "blind panel of 3 model(s)" in with_prior.output
    verdicts = {}
    for name in ("a", "b"):
        rows = (tmp_path / name / "item_stats.jsonl").read_text().splitlines()
        verdicts[name] = {json.loads(r)["id"]: json.loads(r)["verdict"] for r in rows}
    # dev: 8 of 8 golds "0" -> t0 (gold "0") is prior-answerable; t1 is not
    assert verdicts["a"]["t0"] == "prior_answerable" and verdicts["a"]["t1"] != "prior_answerable"
    # the two test items alone are too few for a prior
    assert "prior_answerable" not in verdicts["b"].values()


def test_a_variant_family_counts_once() -> None:
    """Five paraphrases of one item share its gold by design: no template prior."""
    from conftest import make_item

    from bench_kit.types import Item

    rows = [make_item(id="a", source="template:t", answers=["3"])] + [
        make_item(id=f"a.v{k}", source="template:t", answers=["3"], variant_of="a",
                  variant=f"v{k}", variant_kind="paraphrase") for k in range(1, 5)]
    items = [Item.model_validate(r) for r in rows]
    group = prior_groups(items, PARAMS)["template:t|numeric"]
    assert (group.items, group.count, group.skewed) == (1, 1, False)
