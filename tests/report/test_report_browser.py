"""The HTML report in a real browser (headless Debian `chromium`, installed by `make test`).

A `<script>` planted in a question and in a model response must render as text: if it ran
it would change the title and log to the console. The page must log nothing to the
console, and every image (plots, thumbnails) must decode.
"""

from __future__ import annotations

import html as html_lib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_report import _build

from bench_kit.report.inputs import ReportSettings
from bench_kit.report.render import write_report

PLANTED = "<script>document.title='PWNED';console.error('planted script ran')</script>"
TITLE = "bench_kit report: demo"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("chromium not found: `make test` installs Debian chromium with apt-get; "
                "apt-get was unavailable here, so the browser test cannot run")


def _run(browser: str, tmp_path: Path, url: str, *extra: str) -> tuple[str, str]:
    profile = tmp_path / f"profile{len(list(tmp_path.glob('profile*')))}"
    proc = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *extra,
                           "--dump-dom", url], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def report_html(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    paths = _build(root, planted=PLANTED)
    write_report(paths["items"], paths["scores"], paths["metrics"], paths["out"],
                 results_dir=paths["results"], audit_dir=paths["audit"],
                 settings=ReportSettings())
    return paths["out"] / "report.html"


def test_planted_script_renders_as_text_and_nothing_logs(report_html, tmp_path):
    browser = _chromium()
    dom, log = _run(browser, tmp_path, report_html.as_uri())
    title = re.search(r"<title>(.*?)</title>", dom, flags=re.DOTALL)
    assert title and html_lib.unescape(title.group(1)) == TITLE  # the script did not run
    assert "<script" not in dom.lower()  # no script element was created
    escaped = html_lib.escape(PLANTED, quote=False)
    assert dom.count(escaped) >= 3  # question (worst + hardest items) and the response
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    assert "<h2 id=\"leaderboard\">" in dom and "<h2 id=\"pairwise\">" in dom
    # the first screen: the question, its one-sentence answer, then the leaderboard
    answer = dom.index('<h2 id="answer">Do these scores reflect vision?</h2>')
    sentence = dom.index('<p class="answer"><strong>Not determined — no model audit given')
    assert answer < sentence < dom.index('<h2 id="leaderboard">') < dom.index('id="benchmark"')


def test_every_image_decodes(report_html, tmp_path):
    browser = _chromium()
    harness = tmp_path / "harness.html"
    # A harness page frames the report and lists images that failed to decode.
    harness.write_text(
        "<!DOCTYPE html><html><body><pre id='out'>pending</pre>"
        f"<iframe id='r' src='{report_html.as_uri()}' onload='check()'></iframe><script>"
        "function check(){var d=document.getElementById('r').contentDocument;"
        "var imgs=Array.from(d.images);var bad=imgs.filter(function(i){"
        "return !(i.complete&&i.naturalWidth>0)}).map(function(i){return i.alt});"
        "document.getElementById('out').textContent='images='+imgs.length+' bad='+"
        "JSON.stringify(bad);}</script></body></html>", encoding="utf-8")
    dom, _ = _run(browser, tmp_path, harness.as_uri(), "--allow-file-access-from-files",
                  "--virtual-time-budget=10000")
    found = re.search(r"images=(\d+) bad=(\[.*?\])", dom)
    assert found, dom[:2000]
    # thumbnails (2 images, shown in several tables) plus the heatmap, difficulty and
    # vision-gain plots (the cost scatter has no spread: every run costs $1 per 1k calls)
    assert int(found.group(1)) >= 6
    assert found.group(2) == "[]"


# ---- every script renders: the bundled CJK font without any system CJK font ------------

BENCH_ZH = "视觉基准"


def _fontconfig_without_cjk(tmp_path: Path) -> dict[str, str]:
    """An environment whose fontconfig sees only DejaVu (no system CJK font)."""
    import os

    conf = tmp_path / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        "<dir>/usr/share/fonts/truetype/dejavu</dir>"
        f"<cachedir>{tmp_path / 'fc-cache'}</cachedir></fontconfig>", encoding="utf-8")
    return {**os.environ, "FONTCONFIG_FILE": str(conf)}


def _screenshot(browser: str, tmp_path: Path, page: Path, name: str) -> bytes:
    shot = tmp_path / f"{name}.png"
    proc = subprocess.run(
        [browser, *FLAGS, f"--user-data-dir={tmp_path / ('profile-' + name)}",
         "--window-size=1280,700", "--hide-scrollbars", f"--screenshot={shot}",
         page.as_uri()], capture_output=True, text=True, timeout=120, check=False,
        env=_fontconfig_without_cjk(tmp_path))
    assert proc.returncode == 0 and shot.is_file(), proc.stderr[-2000:]
    return shot.read_bytes()


def test_chinese_text_is_drawn_with_the_bundled_font(tmp_path):
    """The first screen of a report named in Chinese, in Chromium with no system CJK font,
    read back by the bundled OCR engine: the embedded subset draws the glyphs; the same
    page without it draws empty boxes (so the check can fail)."""
    from bench_kit.models.adapters.ocr import run_engine
    from bench_kit.report.fonts import FAMILY

    browser = _chromium()
    paths = _build(tmp_path, planted="红色圆形")
    scores = paths["scores"].rename(paths["scores"].with_name(BENCH_ZH))
    write_report(paths["items"], scores, paths["metrics"], paths["out"],
                 results_dir=paths["results"], settings=ReportSettings(thumbnail_px=0))
    page = paths["out"] / "report.html"
    html = page.read_text(encoding="utf-8")
    assert f'font-family: "{FAMILY}"; src: url(data:font/ttf;base64,' in html
    bare = tmp_path / "without_font.html"
    bare.write_text(re.sub(r"@font-face \{[^}]*\}", "", html), encoding="utf-8")

    read = " ".join(line.text for line in run_engine(_screenshot(browser, tmp_path, page,
                                                                 "with")))
    assert BENCH_ZH in read.replace(" ", ""), read
    assert "Do these scores reflect vision" in read  # the first screen, Latin text intact
    boxes = " ".join(line.text for line in run_engine(_screenshot(browser, tmp_path, bare,
                                                                  "without")))
    assert BENCH_ZH not in boxes.replace(" ", ""), boxes
