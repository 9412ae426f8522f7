"""``spit league``: games kept in SQLite, players rated with openskill (Plackett-Luce, one player a
team, 1 v 1), standings.

Each game is a session log re-judged by the referee's engine (``spit stats``' numbers): who played
(the header's names, or ``--players``), who won, rounds and races won.  A log is one game, known
by the hash of its text, so adding it again changes nothing.  The ratings are computed from all
games in the order they were played (the header's ``started``, else the order they were added):
a win ranks the winner first, a draw ranks both equal, an unfinished game is not rated.  A rating
is a skill estimate ``mu`` with its uncertainty ``sigma``; standings sort by the conservative
``ordinal`` (mu - 3 sigma, openskill's own).  A rating is "provisional" until it settles:
fewer than ``PROVISIONAL_GAMES`` rated games, or ``sigma`` above ``PROVISIONAL_SIGMA``.  Rounds and
races won are shown apart, as extra signal, and never enter the rating.
"""

import hashlib
import sqlite3

PROVISIONAL_GAMES = 5
PROVISIONAL_SIGMA = 7.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,          -- sha256 of the log's text
    added INTEGER NOT NULL,       -- the order games were added
    log TEXT, started TEXT, ruleset TEXT,
    player0 TEXT NOT NULL, player1 TEXT NOT NULL,
    winner INTEGER,               -- 0 or 1 (seat), -1 a draw, NULL not finished
    reason TEXT,
    rounds0 INTEGER, rounds1 INTEGER,
    races0 INTEGER, races1 INTEGER  -- NULL: the log does not say who played each card
);
"""


def model():
    from openskill.models import PlackettLuce
    return PlackettLuce()


def game_id(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class League:
    def __init__(self, path):
        self.db = sqlite3.connect(path)
        self.db.executescript(SCHEMA)

    def close(self):
        self.db.close()

    def add(self, gid, row):
        """Add one game (``row``: ``spit stats``' per-game dict); False if it was there already."""
        if self.db.execute("SELECT 1 FROM games WHERE id = ?", (gid,)).fetchone():
            return False
        added = self.db.execute("SELECT COALESCE(MAX(added), 0) + 1 FROM games").fetchone()[0]
        players = row["players"]
        winner = row["winner"]
        seat = None if winner is None else -1 if winner == "draw" else players.index(winner)
        races = row.get("races_won") or [None, None]
        self.db.execute("INSERT INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        (gid, added, row.get("log"), row.get("started"), row.get("ruleset"), players[0], players[1],
                         seat, row.get("reason"), row["rounds_won"][0], row["rounds_won"][1], races[0], races[1]))
        self.db.commit()
        return True

    def games(self):
        """Every game, in the order played: ``started`` where the log has it, else added."""
        rows = self.db.execute("SELECT started, added, player0, player1, winner, rounds0, rounds1, races0, races1 "
                               "FROM games").fetchall()
        return sorted(rows, key=lambda r: (r[0] or "", r[1]))

    def standings(self):
        """``[dict]`` best first: name, mu, sigma, ordinal, provisional, games, won, lost, drawn and the
        extra signal apart (rounds won, races won or None)."""
        m = model()
        ratings, table = {}, {}

        def entry(name):
            if name not in table:
                ratings[name] = m.rating(name=name)
                table[name] = {"name": name, "games": 0, "won": 0, "lost": 0, "drawn": 0, "unfinished": 0,
                               "rounds_won": 0, "races_won": None}
            return table[name]
        for _started, _added, p0, p1, winner, r0, r1, x0, x1 in self.games():
            e0, e1 = entry(p0), entry(p1)
            for e, r, x in ((e0, r0, x0), (e1, r1, x1)):
                e["rounds_won"] += r or 0
                if x is not None:
                    e["races_won"] = (e["races_won"] or 0) + x
            if winner is None:
                e0["unfinished"] += 1
                e1["unfinished"] += 1
                continue
            ranks = [1, 1] if winner < 0 else [1, 2] if winner == 0 else [2, 1]
            [[a], [b]] = m.rate([[ratings[p0]], [ratings[p1]]], ranks=ranks)
            ratings[p0], ratings[p1] = a, b
            for e, result in ((e0, ranks[0] - ranks[1]), (e1, ranks[1] - ranks[0])):
                e["games"] += 1
                e["won" if result < 0 else "lost" if result > 0 else "drawn"] += 1
        out = []
        for name, e in table.items():
            r = ratings[name]
            e.update(mu=r.mu, sigma=r.sigma, ordinal=r.ordinal(),
                     provisional=e["games"] < PROVISIONAL_GAMES or r.sigma > PROVISIONAL_SIGMA)
            out.append(e)
        out.sort(key=lambda e: (-e["ordinal"], e["name"]))
        return out
