"""Image checks on planted Pillow images: exact and near duplicates, flips, and split leakage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import make_item

from bench_kit.audit import image_checks
from bench_kit.audit.image_checks import close_pairs, clusters, popcount, popcount_table
from bench_kit.audit.registry import AuditContext, spec_of
from bench_kit.audit.stage import list_checks
from bench_kit.types import Finding, Item

list_checks()


def blob(seed: int, size: tuple[int, int] = (96, 72)):
    """A smooth, asymmetric colour image (bilinear upscale of random 8x6 noise)."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)
    return Image.fromarray(small).resize(size, Image.Resampling.BILINEAR)


def write_planted_images(root: Path) -> None:
    """base; the same pixels in another file and format; brighter; mirrored; patched; others."""
    from PIL import Image, ImageDraw, ImageOps

    folder = root / "img"
    folder.mkdir(parents=True, exist_ok=True)
    base = blob(1)
    base.save(folder / "base.png")
    base.save(folder / "copy.bmp")                                    # pHash 0, same pixels
    Image.eval(base, lambda v: min(255, v + 12)).save(folder / "bright.png")  # pHash 0
    ImageOps.mirror(base).save(folder / "flip.png")                  # 0 against the flip hash
    patched = base.copy()
    ImageDraw.Draw(patched).rectangle([0, 0, 16, 16], fill=(255, 255, 255))
    patched.save(folder / "patch.png")                               # pHash 8: review band
    blob(2).save(folder / "other.png")
    blob(3).save(folder / "other2.png")


def planted_rows() -> list[dict[str, Any]]:
    """Items over the planted images (two items share base.png and two share other.png)."""
    def item(ident: str, image: str | None, question: str = "How many circles are there?",
             **extra: Any) -> dict[str, Any]:
        return make_item(id=ident, image=image, question=question, **extra)

    return [
        item("base_q1", "img/base.png", group="g1"),
        item("base_q2", "img/base.png", question="Is there a circle?", task="yesno",
             answers=["yes"], group="g1"),
        item("copy_q", "img/copy.bmp"),
        item("bright_q", "img/bright.png"),
        item("flip_q", "img/flip.png"),
        item("patch_q", "img/patch.png"),
        item("other_a", "img/other.png", question="What colour is the square?", task="open",
             answers=["red"], group="g2"),
        item("other_b", "img/other.png", question="Is there a square?", task="yesno",
             answers=["no"], group="g2"),
        item("other2_q", "img/other2.png"),
        item("text_q1", None, question="What is the capital of France?", task="open",
             answers=["Paris"]),
        item("text_q2", None, question="What is the capital of France ?", task="open",
             answers=["Paris"]),
        item("dup_q", None, question="Which planet is largest?", task="open",
             answers=["Jupiter"]),
    ]


