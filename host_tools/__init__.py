"""PC-side tools for the Spit referee (flash, enroll, replay, sim) and the virtual board."""
