"""Image downscaling/recompression to a model's limits, and its record in predictions."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
import yaml
from conftest import make_item, without_cached, write_png
from openai_server import FakeOpenAI

from bench_kit.eval.inputs import blank_info, plan_prep, prepare_image, probe_image
from bench_kit.eval.runner import RunSpec, run_eval
from bench_kit.io import read_jsonl, write_jsonl
from bench_kit.models.imageprep import ImagePrep, transform


def _noisy_png(path: Path, size: tuple[int, int]) -> Path:
    """A PNG that compresses badly (random pixels), so byte limits bite."""
    from PIL import Image

    rng = random.Random(1)
    img = Image.frombytes("RGB", size, bytes(rng.randrange(256) for _ in range(size[0] *
                                                                             size[1] * 3)))
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)
    return path


@pytest.mark.parametrize(("limit", "size", "expected"), [
    (100, (400, 200), (100, 50)), (100, (200, 400), (50, 100)), (100, (80, 60), (80, 60)),
    (None, (4000, 3000), (4000, 3000)), (16, (1000, 10), (16, 1)),
])
def test_target_size_keeps_the_aspect(limit, size, expected) -> None:
    assert ImagePrep(max_side=limit).target_size(*size) == expected


def test_an_image_within_limits_is_sent_as_is_without_decoding(tmp_path) -> None:
    info = probe_image(write_png(tmp_path / "a.png", size=(64, 48)))
    planned = plan_prep(info, ImagePrep(max_side=64, max_bytes=10_000))
    assert planned.prep == ""
    image, record = prepare_image(planned, ImagePrep(max_side=64, max_bytes=10_000))
    assert record is None and image.data == (tmp_path / "a.png").read_bytes()


def test_a_large_image_is_downscaled_in_its_own_format(tmp_path) -> None:
    from PIL import Image

    prep = ImagePrep(max_side=32)
    info = plan_prep(probe_image(write_png(tmp_path / "a.png", size=(64, 48))), prep)
    assert info.prep == "imageprep/1 side<=32"
    image, record = prepare_image(info, prep)
    assert (image.width, image.height, image.mime) == (32, 24, "image/png")
    assert Image.open(io.BytesIO(image.data)).size == (32, 24)
    assert record["original"] == {"width": 64, "height": 48, "mime": "image/png",
                                  "bytes": info.size_bytes}
    assert record["sent"] == {"width": 32, "height": 24, "mime": "image/png",
                              "bytes": len(image.data)}
    assert image.sha256 != info.sha256


def test_a_heavy_image_becomes_a_jpeg_under_the_byte_limit(tmp_path) -> None:
    path = _noisy_png(tmp_path / "n.png", (200, 150))
    prep = ImagePrep(max_bytes=8_000)
    info = plan_prep(probe_image(path), prep)
    assert info.size_bytes > 8_000 and info.prep == "imageprep/1 bytes<=8000"
    image, record = prepare_image(info, prep)
    assert image.mime == "image/jpeg" and len(image.data) <= 8_000
    assert record["sent"]["bytes"] == len(image.data)
    # Deterministic: the same input gives the same bytes.
    assert prepare_image(info, prep)[0].data == image.data


def test_transparent_pixels_are_flattened_on_white_for_jpeg() -> None:
    from PIL import Image

    buffer = io.BytesIO()
    rng = random.Random(2)
    noisy = Image.frombytes("RGB", (64, 64), bytes(rng.randrange(256) for _ in range(64 * 64 * 3)))
    rgba = noisy.convert("RGBA")
    rgba.putalpha(0)
    rgba.save(buffer, format="PNG")
    data, mime, *_ = transform(buffer.getvalue(), "image/png", ImagePrep(max_bytes=2_000))
    assert mime == "image/jpeg"
    assert Image.open(io.BytesIO(data)).getpixel((10, 10)) >= (250, 250, 250)


def test_a_blank_is_drawn_at_the_target_size() -> None:
    prep = ImagePrep(max_side=50)
    image, record = prepare_image(plan_prep(blank_info(200, 100), prep), prep)
    assert (image.width, image.height) == (50, 25) and record["sent"]["width"] == 50


def test_runner_sends_the_small_image_records_it_and_keys_the_cache(tmp_path) -> None:
    write_png(tmp_path / "bench" / "img" / "a.png", size=(64, 48))
    items = tmp_path / "bench" / "items.jsonl"
    write_jsonl(items, [make_item(id="q1", image="img/a.png", task="yesno", answers=["no"],
                                  question="Is it red?")])
    params = tmp_path / "params.yaml"

    def run(**limits):
        with FakeOpenAI() as server:
            params.write_text(yaml.safe_dump({"eval": {
                "cache": str(tmp_path / "c.sqlite"), "models": {"vlm": {
                    "adapter": "openai", "model": "m", "base_url": server.url, **limits}}}}))
            summary = run_eval(RunSpec(model="vlm", items=items, params=params,
                                       out=tmp_path / "out.jsonl"))
            return summary, server.images(0) if server.count() else None

    summary, images = run(max_side=32)
    (_, sent), = images
    assert sent.size == (32, 24) and summary.called == 1
    protocol = read_jsonl(tmp_path / "out.jsonl")[0]["protocol"]
    (record,) = protocol["image_prep"]
    assert (record["original"]["width"], record["sent"]["width"]) == (64, 32)
    assert protocol["images"][0]["prep"] == "imageprep/1 side<=32"
    first = without_cached(tmp_path / "out.jsonl")
    summary, _ = run(max_side=32)
    assert summary.from_cache == 1 and without_cached(tmp_path / "out.jsonl") == first
    summary, images = run(max_side=16)  # another limit is another request
    assert summary.called == 1 and images[0][1].size == (16, 12)
    summary, images = run()  # no limit: the original, a fresh key
    assert summary.called == 1 and images[0][1].size == (64, 48)
    summary, _ = run(max_side=1024)  # a limit the image is within: the same key as none
    assert summary.from_cache == 1
