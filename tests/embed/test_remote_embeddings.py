"""The `openai` embedding backend against real local embedding servers: same findings as
the local backend on the same vectors, one replica dying mid-run loses nothing, the vector
cache and the request budget hold, the key stays in a header."""

from __future__ import annotations

import numpy as np
import pytest
from embedding_server import FakeEmbeddings
from test_contamination import (  # noqa: F401 (bench fixture)
    bench,  # noqa: F401
    by_pair,
    run_audit,
    write_params,
)

from bench_kit.embed import EmbedSettings, encode, get_embedder
from bench_kit.embed.remote import OpenAIEmbedder
from bench_kit.errors import ConfigError, ModelCallError, StorageError
from bench_kit.items import read_items

TEXTS = ["Which planet is known as the red planet?", "How many red circles are there?",
         "图中有几个绿色的三角形？", "What does the sign above the door say?",
         "Which gas do plants absorb from the air?"]


def _settings(urls, tmp_path, **extra) -> EmbedSettings:
    settings = {"backend": "openai", "model": "fake-minilm", "base_url": urls, "batch_size": 2,
                "concurrency": 2, "backoff_s": 0.0, "max_retries": 3,
                "cache": str(tmp_path / "vectors.sqlite")}
    return EmbedSettings(**{**settings, **extra})


def test_remote_vectors_equal_the_local_model_and_are_cached(tmp_path) -> None:
    with FakeEmbeddings() as server:
        embedder = OpenAIEmbedder(_settings(server.url, tmp_path))
        vectors = embedder.encode(TEXTS + TEXTS[:2])  # repeated texts are sent once
        assert server.answered == 3 and sorted(server.inputs) == sorted(TEXTS)
        np.testing.assert_allclose(vectors[:5], encode(TEXTS), atol=1e-5)
        np.testing.assert_allclose(vectors[5:], vectors[:2])
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        again = OpenAIEmbedder(_settings(server.url, tmp_path))  # a new process, same cache
        np.testing.assert_array_equal(again.encode(TEXTS), vectors[:5])
        assert server.answered == 3


def test_a_replica_dying_mid_run_loses_nothing(tmp_path) -> None:
    texts = [f"question number {n} about shapes" for n in range(24)]
    with FakeEmbeddings(fail_after=2) as dying, FakeEmbeddings() as healthy:
        vectors = OpenAIEmbedder(_settings([dying.url, healthy.url], tmp_path)).encode(texts)
        assert dying.answered == 2 and dying.refused >= 1
        assert dying.answered + healthy.answered == 12  # every batch answered exactly once
        np.testing.assert_allclose(vectors, encode(texts), atol=1e-5)


def test_the_budget_stops_requests_and_keeps_what_arrived(tmp_path) -> None:
    with FakeEmbeddings() as server:
        limited = OpenAIEmbedder(_settings(server.url, tmp_path, max_requests=1,
                                           concurrency=1))
        with pytest.raises(ModelCallError, match=r"max_requests 1 reached"):
            limited.encode(TEXTS)
        assert server.answered == 1
        OpenAIEmbedder(_settings(server.url, tmp_path)).encode(TEXTS)
        assert server.answered == 3  # the first batch came from the cache


def test_a_full_disk_stops_the_run_and_is_the_error_told(tmp_path) -> None:
    # batch 0 fails HTTP 500, batch 1 cannot be stored (SQLite's own "database or disk is
    # full"): the user must hear of the disk, not only of the 500, and the 28 batches
    # after must not be requested only to throw their vectors away
    texts = ["[http-500] a batch the server fails"] + [f"question {n}" for n in range(29)]
    with FakeEmbeddings() as server:
        embedder = OpenAIEmbedder(_settings(server.url, tmp_path, batch_size=1, concurrency=1,
                                            max_retries=0))
        db = embedder.cache._db
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        with pytest.raises(StorageError, match=r"vectors\.sqlite: vector cache: storing "
                                               r"vectors failed \(database or disk is full\)"):
            embedder.encode(texts)
        assert server.failed == 1
        # the run stopped at the first batch not stored (a row or two still fit the
        # file's last page), not after requesting all 29
        assert server.answered <= 4


