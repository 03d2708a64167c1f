"""The Dask engine on partitioned references gives the local engine's answers: byte-identical
exact, n-gram and MinHash findings on a LocalCluster with two workers; the partitioned build
is resumable and identical on either engine."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import make_item
from test_audit_images import write_items
from test_contamination import REFERENCE, item_rows

from bench_kit.audit.distributed.build import build_command
from bench_kit.audit.reference import FieldNames
from bench_kit.audit.stage import audit_data
from bench_kit.cli import cli

distributed = pytest.importorskip("distributed")

WORDS = ("apple river chart value blue red count circle triangle square mountain city flag "
         "poster water cloud ocean vapour process planet gas plant air light shadow number "
         "bar line year total left right top bottom").split()


def reference_rows(count: int = 1200) -> list[dict[str, Any]]:
    """Random questions around the planted rows, with a later copy of some (ties)."""
    rng = random.Random(7)
    rows = [{"id": f"syn{i}", "question": " ".join(rng.choice(WORDS) for _ in
                                                   range(rng.randint(5, 24))) + "?"}
            for i in range(count)]
    for offset, planted in enumerate(REFERENCE):
        rows.insert((count // 8) * (offset + 1), planted)
    rows.append({**REFERENCE[0], "id": "pub-exact-again"})  # same text, last partition
    rows.append({**REFERENCE[2], "id": "pub-flag-again"})
    return rows


def items(ref: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The planted items plus copies, near copies and extensions of random reference rows."""
    rng = random.Random(11)
    out = item_rows()
    for n, row in enumerate(rng.sample([r for r in ref if r["id"].startswith("syn")], 30)):
        words = row["question"].rstrip("?").split()
        kind = n % 3
        if kind == 1 and len(words) > 6:
            words[len(words) // 2] = "zebra"  # near copy
        elif kind == 2:
            words = ["please", "answer", *words, "now"]  # shares n-grams
        out.append(make_item(id=f"copy{n:02d}", question=" ".join(words) + "?"))
    return out


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None, silence_logs=40) as local:
        yield local


@pytest.fixture
def setup(tmp_path, cluster) -> Path:
    ref = reference_rows()
    write_items(tmp_path / "public.jsonl", ref)
    write_items(tmp_path / "bench" / "items.jsonl", items(ref))
    off = "  disabled: [contamination.embedding]\n"
    (tmp_path / "local.yaml").write_text(
        f"audit:\n{off}  contamination:\n    cache_dir: {tmp_path / 'cache'}\n")
    (tmp_path / "dask.yaml").write_text(
        f"audit:\n{off}  engine: dask\n  cluster: {cluster.scheduler_address}\n"
        f"  contamination:\n    cache_dir: {tmp_path / 'cache'}\n")
    return tmp_path


def run(tmp: Path, params: str, reference: Path | str, out: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["audit", "data", "--items", str(tmp / "bench/items.jsonl"),
                                      "--params", str(tmp / params), "--out", str(tmp / out),
                                      "--reference", str(reference)])
    assert result.exit_code == 0, result.output
    return json.loads((tmp / out / "summary.json").read_text())


def test_dask_engine_findings_equal_local_engine(setup):
    tmp = setup
    result = CliRunner().invoke(cli, ["audit", "reference", "build", "--out",
                                      str(tmp / "ref.jsonl"), str(tmp / "public.jsonl")])
    assert result.exit_code == 0, result.output
    report = build_command([str(tmp / "public.jsonl")], str(tmp / "parts"), FieldNames(),
                           params_path=str(tmp / "dask.yaml"), rows_per_partition=250)
    assert report.written == 5 and report.manifest["rows"] == 1208
    local = run(tmp, "local.yaml", tmp / "ref.jsonl", "local")
    dask = run(tmp, "dask.yaml", tmp / "parts", "dask")
    local_bytes = (tmp / "local" / "findings.jsonl").read_bytes()
    assert local_bytes == (tmp / "dask" / "findings.jsonl").read_bytes()
    found = {json.loads(line)["check"] for line in local_bytes.decode().splitlines()}
    assert {"contamination.exact", "contamination.ngram", "contamination.minhash"} <= found
    for check in ("contamination.exact", "contamination.ngram", "contamination.minhash"):
        assert local["by_check"][check] == dask["by_check"][check]
        assert local["by_check"][check]["items"] >= 3
    # ties: the first of two equal reference rows wins on both engines
    exact = [json.loads(line) for line in local_bytes.decode().splitlines()
             if '"contamination.exact"' in line and '"exact"' in line]
    assert exact and exact[0]["evidence"]["ref_id"] == "pub-exact"
    assert {"check": "contamination.embedding", "reason": "disabled in params "
            "(audit.disabled)"} in dask["checks_skipped"]


