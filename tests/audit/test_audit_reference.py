"""`bench-kit audit reference build`: every source format, field options, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench_kit.audit import feature_cache, reference
from bench_kit.audit.reference import FieldNames, build_reference, open_reference
from bench_kit.cli import cli
from bench_kit.errors import InputError

ROWS = [
    {"id": "a1", "question": "How many RED circles?", "choices": {"B": "three", "A": "two"}},
    {"id": "a2", "question": "  Is the sky blue？ ", "choices": None},
    {"id": "a3", "question": "", "choices": None},  # no text: skipped
]


def write_source(path: Path) -> Path:
    """ROWS in the format the suffix names (or a saved HF dataset for a folder)."""
    suffix = path.suffix
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    elif suffix in (".csv", ".tsv"):
        import csv

        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t" if suffix == ".tsv" else ",")
            writer.writerow(["id", "question", "choices"])
            for r in ROWS:
                writer.writerow([r["id"], r["question"],
                                 json.dumps(r["choices"]) if r["choices"] else ""])
    elif suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.table({"id": [r["id"] for r in ROWS], "question": [r["question"] for r in ROWS],
                          "choices": [json.dumps(r["choices"]) if r["choices"] else None
                                      for r in ROWS]})
        pq.write_table(table, path)
    else:
        import datasets

        datasets.Dataset.from_dict({
            "id": [r["id"] for r in ROWS], "question": [r["question"] for r in ROWS],
            "choices": [[v for _, v in sorted((r["choices"] or {}).items())] for r in ROWS],
        }).save_to_disk(str(path))
    return path


def build(tmp_path: Path, *args: str) -> tuple[int, list[dict], str]:
    out = tmp_path / "ref.jsonl"
    result = CliRunner().invoke(cli, ["audit", "reference", "build", "--out", str(out), *args])
    rows = ([json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
            if out.exists() else [])
    return result.exit_code, rows, result.output


@pytest.mark.parametrize("name", ["public.jsonl", "public.csv", "public.tsv", "public.parquet",
                                  "public_hf"])
def test_every_format_gives_the_same_normalised_rows(tmp_path, name):
    code, rows, output = build(tmp_path, str(write_source(tmp_path / name)))
    assert code == 0, output
    assert rows == [
        {"ref_id": "a1", "source": name, "text": "how many red circles two three",
         "question": "how many red circles", "original": "How many RED circles?",
         "options": ["two", "three"]},
        {"ref_id": "a2", "source": name, "text": "is the sky blue", "question": "is the sky blue",
         "original": "  Is the sky blue？ "},
    ]
    assert output.strip() == f"reference: 2 rows from 1 source(s) -> {tmp_path / 'ref.jsonl'}"


def test_text_and_id_fields_and_missing_ids(tmp_path):
    source = tmp_path / "web.jsonl"
    source.write_text(json.dumps({"body": "Who painted the Mona Lisa?"}) + "\n"
                      + json.dumps({"body": "What is 2+2?", "url": "u/2"}) + "\n",
                      encoding="utf-8")
    code, rows, output = build(tmp_path, "--text-field", "body", "--id-field", "url",
                               "--options-field", "", str(source))
    assert code == 0, output
    assert [(r["ref_id"], r["text"]) for r in rows] == [("web.jsonl:1", "who painted the mona lisa"),
                                                        ("u/2", "what is 2 2")]


def test_a_missing_text_field_names_file_line_and_field(tmp_path):
    code, rows, output = build(tmp_path, "--text-field", "prompt",
                               str(write_source(tmp_path / "public.jsonl")))
    assert code == 1 and rows == []
    assert output.strip().startswith(f"error: {tmp_path / 'public.jsonl'}:1: field 'prompt': "
                                     "no 'prompt' column")


def test_unknown_format_and_help_example(tmp_path):
    (tmp_path / "notes.txt").write_text("hi", encoding="utf-8")
    code, _, output = build(tmp_path, str(tmp_path / "notes.txt"))
    assert code == 1 and "unknown reference format '.txt'" in output
    help_text = CliRunner().invoke(cli, ["audit", "reference", "build", "--help"]).output
    assert "Example:" in help_text and "bench-kit audit reference build --out" in help_text


def test_output_is_deterministic_and_hash_follows_content(tmp_path):
    source = write_source(tmp_path / "public.jsonl")
    build_reference([source], tmp_path / "one.jsonl")
    build_reference([source], tmp_path / "two.jsonl")
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    first = open_reference([tmp_path / "one.jsonl"])
    assert first.size == 2 and [r["ref_id"] for r in first.rows()] == ["a1", "a2"]
    assert open_reference([tmp_path / "two.jsonl"]).content_hash == first.content_hash
    build_reference([source], tmp_path / "one.jsonl", FieldNames(options=None))
    assert open_reference([tmp_path / "one.jsonl"]).content_hash != first.content_hash


def test_open_reference_rejects_unbuilt_files(tmp_path):
    source = write_source(tmp_path / "public.jsonl")
    with pytest.raises(InputError, match="bench-kit audit reference build"):
        open_reference([source])


@pytest.mark.parametrize("module", [reference, feature_cache])
def test_docstring_examples(module):
    import doctest

    assert doctest.testmod(module).failed == 0
