"""Contamination of images: the items' images against reference image folders by pHash.

Every reference image is decoded and hashed once (pixel SHA-256, 64-bit pHash and the pHash
of its horizontal flip); the hashes are cached on disk under the folders' content hash
(file paths + file SHA-256s), so a second audit decodes nothing. Each distinct item image is
compared with every reference hash in numpy tiles (XOR + popcount, flip both ways, as for
near duplicates inside the benchmark): identical pixels, or distance ≤ `phash_duplicate`
confirmed by the per-channel pHash (`phash_colour`), is a copy (warn); the rest up to
`phash_review` goes to review (info).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterator

from bench_kit.audit.contamination import ContaminationParams
from bench_kit.audit.feature_cache import cached_array, feature_key
from bench_kit.audit.image_checks import PhashParams, _per_item, popcount
from bench_kit.audit.registry import (
    AuditContext,
    CheckSpec,
    channel_distance,
    channel_phashes,
    check,
    image_hashes,
)
from bench_kit.errors import InputError
from bench_kit.io import file_sha256, open_image, resolve_image
from bench_kit.types import Finding

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff")
_TILE = 1 << 22  # item x reference pairs compared per numpy step


class ReferenceImageParams(PhashParams, ContaminationParams):
    """pHash thresholds (shared with the in-benchmark checks) and the feature cache dir."""


def reference_files(folders: list[Path]) -> list[tuple[Path, str]]:
    """(file, label `folder-name/relative/path`) of every image under the folders, sorted."""
    files = []
    for folder in folders:
        if not folder.is_dir():
            raise InputError("reference image folder not found", path=str(folder))
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES:
                files.append((path, f"{folder.name}/{path.relative_to(folder).as_posix()}"))
    return files


def _hash_rows(files: list[tuple[Path, str]], ctx: AuditContext) -> Any:
    """(n, 6) uint64: pHash, flipped pHash, pixel SHA-256 as four words, per file."""
    import numpy as np

    out = np.zeros((len(files), 6), dtype=np.uint64)
    for row, (path, _) in enumerate(files):
        try:
            img = open_image(path)
        except ValueError as exc:
            raise InputError(str(exc), path=str(path)) from exc
        sha, phash, flip = image_hashes(img)
        out[row, :2] = (phash, flip)
        out[row, 2:] = np.frombuffer(bytes.fromhex(sha), dtype=">u8").astype(np.uint64)
        if ctx.progress and ((row + 1) % 500 == 0 or row + 1 == len(files)):
            ctx.progress("hashing reference images", row + 1, len(files))
    return out


def reference_image_hashes(ctx: AuditContext, cache_dir: str | None
                           ) -> tuple[list[tuple[Path, str]], Any]:
    """(file, label) and (n, 6) hash rows of the reference images, cached when possible."""
    files = reference_files(list(ctx.reference_images or []))
    digest = hashlib.sha256()
    for path, label in files:
        digest.update(f"{label}\x00{file_sha256(path)}\n".encode())
    key = feature_key("refimg", corpus=digest.hexdigest(), hashes="sha256+phash+flip")
    return files, cached_array(cache_dir, key, lambda: _hash_rows(files, ctx))


def nearest(hashes: Any, flips: Any, ref: Any) -> tuple[Any, Any, Any]:
    """Per query hash: smallest pHash distance to a reference row, its index, and flipped?"""
    import numpy as np

    count = len(hashes)
    best = np.full(count, 255, dtype=np.int64)
    where = np.zeros(count, dtype=np.int64)
    flipped = np.zeros(count, dtype=bool)
    step = max(1, _TILE // max(count, 1))
    for start in range(0, len(ref), step):
        r_hash, r_flip = ref[start:start + step, 0], ref[start:start + step, 1]
        plain = popcount(hashes[:, None] ^ r_hash[None, :]).astype(np.int64)
        mirrored = np.minimum(popcount(hashes[:, None] ^ r_flip[None, :]),
                              popcount(flips[:, None] ^ r_hash[None, :])).astype(np.int64)
        dist = np.minimum(plain, mirrored)
        arg = dist.argmin(axis=1)
        value = dist[np.arange(count), arg]
        better = value < best
        best[better] = value[better]
        where[better] = arg[better] + start
        flipped[better] = (mirrored[np.arange(count), arg] < plain[np.arange(count), arg])[better]
    return best, where, flipped


@check("contamination.image", severity="warn", params=ReferenceImageParams,
       requires=("reference_images",))
def image_in_reference(ctx: AuditContext, params: ReferenceImageParams, spec: CheckSpec) -> Iterator[Finding]:
    """Item images found in reference image folders (same pixels or pHash near match, flip too)."""
    import numpy as np

    files, ref = reference_image_hashes(ctx, params.contamination.cache_dir)
    labels = [label for _, label in files]
    index = ctx.images
    if not labels or not index.paths:
        return
    ref_sha = {bytes(np.asarray(row[2:], dtype=">u8").tobytes()).hex(): k
               for k, row in reversed(list(enumerate(ref)))}
    best, where, flipped = nearest(index.phash, index.phash_flip, ref)
    by_path = {}
    for i, path in enumerate(index.paths):
        exact = ref_sha.get(index.sha256[i])
        if exact is not None:
            distance, other, flip, kind = 0, exact, False, "same pixels"
        else:
            distance, other, flip = int(best[i]), int(where[i]), bool(flipped[i])
            kind = "duplicate" if distance <= params.phash_duplicate else "review"
        if distance > params.phash_review:
            continue
        extra = {}
        if kind == "duplicate" and params.phash_colour is not None:
            colour = channel_distance(
                channel_phashes(open_image(resolve_image(ctx.root, path))),
                channel_phashes(open_image(files[other][0]), flip))
            extra["colour_distance"] = colour
            if colour > params.phash_colour:
                kind = "review (colours differ)"
        copy = kind in ("same pixels", "duplicate")
        by_path[i] = spec.finding(
            "-", f"image '{path}' matches reference image '{labels[other]}' ({kind}, pHash "
            f"distance {distance}{', flipped' if flip else ''})",
            {"image": path, "reference_image": labels[other], "distance": distance,
             "flipped": flip, **extra, "verdict": kind, "score": round(1.0 - distance / 64, 4)},
            severity="warn" if copy else "info", score=1.0 - distance / 64)
    yield from _per_item(index, by_path)
