"""Coverage quotas: the rules on hand-made coverages, and `author generate --strict/--format`."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bench_kit.authoring.generate import Coverage, coverage_of_file
from bench_kit.authoring.quotas import QuotaParams, check_quotas
from bench_kit.cli import cli
from bench_kit.types import Item
from tests.conftest import make_item

ROOT = Path(__file__).resolve().parents[2]
TAXONOMY = {"perception.count": "perception", "reasoning.compare": "reasoning"}
CUTOFF = datetime(2026, 10, 1, tzinfo=timezone.utc)


def _items(spec: list[tuple[str, str, str, str]]) -> list[Item]:
    """(template, capability, difficulty, created_at) per item."""
    return [Item.model_validate(make_item(
        id=f"q{k}", source=f"template:{t}", capability=c, difficulty=d, created_at=when,
        layer=TAXONOMY[c])) for k, (t, c, d, when) in enumerate(spec)]


NEW, OLD = "2026-11-01T00:00:00Z", "2026-01-01T00:00:00Z"
# 10 items, 3:4:3, two capabilities, 2 of 10 fresh: breaks nothing at the defaults below.
BALANCED = ([(f"t{k}", "perception.count", "easy", OLD) for k in range(3)]
            + [(f"t{k + 3}", "reasoning.compare", "medium", OLD) for k in range(4)]
            + [("t7", "perception.count", "hard", OLD), ("t8", "perception.count", "hard", NEW),
               ("t9", "reasoning.compare", "hard", NEW)])
LOOSE = dict(max_template_share=0.1, difficulty_tolerance=0.05, min_per_capability=3,
             min_fresh_share=0.2)


@pytest.mark.parametrize("items, settings, expected", [
    (BALANCED, LOOSE, []),
    (BALANCED, {**LOOSE, "max_template_share": 0.09},
     [("max_template_share", f"t{k}") for k in range(10)]),
    (BALANCED, {**LOOSE, "min_per_capability": 6},
     [("min_per_capability", "perception.count"), ("min_per_capability", "reasoning.compare")]),
    (BALANCED, {**LOOSE, "min_fresh_share": 0.25}, [("min_fresh_share", "fresh")]),
    (BALANCED, {**LOOSE, "difficulty_mix": [1, 1, 1]},
     [("difficulty_mix", "medium")]),
    ([(t, c, "easy", w) for t, c, _, w in BALANCED], LOOSE,
     [("difficulty_mix", "easy"), ("difficulty_mix", "medium"), ("difficulty_mix", "hard")]),
], ids=["ok", "template-share", "capability-min", "fresh", "mix-target", "all-easy"])
def test_quota_rules(items, settings, expected):
    coverage = Coverage.of(_items(items), TAXONOMY, [], CUTOFF)
    found = check_quotas(coverage, QuotaParams(**settings), CUTOFF)
    assert [(v.rule, v.subject) for v in found] == expected
    assert all(v.message for v in found)


def test_fresh_share_is_counted_and_off_without_a_date():
    coverage = Coverage.of(_items(BALANCED), TAXONOMY, [], CUTOFF)
    assert coverage.fresh == 2 and coverage.as_dict()["fresh_share"] == 0.2
    none = Coverage.of(_items(BALANCED), TAXONOMY, [], None)
    assert none.fresh == 0
    assert check_quotas(none, QuotaParams(min_fresh_share=0.9, min_per_capability=0), None) == []


def test_bad_difficulty_mix_is_refused():
    with pytest.raises(ValueError, match="three non-negative weights"):
        QuotaParams(difficulty_mix=[0, 0, 0])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["scenes"].update(n_shapes=6, n_signs=2, n_charts=2)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True),
                                          encoding="utf-8")
    shutil.copy(ROOT / "datasets/demo/templates.yaml", tmp_path / "templates.yaml")
    result = CliRunner().invoke(cli, ["author", "scenes", "--params", str(tmp_path / "params.yaml"),
                                      "--out", str(tmp_path / "bench")])
    assert result.exit_code == 0, result.stderr
    return tmp_path


def _generate(project: Path, *extra: str):
    return CliRunner().invoke(cli, [
        "author", "generate", "--params", str(project / "params.yaml"),
        "--annotations", str(project / "bench/annotations.jsonl"),
        "--templates", str(project / "templates.yaml"),
        "--out", str(project / "bench/items.v0.jsonl"), *extra])


def _set_quotas(project: Path, **quotas) -> None:
    path = project / "params.yaml"
    params = yaml.safe_load(path.read_text(encoding="utf-8"))
    params["generate"]["quotas"].update(quotas)
    path.write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")


def test_strict_exits_1_but_writes_items(project):
    _set_quotas(project, max_template_share=0.01, min_per_capability=0)
    result = _generate(project)
    assert result.exit_code == 0
    assert "warning: quota max_template_share: template '" in result.stderr
    strict = _generate(project, "--strict")
    assert strict.exit_code == 1
    assert "quota violation(s) (--strict)" in strict.stderr
    assert (project / "bench/items.v0.jsonl").stat().st_size > 0


def test_no_violation_passes_strict(project):
    _set_quotas(project, max_template_share=1.0, min_per_capability=0, difficulty_tolerance=1.0,
                min_fresh_share=0.0)
    result = _generate(project, "--strict")
    assert result.exit_code == 0, result.stderr
    assert "warning" not in result.stderr and "fresh:" in result.stderr


def test_json_format_and_coverage_command(project):
    result = _generate(project, "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    cov = data["coverage"]
    assert cov["total"] == sum(sum(v.values()) for v in cov["capability"].values())
    assert set(cov["difficulty_share"]) == {"easy", "medium", "hard"}
    assert cov["fresh"] == cov["total"]  # demo items are stamped after generate.fresh_after
    assert {v["rule"] for v in data["violations"]} <= {"max_template_share", "difficulty_mix",
                                                       "min_per_capability", "min_fresh_share"}
    again = coverage_of_file(project / "params.yaml", project / "bench/items.v0.jsonl")
    counted = again.coverage.as_dict()
    assert counted["capability"] == cov["capability"] and counted["fresh"] == cov["fresh"]
    assert counted["template"] == {t: n for t, n in cov["template"].items() if n}
    cli_cov = CliRunner().invoke(cli, ["author", "coverage", "--params",
                                       str(project / "params.yaml"), "--items",
                                       str(project / "bench/items.v0.jsonl")])
    assert cli_cov.exit_code == 0 and "capability" in cli_cov.stderr


def _gold_items(template: str, task: str, golds: list[str], options: int = 4) -> list[Item]:
    """One item per gold of one template (mc: golds are letters of `options` options)."""
    items = []
    for k, gold in enumerate(golds):
        fields: dict = {"task": task, "answers": [gold]}
        if task == "mc":
            fields["choices"] = {letter: f"option {letter}" for letter in "ABCDE"[:options]}
        items.append(Item.model_validate(make_item(
            id=f"{template}.q{k}", source=f"template:{template}", capability="perception.count",
            layer="perception", difficulty="easy", **fields)))
    return items


GOLD_ONLY = dict(max_template_share=1.0, difficulty_tolerance=1.0, min_per_capability=0,
                 min_fresh_share=0.0)


@pytest.mark.parametrize("task, golds, expected", [
    ("numeric", ["0"] * 10, ["max_gold_share"]),                  # the planted constant gold
    ("numeric", ["0"] * 5 + ["1", "2", "3", "1", "2"], []),       # 50%: at the limit
    ("numeric", ["0"] * 6 + ["1", "2", "3", "1"], ["max_gold_share"]),
    ("open", ["Red"] * 3 + ["red"] * 3 + ["blue"] * 4, ["max_gold_share"]),  # casefolded
    ("yesno", ["yes"] * 6 + ["no"] * 4, []),                      # 60% allowed for yes/no
    ("yesno", ["yes"] * 7 + ["no"] * 3, ["max_gold_share"]),
    ("numeric", ["0"] * 7, []),                                    # too few to judge
    ("mc", list("ABCD") * 3, []),
    ("mc", list("AAAB") * 3, ["mc_letter_balance"]),
    ("mc", list("ABCDAB") * 2, []),                                # 33% vs 25%: within ±10%
], ids=["constant", "at-limit", "over", "open-case", "yesno-ok", "yesno-over", "few",
        "mc-even", "mc-skewed", "mc-near"])
def test_gold_balance_rules(task, golds, expected):
    coverage = Coverage.of(_gold_items("t", task, golds), TAXONOMY, [], None)
    found = check_quotas(coverage, QuotaParams(**GOLD_ONLY), None)
    assert [v.rule for v in found] == expected
    assert all(v.subject == "t" and "template 't'" in v.message for v in found)


def test_mc_letters_are_judged_against_each_items_option_count():
    # Two-option items put half their golds on A by chance alone: 6 A of 12 is uniform here.
    two = _gold_items("t", "mc", list("AB") * 4, options=2)
    four = _gold_items("u", "mc", list("ABCD"), options=4)
    mixed = [i.model_copy(update={"source": "template:t", "id": f"t.x{k}"})
             for k, i in enumerate(four)]
    coverage = Coverage.of(two + mixed, TAXONOMY, [], None)
    tally = coverage.gold[("t", "mc")]
    assert tally.golds["A"] == 5 and round(tally.expected["A"], 6) == 5.0
    assert check_quotas(coverage, QuotaParams(**GOLD_ONLY), None) == []


def test_gold_limits_are_set_per_task_and_variant_families_count_once():
    items = _gold_items("t", "numeric", ["0"] * 10)
    loose = QuotaParams(**GOLD_ONLY, max_gold_share={"numeric": 1.0})
    assert check_quotas(Coverage.of(items, TAXONOMY, [], None), loose, None) == []
    with pytest.raises(ValueError):
        QuotaParams(max_gold_share={"grounding": 0.5})
    # 4 originals with 3 variants each are 16 items but only 4 independent draws.
    family = [i.model_copy(update={"id": f"{i.id}.v{v}", "variant_of": i.id})
              for i in items[:4] for v in range(3)]
    coverage = Coverage.of(items[:4] + family, TAXONOMY, [], None)
    assert coverage.gold[("t", "numeric")].items == 16
    assert check_quotas(coverage, QuotaParams(**GOLD_ONLY), None) == []


PLANTED = {"id": "planted_absent", "capability": "alignment.absent_object",
           "difficulty": "hard", "task": "numeric", "scene": ["shapes"],
           "question": "How many {colour} {shapes} are hiding in the image?",
           "for_each": "probe_random", "max_per_scene": 3,
           "gold": {"solver": "count_objects",
                    "args": {"colour": "{colour}", "shape": "{shape}", "max_count": 0}}}


def test_planted_constant_gold_template_warns_and_fails_strict(project):
    """A template whose gold is always 0 (absent objects only) breaks max_gold_share."""
    _set_quotas(project, max_template_share=1.0, min_per_capability=0,
                difficulty_tolerance=1.0, min_fresh_share=0.0)
    path = project / "templates.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["templates"].append(PLANTED)
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    result = _generate(project)
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, warnings  # the demo's own templates break nothing
    assert "quota max_gold_share: template 'planted_absent': gold '0' is 100%" in warnings[0]
    strict = _generate(project, "--strict")
    assert strict.exit_code == 1 and "1 quota violation(s) (--strict)" in strict.stderr
    again = CliRunner().invoke(cli, ["author", "coverage", "--params",
                                     str(project / "params.yaml"), "--items",
                                     str(project / "bench/items.v0.jsonl"), "--strict"])
    assert again.exit_code == 1 and "planted_absent" in again.stderr
