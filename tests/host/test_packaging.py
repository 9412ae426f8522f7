"""The wheel `pip install` makes: every host_tools package in it, and its commands run from it.

Built from the checkout as pip builds it (setuptools in an isolated build environment), unpacked into a temporary
folder and run from there with nothing of the checkout on the path.
"""
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def wheel_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    src = out / "src"
    skip = shutil.ignore_patterns("node_modules", "__pycache__", "*.pyc")
    shutil.copytree(os.path.join(ROOT, "host_tools"), src / "host_tools", ignore=skip)
    shutil.copytree(os.path.join(ROOT, "firmware", "lib", "spit"), src / "firmware" / "lib" / "spit", ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                        "-w", str(out), str(src)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    wheels = [f for f in os.listdir(out) if f.endswith(".whl")]
    assert len(wheels) == 1, wheels
    unpacked = out / "site"
    with zipfile.ZipFile(out / wheels[0]) as z:
        z.extractall(unpacked)
    return unpacked


def _packages_in_tree():
    found = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, "host_tools")):
        dirnames[:] = [d for d in dirnames if d not in ("node_modules", "__pycache__")]
        if "__init__.py" in filenames:
            found.append(os.path.relpath(dirpath, ROOT).replace(os.sep, "/"))
    return sorted(found)


def test_wheel_holds_every_host_tools_package_and_the_engine(wheel_dir):
    for pkg in _packages_in_tree() + ["spit"]:
        assert (wheel_dir / pkg / "__init__.py").is_file(), "%s is missing from the wheel" % pkg
    for name in ("emu.js", "package.json", "package-lock.json"):
        assert (wheel_dir / "host_tools" / "rp2emu" / name).is_file(), name


@pytest.mark.parametrize("command", [["--help"], ["emu", "--help"], ["replay", "--help"]])
def test_commands_run_from_the_installed_wheel(wheel_dir, tmp_path, command):
    env = dict(os.environ, PYTHONPATH=str(wheel_dir))
    r = subprocess.run([sys.executable, "-m", "host_tools"] + command, cwd=str(tmp_path), env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "usage: spit" in r.stdout
