"""Dependency-graph task synthesis (to come: see docs/architecture.md)."""
