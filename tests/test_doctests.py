"""Every `>>>` example in the package runs: one doctest per module that has any.

Modules are found by importing the package tree (`pkgutil.walk_packages`); a second scan
reads the files, so a module with examples that the import walk misses (a folder without
`__init__.py`, say) fails `test_every_module_with_examples_is_collected`.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import bench_kit

ROOT = Path(bench_kit.__file__).parent


def _has_examples(path: Path) -> bool:
    return ">>>" in path.read_text(encoding="utf-8")


def _module_path(name: str) -> Path:
    parts = name.split(".")[1:]
    package = ROOT.joinpath(*parts, "__init__.py")
    return package if package.exists() else ROOT.joinpath(*parts[:-1], parts[-1] + ".py")


def _walked() -> list[str]:
    names = [info.name for info in pkgutil.walk_packages(bench_kit.__path__, "bench_kit.")]
    return sorted(["bench_kit", *names])


WALKED = _walked()
WITH_EXAMPLES = [name for name in WALKED if _has_examples(_module_path(name))]


def test_every_module_with_examples_is_collected() -> None:
    on_disk = {
        "bench_kit." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in ROOT.rglob("*.py") if _has_examples(path)}
    on_disk = {name.removesuffix(".__init__") for name in on_disk}
    assert on_disk - set(WITH_EXAMPLES) == set()
    assert len(WITH_EXAMPLES) >= 40  # the package had 40 such modules when this was written


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0, f"{name} has '>>>' but no example ran"
    assert result.failed == 0
