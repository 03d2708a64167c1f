"""The pytest plugin benchmarks/mutation.py writes beside the mutants empties every
functools cache of the package before each test (a cache filled in mutmut's own process
answered every forked mutant with the original code's result), and only the package's."""

from __future__ import annotations

import functools
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from mutation import CACHE_RESET_SOURCE  # noqa: E402


def test_the_plugin_empties_the_package_caches_only(monkeypatch):
    calls: list[str] = []

    def cached_module(name: str) -> tuple[types.ModuleType, object]:
        module = types.ModuleType(name)

        @functools.lru_cache(maxsize=4)
        def pattern(key: str) -> str:
            calls.append(f"{name}:{key}")
            return key.upper()

        module.pattern = pattern
        monkeypatch.setitem(sys.modules, name, module)
        return module, pattern

    _, ours = cached_module("bench_kit._mutation_probe")
    _, theirs = cached_module("not_bench_kit_probe")
    plugin: dict = {}
    exec(compile(CACHE_RESET_SOURCE, "mutation_cache_reset.py", "exec"), plugin)

    ours("a"), theirs("a")
    plugin["pytest_runtest_setup"](None)
    ours("a"), theirs("a")
    # the package's cache was emptied (a second call), the other module's was not
    assert calls == ["bench_kit._mutation_probe:a", "not_bench_kit_probe:a",
                     "bench_kit._mutation_probe:a"]


def test_the_plugin_empties_the_dicts_a_module_lists(monkeypatch):
    """A module's plain-dict caches named in RESETTABLE_CACHES are emptied too (response.py's
    shared extractions, `_MADE`, were filled in mutmut's parent and hid mutants); a dict the
    module does not list is left alone."""
    module = types.ModuleType("bench_kit._mutation_dict_probe")
    listed, unlisted = {"a": 1}, {"b": 2}
    module.RESETTABLE_CACHES = (listed,)
    module.other = unlisted
    monkeypatch.setitem(sys.modules, module.__name__, module)
    plugin: dict = {}
    exec(compile(CACHE_RESET_SOURCE, "mutation_cache_reset.py", "exec"), plugin)
    plugin["pytest_runtest_setup"](None)
    assert listed == {} and unlisted == {"b": 2}


def test_response_lists_its_shared_extractions():
    from bench_kit.scoring.extract import response

    assert any(cache is response._MADE for cache in response.RESETTABLE_CACHES)
