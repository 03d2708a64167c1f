"""The demo pipeline run by DVC itself on a small scene count (slow: real models, real DVC).

Checks the promises of the foundation: `dvc repro` builds the report offline; a second
`dvc repro` runs nothing; editing one template re-runs only what is downstream of it and
the eval stages call models only for the changed items.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=1500)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{output[-4000:]}"
    return output


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo")
    for name in ("dvc.yaml", "params.yaml", ".dvcignore"):
        shutil.copy(REPO / name, root / name)
    shutil.copytree(REPO / "bench_kit", root / "bench_kit",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "datasets" / "demo").mkdir(parents=True)
    shutil.copy(REPO / "datasets/demo/templates.yaml", root / "datasets/demo/templates.yaml")
    params = yaml.safe_load((root / "params.yaml").read_text())
    for rel in params["split"]["exclude_files"]:  # committed empty lists: deps of `split`
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, root / rel)
    params["scenes"].update(n_shapes=8, n_signs=3, n_charts=3)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t", DVC_NO_ANALYTICS="1")
    _run(["git", "init", "-q"], root, env)
    _run(["dvc", "init", "-q"], root, env)
    _run(["dvc", "config", "core.analytics", "false"], root, env)
    first = _run(["dvc", "repro"], root, env)
    return root, env, first


def _stages_run(log: str) -> set[str]:
    return set(re.findall(r"Running stage '([^']+)'", log))


def _eval_counts(log: str) -> list[tuple[int, int, int]]:
    """(items, from cache, called) from every eval log line."""
    pattern = r"eval \S+: (\d+) items: (\d+) from cache, (\d+) called"
    return [tuple(map(int, m)) for m in re.findall(pattern, log)]


def test_first_repro_builds_everything(project):
    root, _, log = project
    assert {"scenes", "generate", "validate", "audit", "split", "report"} <= _stages_run(log)
    html = (root / "reports/demo/report.html").read_text()
    assert "<html" in html.lower() and "text-only" in html
    assert "http://" not in html and "https://" not in html
    # templates ranked by prior accuracy: one table, the model audit's (the report stage
    # passes --model-audit), not also the report's own blind-accuracy table
    report_md = (root / "reports/demo/report.md").read_text()
    assert "### Templates by prior accuracy" in report_md
    assert "Blind accuracy per template" not in report_md
    for model in ("text-only", "ocr", "random", "prior"):
        for mode in ("image", "no_image"):
            assert (root / f"results/demo/{model}/{mode}.jsonl").stat().st_size > 0
        assert (root / f"metrics/demo/{model}.json").exists()
    assert (root / "audits/demo/results/model_summary.json").exists()
    assert (root / "metrics/demo/audit/model_audit.json").exists()
    # the answer prior is learnt from the dev split; the report reads the audit's panel
    # block and its suspect-gold review queue
    summary = json.loads((root / "audits/demo/results/model_summary.json").read_text())
    assert summary["prior_items"] == "datasets/demo/splits/dev.jsonl"
    panel = summary["panel"]
    assert "random" not in panel["members"] and panel["size"] == len(panel["members"])
    md = (root / "reports/demo/report.md").read_text()
    assert f"Blind panel: {panel['size']} model(s): {', '.join(panel['members'])}" in md
    assert "Suspect golds: the review queue ranks the" in md
    params = yaml.safe_load((root / "params.yaml").read_text())
    counts = _eval_counts(log)
    runs = len(params["eval"]["run_models"]) * len(params["eval"]["modes"])
    assert len(counts) == runs and all(cached == 0 and called == n for n, cached, called in counts)


def test_second_repro_runs_nothing(project):
    root, env, _ = project
    log = _run(["dvc", "repro"], root, env)
    assert _stages_run(log) == set()
    assert "Data and pipelines are up to date" in log


def test_editing_one_template_reruns_only_downstream_and_uses_the_cache(project):
    root, env, _ = project
    path = root / "datasets/demo/templates.yaml"
    data = yaml.safe_load(path.read_text())
    templates = data["templates"] if isinstance(data, dict) else data
    target = next(t for t in templates if t.get("task") == "numeric")
    target["question"] = target["question"].rstrip() + " Answer with a number."
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    log = _run(["dvc", "repro"], root, env)
    ran = _stages_run(log)
    assert "scenes" not in ran
    assert {"generate", "split", "report"} <= ran
    counts = _eval_counts(log)
    assert counts, log[-3000:]
    for n, cached, called in counts:
        assert cached + called == n
    # only the edited template's items are new prompts; the rest come from the cache
    assert sum(c for _, c, _ in counts) > 0
    assert 0 < sum(k for _, _, k in counts) < sum(n for n, _, _ in counts)
