"""Programmatic rewards: judge-free scores of an episode against its task."""
