"""Duplicate images inside the benchmark (docs/AUDIT_METHODS.md): exact by pixels, near by pHash.

Both checks compare distinct pixel contents, never items: several items that share one
image file (one `group`) are not duplicates of each other. A finding is written for every
item that uses an image of a duplicate cluster, with the cluster in `evidence`.

Near-duplicate search: every distinct pixel content is hashed once (pHash and the pHash of
its horizontal flip, in `AuditContext.images`); the search XORs a block of hashes against
the hashes after it and counts bits with numpy (`bitwise_count`, or a byte lookup table on
older numpy): each of the n²/2 pairs is compared three ways (hash–hash, hash–flip,
flip–hash) in C, in blocks of about 4M pairs so memory stays flat. For 50,000 distinct
images that is 1.25e9 pairs, about 7 s here (2 cores), small next to decoding and hashing the
images (about 130 images/s for 480x360 PNGs). Pairs within the distance are joined with
union–find.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterator

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from bench_kit.audit.registry import (
    AuditContext,
    CheckParams,
    CheckSpec,
    ImageIndex,
    NoParams,
    channel_distance,
    channel_phashes,
    check,
    worst,
)
from bench_kit.io import open_image, resolve_image
from bench_kit.types import Finding

# Evidence lists are capped so one huge cluster does not bloat every one of its rows.
MAX_LISTED = 50
_BLOCK_PAIRS = 1 << 22


class PhashParams(CheckParams):
    """pHash thresholds (docs/AUDIT_METHODS.md), shared by the near-duplicate and leakage checks.

    `phash_colour`: a pair within `phash_duplicate` is a duplicate only when the pHash of
    every RGB channel is also within this distance (null = grayscale pHash alone); otherwise
    it is sent to review. Same-layout pictures in different colours (templated charts) are
    the false positives it removes.
    """

    phash_duplicate: int = Field(6, ge=0, le=64)
    phash_review: int = Field(12, ge=0, le=64)
    phash_colour: int | None = Field(16, ge=0, le=64)

    @model_validator(mode="after")
    def _ordered(self) -> "PhashParams":
        if self.phash_review < self.phash_duplicate:
            raise PydanticCustomError(
                "threshold_order", "phash_review ({review}) must be >= phash_duplicate ({dup})",
                {"review": self.phash_review, "dup": self.phash_duplicate})
        return self


@dataclass(frozen=True)
class Pair:
    """Two distinct pixel contents (indices into `ImageIndex.paths`) within a pHash distance."""

    a: int
    b: int
    distance: int
    flipped: bool


def popcount(values: Any) -> Any:
    """Set bits per element of a uint64 array."""
    import numpy as np

    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(values)
    return popcount_table(values)


def popcount_table(values: Any) -> Any:
    """Set bits per element of a uint64 array with a byte lookup table (any numpy)."""
    import numpy as np

    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    bytes_view = np.ascontiguousarray(values).view(np.uint8)
    return table[bytes_view].reshape(*values.shape, 8).sum(axis=-1, dtype=np.uint8)


def close_pairs(hashes: Any, flips: Any, max_distance: int) -> list[tuple[int, int, int, bool]]:
    """All (i, j, distance, flipped) with i < j and pHash distance <= max_distance.

    The distance of a pair is the smallest of hash-vs-hash and hash-vs-flipped-hash in
    either direction; `flipped` says the smallest needed the flip (ties count as unflipped).
    """
    import numpy as np

    count = len(hashes)
    rows = max(1, _BLOCK_PAIRS // max(count, 1))
    found: list[tuple[int, int, int, bool]] = []
    for start in range(0, count, rows):
        stop = min(count, start + rows)
        # Columns from `start` on: each unordered pair is compared once, in its upper row.
        plain = popcount(hashes[start:stop, None] ^ hashes[None, start:])
        mirrored = np.minimum(popcount(hashes[start:stop, None] ^ flips[None, start:]),
                              popcount(flips[start:stop, None] ^ hashes[None, start:]))
        distance = np.minimum(plain, mirrored)
        distance[np.tril_indices(stop - start, 0, count - start)] = 255  # col <= row: done
        for row, col in zip(*np.nonzero(distance <= max_distance)):
            found.append((int(row + start), int(col + start), int(distance[row, col]),
                          bool(mirrored[row, col] < plain[row, col])))
    return sorted(found)


def clusters(size: int, edges: list[tuple[int, int]]) -> list[list[int]]:
    """Connected components (union–find) of nodes 0..size-1, each sorted, singletons included."""
    parent = list(range(size))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = defaultdict(list)
    for node in range(size):
        groups[root(node)].append(node)
    return sorted(groups.values())


def phash_pairs(ctx: AuditContext, radius: int) -> list[Pair]:
    """Near pairs among distinct pixel contents (one representative path per SHA-256)."""

    def compute() -> list[Pair]:
        index = ctx.images
        reps = [paths[0] for paths in index.by_sha.values()]
        found = close_pairs(index.phash[reps], index.phash_flip[reps], radius)
        return [Pair(reps[a], reps[b], dist, flip) for a, b, dist, flip in found]

    return ctx.memo(("phash_pairs", radius), compute)


def colour_distance(ctx: AuditContext, pair: Pair) -> int:
    """Largest per-channel pHash distance of a pair (b flipped when the pair matched flipped).

    Only candidate pairs get here, so their images are decoded a second time (once each,
    memoised) instead of hashing three more channels for every image.
    """

    def hashes(path_index: int, flip: bool) -> tuple[int, int, int]:
        def compute() -> tuple[int, int, int]:
            rel = ctx.images.paths[path_index]
            return channel_phashes(open_image(resolve_image(ctx.root, rel)), flip)

        return ctx.memo(("channel_phash", path_index, flip), compute)

    return channel_distance(hashes(pair.a, False), hashes(pair.b, pair.flipped))


def is_duplicate(ctx: AuditContext, pair: Pair, params: PhashParams) -> tuple[bool, int | None]:
    """(within `phash_duplicate` and confirmed by the colour channels, channel distance)."""
    if pair.distance > params.phash_duplicate:
        return False, None
    if params.phash_colour is None:
        return True, None
    colour = colour_distance(ctx, pair)
    return colour <= params.phash_colour, colour


def copies(index: ImageIndex, path_index: int) -> list[int]:
    """Indices of every path with the same pixels as `path_index` (itself included)."""
    return index.by_sha[index.sha256[path_index]]


def cluster_evidence(index: ImageIndex, members: list[int]) -> dict[str, Any]:
    """`cluster`, `cluster_size`, `cluster_items`, `cluster_item_count` of a set of paths."""
    paths = sorted(index.paths[i] for i in members)
    items = sorted({ident for path in paths for ident in index.users[path]})
    return {"cluster": paths[:MAX_LISTED], "cluster_size": len(paths),
            "cluster_items": items[:MAX_LISTED], "cluster_item_count": len(items)}


def _per_item(index: ImageIndex, by_path: dict[int, Finding]) -> Iterator[Finding]:
    """One finding per item: the worst of its flagged images (+ how many were flagged)."""
    per_item: dict[str, list[Finding]] = defaultdict(list)
    for path_index in sorted(by_path):
        for ident in index.users[index.paths[path_index]]:
            per_item[ident].append(by_path[path_index].model_copy(update={"id": ident}))
    for ident in sorted(per_item):
        found = per_item[ident]
        chosen = worst(found)
        if len(found) > 1:
            evidence = {**chosen.evidence, "images_flagged": len(found)}
            chosen = chosen.model_copy(update={"evidence": evidence})
        yield chosen


@check("redundancy.exact_duplicate_image", severity="warn")
def exact_duplicate_image(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """Different image files with identical decoded pixels (SHA-256 of the pixels)."""
    index = ctx.images
    by_path: dict[int, Finding] = {}
    for digest, members in index.by_sha.items():
        if len(members) < 2:
            continue
        evidence = cluster_evidence(index, members)
        for member in members:
            others = [index.paths[i] for i in members if i != member]
            by_path[member] = spec.finding(
                "-", f"image '{index.paths[member]}' has the same pixels as "
                f"{len(others)} other file(s), e.g. '{others[0]}'",
                {"image": index.paths[member], "sha256": digest, **evidence}, score=1.0)
    yield from _per_item(index, by_path)


@check("redundancy.near_duplicate_image", severity="warn", params=PhashParams)
def near_duplicate_image(ctx: AuditContext, params: PhashParams, spec: CheckSpec) -> Iterator[Finding]:
    """Near-identical images by 64-bit pHash, flip included (≤ duplicate: warn; ≤ review: info)."""
    index = ctx.images
    # A visual prompt's image is its source image with a mark drawn on it (deixis variants,
    # docs/AUTHORING.md): the same scene by design, not redundancy.
    source = {item.image: prompt["source_image"] for item in ctx.items
              if isinstance(item.image, str)
              and isinstance(prompt := (item.meta or {}).get("visual_prompt"), dict)}
    pairs = [pair for pair in phash_pairs(ctx, params.phash_review)
             if source.get(index.paths[pair.a], index.paths[pair.a])
             != source.get(index.paths[pair.b], index.paths[pair.b])]
    nearest: dict[int, Pair] = {}
    for pair in pairs:
        for node in (pair.a, pair.b):
            if node not in nearest or (pair.distance, pair.flipped) < (
                    nearest[node].distance, nearest[node].flipped):
                nearest[node] = pair
    nodes = sorted(nearest)
    position = {node: k for k, node in enumerate(nodes)}
    groups = clusters(len(nodes), [(position[p.a], position[p.b]) for p in pairs])
    by_path: dict[int, Finding] = {}
    for group in groups:
        members = sorted(i for k in group for i in copies(index, nodes[k]))
        evidence = cluster_evidence(index, members)
        for k in group:
            pair = nearest[nodes[k]]
            other = pair.b if pair.a == nodes[k] else pair.a
            duplicate, colour = is_duplicate(ctx, pair, params)
            extra = {} if colour is None else {"colour_distance": colour}
            why = ", colours differ" if colour is not None and not duplicate else ""
            for member in copies(index, nodes[k]):
                by_path[member] = spec.finding(
                    "-", f"image '{index.paths[member]}' is a near "
                    f"{'duplicate' if duplicate else 'match (review)'} of '{index.paths[other]}' "
                    f"(pHash distance {pair.distance}{', flipped' if pair.flipped else ''}{why})",
                    {"image": index.paths[member], "nearest": index.paths[other],
                     "distance": pair.distance, "flipped": pair.flipped, **extra,
                     "verdict": "duplicate" if duplicate else "review", **evidence},
                    severity="warn" if duplicate else "info", score=1.0 - pair.distance / 64)
    yield from _per_item(index, by_path)
