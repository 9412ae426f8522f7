"""Shared by several test modules (moved from test_replay.py)."""

import io
import sys
from host_tools import cli  # noqa: E402


def run(argv):
    """Run the CLI in-process; returns (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = cli.main(argv)
    except SystemExit as e:
        code = e.code
    finally:
        sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()
