"""`spit play`: an emulated table two people can play on at one keyboard (docs/getting-started.md).

``table``: the table model with people's hands instead of bots (``PlayTable``); ``hardware``: what
the board shows (LED zones, the buzzer's sounds as words) on the virtual board or the emulated
Pico; ``screen``: the terminal picture; ``keys``: the keyboard map.  ``host_tools/cli/play.py``
runs it in a terminal.
"""
