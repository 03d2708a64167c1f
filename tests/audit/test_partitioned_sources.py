"""The partitioned build reads its sources on the workers: the pieces a worker reads hold
exactly the rows the streamed build reads (parquet by row groups, JSONL by byte blocks,
CSV by records), and an output inside a DVC cache or remote is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bench_kit.audit.distributed import source_split
from bench_kit.audit.distributed.dvc_store import refuse_dvc_store
from bench_kit.audit.distributed.source_split import partition_rows, plan_partitions
from bench_kit.audit.reference import FieldNames, reference_rows
from bench_kit.cli import cli
from bench_kit.errors import UsageError

distributed = pytest.importorskip("distributed")


def write_sources(tmp: Path) -> list[str]:
    """A JSONL file with blank lines, rows without id or text; a parquet file of several
    row groups; a CSV file with a quoted newline."""
    lines = []
    for n in range(230):
        row = {"question": f"What is item {n} of the plain list, number {n * 7}?"}
        if n % 3:
            row["id"] = f"j{n}"
        if n % 17 == 0:
            row["question"] = ""
        lines.append(json.dumps(row))
        if n % 40 == 0:
            lines.append("")
    (tmp / "a.jsonl").write_text("\n".join(lines))  # no newline after the last line
    table = pa.table({"id": [f"p{n}" if n % 2 else None for n in range(150)],
                      "question": [f"Which colour is square {n} in row {n % 9}?"
                                   for n in range(150)]})
    pq.write_table(table, tmp / "b.parquet", row_group_size=32)
    (tmp / "c.csv").write_text('id,question\nc1,"Two\nlines?"\nc2,How many apples?\n')
    return [str(tmp / name) for name in ("a.jsonl", "b.parquet", "c.csv")]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None, silence_logs=40) as local, \
            distributed.Client(local) as connected:
        yield connected


@pytest.mark.parametrize("per_partition", [1, 37, 100, 1000])
def test_pieces_read_on_workers_hold_the_streamed_rows(tmp_path, monkeypatch, client,
                                                       per_partition):
    sources = write_sources(tmp_path)
    monkeypatch.setattr(source_split, "BLOCK_BYTES", 1000)  # JSONL in many blocks
    plan = plan_partitions(sources, per_partition, client)
    counts = [sum(p.stop - p.start for p in pieces) for pieces in plan]
    assert counts[:-1] == [per_partition] * (len(plan) - 1) and sum(counts) == 236 + 150 + 2
    rows = [r for pieces in plan for r in partition_rows(pieces, FieldNames())]
    assert rows == list(reference_rows(sources))
    assert rows[2]["ref_id"] == "a.jsonl:5" and rows[-2]["original"] == "Two\nlines?"


def test_a_bad_jsonl_line_is_named_with_its_line_number(tmp_path, monkeypatch):
    (tmp_path / "bad.jsonl").write_text('{"question": "ok?"}\n' * 50 + "{oops\n")
    monkeypatch.setattr(source_split, "BLOCK_BYTES", 64)
    plan = plan_partitions([str(tmp_path / "bad.jsonl")], 20)
    with pytest.raises(Exception, match=r"bad.jsonl:51: malformed JSON"):
        partition_rows(plan[-1], FieldNames())


def dvc_repo(tmp: Path, config: str) -> None:
    (tmp / ".dvc").mkdir()
    (tmp / ".dvc" / "config").write_text(config)


def test_outputs_inside_dvc_stores_are_refused(tmp_path, monkeypatch):
    dvc_repo(tmp_path, "[core]\n    remote = storage\n"
                       "['remote \"storage\"']\n    url = ../store\n"
                       "['remote \"s3\"']\n    url = s3://bucket/dvc\n")
    monkeypatch.chdir(tmp_path)
    for output, why in ((".dvc/cache/refs", "the DVC cache"),
                        ("store/files/md5/refs", "DVC remote 'storage'"),
                        ("s3://bucket/dvc/refs", "DVC remote 's3'"),
                        ("s3://bucket/dvc", "DVC remote 's3'")):
        with pytest.raises(UsageError, match=f"^{output}: inside {why}"):
            refuse_dvc_store(output)
    for output in ("refs/web", "store-other/refs", "s3://bucket/dvc-refs", "s3://other/dvc"):
        refuse_dvc_store(output)


def test_the_build_command_refuses_a_configured_cache_dir(tmp_path, monkeypatch):
    dvc_repo(tmp_path, "[cache]\n    dir = /tmp/../" + str(tmp_path / "shared-cache") + "\n")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    write_sources(tmp_path)
    result = CliRunner().invoke(cli, ["audit", "reference", "build", "--partitioned",
                                      str(tmp_path / "shared-cache" / "refs"),
                                      str(tmp_path / "a.jsonl")])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if "shared-cache" in line]
    assert len(errors) == 1 and "refs: inside the DVC cache of" in errors[0]
    assert "Traceback" not in result.output
    assert not (tmp_path / "shared-cache").exists()


def test_sources_given_as_fsspec_urls_are_read_by_the_tasks(tmp_path):
    import fsspec

    sources = write_sources(tmp_path)
    urls = []
    for source in sources[:2]:
        url = f"memory://bench-kit-sources/{Path(source).name}"
        with fsspec.open(url, "wb") as handle:
            handle.write(Path(source).read_bytes())
        urls.append(url)
    plan = plan_partitions(urls, 50)
    rows = [r for pieces in plan for r in partition_rows(pieces, FieldNames())]
    assert rows == list(reference_rows(sources[:2]))
    result = CliRunner().invoke(cli, ["audit", "reference", "build", "--partitioned",
                                      str(tmp_path / "parts"), *urls])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "parts" / "manifest.json").read_text())["rows"] == len(rows)
    missing = CliRunner().invoke(cli, ["audit", "reference", "build", "--partitioned",
                                       str(tmp_path / "p2"), str(tmp_path / "none.parquet")])
    assert missing.exit_code == 1 and "none.parquet: reference source not found" in \
        missing.output and "Traceback" not in missing.output


def test_the_driver_reads_no_source_rows(tmp_path, monkeypatch):
    """Worker processes read the rows: in the driver, reading any piece or any CSV row
    raises, and the build still writes every partition."""
    from bench_kit.audit.distributed import partitions
    from bench_kit.audit.distributed.partitions import build_partitioned
    from bench_kit.audit.distributed.signatures import FeatureSpec

    sources = write_sources(tmp_path)

    def refuse(*args, **kwargs):
        raise AssertionError("the driver read source rows")

    monkeypatch.setattr(partitions, "partition_rows", refuse)
    monkeypatch.setattr(source_split, "source_rows", refuse)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as local, \
            distributed.Client(local) as workers:
        report = build_partitioned(sources, str(tmp_path / "parts"), FeatureSpec((8, 13), 5, 16),
                                   client=workers, rows_per_partition=100)
    assert report.written == 4
    assert report.manifest["rows"] == len(list(reference_rows(sources)))
    assert all(s["source_bytes"] > 0 and s["bytes_to_driver"] < 1000 for s in report.stats)
