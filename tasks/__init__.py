"""Task schema, JSONL loading, ground-truth execution and the shipped task sets."""
