# Spit referee: MicroPython runs /main.py at boot (it stays source; the rest is .mpy).
# Everything lives in referee/boot.py: start() boots, run() boots and referees forever.
from referee.boot import run, start  # noqa: F401

if __name__ == "__main__":
    run()
