"""Agents for smoke tests, references and benchmarks: oracle, do-nothing, random."""
