"""Kata stubs: the modules a learner edits."""
