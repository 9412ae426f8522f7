"""Helpers and test doubles shared by test modules (tests/ is on sys.path: conftest.py)."""