def test_embedding_findings_equal_local_exact_search(tmp_path, cluster):
    """Every check on, the bundled encoder: findings equal, embedding ones included."""
    ref = reference_rows(200)
    write_items(tmp_path / "public.jsonl", ref)
    write_items(tmp_path / "bench" / "items.jsonl", items(ref)[:20])
    for name, extra in (("local", ""), ("dask", f"  engine: dask\n  cluster: "
                                               f"{cluster.scheduler_address}\n")):
        (tmp_path / f"{name}.yaml").write_text(
            f"audit:\n{extra}  contamination:\n    cache_dir: {tmp_path / name}-cache\n")
    CliRunner().invoke(cli, ["audit", "reference", "build", "--out", str(tmp_path / "ref.jsonl"),
                             str(tmp_path / "public.jsonl")])
    build_command([str(tmp_path / "public.jsonl")], str(tmp_path / "parts"), FieldNames(),
                  params_path=str(tmp_path / "dask.yaml"), rows_per_partition=70,
                  embeddings=True)
    local = run(tmp_path, "local.yaml", tmp_path / "ref.jsonl", "local")
    dask = run(tmp_path, "dask.yaml", tmp_path / "parts", "dask")
    assert local["by_check"]["contamination.embedding"]["items"] >= 1
    assert (tmp_path / "local/findings.jsonl").read_bytes() == \
        (tmp_path / "dask/findings.jsonl").read_bytes()
    assert dask["notes"]["contamination.embedding"]["corpus"] == 208


def test_partitioned_audit_on_the_local_engine_without_embeddings(setup, tmp_path):
    tmp = setup
    build_command([str(tmp / "public.jsonl")], str(tmp / "parts"), FieldNames(),
                  params_path=str(tmp / "local.yaml"), rows_per_partition=400)
    (tmp / "on.yaml").write_text(f"audit:\n  contamination:\n    cache_dir: {tmp / 'c2'}\n")
    result = audit_data(tmp / "bench/items.jsonl", tmp / "out", params_path=tmp / "on.yaml",
                        references=[tmp / "parts" / "manifest.json"])
    skipped = {s["check"]: s["reason"] for s in result.summary["checks_skipped"]}
    assert "holds no embeddings" in skipped["contamination.embedding"]
    assert result.summary["by_check"]["contamination.exact"]["items"] >= 1


def test_build_resumes_and_rewrites_only_damaged_partitions(setup):
    tmp = setup
    source = [str(tmp / "public.jsonl")]
    first = build_command(source, str(tmp / "parts"), FieldNames(),
                          params_path=str(tmp / "local.yaml"), rows_per_partition=300)
    manifest = (tmp / "parts" / "manifest.json").read_bytes()
    (tmp / "parts" / "part-00001.parquet").write_bytes(b"damaged")
    (tmp / "parts" / "part-00003.json").unlink()
    again = build_command(source, str(tmp / "parts"), FieldNames(),
                          params_path=str(tmp / "dask.yaml"), rows_per_partition=300)
    assert (first.written, again.written, again.skipped) == (5, 2, 3)
    assert (tmp / "parts" / "manifest.json").read_bytes() == manifest
    entries = json.loads(manifest)["partitions"]
    assert [e["file"] for e in entries] == [f"part-0000{i}.parquet" for i in range(5)]


