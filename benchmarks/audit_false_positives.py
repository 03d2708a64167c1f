"""False-positive rate of the data audit on clean items (docs/AUDITS.md).

Clean items: the demo benchmark's templated items (scenes + generate, seed 7), which carry no
planted defect. Every check runs, contamination included, against references that share
nothing with them: the hand-written public-style questions of
tests/cases/public_questions.json (VQA / science / chart / OCR, English and Chinese) and
the images of the same scene generator run with another seed (similar-looking, different
pictures: a hard case for pHash). An item is a false positive when it gets at least one
warn or error finding (info findings are review hints, not flags).

    .venv/bin/python benchmarks/audit_false_positives.py [--scale 1.0] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
PUBLIC = REPO / "tests" / "cases" / "public_questions.json"
BENCH_KIT = [sys.executable, "-m", "bench_kit"]


def _params(folder: Path, seed: int, scale: float) -> Path:
    base = yaml.safe_load((REPO / "params.yaml").read_text(encoding="utf-8"))
    scenes = dict(base["scenes"], seed=seed)
    for key in ("n_shapes", "n_signs", "n_charts"):
        scenes[key] = max(2, round(scenes[key] * scale))
    doc = {"taxonomy": base["taxonomy"], "scenes": scenes, "generate": base["generate"],
           "audit": {**base["audit"],
                     "contamination": {**base["audit"]["contamination"],
                                       "cache_dir": str(folder / "cache")}}}
    path = folder / f"params-{seed}.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return path


def _run(*args: str) -> None:
    subprocess.run([*BENCH_KIT, *args], check=True, cwd=REPO, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def measure(folder: Path, scale: float = 1.0) -> dict[str, Any]:
    """Build the clean items and references in `folder`, audit, count the flags."""
    from bench_kit.audit.reference import build_reference
    from bench_kit.audit.stage import audit_data
    from bench_kit.io import write_jsonl

    bench, refs = folder / "bench", folder / "refs"
    params = _params(folder, 7, scale)
    _run("author", "scenes", "--params", str(params), "--out", str(bench))
    _run("author", "generate", "--params", str(params), "--annotations",
         str(bench / "annotations.jsonl"), "--templates",
         str(REPO / "datasets" / "demo" / "templates.yaml"), "--out", str(bench / "items.jsonl"))
    _run("author", "scenes", "--params", str(_params(folder, 99, scale)), "--out", str(refs))
    questions = json.loads(PUBLIC.read_text(encoding="utf-8"))["questions"]
    write_jsonl(folder / "public.jsonl", [{"id": f"pub-{k}", "question": q}
                                          for k, q in enumerate(questions)])
    build_reference([folder / "public.jsonl"], folder / "ref.jsonl")
    result = audit_data(bench / "items.jsonl", folder / "out", params_path=params,
                        references=[folder / "ref.jsonl"], reference_images=[refs / "images"])
    findings = [json.loads(line) for line in
                (folder / "out" / "findings.jsonl").read_text(encoding="utf-8").splitlines()]
    flagged = [f for f in findings if f["severity"] != "info"]
    summary = result.summary
    return {"items": summary["items"], "reference_questions": len(questions),
            "reference_images": len(list((refs / "images").glob("*.png"))),
            "flagged_items": summary["flagged_items"], "false_positive_rate":
            summary["flagged_share"], "flags_by_check": dict(sorted(
                Counter(f["check"] for f in flagged).items())),
            "info_by_check": dict(sorted(Counter(f["check"] for f in findings
                                                 if f["severity"] == "info").items())),
            "checks_run": summary["checks_run"], "checks_skipped": summary["checks_skipped"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="scene counts relative to params.yaml (1.0 = the demo)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = measure(Path(tmp), args.scale)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    print(f"clean items: {report['items']}  reference: {report['reference_questions']} "
          f"questions, {report['reference_images']} images")
    print(f"flagged (warn/error): {report['flagged_items']}  "
          f"false-positive rate: {report['false_positive_rate']:.2%}")
    for name, count in report["flags_by_check"].items():
        print(f"  {name:<36} {count}")
    print("info (review hints):")
    for name, count in report["info_by_check"].items():
        print(f"  {name:<36} {count}")


if __name__ == "__main__":
    main()
