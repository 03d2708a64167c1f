"""The audit foundation: the check registry, per-check params and the shared feature context.

A check is a function `(ctx, params) -> Iterable[Finding]` registered with `@check(...)`.
Features several checks need (normalised question text, image hashes) live in
`AuditContext` and are computed once, on first use, so three checks never hash the same
image three times.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from bench_kit.errors import InputError
from bench_kit.io import open_image, resolve_image
from bench_kit.registry import Registry
from bench_kit.text.normalize import normalize_for_audit
from bench_kit.types import SEVERITY_RANK, Finding, Item, Severity  # noqa: F401 (re-exported)

FAMILIES = ("schema", "ambiguity", "label", "contamination", "redundancy", "leakage")
# Score of a yes/no flag without a graded measure: higher = more severe (docs/AUDITS.md).
SEVERITY_SCORE: dict[str, float] = {"info": 0.25, "warn": 0.5, "error": 1.0}
# Context inputs a check may require, with the hint shown when it is skipped for lack of one.
REQUIREMENTS: dict[str, str] = {"splits": "needs --splits DIR",
                                "references": "needs --reference FILE",
                                "reference_images": "needs --reference-images DIR"}


class CheckSkipped(Exception):
    """Raised by a check, before it yields anything, when its settings leave nothing to do."""


class CheckParams(BaseModel):
    """Base of every check's settings model.

    Fields are read from the flat `audit:` section of params.yaml; two checks that read the
    same key (e.g. `phash_duplicate`) share one value. Unknown keys are rejected by
    `bench_kit.audit.stage.load_audit_settings`, not here, because every model sees the
    whole section.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")


class NoParams(CheckParams):
    """A check without settings."""


# What a registered check is called with: (context, its validated params) -> findings.
CheckFunc = Callable[["AuditContext", Any], Iterable[Finding]]
# What `@check` decorates: the same plus the check's own CheckSpec, so that the name is
# written once, in `@check("...")`, and findings are built with `spec.finding`.
SpecCheckFunc = Callable[["AuditContext", Any, "CheckSpec"], Iterable[Finding]]


@dataclass(frozen=True)
class CheckSpec:
    """A registered check: its name (`family.name`), default severity, settings model and code."""

    name: str
    severity: Severity
    description: str
    run: CheckFunc
    params: type[CheckParams] = NoParams
    requires: tuple[str, ...] = ()

    @property
    def family(self) -> str:
        """The part of the name before the dot, e.g. `ambiguity`."""
        return self.name.split(".", 1)[0]

    def finding(self, item_id: str, message: str, evidence: Mapping[str, Any], *,
                severity: Severity | None = None, score: float | None = None) -> Finding:
        """A Finding of this check; severity defaults to the check's, score to that severity's."""
        severity = severity or self.severity
        value = SEVERITY_SCORE[severity] if score is None else min(1.0, max(0.0, score))
        return Finding(id=item_id, check=self.name, severity=severity, score=round(value, 4),
                       message=message, evidence=dict(evidence))


CHECKS: Registry[CheckSpec] = Registry("check")


def check(name: str, *, severity: Severity, params: type[CheckParams] = NoParams,
          requires: Sequence[str] = ()) -> Callable[[SpecCheckFunc], CheckFunc]:
    """Register a check under `name`; its description is the first line of its docstring.

    The function receives the context, its validated params and its own CheckSpec (to
    build findings with `spec.finding`), and returns findings; the decorated name is the
    check as it is run, `(ctx, params) -> findings`.
    """
    family = name.split(".", 1)[0]
    if family not in FAMILIES or "." not in name:
        raise ValueError(f"check name '{name}' must be family.name with family in {FAMILIES}")
    unknown = [r for r in requires if r not in REQUIREMENTS]
    if unknown:
        raise ValueError(f"check '{name}': unknown requirement(s) {unknown}")

    def decorator(func: SpecCheckFunc) -> CheckFunc:
        doc = (func.__doc__ or "").strip().splitlines()
        if not doc:
            raise ValueError(f"check '{name}' needs a docstring (its one-line description)")

        @functools.wraps(func)
        def run(ctx: AuditContext, check_params: Any) -> Iterable[Finding]:
            return func(ctx, check_params, spec)

        spec = CheckSpec(name=name, severity=severity, description=doc[0], run=run,
                         params=params, requires=tuple(requires))
        CHECKS.register(name)(spec)
        return run

    return decorator


def spec_of(name: str) -> CheckSpec:
    """The registered CheckSpec called `name` (for callers outside the check itself)."""
    return CHECKS.get(name)


# --- image features ----------------------------------------------------------------------


@dataclass(frozen=True)
class ImageIndex:
    """Every distinct image file the items use, hashed once.

    Attributes:
        paths: image paths as the items spell them (first spelling of each file), sorted.
        sha256: hex SHA-256 of the decoded RGB pixels (with the size), per path.
        phash: 64-bit perceptual hashes as uint64, per path.
        phash_flip: pHash of the horizontally flipped image, per path.
        users: path -> sorted ids of the items that use it.
        item_paths: item id -> its images as index paths, in the item's order.
    """

    paths: list[str]
    sha256: list[str]
    phash: Any
    phash_flip: Any
    users: dict[str, list[str]]
    item_paths: dict[str, list[str]]

    @cached_property
    def by_sha(self) -> dict[str, list[int]]:
        """SHA-256 -> indices of the paths with those pixels (in path order)."""
        groups: dict[str, list[int]] = {}
        for index, digest in enumerate(self.sha256):
            groups.setdefault(digest, []).append(index)
        return groups


