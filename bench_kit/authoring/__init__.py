"""bench_kit.authoring."""
