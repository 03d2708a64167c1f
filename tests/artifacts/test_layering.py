"""The report, the model audits and history read stage outputs through bench_kit.artifacts,
never through the engine that wrote them (scoring, the eval runner)."""

from __future__ import annotations

import pytest
from test_dvc_deps import closure

READERS = ["bench_kit.report.inputs", "bench_kit.report.model_audit",
           "bench_kit.audit.results.inputs", "bench_kit.history.revisions",
           "bench_kit.history.compare", "bench_kit.history.metric_history"]


@pytest.mark.parametrize("module", READERS)
def test_readers_do_not_import_the_engine(module):
    files = closure(module)
    assert "bench_kit/artifacts/rows.py" in files or module.endswith("metric_history")
    engine = sorted(f for f in files if f.startswith(("bench_kit/scoring/", "bench_kit/eval/")))
    assert not engine, f"{module} imports {engine}"


def test_artifacts_import_only_base_modules():
    files = closure("bench_kit.artifacts.tables", "bench_kit.artifacts.predictions",
                    "bench_kit.artifacts.exclusions", "bench_kit.artifacts.paths")
    assert all(f.startswith("bench_kit/artifacts/") or f in {
        "bench_kit/__init__.py", "bench_kit/errors.py", "bench_kit/io.py",
        "bench_kit/faultpoints.py", "bench_kit/types.py"} for f in files), sorted(files)
