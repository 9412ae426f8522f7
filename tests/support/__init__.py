"""Helpers shared by test modules (tests/ is on sys.path: conftest.py)."""
