"""Registry, io and params: the seams every module relies on."""

from __future__ import annotations

import json
import os

import pytest

from bench_kit.errors import ConfigError, InputError, UnknownNameError
from bench_kit.io import read_jsonl, resolve_image, write_json, write_jsonl
from bench_kit.params import load_params, section
from bench_kit.registry import Registry


def test_registry_rejects_duplicates_and_suggests_names():
    reg: Registry = Registry("metric")
    reg.register("accuracy")(len)
    with pytest.raises(ValueError, match="already registered"):
        reg.register("accuracy")(len)
    with pytest.raises(UnknownNameError, match="did you mean 'accuracy'"):
        reg.get("acuracy")
    assert reg.names() == ["accuracy"] and "accuracy" in reg


@pytest.mark.parametrize("line, reason", [
    (b'{"id": "a",', "malformed JSON"),
    (b'{"id": NaN}', "NaN is not valid JSON"),
    (b'{"id": "a", "id": "b"}', "duplicate key 'id'"),
    (b'\xff\xfe', "invalid UTF-8"),
    (b'[1, 2]', "expected a JSON object"),
])
def test_read_jsonl_names_file_and_line(tmp_path, line, reason):
    path = tmp_path / "items.jsonl"
    path.write_bytes(b'{"ok": 1}\n\n' + line + b"\n")
    with pytest.raises(InputError) as err:
        read_jsonl(path)
    assert err.value.line == 3 and reason in str(err.value) and str(path) in str(err.value)


def test_writers_are_atomic_and_leave_no_temp_files(tmp_path):
    target = tmp_path / "out" / "rows.jsonl"
    assert write_jsonl(target, [{"a": "é"}, {"a": 2}]) == 2
    assert read_jsonl(target) == [{"a": "é"}, {"a": 2}]

    def boom():
        yield {"a": 1}
        raise RuntimeError("crash mid-write")

    with pytest.raises(RuntimeError):
        write_jsonl(target, boom())
    assert read_jsonl(target) == [{"a": "é"}, {"a": 2}]  # old content intact
    assert os.listdir(target.parent) == ["rows.jsonl"]
    write_json(tmp_path / "m.json", {"b": 1, "a": 2})
    assert json.loads((tmp_path / "m.json").read_text()) == {"a": 2, "b": 1}


@pytest.mark.parametrize("rel", ["/etc/passwd", "../x.png", "images/../../x.png", "C:/x.png"])
def test_resolve_image_refuses_escapes(tmp_path, rel):
    with pytest.raises(ValueError):
        resolve_image(tmp_path, rel)


def test_resolve_image_refuses_symlink_out(tmp_path):
    outside = tmp_path / "outside.png"
    outside.write_bytes(b"x")
    root = tmp_path / "bench"
    (root / "images").mkdir(parents=True)
    (root / "images" / "link.png").symlink_to(outside)
    with pytest.raises(ValueError, match="outside"):
        resolve_image(root, "images/link.png")
    assert resolve_image(root, "images/ok.png") == root.resolve() / "images/ok.png"


def test_params_section_names_the_key(tmp_path):
    from bench_kit.split.assign import SplitParams

    path = tmp_path / "params.yaml"
    path.write_text("split:\n  seed: 1\n  dev_share: lots\n")
    with pytest.raises(ConfigError, match="split.dev_share"):
        section(load_params(path), "split", SplitParams, source=str(path))
    path.write_text("x: !!python/object:os.system ls\n")
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_params(path)


def test_yaml_duplicate_keys_are_an_error(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("a: 1\nb:\n  c: 2\n  c: 3\n")
    with pytest.raises(ConfigError, match=r"t.yaml:4: invalid YAML: duplicate key 'c'"):
        load_params(path)


def test_written_files_get_the_usual_mode(tmp_path):
    old = os.umask(0o022)
    try:
        write_json(tmp_path / "r.json", {})
    finally:
        os.umask(old)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o644
