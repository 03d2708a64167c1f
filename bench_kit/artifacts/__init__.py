"""The contract of every file that crosses a stage: where it lives (`paths`), its
`format_version` (`versions`), the one typed row reader (`rows`) and the typed readers
and writers of each kind of file (`tables`, `predictions`, `exclusions`).

docs/ARTIFACTS.md lists the files, their versions and what each version changed.
Submodules are imported explicitly (`from bench_kit.artifacts.rows import iter_models`);
this package imports nothing, so the base modules can use it without cycles.
"""
