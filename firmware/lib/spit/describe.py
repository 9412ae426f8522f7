"""Names of the engine's small-int LED ids (spit.intents, spit.referee), for tools and tests
(a pattern's name is its LED effect's: host_tools/vboard/led_readout.py ``pattern_name``).

Host tools use it; the referee never imports it.
"""

ZONE_NAMES = ("pile0", "pile1", "pile2", "spit", "player0", "player1", "result")
COLOUR_NAMES = ("off", "green", "red", "orange", "purple", "blue", "white", "yellow", "cyan", "magenta")