def test_settings_that_differ_from_the_build_are_refused(setup):
    tmp = setup
    build_command([str(tmp / "public.jsonl")], str(tmp / "parts"), FieldNames(),
                  params_path=str(tmp / "local.yaml"), rows_per_partition=600)
    (tmp / "perm.yaml").write_text("audit:\n  contamination:\n    minhash_perm: 64\n")
    result = CliRunner().invoke(cli, ["audit", "data", "--items", str(tmp / "bench/items.jsonl"),
                                      "--params", str(tmp / "perm.yaml"), "--out",
                                      str(tmp / "o"), "--reference", str(tmp / "parts")])
    assert result.exit_code != 0
    assert "rebuild it with `bench-kit audit reference build --partitioned`" in result.output
    assert "Traceback" not in result.output


def test_an_fsspec_url_holds_the_partitioned_reference(setup):
    """Built to and matched from `memory://` (any fsspec URL): the local engine's findings."""
    tmp = setup
    CliRunner().invoke(cli, ["audit", "reference", "build", "--out", str(tmp / "ref.jsonl"),
                             str(tmp / "public.jsonl")])
    result = CliRunner().invoke(cli, ["audit", "reference", "build", "--partitioned",
                                      "memory://bench-kit-test/parts", "--rows-per-partition",
                                      "500", "--params", str(tmp / "dask.yaml"),
                                      str(tmp / "public.jsonl")])
    assert result.exit_code == 0, result.output
    assert "1208 rows in 3 partitions (3 written, 0 already built)" in result.output
    run(tmp, "local.yaml", tmp / "ref.jsonl", "local")
    run(tmp, "dask.yaml", "memory://bench-kit-test/parts", "dask")
    assert (tmp / "local/findings.jsonl").read_bytes() == \
        (tmp / "dask/findings.jsonl").read_bytes()


def test_rare_token_matches_on_workers_equal_the_local_scan(setup, cluster):
    """Corpus IDF and the indexed rare-token match per partition, on the workers, merged in
    partition order: the local check's row and overlap for every item."""
    from bench_kit.audit.contamination_rephrase import Idf, lexical_candidates, text_features
    from bench_kit.audit.distributed.partitions import open_partitioned
    from bench_kit.audit.distributed.rare_tokens import indexed_lexical_candidates, row_features
    from bench_kit.audit.distributed.rephrase import _read, corpus_idf
    from bench_kit.audit.reference import reference_rows as built_rows

    tmp = setup
    build_command([str(tmp / "public.jsonl")], str(tmp / "parts"), FieldNames(),
                  params_path=str(tmp / "local.yaml"), rows_per_partition=250)
    refs = [row_features(r["original"], r["question"])
            for r in built_rows([str(tmp / "public.jsonl")])]
    features = [text_features(row["question"]) for row in items(reference_rows())]
    urls = open_partitioned(str(tmp / "parts")).partition_urls()
    with distributed.Client(cluster) as client:
        idf = corpus_idf(urls, client)
        local_idf = Idf.fit(f.tokens for f in refs)
        assert (idf.documents, dict(idf.frequency)) == \
            (local_idf.documents, dict(local_idf.frequency))

        def partition(url: str) -> list[tuple[int, float]]:
            return indexed_lexical_candidates(
                features, _read(url, ("original", "question", "tokens", "entities")), idf, 2.0)

        parts = client.gather(client.map(partition, urls))
    merged, offset = [(-1, 0.0)] * len(features), 0
    for part in parts:
        for position, (row, value) in enumerate(part):
            if row >= 0 and value > merged[position][1]:
                merged[position] = (offset + row, value)
        offset += 250
    assert merged == lexical_candidates(features, refs, local_idf, 2.0)
    assert sum(row >= 0 for row, _ in merged) >= len(features) - 2
