"""Running the data audit: settings from params.yaml, the enabled checks, findings + summary."""

from __future__ import annotations

import difflib
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from bench_kit.artifacts import paths
from bench_kit.artifacts.tables import write_audit_summary
from bench_kit.audit.distributed.audit import partitioned_paths, partitioned_references
from bench_kit.audit.freshness import FreshnessParams, freshness_summary
from bench_kit.audit.intake import read_for_audit
from bench_kit.audit.reference import open_reference
from bench_kit.audit.registry import (
    CHECKS,
    REQUIREMENTS,
    AuditContext,
    CheckParams,
    CheckSkipped,
    CheckSpec,
    ProgressFunc,
)
from bench_kit.errors import ConfigError, InputError, UnknownNameError
from bench_kit.io import iter_jsonl, write_jsonl
from bench_kit.items import default_root
from bench_kit.params import DEFAULT_PARAMS, load_params, section
from bench_kit.types import FORMAT_VERSION, SEVERITIES, Finding

log = logging.getLogger(__name__)

FINDINGS_FILE = paths.DATA_FINDINGS
SUMMARY_FILE = paths.DATA_SUMMARY
# Keys of the `audit:` section that belong to no single check.
# `engine`/`cluster`: where partitioned references are matched (audit/distributed/engine.py).
GENERAL_KEYS = ("disabled", "engine", "cluster", "rollup_share")
# The id of a finding about the whole benchmark (a rolled-up warn check).
BENCHMARK_ID = "(benchmark)"
# A warn check rolls up only from this many items (a tiny file is not a pattern).
ROLLUP_MIN_ITEMS = 10
# Families whose warn rows describe how an item is written, which a benchmark may do on
# purpose (passages, minimal-pair options). Contamination and leakage rows each name their
# own evidence (a reference row, another split) and are never rolled up.
ROLLUP_FAMILIES = ("ambiguity", "label", "redundancy", "schema")


def load_checks() -> None:
    """Import the modules that register the built-in checks."""
    from bench_kit.audit import (  # noqa: F401
        answer_checks,
        contamination,
        contamination_embed,
        contamination_images,
        freshness,
        image_checks,
        intake,
        label_checks,
        leakage,
        text_checks,
    )


def list_checks() -> list[CheckSpec]:
    """Every registered check, sorted by name."""
    load_checks()
    return [CHECKS.get(name) for name in CHECKS.names()]


P = TypeVar("P", bound=CheckParams)


@dataclass(frozen=True)
class AuditSettings:
    """The `audit:` section: checks switched off and each check's validated params."""

    disabled: frozenset[str]
    params: dict[str, CheckParams]
    rollup_share: float = 0.1

    def of(self, name: str, kind: type[P]) -> P:
        """The params of check `name`, which are a `kind` (TypeError if they are not)."""
        found = self.params[name]
        if not isinstance(found, kind):
            raise TypeError(f"check '{name}' takes {type(found).__name__}, not {kind.__name__}")
        return found


def load_audit_settings(params: dict[str, Any], source: str = "params.yaml") -> AuditSettings:
    """Validate the `audit:` section: unknown keys and unknown disabled names are errors.

    Raises:
        ConfigError: naming the key, with a did-you-mean suggestion.
    """
    load_checks()
    node = params.get("audit") or {}
    if not isinstance(node, dict):
        raise ConfigError(f"{source}: audit: expected a mapping")
    specs = list_checks()
    known = set(GENERAL_KEYS) | {key for spec in specs for key in spec.params.model_fields}
    for key in node:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ConfigError(f"{source}: audit.{key}: unknown setting{hint} "
                              f"(known: {', '.join(sorted(known))})")
    disabled = node.get("disabled") or []
    if not isinstance(disabled, list) or not all(isinstance(n, str) for n in disabled):
        raise ConfigError(f"{source}: audit.disabled: expected a list of check names")
    for name in disabled:
        try:
            CHECKS.get(name)
        except UnknownNameError as exc:
            raise ConfigError(f"{source}: audit.disabled: {exc}") from exc
    share = node.get("rollup_share", 0.1)
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
        raise ConfigError(f"{source}: audit.rollup_share: expected a number in (0, 1], "
                          f"got {share!r}")
    return AuditSettings(disabled=frozenset(disabled),
                         params={spec.name: section(params, "audit", spec.params, source=source)
                                 for spec in specs},
                         rollup_share=float(share))


def roll_up(spec: CheckSpec, produced: list[Finding], items: int,
            share: float) -> list[Finding]:
    """A warn-level check that fires at warn on more than `share` of the items becomes one
    benchmark-level finding (count + examples); its item rows are kept at info, so review
    and quarantine still see them. Error-level checks are never rolled up.
    """
    warned = sorted(f.id for f in produced if f.severity == "warn")
    if spec.severity != "warn" or spec.family not in ROLLUP_FAMILIES \
            or len(warned) < ROLLUP_MIN_ITEMS or len(warned) <= share * items:
        return produced
    out = [f.model_copy(update={"severity": "info", "evidence": {**f.evidence, "rolled_up": True}})
           if f.severity == "warn" else f for f in produced]
    first = min((f for f in produced if f.severity == "warn"), key=lambda f: f.id)
    out.append(spec.finding(
        BENCHMARK_ID, f"{len(warned)} of {items} items ({len(warned) / items:.0%}) get "
        f"{spec.name} ({spec.description}): a trait of this benchmark rather than item "
        f"defects? The item rows are kept at info. First: {first.id}: {first.message}",
        {"count": len(warned), "items": items, "share": round(len(warned) / items, 4),
         "rollup_share": share, "examples": warned[:5], "rolled_up": True}))
    return out