def test_a_failed_batch_leaves_the_others_cached(tmp_path) -> None:
    texts = ["[http-500] a batch the server fails", *TEXTS]
    with FakeEmbeddings() as server:
        embedder = OpenAIEmbedder(_settings(server.url, tmp_path, batch_size=1,
                                            max_retries=0))
        with pytest.raises(ModelCallError, match=r"1 of 6 batches failed; first: .*500"):
            embedder.encode(texts)
        assert server.failed == 1 and server.answered == 5
        assert sorted(embedder.cache.get_many(embedder.name, TEXTS)) == sorted(TEXTS)


def test_the_key_goes_in_a_header_only(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BK_EMBED_KEY", "sk-embed-secret")
    with FakeEmbeddings() as server:
        OpenAIEmbedder(_settings(server.url, tmp_path, api_key_env="BK_EMBED_KEY")).encode(
            TEXTS[:1])
        assert server.auth == ["Bearer sk-embed-secret"]
    assert b"sk-embed-secret" not in (tmp_path / "vectors.sqlite").read_bytes()


def test_missing_settings_are_config_errors(tmp_path) -> None:
    with pytest.raises(ConfigError, match=r"embed\.base_url: required for backend 'openai'"):
        get_embedder(EmbedSettings(backend="openai", model="m", cache=None))
    with pytest.raises(ConfigError, match=r"embed\.model: required"):
        get_embedder(EmbedSettings(backend="openai", base_url="http://127.0.0.1:1/v1"))


@pytest.mark.slow
def test_audit_with_embedding_servers_matches_the_local_backend(bench) -> None:  # noqa: F811
    local = by_pair(run_audit(bench, "--reference", str(bench / "ref.jsonl"), out="local"))
    with FakeEmbeddings(fail_after=1) as dying, FakeEmbeddings() as healthy:
        write_params(bench / "params.yaml", bench / "cache-remote",
                     f"embed:\n  backend: openai\n  model: fake-minilm\n  batch_size: 2\n"
                     f"  backoff_s: 0\n  cache: {bench / 'vectors.sqlite'}\n"
                     f"  base_url: [{dying.url}, {healthy.url}]\n")
        remote = by_pair(run_audit(bench, "--reference", str(bench / "ref.jsonl"),
                                   out="remote"))
        assert dying.refused >= 1 and healthy.answered >= 1
    pick = {k: v for k, v in local.items() if k[1] == "contamination.embedding"}
    got = {k: v for k, v in remote.items() if k[1] == "contamination.embedding"}
    assert pick and sorted(pick) == sorted(got)
    for key, finding in pick.items():
        other = got[key]
        assert other["severity"] == finding["severity"]
        assert other["evidence"]["ref_id"] == finding["evidence"]["ref_id"]
        assert other["evidence"]["cosine"] == pytest.approx(finding["evidence"]["cosine"],
                                                            abs=2e-4)
        assert other["evidence"]["model"] == "openai:fake-minilm"
        assert finding["evidence"]["model"] == "all-MiniLM-L6-v2:torch"


@pytest.mark.slow
def test_the_variant_gate_embeds_with_the_configured_backend(tmp_path) -> None:
    import yaml
    from test_variants import _project, _variants

    project = _project(tmp_path, n_shapes=1)
    with FakeEmbeddings() as server:
        params = yaml.safe_load((project / "params.yaml").read_text(encoding="utf-8"))
        params["embed"] = {"backend": "openai", "model": "fake-minilm", "base_url": server.url,
                           "backoff_s": 0.0, "cache": str(tmp_path / "vectors.sqlite")}
        (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True),
                                             encoding="utf-8")
        result = _variants(project)
        assert result.exit_code == 0, result.stderr
        assert server.answered >= 1  # the gate's texts went to the embedding server
        v0 = read_items(project / "bench/items.v0.jsonl")
        assert {i.question for i in v0} <= set(server.inputs)
