"""The report's size is bounded whatever the input: a 1 MB question and 1 MB options."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from test_report import _build, _params, _report_args

from bench_kit.cli import cli
from bench_kit.io import read_jsonl, write_jsonl
from bench_kit.report.clipped import FULL_TEXT_CHARS, QUESTION_CHARS, Clipped, clipped

# distinct words so a repeated chunk of the text cannot be mistaken for a repeat of it
HUGE = " ".join(f"w{n}" for n in range(200_000))[:1_000_000]


def _render(root: Path, planted: str, option: str | None = None) -> tuple[str, str]:
    paths = _build(root, planted)
    if option is not None:
        rows = read_jsonl(paths["items"])
        rows[0]["choices"] = {"A": option, "B": "blue " + option}
        write_jsonl(paths["items"], rows)
    result = CliRunner().invoke(cli, _report_args(
        paths, "--results", str(paths["results"]), "--audit", str(paths["audit"]),
        "--params", str(_params(root))))
    assert result.exit_code == 0, result.output
    return ((paths["out"] / "report.html").read_text(encoding="utf-8"),
            (paths["out"] / "report.md").read_text(encoding="utf-8"))


def test_a_1mb_question_and_options_leave_the_report_small(tmp_path) -> None:
    base_html, base_md = _render(tmp_path / "base", "plain")
    html, md = _render(tmp_path / "huge", HUGE, option=HUGE)
    # the question (and a response and an audit message carrying it) are 3 MB of input
    assert len(html.encode()) - len(base_html.encode()) < 200_000
    assert len(md.encode()) - len(base_md.encode()) < 200_000
    head = HUGE[:200]
    for text in (html, md):
        shown = text.count(head)  # each place the question, response or message is listed
        assert 1 <= shown <= 8
        assert HUGE[:QUESTION_CHARS + 50] not in text  # never past the clip
        assert text.count("characters in total") >= shown  # every copy says it was clipped
    # the huge texts are over the cap: no full copy embedded (the baseline's one stays)
    assert html.count("full text (") == base_html.count("full text (") == 1


def test_clipped_keeps_the_full_text_only_under_the_cap() -> None:
    short = clipped("a short question")
    assert short == Clipped("a short question") and str(short) == "a short question"
    medium = "x" * (QUESTION_CHARS + 1)
    shown = clipped(medium)
    assert shown is not None and shown.full == medium
    assert str(shown) == f"{'x' * QUESTION_CHARS}… [{QUESTION_CHARS + 1} characters in total]"
    assert shown.__html__().endswith(f"{medium}</details>")
    at_cap, over_cap = "y" * FULL_TEXT_CHARS, "y" * (FULL_TEXT_CHARS + 1)
    assert clipped(at_cap).full == at_cap and clipped(over_cap).full is None
    assert "<details" not in clipped(over_cap).__html__()
    assert clipped(None) is None
    assert clipped("<b>&</b>" * 100).__html__().count("&lt;b&gt;&amp;&lt;/b&gt;") == 100 + 50
