"""`bench-kit init`: a new benchmark project that `dvc repro` runs as it is.

The project gets params.yaml, dvc.yaml, templates.yaml and a README from the templates in
bench_kit/scaffold/, a few example scenes (images tracked with `dvc add`, annotations in
git), git and DVC initialised (analytics off), and a local folder as the default DVC
remote: `<DIR>/../<name>-dvc-remote` (outside the project, so deleting or re-cloning the
project keeps the data; recorded as a relative path, so a clone at the same place finds it).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from bench_kit.artifacts.exclusions import ensure_exclusion_list
from bench_kit.artifacts.paths import QUARANTINE
from bench_kit.errors import BenchKitError, UsageError, param
from bench_kit.io import write_text

# (template in bench_kit/scaffold, path in the project); `{name}` is the benchmark name
FILES = (("README.md.j2", "README.md"), ("params.yaml.j2", "params.yaml"),
         ("dvc.yaml.j2", "dvc.yaml"), ("gitignore.j2", ".gitignore"),
         ("dvcignore.j2", ".dvcignore"), ("templates.yaml.j2", "datasets/{name}/templates.yaml"))
EXAMPLE_SCENES = {"seed": 7, "n_shapes": 8, "n_signs": 3, "n_charts": 3}
CREATED_AT = "2026-01-01T00:00:00Z"


@dataclass
class InitSummary:
    """What `init_project` made."""

    root: Path
    name: str
    remote: str
    images: int
    committed: bool
    notes: list[str] = field(default_factory=list)


def benchmark_name(directory: str | Path) -> str:
    """A benchmark name from the folder name: lower-case letters, digits, `_` and `-`."""
    raw = Path(directory).resolve().name.lower()
    name = re.sub(r"[^a-z0-9_-]+", "-", raw).strip("-_")
    if not name:
        raise UsageError(f"cannot derive a benchmark name from '{directory}'; pass "
                         f"{param('name')}")
    return name


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300,
                              check=False)
    except FileNotFoundError as exc:
        raise BenchKitError(f"'{args[0]}' not found on PATH; install it and re-run") from exc
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise BenchKitError(f"`{' '.join(args[:4])}` failed in {cwd}: "
                            f"{detail[-1] if detail else 'exit ' + str(proc.returncode)}")
    return proc


def _dvc(*args: str) -> list[str]:
    # the dvc of this interpreter: works even when the venv's bin is not on PATH
    return [sys.executable, "-m", "dvc", *args]


def render_files(root: Path, context: dict[str, object]) -> list[Path]:
    """Render the scaffold templates into `root`; return the written paths."""
    import jinja2

    env = jinja2.Environment(keep_trailing_newline=True, undefined=jinja2.StrictUndefined,
                             autoescape=False)
    folder = resources.files("bench_kit.scaffold") / "templates"
    written = []
    for template, target in FILES:
        if context.get("items") and template == "templates.yaml.j2":
            continue
        text = env.from_string((folder / template).read_text(encoding="utf-8"))
        path = root / target.format(name=context["name"])
        write_text(path, text.render(**context))
        written.append(path)
    return written


def _bring_items(items_path: Path, bench_dir: Path) -> tuple[int, dict[str, str]]:
    """Copy an items file and the images it names (under `images/` next to it, as
    `bench-kit import` writes them) into `bench_dir`; return (images copied, taxonomy)."""
    import shutil

    from bench_kit.io import resolve_image
    from bench_kit.items import read_items

    items = read_items(items_path)
    if not items:
        raise UsageError(f"{param('items', items_path)}: no items")
    images: set[str] = {rel for item in items for rel in item.images}
    outside = sorted(rel for rel in images if not rel.startswith("images/"))
    if outside:
        raise UsageError(f"{param('items', items_path)}: image paths must be under images/ "
                         "next to the "
                         f"items file (as `bench-kit import` writes them), e.g. '{outside[0]}'")
    for rel in sorted(images):
        source = resolve_image(items_path.parent, rel)
        if not source.is_file():
            raise UsageError(f"{param('items', items_path)}: image '{rel}' not found")
        target = bench_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    (bench_dir / "images").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(items_path, bench_dir / "items.jsonl")
    taxonomy = {item.capability: item.layer for item in items}
    return len(images), dict(sorted(taxonomy.items()))


def init_project(directory: str | Path, *, name: str | None = None,
                 remote: str | Path | None = None, git_commit: bool = True,
                 items: str | Path | None = None) -> InitSummary:
    """Scaffold a benchmark project in `directory` (which must not exist or be empty).

    Args:
        directory: the new project folder.
        name: the benchmark name (default: from the folder name).
        remote: the DVC remote URL or folder (default: `<directory>/../<name>-dvc-remote`).
        git_commit: commit the scaffold when git has a user identity (else leave it staged).
        items: an existing items file (e.g. from `bench-kit import`) to build the project
            around, instead of the example scenes and templates: no generate stage, its
            capabilities become the taxonomy, its images are copied and tracked.

    Raises:
        UsageError: the folder is not empty or the name is not usable.
        BenchKitError: git or DVC failed (the message names the command).
    """
    from bench_kit.authoring.scenes import SceneParams, render_scenes

    root = Path(directory)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise UsageError(f"{root} exists and is not an empty folder")
    name = name or benchmark_name(root)
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        raise UsageError(f"benchmark name '{name}': use lower-case letters, digits, _ and -")
    remote_url = str(remote) if remote is not None else f"../{name}-dvc-remote"
    if remote is not None and "://" not in remote_url:
        remote_url = str(Path(remote_url).resolve())  # relative to the caller's cwd
    items_path = Path(items) if items is not None else None
    if items_path is not None and not items_path.is_file():
        raise UsageError(f"{param('items', items_path)}: not a file")
    root.mkdir(parents=True, exist_ok=True)
    bench_dir = root / "datasets" / name
    taxonomy: dict[str, str] = {}
    if items_path is not None:
        n_images, taxonomy = _bring_items(items_path, bench_dir)
    render_files(root, {"name": name, "remote_display": remote_url, "created_at": CREATED_AT,
                        "items": items_path is not None, "taxonomy": taxonomy,
                        **EXAMPLE_SCENES})
    if items_path is None:
        n_images = render_scenes(SceneParams(**EXAMPLE_SCENES), bench_dir).total
    # the (empty) quarantine list exists from the start: the split stage depends on it
    ensure_exclusion_list(root / "datasets" / name / QUARANTINE)

    _run(["git", "init", "-q"], root)
    _run(_dvc("init", "-q"), root)
    _run(_dvc("config", "core.analytics", "false"), root)
    if remote is None:
        (root.parent / f"{name}-dvc-remote").mkdir(exist_ok=True)
    elif "://" not in remote_url:
        Path(remote_url).mkdir(parents=True, exist_ok=True)
    # dvc resolves a relative path against its cwd and stores it relative to .dvc/
    _run(_dvc("remote", "add", "-d", "local", remote_url), root)
    _run(_dvc("add", "-q", f"datasets/{name}/images"), root)
    _run(["git", "add", "-A"], root)
    summary = InitSummary(root, name, remote_url, n_images, committed=False)
    if git_commit:
        proc = subprocess.run(["git", "commit", "-q", "-m", f"bench-kit init {name}"],
                              cwd=root, capture_output=True, text=True, timeout=60, check=False)
        summary.committed = proc.returncode == 0
        if not summary.committed:
            summary.notes.append("files are staged but not committed (git has no user "
                                 "identity?): run `git commit -m 'bench-kit init'`")
    return summary
