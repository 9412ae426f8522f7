# Spit referee, run at boot: referee/boot.py (this stays source; the rest is .mpy).
from referee.boot import run, start  # noqa: F401

if __name__ == "__main__":
    run()