def run_checks(ctx: AuditContext, settings: AuditSettings
               ) -> tuple[list[Finding], list[str], list[dict[str, str]]]:
    """Run every enabled check whose inputs are present.

    Returns:
        (findings sorted by (id, check), names of the checks run, skipped checks as
        {"check", "reason"}).
    """
    findings: list[Finding] = []
    ran: list[str] = []
    skipped: list[dict[str, str]] = []
    for spec in list_checks():
        missing = [r for r in spec.requires if getattr(ctx, r) is None]
        if spec.name in settings.disabled:
            skipped.append({"check": spec.name, "reason": "disabled in params (audit.disabled)"})
            continue
        if missing:
            skipped.append({"check": spec.name, "reason": REQUIREMENTS[missing[0]]})
            continue
        unsupported = getattr(ctx.references, "unsupported", {}).get(spec.name)
        if unsupported:  # a check a partitioned reference cannot answer yet
            skipped.append({"check": spec.name, "reason": unsupported})
            continue
        started = time.perf_counter()
        try:
            produced = list(spec.run(ctx, settings.params[spec.name]))
        except CheckSkipped as exc:
            skipped.append({"check": spec.name, "reason": str(exc)})
            log.info("%s skipped: %s", spec.name, exc)
            continue
        log.info("%s: %d findings in %.2fs", spec.name, len(produced),
                 time.perf_counter() - started)
        produced = roll_up(spec, produced, len(ctx.items), settings.rollup_share)
        seen: set[str] = set()
        for finding in produced:
            if finding.id in seen:
                raise ValueError(f"check {spec.name} returned two findings for item {finding.id}")
            seen.add(finding.id)
            findings.append(finding)
        ran.append(spec.name)
    findings.sort(key=lambda f: (f.id, f.check))
    return findings, ran, skipped


def summarize(ctx: AuditContext, findings: Sequence[Finding], ran: list[str],
              skipped: list[dict[str, str]]) -> dict[str, Any]:
    """The summary.json document: counts per check, severity and capability; flagged share.

    An item is *flagged* when it has at least one warn or error finding; items with only
    info findings are counted apart (`info_only_items`). Lines left out of the audit for
    validation problems count as items (they are flagged by their `schema.*`/`label.*`
    findings).
    """
    from bench_kit.audit.intake import problem_item_id

    total = len(ctx.items) + len({problem_item_id(p) for p in ctx.invalid} - set(ctx.by_id))
    flagged = {f.id for f in findings if f.severity != "info" and f.id != BENCHMARK_ID}
    info_only = {f.id for f in findings if f.severity == "info"} - flagged
    by_check = {name: {**{s: 0 for s in SEVERITIES}, "items": 0} for name in ran}
    for finding in findings:
        by_check[finding.check][finding.severity] += 1
        by_check[finding.check]["items"] += 1
    per_item = defaultdict(list)
    for finding in findings:
        per_item[finding.id].append(finding)
    by_capability: dict[str, dict[str, Any]] = {}
    for capability, count in sorted(Counter(item.capability for item in ctx.items).items()):
        by_capability[capability] = {"items": count, "flagged": 0, "findings": 0,
                                     "by_check": {}}
    for item in ctx.items:
        entry = by_capability[item.capability]
        entry["findings"] += len(per_item.get(item.id, []))
        entry["flagged"] += item.id in flagged
        for finding in per_item.get(item.id, []):
            entry["by_check"][finding.check] = entry["by_check"].get(finding.check, 0) + 1
    for entry in by_capability.values():
        entry["by_check"] = dict(sorted(entry["by_check"].items()))
    for entry in by_capability.values():
        entry["flagged_share"] = _share(entry["flagged"], entry["items"])
    return {
        "format_version": FORMAT_VERSION,
        "items": total,
        "findings": len(findings),
        "flagged_items": len(flagged),
        "flagged_share": _share(len(flagged), total),
        "info_only_items": len(info_only),
        "by_severity": {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES},
        "by_check": by_check,
        "by_capability": by_capability,
        "checks_run": ran,
        "checks_skipped": skipped,
    }


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


# Split files read when the folder has no manifest.json naming them.
CONVENTIONAL_SPLITS = ("dev", "test", "train", "val", "validation")


