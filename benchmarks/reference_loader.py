"""Import reference implementations from a checkout outside the project, unmodified.

Only imports the called functions never use are stood in by empty modules in
`sys.modules` (VLMEvalKit's `sty`, huggingface_hub's cache scanner, its logger set-up and
the `vlmeval` package `__init__`s, which pull in every model). Used by
benchmarks/extract_bench.py and tests/scoring/reference/run_reference.py.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import types
from pathlib import Path


def load_file(name: str, path: Path) -> types.ModuleType:
    """Execute the file at `path` as module `name` (registered in sys.modules)."""
    if not path.is_file():
        raise SystemExit(f"{path}: not found (is this a checkout of the reference?)")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _stub(name: str, **attrs) -> types.ModuleType:
    module = sys.modules.get(name) or types.ModuleType(name)
    module.__dict__.update(attrs)
    module.__path__ = []  # a package, so submodules can be stubbed under it
    sys.modules[name] = module
    return module


def load_vlmevalkit(root: Path) -> tuple[types.ModuleType, types.ModuleType]:
    """VLMEvalKit's `vlmeval/dataset/utils/vqa_eval.py` (VQA score, relaxed accuracy,
    ANLS) and `vlmeval/utils/matching_util.py` (`can_infer`). `load_vlmevalkit_yorn`
    adds `yorn.py` (yes/no extraction, POPE and MME ratings)."""
    _stub("sty", fg=None)
    for name in ("huggingface_hub", "huggingface_hub.utils"):
        _stub(name)
    _stub("huggingface_hub.utils._cache_manager", _scan_cached_repo=None)
    _stub("vlmeval")
    smp = _stub("vlmeval.smp")
    misc = load_file("vlmeval.smp.misc", root / "vlmeval/smp/misc.py")
    smp.__dict__.update({k: getattr(misc, k) for k in ("istype", "listinstr",
                                                         "process_punctuation", "d2df")})
    _stub("vlmeval.smp.log", get_logger=logging.getLogger)
    vqa = load_file("vlmeval_vqa_eval", root / "vlmeval/dataset/utils/vqa_eval.py")
    matching = load_file("vlmeval_matching_util", root / "vlmeval/utils/matching_util.py")
    return vqa, matching


def load_mmmu(root: Path) -> types.ModuleType:
    """MMMU's `mmmu/utils/eval_utils.py` (open and multiple-choice parsing)."""
    return load_file("mmmu_eval_utils", root / "mmmu/utils/eval_utils.py")


def load_vlmevalkit_yorn(root: Path) -> types.ModuleType:
    """VLMEvalKit's `vlmeval/dataset/utils/yorn.py`. Its ratings read their input with
    `vlmeval.smp.load(path)`; here `load` hands back the DataFrame it is given (file
    reading is not what is compared)."""
    load_vlmevalkit(root)
    sys.modules["vlmeval.smp"].load = lambda data: data
    return load_file("vlmeval_yorn", root / "vlmeval/dataset/utils/yorn.py")


def load_vlmevalkit_groundingme(root: Path) -> types.ModuleType:
    """VLMEvalKit's `vlmeval/dataset/groundingme.py` (`parse_bbox`, `normalize_bbox`,
    `compute_iou`). Its dataset class needs `ImageBaseDataset` and the file helpers, which
    those functions never use: they are stood in."""
    load_vlmevalkit(root)
    sys.modules["vlmeval.smp"].__dict__.update(dump=None, load=None)
    _stub("vlmeval.smp.file", get_intermediate_file_path=None)
    _stub("vlmeval.dataset")
    _stub("vlmeval.dataset.image_base", ImageBaseDataset=object)
    return load_file("vlmeval.dataset.groundingme", root / "vlmeval/dataset/groundingme.py")
