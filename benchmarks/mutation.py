"""Mutation testing of the core modules with mutmut (not part of `make test`).

For each target (modules to mutate + the test files that guard them) the tracked files of
the repository are copied to a scratch folder, a `[mutmut]` section is written there and
`mutmut run` plants one-line bugs (operators, constants, comparisons, arguments, return
values) one at a time and runs the target's tests against each. Prints, per module, the
mutants killed / total and the score, and (with --survivors) every survivor's name; `mutmut
show NAME` in the printed scratch folder shows its diff. Needs `pip install mutmut` (3.x).

    .venv/bin/python benchmarks/mutation.py [--only stats,split,blind_panel] [--survivors]
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MUTMUT = Path(sys.executable).with_name("mutmut")

# name -> (paths to mutate, test paths that guard them)
TARGETS: dict[str, tuple[list[str], list[str]]] = {
    "stats": (["bench_kit/stats/"], ["tests/stats/"]),
    "split": (["bench_kit/split/"], ["tests/split/"]),
    "blind_panel": (["bench_kit/audit/results/blind_panel.py",
                     "bench_kit/audit/results/significance.py",
                     "bench_kit/audit/results/chance.py"],
                    # the fast tests only: test_audit_results.py runs the whole audit per
                    # test (minutes per mutant); its kills come on top of these
                    ["tests/audit/results/test_significance.py",
                     "tests/audit/results/test_blind_panel_boundaries.py"]),
    "metrics": (["bench_kit/scoring/metrics/detection.py", "bench_kit/scoring/metrics/text.py",
                 "bench_kit/scoring/metrics/vqa.py"],
                ["tests/scoring/test_metrics.py", "tests/scoring/test_metrics_more.py",
                 "tests/scoring/test_reference_vectors.py",
                 "tests/scoring/test_scoring_boundaries.py",
                 "tests/scoring/test_embedding_similarity_parts.py", "tests/test_doctests.py"]),
    "metrics_answers": (["bench_kit/scoring/metrics/answers.py",
                         "bench_kit/scoring/metrics/mmmu_open.py",
                         "bench_kit/scoring/metrics/mmmu_gold.py"],
                        ["tests/scoring/test_metrics.py", "tests/scoring/test_metrics_more.py",
                         "tests/scoring/test_reference_vectors.py",
                         "tests/scoring/test_scoring_boundaries.py",
                         "tests/scoring/test_metrics_answers_mutants.py",
                         "tests/scoring/test_metrics_mmmu_gold_mutants.py",
                         # mmmu_open's JSON answer lists and exact golds, the reviewer's probes
                         "tests/scoring/test_exact_golds.py",
                         "tests/scoring/test_open_review_probes.py", "tests/test_doctests.py"]),
    "metrics_exact_golds": (["bench_kit/scoring/metrics/exact_golds.py"],
                            ["tests/scoring/test_exact_golds.py", "tests/test_doctests.py"]),
    "metrics_masks": (["bench_kit/scoring/metrics/masks.py"],
                      ["tests/scoring/test_metrics.py", "tests/scoring/test_metrics_more.py",
                       "tests/scoring/test_corpus.py", "tests/scoring/test_metrics_masks_mutants.py",
                       "tests/test_doctests.py"]),
    "metrics_relaxed": (["bench_kit/scoring/metrics/relaxed.py"],
                        ["tests/scoring/test_metrics.py", "tests/scoring/test_metrics_more.py",
                         "tests/scoring/test_reference_vectors.py",
                         "tests/scoring/test_metrics_relaxed_mutants.py", "tests/test_doctests.py"]),
    "extract": (["bench_kit/scoring/extract/response.py",
                 "bench_kit/scoring/extract/answer_clause.py",
                 "bench_kit/scoring/extract/no_answer.py",
                 "bench_kit/scoring/extract/continuation.py"],
                ["tests/scoring/test_extract.py", "tests/scoring/test_extract_fast.py",
                 "tests/scoring/test_scoring_boundaries.py", "tests/scoring/test_extract_mutants.py",
                 "tests/scoring/test_extract_response_mutants.py", "tests/scoring/test_exact_golds.py",
                 "tests/test_doctests.py"]),
    # the other stable modules of scoring/extract, one target each (a run per module stays
    # under ~10 min on 2 cores); the case tables and the hand-worked mutant tests
    "extract_choice_set": (["bench_kit/scoring/extract/choice_set.py"],
                           ["tests/scoring/test_extract_choice_set_mutants.py",
                            "tests/test_doctests.py"]),
    "extract_checklist": (["bench_kit/scoring/extract/checklist.py"],
                          ["tests/scoring/test_scoring.py",
                           "tests/scoring/test_extract_checklist_mutants.py",
                           "tests/test_doctests.py"]),
    "extract_prose": (["bench_kit/scoring/extract/prose_letters.py", "bench_kit/scoring/extract/letter_names.py",
                      "bench_kit/scoring/extract/concluding.py"],
                      ["tests/scoring/test_extract.py", "tests/scoring/test_extract_mutants.py",
                       "tests/scoring/test_extract_prose_mutants.py", "tests/test_doctests.py"]),
    "extract_boxes": (["bench_kit/scoring/extract/boxes.py"],
                      ["tests/scoring/test_extract.py", "tests/scoring/test_extract_boxes_mutants.py",
                       "tests/test_doctests.py"]),
    "extract_options": (["bench_kit/scoring/extract/option_statements.py",
                         "bench_kit/scoring/extract/no_option_statements.py",
                         "bench_kit/scoring/extract/option_values.py",
                         "bench_kit/scoring/extract/set_aside_options.py"],
                        ["tests/scoring/test_extract.py", "tests/scoring/test_extract_mutants.py",
                         "tests/scoring/test_extract_options_mutants.py", "tests/test_doctests.py"]),
    "extract_numbers": (["bench_kit/scoring/extract/numbers.py",
                         "bench_kit/scoring/extract/prose_number.py",
                         "bench_kit/scoring/extract/number_refusals.py",
                         "bench_kit/scoring/extract/expression_parts.py",
                         "bench_kit/scoring/extract/written_twice.py",
                         "bench_kit/scoring/extract/answer_part.py",
                         "bench_kit/scoring/extract/stated_number.py",
                         "bench_kit/scoring/extract/clause_number.py"],
                        ["tests/scoring/test_extract.py",
                         "tests/scoring/test_extract_numbers_mutants.py",
                         "tests/scoring/test_numbers_review_probes.py", "tests/test_doctests.py"]),
    # the truncated / looping rules of every answer family: each family's pins
    "extract_truncation": (["bench_kit/scoring/extract/truncation.py"],
                           ["tests/scoring/test_extract.py", "tests/scoring/test_extract_mutants.py",
                            "tests/scoring/test_extract_options_mutants.py",
                            "tests/scoring/test_extract_numbers_mutants.py",
                            "tests/scoring/test_numbers_review_probes.py",
                            "tests/scoring/test_metrics_answers_mutants.py",
                            "tests/scoring/test_extract_truncation_mutants.py",
                            "tests/test_doctests.py"]),
    "extract_yesno": (["bench_kit/scoring/extract/yesno.py",
                       "bench_kit/scoring/extract/yesno_negation.py",
                       "bench_kit/scoring/extract/yesno_declines.py",
                       "bench_kit/scoring/extract/existence.py"],
                      ["tests/scoring/test_extract.py", "tests/scoring/test_yesno_review_probes.py",
                       "tests/scoring/test_extract_yesno_mutants.py", "tests/scoring/test_yesno_hedges.py",
                       "tests/test_doctests.py"]),
    "extract_option_texts": (["bench_kit/scoring/extract/option_texts.py",
                              "bench_kit/scoring/extract/reworded_option.py"],
                             ["tests/scoring/test_extract.py", "tests/scoring/test_extract_mutants.py",
                              "tests/scoring/test_extract_option_texts_mutants.py",
                              "tests/test_doctests.py"]),
    "extract_restatement": (["bench_kit/scoring/extract/restatement.py",
                             "bench_kit/scoring/extract/named_answer.py",
                             "bench_kit/scoring/extract/question_asked.py",
                             "bench_kit/scoring/extract/contrasted_subjects.py"],
                            ["tests/scoring/test_extract.py", "tests/scoring/test_yesno_review_probes.py",
                             "tests/scoring/test_extract_options_mutants.py",
                             "tests/scoring/test_extract_restatement_mutants.py",
                             "tests/test_doctests.py"]),
    "extract_answers": (["bench_kit/scoring/extract/answers.py",
                         "bench_kit/scoring/extract/choice_clause.py",
                         "bench_kit/scoring/extract/fast_choice.py"],
                        ["tests/scoring/test_extract.py", "tests/scoring/test_extract_fast.py",
                         "tests/scoring/test_extract_mutants.py",
                         "tests/scoring/test_scoring_boundaries.py",
                         "tests/scoring/test_mc_review_probes.py",
                         "tests/scoring/test_extract_answers_mutants.py", "tests/test_doctests.py"]),
    "extract_yesno_options": (["bench_kit/scoring/extract/yesno_options.py"],
                              ["tests/scoring/test_extract.py",
                               "tests/scoring/test_mc_review_probes.py",
                               "tests/scoring/test_extract_yesno_options_mutants.py",
                               "tests/test_doctests.py"]),
    # the rules of the session of 2026-12-02 (fifth) in files of their own, one target each
    # (question_replies.py holds patterns only, no function: mutmut 3 plants nothing there;
    # tests/scoring/test_extract_question_replies_mutants.py pins its words one by one)
    "extract_prompt_echo": (["bench_kit/scoring/extract/prompt_echo.py"],
                            ["tests/scoring/test_extract.py", "tests/scoring/test_prompt_echo.py",
                             "tests/scoring/test_mc_review_probes.py",
                             "tests/scoring/test_extract_prompt_echo_mutants.py",
                             "tests/test_doctests.py"]),
    "extract_concluded_verdict": (["bench_kit/scoring/extract/concluded_verdict.py"],
                                  ["tests/scoring/test_extract.py",
                                   "tests/scoring/test_yesno_review_probes.py",
                                   "tests/scoring/test_extract_prose_mutants.py",
                                   "tests/scoring/test_extract_concluded_verdict_mutants.py",
                                   "tests/test_doctests.py"]),
    "extract_numbered_statements": (["bench_kit/scoring/extract/numbered_statements.py"],
                                    ["tests/scoring/test_extract.py",
                                     "tests/scoring/test_mc_review_probes.py",
                                     "tests/scoring/test_extract_numbered_statements_mutants.py",
                                     "tests/test_doctests.py"]),
    "prior": (["bench_kit/models/adapters/prior.py"],
              ["tests/models/test_prior.py", "tests/models/test_prior_boundaries.py"]),
    "idf": (["bench_kit/text/idf.py"], ["tests/text/test_idf.py", "tests/test_doctests.py"]),
    "exchange": (["bench_kit/exchange/importers.py"],
                 ["tests/exchange/test_import_export.py", "tests/exchange/test_import_quirks.py",
                  "tests/exchange/test_import_boundaries.py"]),
    # the fast tests only: tests/audit/test_audit_planted.py and test_audit_quality.py run a
    # whole audit per test (5-12 s a mutant); their kills come on top of these
    "text_checks": (["bench_kit/audit/text_checks.py"],
                    ["tests/audit/test_audit_text.py", "tests/audit/test_audit_labels.py",
                     "tests/audit/test_audit_dirty.py", "tests/audit/test_text_label_boundaries.py",
                     "tests/test_doctests.py"]),
    "label_checks": (["bench_kit/audit/label_checks.py"],
                     ["tests/audit/test_audit_labels.py", "tests/audit/test_audit_text.py",
                      "tests/audit/test_text_label_boundaries.py", "tests/test_doctests.py"]),
    "deixis": (["bench_kit/authoring/deixis.py"],
               ["tests/authoring/test_deixis.py", "tests/authoring/test_deixis_boundaries.py"]),
    "answerability": (["bench_kit/authoring/answerability.py"],
                      ["tests/authoring/test_deixis.py",
                       "tests/authoring/test_deixis_boundaries.py"]),
    "transport": (["bench_kit/models/transport.py"],
                  ["tests/models/test_transport_boundaries.py", "tests/models/test_transport_tls.py",
                   "tests/models/test_transport_decoding.py",
                   "tests/models/test_hostile_replies.py", "tests/models/test_connection_failures.py",
                   "tests/models/test_adapters_http.py"]),
    "tabular": (["bench_kit/exchange/tabular.py"],
                ["tests/exchange/test_tabular_boundaries.py", "tests/exchange/test_import_export.py",
                 "tests/exchange/test_import_quirks.py", "tests/exchange/test_import_boundaries.py",
                 "tests/exchange/test_real_fixtures.py", "tests/exchange/test_gold_typing.py",
                 "tests/exchange/test_real_benchmarks.py"]),
    "contamination": (["bench_kit/audit/contamination.py",
                       "bench_kit/audit/contamination_specific.py",
                       "bench_kit/audit/contamination_judge.py"],
                      ["tests/audit/test_contamination_boundaries.py",
                       "tests/audit/test_contamination_text_edges.py",
                       "tests/audit/test_contamination_rephrase_boundaries.py",
                       "tests/audit/test_contamination_embed_boundaries.py",
                       "tests/audit/test_contamination_judge_boundaries.py",
                       "tests/audit/test_contamination.py", "tests/test_doctests.py"]),
    # fast tests only (hand-given vectors and hashes): the end-to-end audits of
    # test_contamination.py and test_audit_rephrase.py take 5-140 s each
    "contamination_rephrase": (["bench_kit/audit/contamination_rephrase.py"],
                               ["tests/audit/test_contamination_rephrase_boundaries.py",
                                "tests/audit/test_contamination_boundaries.py",
                                "tests/audit/test_contamination_text_edges.py",
                                "tests/test_doctests.py"]),
    "contamination_embed": (["bench_kit/audit/contamination_embed.py"],
                            ["tests/audit/test_contamination_embed_boundaries.py",
                             "tests/audit/test_contamination_embed_parts.py"]),
    "contamination_images": (["bench_kit/audit/contamination_images.py"],
                             ["tests/audit/test_contamination_images_boundaries.py"]),
}
# pytest arguments of one target: the timing tests of the extractors take seconds to
# minutes each and kill nothing a case table does not (their kills would be timeouts)
PYTEST_ARGS = ["-p", "no:cacheprovider", "-m", "not slow", "-q"]
EXTRA_ARGS: dict[str, list[str]] = {
    "extract": ["-k", "not pathological and not twice_the_length"],
    "extract_prose": ["-k", "not pathological and not twice_the_length"],
    "extract_boxes": ["-k", "not pathological and not twice_the_length"],
    "extract_options": ["-k", "not pathological and not twice_the_length"],
    "extract_numbers": ["-k", "not pathological and not twice_the_length"],
    "extract_truncation": ["-k", "not pathological and not twice_the_length"],
    "extract_yesno": ["-k", "not pathological and not twice_the_length"],
    "extract_option_texts": ["-k", "not pathological and not twice_the_length"],
    "extract_restatement": ["-k", "not pathological and not twice_the_length"],
    "extract_answers": ["-k", "not pathological and not twice_the_length"],
    "extract_yesno_options": ["-k", "not pathological and not twice_the_length"],
    "extract_prompt_echo": ["-k", "not pathological and not twice_the_length"],
    "extract_concluded_verdict": ["-k", "not pathological and not twice_the_length"],
    "extract_numbered_statements": ["-k", "not pathological and not twice_the_length"],
    # the small demo (11 s) covers every function: its kills come on top of these
    "deixis": ["-k", "not small_demo"],
    "answerability": ["-k", "not small_demo"],
    # a gzip bomb (20 s) and a drip-feeding server (2 s a call) are the deadline's and the
    # cap's end-to-end tests; test_transport_boundaries.py pins both rules on their own
    "transport": ["-k", "not gzip_bomb and not drip_feeding"],
    # the end-to-end audits of test_contamination.py (5-80 s each, embeddings and all) are
    # left out: their kills come on top of these
    "contamination": ["-k", "not every_planted and not thresholds_come_from_params and not "
                            "second_audit and not judge_decides and not review_band_without "
                            "and not settings_are_validated"],
}
# copied beside the mutants: the package, the tests and the files tests read
# (benchmarks/: tests/scoring/test_extract_fast.py imports its corpus generator)
ALSO_COPY = ("bench_kit/", "tests/", "benchmarks/", "docs/", "datasets/", "params.yaml",
             "dvc.yaml", "README.md", "pyproject.toml")
# A pytest plugin written beside the mutants (`-p` below): every functools cache of the
# package emptied before each test. mutmut 3 runs the stats and the clean tests in its own
# process and forks each mutant's run from it, so a cache filled there (an lru_cache'd
# pattern, a TLS context) answered every mutant with the original code's result: the
# mutants of a cached function could not be killed, and the stats mapped such a function
# only to the first test that filled each cache entry.
CACHE_RESET = "mutation_cache_reset"
# A module's plain-dict caches are emptied too when it lists them in `RESETTABLE_CACHES`
# (response.py's shared extractions).
CACHE_RESET_SOURCE = '''"""Empties every functools cache of bench_kit, and the dicts a module lists in
RESETTABLE_CACHES, before each test (benchmarks/mutation.py)."""
import functools
import sys


def pytest_runtest_setup(item):
    for name, module in list(sys.modules.items()):
        if name == "bench_kit" or name.startswith("bench_kit."):
            for value in list(vars(module).values()):
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()
            for cache in getattr(module, "RESETTABLE_CACHES", ()):
                cache.clear()
'''
RESULT = re.compile(r"^\s*(bench_kit\.[\w.]+?)\.x\w*?__mutmut_\d+: (\w+)", re.M)


def _copy(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split("\n")
    for rel in filter(None, files):
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


# decorators mutmut handles itself (it mutates these methods) or that must stay on the def
_KEEP_DECORATORS = ("staticmethod", "classmethod", "property")


def undecorate(path: Path) -> int:
    """Rewrite the file's decorated top-level functions as `name = decorator(name)` after
    the def (the same function, registered the same way), so that mutmut mutates their
    bodies: mutmut 3 skips every decorated function (`@check`, `@IMPORTERS.register`,
    `@functools.cache` …). Returns how many functions were rewritten."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    edits = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.decorator_list:
            continue
        names = [ast.unparse(d) for d in node.decorator_list]
        if any(n in _KEEP_DECORATORS for n in names):
            continue
        call = node.name
        for decorator in reversed(names):  # the one nearest the def applies first
            call = f"{decorator}({call})"
        first = node.decorator_list[0].lineno - 1
        edits.append((first, node.lineno - 1, node.end_lineno, f"{node.name} = {call}\n"))
    for first, def_line, end, assignment in reversed(edits):
        lines[end:end] = ["\n", assignment]
        del lines[first:def_line]
    path.write_text("".join(lines), encoding="utf-8")
    return len(edits)


