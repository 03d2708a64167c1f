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

from pydantic import ValidationError

from bench_kit.errors import InputError, UsageError
from bench_kit.types import MODES, Item, Score

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
    except FileNotFoundError:
        raise UsageError("git is not installed (needed to read other revisions)") from None
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


def _lines(fs, path: str, rev: str) -> list[str]:
    from dvc.exceptions import DvcException

    try:
        with fs.open(path, "r", encoding="utf-8") as handle:
            return handle.read().splitlines()
    except (OSError, DvcException) as exc:
        raise InputError(f"cannot read at revision {rev} ({exc}; run `dvc pull`?)",
                         path=path) from None


def _rows(fs, path: str, model_type, rev: str):
    for number, line in enumerate(_lines(fs, path, rev), start=1):
        if not line.strip():
            continue
        try:
            yield model_type.model_validate_json(line)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(p) for p in error["loc"]) or None
            raise InputError(f"at revision {rev}: {error['msg']}", path=path, line=number,
                             field=field) from None


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
            path = f"{folder}/{mode}.jsonl"
            if fs.exists(path):
                scores.setdefault(model, {})[mode] = {
                    s.id: s for s in _rows(fs, path, Score, rev)}
    return Snapshot(rev=rev, commit=commit, items=items, scores=scores)
