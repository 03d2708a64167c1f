"""bench_kit: build, audit, version and evaluate vision-language-model benchmarks."""

__version__ = "0.1.0"