def write_items(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


@pytest.fixture
def planted(tmp_path) -> AuditContext:
    write_planted_images(tmp_path)
    items = [Item.model_validate(r) for r in planted_rows()]
    return AuditContext(items=items, root=tmp_path, items_path=tmp_path / "items.jsonl")


def run(ctx: AuditContext, name: str, **params: Any) -> dict[str, Finding]:
    spec = spec_of(name)
    return {f.id: f for f in spec.run(ctx, spec.params(**params))}


def test_exact_duplicates_by_decoded_pixels(planted):
    found = run(planted, "redundancy.exact_duplicate_image")
    # base.png is used by two items (one group): both are reported with the copy's item.
    assert sorted(found) == ["base_q1", "base_q2", "copy_q"]
    evidence = found["copy_q"].evidence
    assert evidence["image"] == "img/copy.bmp"
    assert evidence["cluster"] == ["img/base.png", "img/copy.bmp"]
    assert evidence["cluster_items"] == ["base_q1", "base_q2", "copy_q"]


def test_items_sharing_one_image_are_not_duplicates(planted):
    for name in ("redundancy.exact_duplicate_image", "redundancy.near_duplicate_image"):
        found = run(planted, name)
        assert not {"other_a", "other_b", "other2_q", "text_q1"} & set(found)


def test_near_duplicates_bright_flipped_and_review(planted):
    found = run(planted, "redundancy.near_duplicate_image")
    assert sorted(found) == ["base_q1", "base_q2", "bright_q", "copy_q", "flip_q", "patch_q"]
    assert found["bright_q"].severity == "warn" and found["bright_q"].evidence["distance"] <= 6
    assert found["flip_q"].severity == "warn" and found["flip_q"].evidence["flipped"] is True
    patch = found["patch_q"]
    assert patch.severity == "info" and patch.evidence["verdict"] == "review"
    assert 6 < patch.evidence["distance"] <= 12
    assert set(patch.evidence["cluster"]) == {"img/base.png", "img/copy.bmp", "img/bright.png",
                                              "img/flip.png", "img/patch.png"}


def test_near_duplicate_thresholds_come_from_params(planted):
    found = run(planted, "redundancy.near_duplicate_image", phash_duplicate=2, phash_review=4)
    assert "patch_q" not in found and found["bright_q"].severity == "warn"


def test_each_image_is_decoded_once(planted, monkeypatch):
    from bench_kit.audit import registry as base

    calls: list[Any] = []
    original = base.open_image
    monkeypatch.setattr(base, "open_image", lambda p: calls.append(p) or original(p))
    checked: list[Any] = []
    monkeypatch.setattr(image_checks, "open_image", lambda p: checked.append(p) or original(p))
    run(planted, "redundancy.exact_duplicate_image")
    run(planted, "redundancy.near_duplicate_image")
    assert len(calls) == 7  # seven distinct files, though ten items use images
    # The colour check decodes only the images of candidate pairs again, once each.
    assert sorted(p.name for p in checked) == ["base.png", "bright.png", "flip.png"]


def test_an_item_with_several_flagged_images_gets_one_finding(tmp_path):
    write_planted_images(tmp_path)
    row = make_item(id="pair", image=["img/base.png", "img/copy.bmp"])
    ctx = AuditContext(items=[Item.model_validate(row)], root=tmp_path)
    [finding] = run(ctx, "redundancy.exact_duplicate_image").values()
    assert finding.id == "pair" and finding.evidence["images_flagged"] == 2


def test_undecodable_image_is_reported_not_fatal(tmp_path):
    row = make_item(id="lost", image="img/none.png")
    ctx = AuditContext(items=[Item.model_validate(row)], root=tmp_path,
                       items_path=tmp_path / "items.jsonl", item_lines={"lost": 3})
    assert run(ctx, "redundancy.exact_duplicate_image") == {}
    assert ctx.image_problems["lost"][0][0] == "img/none.png"
    finding = run(ctx, "schema.image")["lost"]
    assert finding.evidence["line"] == 3
    assert "not found" in finding.message


def brute_force(hashes: list[int], flips: list[int], radius: int) -> list[tuple]:
    out = []
    for i in range(len(hashes)):
        for j in range(i + 1, len(hashes)):
            options = [(bin(hashes[i] ^ hashes[j]).count("1"), False),
                       (bin(hashes[i] ^ flips[j]).count("1"), True),
                       (bin(flips[i] ^ hashes[j]).count("1"), True)]
            dist, flip = min(options)
            if dist <= radius:
                out.append((i, j, dist, flip))
    return out


@pytest.mark.parametrize("block", [1 << 22, 7])
def test_vectorised_search_matches_brute_force(monkeypatch, block):
    monkeypatch.setattr(image_checks, "_BLOCK_PAIRS", block)
    rng = np.random.default_rng(0)
    hashes = [int(v) for v in rng.integers(0, 2**63, 60, dtype=np.int64)]
    flips = [int(v) for v in rng.integers(0, 2**63, 60, dtype=np.int64)]
    for k in range(0, 20, 2):  # plant near pairs, some only through the flip hash
        noise = (1 << (k % 13)) | (1 << 40)
        if k % 4:
            hashes[k + 1] = hashes[k] ^ noise
        else:
            flips[k + 1] = hashes[k] ^ noise
    hashes[59] = 2**64 - 1  # the top bit set: uint64, not int64
    expected = brute_force(hashes, flips, 12)
    got = close_pairs(np.array(hashes, dtype=np.uint64), np.array(flips, dtype=np.uint64), 12)
    assert got == expected and len(expected) >= 10


def test_same_layout_in_other_colours_is_review_not_duplicate(tmp_path):
    from PIL import Image, ImageDraw

    # Both bar colours are darker than the background in gray; red is lighter in R.
    for name, colour in (("red.png", (240, 30, 30)), ("blue.png", (30, 30, 230))):
        img = Image.new("RGB", (120, 90), (200, 200, 200))
        ImageDraw.Draw(img).rectangle([20, 30, 50, 85], fill=colour)
        ImageDraw.Draw(img).rectangle([70, 10, 100, 85], fill=colour)
        img.save(tmp_path / name)
    rows = [make_item(id="red", image="red.png"), make_item(id="blue", image="blue.png")]
    ctx = AuditContext(items=[Item.model_validate(r) for r in rows], root=tmp_path)
    found = run(ctx, "redundancy.near_duplicate_image")
    assert found["red"].evidence["distance"] <= 6  # grayscale pHash alone: a duplicate
    assert found["red"].severity == "info" and found["red"].evidence["verdict"] == "review"
    assert found["red"].evidence["colour_distance"] > 16
    ctx = AuditContext(items=[Item.model_validate(r) for r in rows], root=tmp_path)
    assert run(ctx, "redundancy.near_duplicate_image", phash_colour=None)["red"].severity == "warn"


def test_popcount_table_agrees_with_bit_counting():
    values = np.array([0, 1, 2**64 - 1, 0x0F0F, 2**63], dtype=np.uint64)
    assert popcount_table(values).tolist() == [0, 1, 64, 8, 1]
    assert popcount(values).tolist() == [0, 1, 64, 8, 1]


def test_union_find_clusters():
    assert clusters(6, [(0, 2), (2, 4), (5, 1)]) == [[0, 2, 4], [1, 5], [3]]


def test_cross_split_leakage(planted):
    planted.splits = {
        "dev": ["base_q1", "bright_q", "other_a", "text_q1", "dup_q"],
        "test": ["copy_q", "flip_q", "other_b", "text_q2", "patch_q", "other2_q", "dup_q",
                 "not_audited"],
    }
    found = run(planted, "leakage.cross_split")
    assert sorted(found) == ["base_q1", "bright_q", "copy_q", "dup_q", "flip_q",
                             "other_a", "other_b", "text_q1", "text_q2"]
    assert found["dup_q"].evidence["kinds"] == ["same_id"] and found["dup_q"].severity == "error"
    copy = found["copy_q"]
    assert copy.severity == "error" and "image" in copy.evidence["kinds"]
    assert copy.evidence["image"]["other_splits"] == ["dev"]
    assert "base_q1" in copy.evidence["image"]["other_items"]
    # one image file used in both splits: a group cut by the split
    assert found["other_b"].evidence["image"]["other_items"] == ["other_a"]
    # same text-only question (after normalisation): warn; the same question asked about
    # another image is a template sibling, not leakage (nothing reported)
    assert found["text_q2"].severity == "warn"
    assert found["text_q2"].evidence["question"]["other_items"] == ["text_q1"]
    # patch.png is only a review-level match (distance 8 > phash_duplicate): no image leak

