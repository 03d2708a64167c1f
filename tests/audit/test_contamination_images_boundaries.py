"""Item images against reference image folders (bench_kit/audit/contamination_images.py) on
their edges, with a few small synthetic images: the pHash distance of a pair is measured with
bench_kit.audit.registry's hash functions (not the module under test), then each threshold
is set exactly on it (inclusive) and one below it. The end-to-end audit is in
test_contamination.py (test_reference_images_exact_flipped_and_cached)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import make_item
from PIL import ImageDraw, ImageOps
from test_audit_images import blob

from bench_kit.audit import contamination_images as ci
from bench_kit.audit.registry import (
    AuditContext,
    channel_distance,
    channel_phashes,
    image_hashes,
    pixel_sha256,
    spec_of,
)
from bench_kit.audit.stage import list_checks
from bench_kit.errors import InputError
from bench_kit.types import Item

list_checks()  # registers the built-in checks


def _patched():
    """blob(21) with a white 5x5 square: pHash distance 6, channel distance 4 (measured
    below with the registry's hashes)."""
    img = blob(21)
    ImageDraw.Draw(img).rectangle([10, 10, 14, 14], fill=(255, 255, 255))
    return img


def _distance(a, b) -> int:
    _, p, pf = image_hashes(a)
    _, q, qf = image_hashes(b)
    return min(bin(p ^ q).count("1"), bin(p ^ qf).count("1"), bin(pf ^ q).count("1"))


@pytest.fixture
def scene(tmp_path) -> Path:
    """Items: `copied` (same pixels as two reference files), `near` (the patched copy),
    `mirrored` (a reference holds its mirror), `fresh` (nothing like it)."""
    (tmp_path / "img").mkdir()
    refs = tmp_path / "refs"
    (refs / "sub").mkdir(parents=True)
    blob(11).save(tmp_path / "img" / "copied.png")
    blob(11).save(refs / "a_copy.png")
    blob(11).save(refs / "b_copy.bmp")               # the same pixels again: a is named
    blob(21).save(tmp_path / "img" / "near.png")
    _patched().save(refs / "sub" / "near.PNG")       # an upper-case suffix is an image too
    blob(12).save(tmp_path / "img" / "mirrored.png")
    ImageOps.mirror(blob(12)).save(refs / "mirror.jpeg", quality=95)
    blob(13).save(tmp_path / "img" / "fresh.png")
    (refs / "notes.txt").write_text("not an image")
    return tmp_path


def _items():
    return [make_item(id="copied", image="img/copied.png"),
            make_item(id="near", image="img/near.png"),
            make_item(id="mirrored", image="img/mirrored.png"),
            make_item(id="fresh", image="img/fresh.png")]


def _run(root: Path, cache_dir=None, **params):
    ctx = AuditContext(items=[Item.model_validate(r) for r in _items()], root=root,
                       reference_images=[root / "refs"])
    spec = spec_of("contamination.image")
    return {f.id: f for f in spec.run(ctx, spec.params(contamination={"cache_dir": cache_dir},
                                                       **params))}


def test_the_patched_pair_is_6_apart():
    assert _distance(blob(21), _patched()) == 6
    assert channel_distance(channel_phashes(blob(21)), channel_phashes(_patched())) == 4


def test_reference_files_sorted_with_labels(scene):
    files = ci.reference_files([scene / "refs"])
    assert [label for _, label in files] == ["refs/a_copy.png", "refs/b_copy.bmp",
                                             "refs/mirror.jpeg", "refs/sub/near.PNG"]
    assert files[0][0] == scene / "refs" / "a_copy.png"
    with pytest.raises(InputError) as caught:
        ci.reference_files([scene / "refs", scene / "missing"])
    assert caught.value.path == str(scene / "missing")
    assert caught.value.reason == "reference image folder not found"


def test_same_pixels_name_the_first_reference_file(scene):
    found = _run(scene)
    copied = found["copied"]
    assert copied.evidence["reference_image"] == "refs/a_copy.png"
    assert copied.evidence["verdict"] == "same pixels" and copied.evidence["distance"] == 0
    assert copied.severity == "warn" and copied.score == 1.0
    assert copied.message == ("image 'img/copied.png' matches reference image 'refs/a_copy.png' "
                              "(same pixels, pHash distance 0)")
    assert "fresh" not in found
    mirrored = found["mirrored"]
    assert mirrored.evidence["flipped"] is True and mirrored.evidence["verdict"] == "duplicate"
    assert mirrored.message.endswith(", flipped)")
    assert copied.evidence["flipped"] is False


def test_duplicate_and_review_thresholds_are_inclusive(scene):
    # distance 6: duplicate at phash_duplicate 6 (colour check off), review at 5, nothing
    # when phash_review is 5
    near = _run(scene, phash_duplicate=6, phash_review=6, phash_colour=None)["near"]
    assert near.evidence["verdict"] == "duplicate" and near.severity == "warn"
    assert near.evidence["distance"] == 6 and near.evidence["reference_image"] == \
        "refs/sub/near.PNG"
    assert near.evidence["image"] == "img/near.png"
    # 1 - 6/64 = 0.90625, rounded to 4 places (half to even)
    assert near.score == 0.9062 and near.evidence["score"] == 0.9062
    assert "colour_distance" not in near.evidence
    review = _run(scene, phash_duplicate=5, phash_review=6, phash_colour=None)["near"]
    assert review.evidence["verdict"] == "review" and review.severity == "info"
    assert "near" not in _run(scene, phash_duplicate=5, phash_review=5, phash_colour=None)


def test_colour_check_is_inclusive(scene):
    # channel distance 4: within phash_colour 4 a duplicate, above 3 sent to review
    kept = _run(scene, phash_duplicate=6, phash_review=6, phash_colour=4)["near"]
    assert kept.evidence["colour_distance"] == 4 and kept.evidence["verdict"] == "duplicate"
    moved = _run(scene, phash_duplicate=6, phash_review=6, phash_colour=3)["near"]
    assert moved.evidence["verdict"] == "review (colours differ)" and moved.severity == "info"
    assert moved.message == ("image 'img/near.png' matches reference image 'refs/sub/near.PNG' "
                             "(review (colours differ), pHash distance 6)")


def test_the_check_caches_the_reference_hashes(scene):
    cache = scene / "cache"
    first = _run(scene, cache_dir=str(cache))
    assert len(list(cache.glob("refimg-*.npy"))) == 1
    assert {k: f.evidence for k, f in _run(scene, cache_dir=str(cache)).items()} == {
        k: f.evidence for k, f in first.items()}


def test_hashes_are_cached_under_the_files_contents(scene, monkeypatch):
    opened = []
    real = ci.open_image
    monkeypatch.setattr(ci, "open_image", lambda path: opened.append(path.name) or real(path))
    seen = []
    ctx = AuditContext(items=[], root=scene, reference_images=[scene / "refs"],
                       progress=lambda *a: seen.append(a))
    files, rows = ci.reference_image_hashes(ctx, str(scene / "cache"))
    assert opened == ["a_copy.png", "b_copy.bmp", "mirror.jpeg", "near.PNG"]
    assert seen == [("hashing reference images", 4, 4)]      # at the last file
    # columns: pHash, flipped pHash, the pixel SHA-256 as four big-endian words
    from bench_kit.io import open_image

    sha, phash, flip = image_hashes(open_image(files[3][0]))
    assert rows[3, :2].tolist() == [phash, flip]
    assert b"".join(int(w).to_bytes(8, "big") for w in rows[3, 2:]).hex() == sha
    assert sha == pixel_sha256(open_image(files[3][0]))
    opened.clear()
    again = ci.reference_image_hashes(ctx, str(scene / "cache"))[1]
    assert opened == [] and np.array_equal(again, rows)
    # another file content: hashed again
    blob(14).save(scene / "refs" / "b_copy.bmp")
    ci.reference_image_hashes(ctx, str(scene / "cache"))
    assert len(opened) == 4


def test_an_undecodable_reference_image_names_its_file(scene):
    (scene / "refs" / "broken.png").write_bytes(b"not an image")
    ctx = AuditContext(items=[], root=scene, reference_images=[scene / "refs"])
    with pytest.raises(InputError, match="cannot be decoded") as caught:
        ci.reference_image_hashes(ctx, None)
    assert caught.value.path == str(scene / "refs" / "broken.png")


def test_nothing_to_compare(tmp_path):
    (tmp_path / "refs").mkdir()
    (tmp_path / "img").mkdir()
    blob(11).save(tmp_path / "img" / "copied.png")
    assert _run(tmp_path) == {}                      # no reference image


def test_nearest_by_hand(monkeypatch):
    u = np.uint64
    hashes = np.array([0b1111, 0b0000], dtype=np.uint64)
    flips = np.array([0b0001, 0b1000], dtype=np.uint64)
    # rows: (pHash, flipped pHash); the rest unused
    ref = np.zeros((4, 6), dtype=np.uint64)
    ref[0, :2] = (u(0b0111), u(0b0111_0000))    # query 0: plain 1
    ref[1, :2] = (u(0b1110), u(0b1111))         # query 0: plain 1, mirrored 0 (its flip)
    ref[2, :2] = (u(0b1000), u(0b0100))         # query 1: plain 1, mirrored 0 (query's flip)
    ref[3, :2] = (u(0b0001), u(0b0010))         # query 1: plain 1
    monkeypatch.setattr(ci, "_TILE", 2)         # one reference row per step
    best, where, flipped = ci.nearest(hashes, flips, ref)
    assert best.tolist() == [0, 0] and where.tolist() == [1, 2]
    assert flipped.tolist() == [True, True]
    # ties keep the first row; a plain match is not "flipped" when the mirror ties
    plain = np.zeros((2, 6), dtype=np.uint64)
    plain[0, :2] = (u(0b1111), u(0b1111))
    plain[1, :2] = (u(0b1111), u(0b1111))
    best, where, flipped = ci.nearest(hashes[:1], flips[:1], plain)
    assert (best[0], where[0], flipped[0]) == (0, 0, False)
    # no reference rows: distance 255 (more than any pHash distance)
    assert ci.nearest(hashes, flips, np.zeros((0, 6), dtype=np.uint64))[0].tolist() == [255, 255]