def run_target(name: str, scratch: Path, without: tuple[str, ...] = (),
               mutants: tuple[str, ...] = ()) -> tuple[Counter, str]:
    """Run mutmut on one target in `scratch`; (module, status) counts and the listing.
    Test files in `without` are deleted from the copy (a 'before' measurement); `mutants`
    (mutant name patterns, "bench_kit.scoring.extract.clause_number.*") runs only those."""
    paths, tests = TARGETS[name]
    folder = scratch / name
    folder.mkdir(parents=True)
    _copy(folder)
    for rel in paths:
        for source in sorted((folder / rel).rglob("*.py") if rel.endswith("/") else
                             [folder / rel]):
            undecorate(source)
    for rel in without:
        (folder / rel).unlink(missing_ok=True)
    tests = [t for t in tests if t not in without and (folder / t).exists()]
    (folder / f"{CACHE_RESET}.py").write_text(CACHE_RESET_SOURCE, encoding="utf-8")
    (folder / "setup.cfg").write_text(
        "[mutmut]\nsource_paths=\n" + "".join(f"    {p}\n" for p in paths)
        + "pytest_add_cli_args_test_selection=\n" + "".join(f"    {t}\n" for t in tests)
        # the whole package and the tests beside the mutated files, so that imports of
        # other modules (bench_kit.cli, tests/conftest.py) resolve inside the copy
        + "also_copy=\n" + "".join(f"    {p}\n" for p in (*ALSO_COPY, f"{CACHE_RESET}.py")
                                    if (folder / p).exists())
        # one argument a line: mutmut splits this list on newlines only
        + "pytest_add_cli_args=\n" + "".join(f"    {a}\n" for a in PYTEST_ARGS
                                              + ["-p", CACHE_RESET]
                                              + EXTRA_ARGS.get(name, [])))
    subprocess.run([str(MUTMUT), "run", "--max-children", "2", *mutants], cwd=folder,
                   capture_output=True, check=False)
    listing = subprocess.run([str(MUTMUT), "results", "--all", "true"], cwd=folder,
                             capture_output=True, text=True, check=False).stdout
    if mutants:  # the mutants not asked for are listed as "not checked": not counted
        listing = "\n".join(line for line in listing.splitlines() if "not checked" not in line)
    return Counter(RESULT.findall(listing)), listing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(TARGETS),
                        help=f"comma-separated targets (known: {', '.join(TARGETS)})")
    parser.add_argument("--survivors", action="store_true", help="list surviving mutants")
    parser.add_argument("--without", default="",
                        help="comma-separated test files left out (to measure 'before')")
    parser.add_argument("--mutants", default="",
                        help="comma-separated mutant name patterns to run, not the whole "
                             "target (bench_kit.scoring.extract.clause_number.*)")
    parser.add_argument("--keep", default=None,
                        help="scratch folder to keep (default: a temp folder, removed)")
    args = parser.parse_args()
    scratch = Path(args.keep or tempfile.mkdtemp(prefix="bench-kit-mutation-"))
    print("| module | killed | survived | other | total | score |")
    print("|---|---:|---:|---:|---:|---:|")
    survivors = []
    for name in args.only.split(","):
        counts, listing = run_target(name, scratch, tuple(filter(None, args.without.split(","))),
                                     tuple(filter(None, args.mutants.split(","))))
        for module in sorted({m for m, _ in counts}):
            killed, survived = counts[(module, "killed")], counts[(module, "survived")]
            total = sum(n for (m, _), n in counts.items() if m == module)
            other = total - killed - survived  # timeouts, suspicious, no tests
            print(f"| {module} | {killed} | {survived} | {other} | {total} | "
                  f"{killed / total:.1%} |")
        survivors += [line.strip() for line in listing.splitlines() if "survived" in line]
    if args.survivors:
        print("\n".join(["", "survivors:", *survivors]))
    print(f"\nscratch folder: {scratch}")
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
