"""``spit sim``: a Spit table with no hardware.

* :mod:`host_tools.sim.game`  -- the physical table: decks, stocks, spit piles, center piles, an LCG.
* :mod:`host_tools.sim.bots`  -- two bot players with a reaction-time model.
* :mod:`host_tools.sim.run`   -- the event loop: bots + sensor model -> referee (engine or firmware), the log, stats.
* :mod:`host_tools.sim.reactions` -- the players obeying the referee's verdicts (mixed into ``run.Sim``).
* :mod:`host_tools.sim.claims` -- quantify the rule documents' claims (ace-only link, three piles).

``game``, ``bots``, ``run`` and ``reactions`` (fast mode) are plain Python that also runs under the
MicroPython unix port; the same seed gives the same game on both interpreters.
"""
