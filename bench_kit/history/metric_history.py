"""A metric over the last N commits (`bench-kit history`).

Metrics files (`metrics/<bench>/<model>.json`) are DVC metrics with `cache: false`, so
they live in git: each commit's values come from `git show <commit>:<path>`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench_kit.artifacts.tables import object_of
from bench_kit.errors import UsageError
from bench_kit.history.revisions import git

SEP = "\x1f"


def lookup(data: object, dotted: str) -> object:
    """The value at a dotted path; keys may themselves contain dots (capability names),
    so the longest matching key wins at each level. None when the path is absent.

    >>> lookup({"image": {"by_capability": {"perception.count": {"accuracy": 0.5}}}},
    ...        "image.by_capability.perception.count.accuracy")
    0.5
    """
    if dotted == "":
        return data
    if not isinstance(data, dict):
        return None
    parts = dotted.split(".")
    for size in range(len(parts), 0, -1):
        key = ".".join(parts[:size])
        if key in data:
            found = lookup(data[key], ".".join(parts[size:]))
            if found is not None:
                return found
    return None


def _metrics_at(repo: str | Path, commit: str, metrics_dir: str) -> dict[str, dict]:
    listing = git(repo, "ls-tree", "--name-only", f"{commit}:{metrics_dir}") \
        if _has_tree(repo, commit, metrics_dir) else ""
    out = {}
    for name in sorted(listing.split()):
        if name.endswith(".json"):
            try:
                data = json.loads(git(repo, "show", f"{commit}:{metrics_dir}/{name}"))
            except (json.JSONDecodeError, UsageError):
                continue  # a file that is not a metrics object at that commit
            if isinstance(data, dict):  # a newer format_version is refused, not misread
                out[Path(name).stem] = object_of(data, "metrics",
                                                 f"{commit[:12]}:{metrics_dir}/{name}")
    return out


def _has_tree(repo: str | Path, commit: str, path: str) -> bool:
    try:
        return git(repo, "cat-file", "-t", f"{commit}:{path}").strip() == "tree"
    except UsageError:
        return False


def metric_history(repo: str | Path, *, metric: str = "image.accuracy", limit: int = 10,
                   bench: str = "demo", metrics_dir: str | None = None,
                   rev: str = "HEAD") -> dict:
    """`metric` of every model over the last `limit` commits reachable from `rev`.

    Returns `{metric, bench, models, commits: [{commit, date, subject, values: {model:
    value or None}}]}`, newest first; a model missing at a commit has None there.
    """
    if limit < 1:
        raise UsageError(f"limit must be >= 1, got {limit}")
    metrics_dir = (metrics_dir or f"metrics/{bench}").strip("/")
    log = git(repo, "log", f"-n{limit}", f"--format=%H{SEP}%cI{SEP}%s", rev)
    commits: list[dict[str, Any]] = []
    models: set[str] = set()
    for line in log.splitlines():
        commit, date, subject = line.split(SEP, 2)
        values: dict[str, float | None] = {}
        for model, data in _metrics_at(repo, commit, metrics_dir).items():
            value = lookup(data, metric)
            values[model] = value if isinstance(value, (int, float)) else None
        models |= set(values)
        commits.append({"commit": commit, "date": date, "subject": subject, "values": values})
    for entry in commits:
        entry["values"] = {m: entry["values"].get(m) for m in sorted(models)}
    return {"metric": metric, "bench": bench, "models": sorted(models), "commits": commits}


def format_history(result: dict) -> str:
    """A table: one row per commit (newest first), one column per model."""
    models = result["models"]
    lines = [f"{result['metric']} ({result['bench']}), newest first",
             "  ".join(["commit  ", "date      ", *[f"{m:>12}" for m in models], "subject"])]
    for entry in result["commits"]:
        cells = [f"{'n/a' if v is None else f'{v:.4g}':>12}" for v in entry["values"].values()]
        lines.append("  ".join([entry["commit"][:8], entry["date"][:10], *cells,
                                entry["subject"][:60]]))
    return "\n".join(lines)
