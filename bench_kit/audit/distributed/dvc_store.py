"""Keep a partitioned reference out of DVC's content-addressed stores.

DVC owns its cache (`.dvc/cache`, or `cache.dir`) and every remote's URL prefix: files
there are named by their hash and are garbage-collected by `dvc gc`. A partitioned
reference written inside one would be lost or would corrupt the store, so the build
refuses such an output with a one-line error. The stores are read from `.dvc/config` and
`.dvc/config.local` of the DVC repositories above the working directory and above a local
output path (what `dvc remote list` and `dvc cache dir` show for them).
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

from bench_kit.errors import UsageError

_REMOTE = re.compile(r"""^'?remote\s+"(?P<name>[^"]+)"'?$""")


def _is_url(location: str) -> bool:
    return "://" in location and not location.startswith("file://")


def _local(location: str, base: Path) -> Path:
    path = Path(location.removeprefix("file://")).expanduser()
    return (path if path.is_absolute() else base / path).resolve()


def _repos(output: str) -> list[Path]:
    starts = [Path.cwd()]
    if not _is_url(output):
        starts.append(_local(output, Path.cwd()))
    roots: list[Path] = []
    for start in starts:
        for folder in (start, *start.parents):
            if (folder / ".dvc").is_dir():
                if folder not in roots:
                    roots.append(folder)
                break
    return roots


def dvc_stores(output: str) -> list[tuple[str, str]]:
    """(location, what it is) of every content-addressed store of the DVC repositories that
    hold the working directory or `output`: the cache and each remote."""
    stores: list[tuple[str, str]] = []
    for root in _repos(output):
        dvc_dir = root / ".dvc"
        config = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            config.read([dvc_dir / "config", dvc_dir / "config.local"], encoding="utf-8")
        except configparser.Error:
            config = configparser.ConfigParser()
        cache = config.get("cache", "dir", fallback="cache")
        stores.append((str(_local(cache, dvc_dir)), f"the DVC cache of {root}"))
        for section in config.sections():
            match = _REMOTE.match(section.strip())
            url = config.get(section, "url", fallback=None)
            if match and url:
                location = url if _is_url(url) else str(_local(url, dvc_dir))
                stores.append((location, f"DVC remote '{match['name']}' of {root}"))
    return stores


def _inside(path: str, store: str) -> bool:
    path, store = path.rstrip("/"), store.rstrip("/")
    return path == store or path.startswith(store + "/")


def refuse_dvc_store(output: str) -> None:
    """Raise when `output` lies inside a DVC cache or remote.

    Raises:
        UsageError: naming the output, the store and why.
    """
    where = output if _is_url(output) else str(_local(output, Path.cwd()))
    for store, name in dvc_stores(output):
        if _inside(where, store):
            raise UsageError(f"{output}: inside {name} ({store}), a content-addressed store "
                             "that DVC owns and garbage-collects; give the partitioned "
                             "reference its own folder or URL prefix")
