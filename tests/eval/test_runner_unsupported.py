"""Items a model cannot take (`max_images`, `supports_images`) are written as `unsupported:`
predictions without a call, and scoring counts them apart from errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item, without_cached, write_png
from openai_server import ANSWER, FakeOpenAI

from bench_kit.artifacts.predictions import is_unsupported
from bench_kit.cli import cli
from bench_kit.errors import ConfigError
from bench_kit.eval.runner import RunSpec, run_eval
from bench_kit.io import read_json, read_jsonl, write_jsonl


@pytest.fixture
def server():
    with FakeOpenAI() as running:
        yield running


def _item(id: str, images: list[str] | None) -> dict[str, Any]:
    image = images[0] if images and len(images) == 1 else images
    return make_item(id=id, image=image, question=f"Which colour is patch {id}?", task="mc",
                     choices={"A": "red", "B": "blue"}, answers=["A"])


ROWS = [_item("one", ["img/a.png"]), _item("three", ["img/a.png", "img/b.png", "img/c.png"]),
        _item("none", None)]


def _bench(tmp_path: Path, url: str, **model: Any) -> tuple[Path, Path]:
    root = tmp_path / "bench"
    for name, size in (("a", (64, 48)), ("b", (40, 30)), ("c", (20, 20))):
        write_png(root / "img" / f"{name}.png", size=size)
    write_jsonl(root / "items.jsonl", ROWS)
    settings = {"adapter": "openai", "model": "vlm-test", "base_url": url, "backoff_s": 0.0,
                "max_retries": 0, **model}
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"bench": "t", "eval": {
        "cache": str(tmp_path / "calls.sqlite"), "models": {"vlm": settings}}}))
    return root / "items.jsonl", params


def _run(tmp_path: Path, items: Path, params: Path, mode: str = "image"):
    out = tmp_path / "results" / "vlm" / f"{mode}.jsonl"
    summary = run_eval(RunSpec(model="vlm", mode=mode, items=items, params=params, out=out))
    return summary, {p["id"]: p for p in read_jsonl(out)}, out


@pytest.mark.parametrize(("settings", "mode", "unsupported", "reasons"), [
    ({"max_images": 1}, "image", ["three"], ["unsupported: 3 images, model takes at most 1"]),
    ({"max_images": 3}, "image", [], []),
    ({"max_images": 1}, "blank_image", ["three"],
     ["unsupported: 3 images, model takes at most 1"]),
    ({"supports_images": False}, "image", ["one", "three"],
     ["unsupported: 1 image, model takes none (supports_images: false)",
      "unsupported: 3 images, model takes none (supports_images: false)"]),
    ({"supports_images": False, "max_images": 1}, "no_image", [], []),  # nothing is sent
    ({"max_images": 1}, "no_image", [], []),
])
def test_items_the_model_cannot_take_are_never_sent(server, tmp_path, settings, mode,
                                                    unsupported, reasons) -> None:
    items, params = _bench(tmp_path, server.url, **settings)
    summary, preds, out = _run(tmp_path, items, params, mode)
    assert list(preds) == ["one", "three", "none"]  # item order is kept
    asked = [i for i in preds if i not in unsupported]
    assert server.count() == len(asked)
    assert (summary.called, summary.unsupported, summary.errors) == \
        (len(asked), len(unsupported), 0)
    assert f"0 errors, {len(unsupported)} unsupported -> {out}" in summary.log_line()
    assert [preds[i]["error"] for i in unsupported] == reasons
    for ident in unsupported:
        assert preds[ident]["response"] is None and preds[ident]["cached"] is False
        assert is_unsupported(preds[ident]["error"])
    assert all(preds[i]["response"] == ANSWER for i in asked)


def test_an_unsupported_item_is_not_cached_and_the_rerun_is_identical(server,
                                                                      tmp_path) -> None:
    items, params = _bench(tmp_path, server.url, max_images=1)
    _, preds, out = _run(tmp_path, items, params)
    first = without_cached(out)
    summary, _, _ = _run(tmp_path, items, params)
    assert (summary.from_cache, summary.called, summary.unsupported) == (2, 0, 1)
    assert summary.from_cache + summary.called + summary.unsupported == summary.total
    assert without_cached(out) == first and server.count() == 2
    # the protocol names what would have been sent, in order
    files = [image["file"] for image in preds["three"]["protocol"]["images"]]
    assert files == ["img/a.png", "img/b.png", "img/c.png"]
    # lifting the limit calls the item: nothing stale was stored for it
    params.write_text(params.read_text().replace("max_images: 1", "max_images: 3"))
    summary, preds, _ = _run(tmp_path, items, params)
    assert (summary.from_cache, summary.called, summary.unsupported) == (2, 1, 0)
    assert preds["three"]["response"] == ANSWER and server.count() == 3


def test_eval_score_counts_unsupported_apart_from_errors_and_n(server, tmp_path) -> None:
    items, params = _bench(tmp_path, server.url, max_images=1)
    _, _, out = _run(tmp_path, items, params)
    metrics = tmp_path / "metrics.json"
    result = CliRunner().invoke(cli, [
        "eval", "score", "--items", str(items), "--model", "vlm", "--results",
        str(out.parent), "--out", str(tmp_path / "scores"), "--metrics", str(metrics),
        "--plots", str(tmp_path / "plots.json"), "--params", str(params)])
    assert result.exit_code == 0, result.output
    image = read_json(metrics)["image"]
    assert (image["n"], image["errors"], image["unsupported"]) == (2, 0, 1)
    assert "0 errors, 1 unsupported" in result.output


@pytest.mark.parametrize(("settings", "message"), [
    ({"max_images": 0}, r"eval\.models\.vlm\.max_images: Input should be greater"),
    ({"max_image": 1}, r"eval\.models\.vlm\.max_image: unknown key; did you mean "
                       r"'max_images'\?"),
    ({"supports_images": "sometimes"}, r"eval\.models\.vlm\.supports_images: Input should "
                                       r"be a valid boolean"),
])
def test_bad_image_limits_stop_before_any_call(server, tmp_path, settings, message) -> None:
    items, params = _bench(tmp_path, server.url, **settings)
    with pytest.raises(ConfigError, match=message):
        _run(tmp_path, items, params)
    assert server.count() == 0
