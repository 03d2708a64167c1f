"""Fonts for the demo scenes: DejaVu for Latin text, WenQuanYi Micro Hei for Chinese.

The CJK font ships inside the `paperang-p2-fonts-cjk` wheel, so Chinese signs render the
same on every machine that installed the kit.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

from bench_kit.errors import ConfigError
from bench_kit.text.cjk import has_cjk

DEJAVU_DIRS = (
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/dejavu",
    "/usr/share/fonts/TTF",
    "/usr/local/share/fonts",
    "/Library/Fonts",
)
CJK_PACKAGE = "paperang_p2_fonts_cjk"
CJK_FILE = "fonts/wqy-microhei.ttc"
CJK_INSTALL_HINT = ("no Chinese font found: install the font wheel with "
                    "`pip install 'paperang-p2-fonts-cjk>=0.1,<1'` (it is a bench-kit dependency)")


@functools.lru_cache(maxsize=None)
def latin_font_path(bold: bool = True) -> str | None:
    """Path of a DejaVu Sans TTF (bold or regular), or None when none is installed."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in DEJAVU_DIRS:
        candidate = Path(folder) / name
        if candidate.is_file():
            return str(candidate)
    return _fc_match("DejaVu Sans:bold" if bold else "DejaVu Sans", name)


def _fc_match(pattern: str, expected_name: str) -> str | None:
    exe = shutil.which("fc-match")
    if exe is None:
        return None
    try:
        found = subprocess.run([exe, "-f", "%{file}", pattern], capture_output=True,
                               text=True, timeout=10, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    # fc-match always answers with *some* font; accept only the one asked for.
    return found if found and Path(found).name == expected_name else None


@functools.lru_cache(maxsize=None)
def cjk_font_path() -> str:
    """Path of the bundled WenQuanYi Micro Hei collection; ConfigError with a hint if absent."""
    try:
        candidate = resources.files(CJK_PACKAGE).joinpath(CJK_FILE)
    except ModuleNotFoundError as exc:
        raise ConfigError(CJK_INSTALL_HINT) from exc
    path = Path(str(candidate))
    if not path.is_file():
        raise ConfigError(CJK_INSTALL_HINT)
    return str(path)


def font_for(text: str, size: int, bold: bool = True) -> Any:
    """A Pillow font of `size` px able to draw `text` (CJK font for Chinese text)."""
    return _load_font(has_cjk(text), size, bold)


@functools.lru_cache(maxsize=64)
def _load_font(cjk: bool, size: int, bold: bool) -> Any:
    from PIL import ImageFont

    if cjk:
        return ImageFont.truetype(cjk_font_path(), size)
    path = latin_font_path(bold)
    if path is not None:
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)
