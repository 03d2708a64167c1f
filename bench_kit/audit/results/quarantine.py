"""The quarantine list: items with an `error` finding, one `id<TAB>check<TAB>reason` line each
(an exclude list `bench-kit split` reads: see bench_kit.split.exclusions).

Splitting runs before evaluation, so a quarantine built from model findings cannot be a
pipeline stage feeding `split` (that would be a cycle). The file is a committed input,
refreshed by hand with `bench-kit audit quarantine` between evaluation rounds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from bench_kit.errors import InputError
from bench_kit.artifacts.exclusions import write_exclusion_list
from bench_kit.items import iter_models
from bench_kit.types import SEVERITY_RANK, Finding, Severity

HEADER = ("# bench-kit quarantine: `bench-kit split` leaves these ids out when this file is in "
          "split.exclude_files\n# and split.apply_exclusions is on. One line per finding: "
          "id<TAB>check<TAB>reason.\n# Regenerate with `bench-kit audit quarantine`; commit it.\n")


def _one_line(text: str) -> str:
    # `#` starts a comment in exclude lists (bench_kit.split.exclusions).
    return " ".join(text.replace("\t", " ").replace("#", "no.").split())


def quarantine_lines(findings: Iterable[Finding], min_severity: Severity = "error") -> list[str]:
    """Sorted unique `id<TAB>check<TAB>reason` lines of findings at or above `min_severity`."""
    floor = SEVERITY_RANK[min_severity]
    lines = {f"{f.id}\t{f.check}\t{_one_line(f.message)}" for f in findings
             if SEVERITY_RANK[f.severity] >= floor}
    return sorted(lines)


def build_quarantine(findings_paths: Sequence[str | Path], out_path: str | Path, *,
                     min_severity: Severity = "error") -> list[str]:
    """Read findings files (data and model audits), write the quarantine file; return its
    lines. A missing findings file is an error (nothing is dropped silently)."""
    findings: list[Finding] = []
    for path in findings_paths:
        if not Path(path).is_file():
            raise InputError("findings file not found (run `bench-kit audit data` / "
                             "`bench-kit audit results` first)", path=str(path))
        findings.extend(f for _, f in iter_models(path, Finding))
    lines = quarantine_lines(findings, min_severity)
    write_exclusion_list(out_path, lines, header=HEADER)
    return lines

