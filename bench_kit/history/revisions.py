"""Reading a benchmark's items and per-item scores as they were at a git revision.

Files come through `dvc.api.DVCFileSystem`, so stage outputs that live only in the DVC
cache (scores, splits) read the same as files committed to git.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from bench_kit.artifacts.paths import mode_file
from bench_kit.artifacts.rows import iter_models
from bench_kit.errors import InputError, UsageError
from bench_kit.types import MODES, Item, Score

M = TypeVar("M", bound=BaseModel)
# Fields that do not change what an item asks (a re-stamped date is not an edit).
NOT_CONTENT = {"created_at"}


@dataclass(frozen=True)
class Snapshot:
    """A benchmark at one revision: items by id and scores[model][mode][id]."""

    rev: str
    commit: str
    items: dict[str, Item]
    scores: dict[str, dict[str, dict[str, Score]]]


def git(repo: str | Path, *args: str) -> str:
    """Run git in `repo` and return stdout; a failure raises UsageError with git's reason."""
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              check=False)
    except FileNotFoundError as exc:
        raise UsageError("git is not installed (needed to read other revisions)") from exc
    if proc.returncode != 0:
        reason = (proc.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise UsageError(f"git {' '.join(args)}: {reason}")
    return proc.stdout


def resolve(repo: str | Path, rev: str) -> str:
    """The full commit hash of `rev` (a branch, tag, `HEAD~1`, a short hash)."""
    return git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()


def item_hash(item: Item) -> str:
    """sha256 of an item's content (every field but `created_at`), stable across key order."""
    data = item.model_dump(mode="json", exclude=NOT_CONTENT)
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False)
                          .encode("utf-8")).hexdigest()


def _rows(fs, path: str, model_type: type[M], rev: str, kind: str | None = None) -> list[M]:
    """Rows of a JSONL file at a revision, through the one typed row reader."""
    from dvc.exceptions import DvcException

    try:
        with fs.open(path, "rb") as handle:
            data = handle.read()
    except (OSError, DvcException) as exc:
        raise InputError(f"cannot read at revision {rev} ({exc}; run `dvc pull`?)",
                         path=path) from exc
    try:
        return [row for _, row in iter_models(path, model_type, kind=kind,
                                               source=data.splitlines(keepends=True))]
    except InputError as exc:
        raise InputError(f"at revision {rev}: {exc.reason}", path=path, line=exc.line,
                         field=exc.field) from exc


def load_snapshot(repo: str | Path, rev: str, items_path: str, scores_dir: str) -> Snapshot:
    """Items and every `<model>/<mode>.jsonl` score file under `scores_dir` at `rev`.

    Raises:
        UsageError: `rev` is not a commit of `repo`.
        InputError: the items file or the scores folder is missing at `rev`, or a bad row.
    """
    from dvc.api import DVCFileSystem

    commit = resolve(repo, rev)
    if not commit:
        raise UsageError(f"'{rev}' is not a revision of {repo} (try `git log --oneline`)")
    fs = DVCFileSystem(str(repo), rev=commit)
    for path in (items_path, scores_dir):
        if not fs.exists(path):
            raise InputError(f"not found at revision {rev} (neither in git nor in the DVC "
                             "cache; run `dvc pull`?)", path=path)
    items = {item.id: item for item in _rows(fs, items_path, Item, rev)}
    scores: dict[str, dict[str, dict[str, Score]]] = {}
    for folder in sorted(fs.ls(scores_dir, detail=False)):
        if not fs.isdir(folder):
            continue
        model = Path(folder).name
        for mode in MODES:
            path = mode_file(folder, mode).as_posix()
            if fs.exists(path):
                scores.setdefault(model, {})[mode] = {
                    s.id: s for s in _rows(fs, path, Score, rev, kind="scores")}
    return Snapshot(rev=rev, commit=commit, items=items, scores=scores)