def split_files(folder: str | Path) -> tuple[list[Path], str]:
    """The split files of a folder and where their names came from: the splits named by
    its `manifest.json` (`counts`, as `bench-kit split` writes it), or else the
    conventional `dev`/`test`/`train`/`val`/`validation` files. Other files are not read:
    a stray `*.jsonl` is not a split.

    Raises:
        InputError: no such folder, a split the manifest names is missing, or no split file.
    """
    from bench_kit.artifacts.paths import SPLIT_MANIFEST
    from bench_kit.io import read_json

    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("splits folder not found", path=str(folder))
    manifest = folder / SPLIT_MANIFEST
    if manifest.is_file():
        counts = read_json(manifest).get("counts")
        if not isinstance(counts, dict) or not counts:
            raise InputError("expected a 'counts' mapping of split names", path=str(manifest),
                             field="counts")
        files = [folder / f"{name}.jsonl" for name in sorted(counts)]
        missing = [p.name for p in files if not p.is_file()]
        if missing:
            raise InputError(f"split file(s) named by the manifest not found: "
                             f"{', '.join(missing)}", path=str(manifest), field="counts")
        return files, SPLIT_MANIFEST
    files = [folder / f"{name}.jsonl" for name in CONVENTIONAL_SPLITS
             if (folder / f"{name}.jsonl").is_file()]
    if not files:
        present = ", ".join(sorted(p.name for p in folder.glob("*.jsonl"))) or "none"
        raise InputError(f"no manifest.json and no {'/'.join(CONVENTIONAL_SPLITS)}.jsonl "
                         f"split files (*.jsonl here: {present})", path=str(folder))
    return sorted(files), "file names"


def read_splits(folder: str | Path) -> dict[str, list[str]]:
    """Split name (file stem) -> item ids, for the split files of `folder` (`split_files`)."""
    files, _ = split_files(folder)
    splits: dict[str, list[str]] = {}
    for path in files:
        ids = []
        for line, row in iter_jsonl(path):
            if not isinstance(row, dict) or not isinstance(row.get("id"), str):
                raise InputError("expected an item object with a string id", path=str(path),
                                 line=line, field="id")
            ids.append(row["id"])
        splits[path.stem] = ids
    return splits


@dataclass(frozen=True)
class AuditResult:
    """What `audit_data` wrote."""

    findings_path: Path
    summary_path: Path
    summary: dict[str, Any]


def audit_data(items_path: str | Path, out_dir: str | Path, *, root: str | Path | None = None,
               params_path: str | Path | None = "params.yaml", splits_dir: str | Path | None = None,
               references: Sequence[str | Path] = (),
               reference_images: Sequence[str | Path] = (),
               progress: ProgressFunc | None = None) -> AuditResult:
    """Audit an items file with the enabled data checks; write findings.jsonl and summary.json.

    Args:
        items_path: the items JSONL file.
        out_dir: folder for `findings.jsonl` and `summary.json` (written atomically).
        root: folder image paths are relative to (default: `default_root(items_path)`).
        params_path: params.yaml with the `audit:` section; None = every default.
        splits_dir: folder of split files; enables `leakage.cross_split`.
        references: reference files built by `build_reference`; enable the text
            contamination checks.
        reference_images: folders of reference images; enable `contamination.image`.
        progress: optional `(stage, done, total)` callback for long steps.
    """
    # no ./params.yaml: every check with its defaults (load_params says so, once)
    params = load_params(params_path) if params_path is not None else {}
    if params_path is not None and str(params_path) == DEFAULT_PARAMS \
            and not Path(params_path).is_file():
        params_path = None
    settings = load_audit_settings(params, source=str(params_path))
    partitioned = partitioned_paths(references) if references else False
    intake = read_for_audit(items_path, root=root, params_path=params_path)
    items = intake.items
    ctx = AuditContext(items=items, root=Path(root) if root else default_root(items_path),
                       items_path=Path(items_path), invalid=intake.problems,
                       item_lines=intake.lines,
                       splits=read_splits(splits_dir) if splits_dir else None,
                       references=open_reference(references)
                       if references and not partitioned else None,
                       reference_images=[Path(p) for p in reference_images] or None,
                       params=params, params_source=str(params_path), progress=progress)
    if partitioned:  # filtered on audit.engine; the checks then read only the candidate rows
        ctx.references = partitioned_references(ctx, references, settings)
    findings, ran, skipped = run_checks(ctx, settings)
    summary = summarize(ctx, findings, ran, skipped)
    if splits_dir:
        files, named_by = split_files(splits_dir)
        summary["splits_read"] = {"files": [p.name for p in files], "named_by": named_by}
    summary["invalid_lines"] = intake.invalid_lines
    summary["lines"] = intake.rows
    fresh = freshness_summary(items, settings.of("contamination.exposed", FreshnessParams))
    if fresh is not None:
        summary["freshness"] = fresh
    if ctx.notes:
        summary["notes"] = ctx.notes
    out = Path(out_dir)
    write_jsonl(out / FINDINGS_FILE, findings)
    write_audit_summary(out / SUMMARY_FILE, summary)
    return AuditResult(findings_path=out / FINDINGS_FILE, summary_path=out / SUMMARY_FILE,
                       summary=summary)