def pixel_sha256(img: Any) -> str:
    """SHA-256 of an RGB image's size and decoded pixels (file format and metadata ignored)."""
    digest = hashlib.sha256(f"{img.width}x{img.height}:".encode())
    digest.update(img.tobytes())
    return digest.hexdigest()


def image_hashes(img: Any) -> tuple[str, int, int]:
    """(pixel SHA-256, 64-bit pHash, pHash of the horizontal flip) of an RGB image."""
    import imagehash
    from PIL import Image

    flipped = img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return (pixel_sha256(img), int(str(imagehash.phash(img)), 16),
            int(str(imagehash.phash(flipped)), 16))


def channel_phashes(img: Any, flip: bool = False) -> tuple[int, int, int]:
    """64-bit pHash of each RGB channel (of the horizontally flipped image when `flip`).

    Grayscale pHash ignores colour: two charts with the same layout and different bar
    colours hash alike; the channel hashes tell them apart.
    """
    import imagehash
    from PIL import Image

    if flip:
        img = img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    red, green, blue = (int(str(imagehash.phash(band)), 16) for band in img.split()[:3])
    return red, green, blue


def channel_distance(a: Sequence[int], b: Sequence[int]) -> int:
    """The largest per-channel Hamming distance between two channel-pHash triples."""
    return max(bin(x ^ y).count("1") for x, y in zip(a, b))


ProgressFunc = Callable[[str, int, int], None]


@dataclass
class AuditContext:
    """The items under audit plus features shared by checks, each computed once on first use.

    Attributes:
        items: the items, in file order.
        root: the folder item image paths are relative to.
        items_path: the items file (named in error messages), if any.
        splits: split name -> item ids, when the audit was given `--splits`.
        references: the reference text corpora (`--reference`), for contamination checks.
        reference_images: reference image folders (`--reference-images`).
        params: the whole params document (a check may need e.g. `models` for a judge).
        params_source: the params file name, for error messages.
        progress: optional callback `(stage, done, total)` for long feature computations.
        invalid: validation problems of the lines left out of the audit (reported by the
            `schema.*` and `label.*` checks, see bench_kit.audit.intake).
        item_lines: item id -> its line in the items file.
        image_problems: item id -> (image, reason) for images that could not be decoded
            (filled when `images` is computed).
        notes: facts a check reports for the summary (e.g. how a nearest-neighbour search
            was done and its measured recall), by check name.
    """

    items: Sequence[Item]
    root: Path
    items_path: Path | None = None
    splits: dict[str, list[str]] | None = None
    references: Any = None
    reference_images: list[Path] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    params_source: str = "params.yaml"
    progress: ProgressFunc | None = None
    invalid: Sequence[Any] = ()
    item_lines: dict[str, int] = field(default_factory=dict)
    image_problems: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False)

    def memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """Return the cached value for `key`, computing it once (a seam for later features)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    @cached_property
    def by_id(self) -> dict[str, Item]:
        """Item id -> item."""
        return {item.id: item for item in self.items}

    @cached_property
    def questions(self) -> dict[str, str]:
        """Item id -> normalised question text (see `normalize_for_audit`)."""
        return {item.id: normalize_for_audit(item.question) for item in self.items}

    @cached_property
    def images(self) -> ImageIndex:
        """The distinct images of all items, each decoded and hashed exactly once.

        A file that cannot be decoded is left out of the index and recorded in
        `image_problems` (item id -> reasons), which `schema.image` reports."""
        import numpy as np

        spelled: dict[Path, str] = {}
        users: dict[Path, set[str]] = {}
        item_files: dict[str, list[Path]] = {}
        for item in self.items:
            files = item_files.setdefault(item.id, [])
            for rel in item.images:
                try:
                    real = resolve_image(self.root, rel).resolve()
                except ValueError as exc:
                    raise self._image_error(item, exc) from exc
                spelled.setdefault(real, rel)
                users.setdefault(real, set()).add(item.id)
                files.append(real)
        order = sorted(spelled, key=lambda real: (spelled[real], str(real)))
        shas: list[str] = []
        hashes: list[int] = []
        flips: list[int] = []
        broken: set[Path] = set()
        for done, real in enumerate(order, start=1):
            try:
                img = open_image(real)
            except ValueError as exc:
                broken.add(real)
                for ident in sorted(users[real]):
                    self.image_problems.setdefault(ident, []).append(
                        (spelled[real], str(exc)))
                continue
            sha, phash, flip = image_hashes(img)
            shas.append(sha)
            hashes.append(phash)
            flips.append(flip)
            if self.progress and (done % 500 == 0 or done == len(order)):
                self.progress("hashing images", done, len(order))
        order = [real for real in order if real not in broken]
        return ImageIndex(paths=[spelled[real] for real in order], sha256=shas,
                          phash=np.array(hashes, dtype=np.uint64),
                          phash_flip=np.array(flips, dtype=np.uint64),
                          users={spelled[real]: sorted(users[real]) for real in order},
                          item_paths={ident: [spelled[real] for real in files
                                              if real not in broken]
                                      for ident, files in item_files.items()})

    def _image_error(self, item: Item, exc: ValueError) -> InputError:
        where = str(self.items_path) if self.items_path else None
        return InputError(f"(id {item.id}) {exc}", path=where, field="image")


def worst(findings: Iterable[Finding]) -> Finding:
    """The most severe of several findings for one item (severity, then score; first on ties)."""
    return max(findings, key=lambda f: (SEVERITY_RANK[f.severity], f.score))
