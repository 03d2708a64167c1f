"""Text helpers shared by every stage: normalisation, tokens, CJK, numbers, edit distance.

A base module: it imports nothing from bench_kit but other `bench_kit.text` modules.
"""
