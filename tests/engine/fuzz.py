"""Random event streams for the property tests (deterministic: same streams on every Python)."""

from spit.referee import Referee, PH_OVER
from spit.rules import make_ruleset
from spit.verdicts import REASON_NAMES

_RULESETS = (
    ("classic", None),
    ("tableau", None),
    ("family", {"stocks": 4, "colours": "alternate"}),
    ("own_deck", None),
    ("speed", None),
    ("classic", {"piles": 3, "jokers": 2, "joker_next": "as_below"}),
    ("classic", {"wrap": "ace_only", "slow_spit_ms": 2000, "slap": "choose"}),
    ("tableau", {"points_target": 30, "timer_ms": 20000, "rounds_in_a_row": 2}),
)
_COUNTS = ((26, 26), (10, 42), (3, 49), (16, 36))


class Rng:
    def __init__(self, seed):
        self.s = seed & 0x7FFFFFFF

    def below(self, n):
        self.s = (self.s * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.s >> 8) % n


class Checksum:
    """A verdict sink that folds every verdict into one small int (no per-verdict storage)."""

    def __init__(self):
        self.h = 17
        self.n = 0

    def __call__(self, code, ms, us, a, b, c, d):
        h = self.h
        for x in (code, ms, us, a, b, c, d):
            h = (h * 31 + x) & 0x3FFFFFFF
        self.h = h
        self.n += 1


def outcome(ref):
    """``None`` while ``ref``'s game runs, else ``(winner, reason name)`` (winner -1: a draw)."""
    if ref.phase != PH_OVER:
        return None
    return (ref.winner, REASON_NAMES[ref.over_reason])


def run_stream(seed, n_events=60):
    """Feed one random stream; returns (checksum, verdict count)."""
    rng = Rng(seed)
    name, options = _RULESETS[rng.below(len(_RULESETS))]
    rules = make_ruleset(name, options)
    counts = _COUNTS[rng.below(len(_COUNTS))]
    if rules.mode != 0:
        counts = None
    sink = Checksum()
    ref = Referee(rules, counts, sink)
    t = 0
    npiles = rules.piles
    for _ in range(n_events):
        t += rng.below(400000)
        jitter = rng.below(250000) if rng.below(5) == 0 else 0
        ev_t = t - jitter if t > jitter else 0
        ms = ev_t // 1000
        us = ev_t % 1000
        k = rng.below(100)
        pile = rng.below(npiles + 1) if rng.below(20) == 0 else rng.below(npiles)
        player = rng.below(2) if rng.below(10) else rng.below(4) - 1
        if k < 50:
            card = (rng.below(4) << 4) | (1 + rng.below(13))
            r = rng.below(40)
            if r == 0:
                card = 0          # a joker (legal only with jokers on)
            elif r == 1:
                card = 14 + rng.below(100)   # not a card at all
            ref.feed(2, ms, us, pile, card, player if rng.below(3) else -1)
        elif k < 65:
            ref.feed(1, ms, us, pile, 0, 0)
        elif k < 76:
            ref.feed(3, ms, us, player, 0, 0)
        elif k < 84:
            ref.feed(4, ms, us, player, pile, 0)
        elif k < 89:
            ref.feed(5, ms, us, player, 0, 0)
        elif k < 93:
            ref.feed(8, ms, us, player, rng.below(40) - 2, 0)
        elif k < 96:
            ref.feed(6, ms, us, pile, 0, 0)
        elif k < 98:
            ref.feed(7, ms, us, pile, (rng.below(4) << 4) | (1 + rng.below(13)), 0)
        else:
            ref.advance(ms, us)
    ref.flush()
    return sink.h, sink.n


def _many(run, first_seed, count, size):
    """``run(seed, size)`` for ``count`` seeds; returns a checksum over all of them and the
    verdict total."""
    h = 0
    total = 0
    for seed in range(first_seed, first_seed + count):
        s, n = run(seed, size)
        h = (h * 1000003 + s) & 0x3FFFFFFF
        total += n
    return h, total


def run_many(first_seed, count, n_events=60):
    """Run ``count`` random streams (``run_stream``)."""
    return _many(run_stream, first_seed, count, n_events)


# --- random log lines through the re-judge (spit.log): bad input must become error verdicts ---

_BAD_INTS = ("-1", "2147483648000", "2147483647", "1099511627776", "-1099511627776", "4294967296",
             "1e3", "1.5", "true", "false", "null", "\"0\"", "[0]", "{}", "123456789012345678901234567890")
_EVENTS = ("touch", "card", "stuck", "slap", "ready", "undo", "top", "answer", "tick", "bogus")
_CODES = ("\"AS\"", "\"10H\"", "\"JK\"", "\"ZZ\"", "5", "[\"AS\"]", "null", "\"\"", "{\"a\": 1}")
_HEADERS = (
    '{"spitlog": 1, "ruleset": "classic"}',
    '{"spitlog": 1, "ruleset": "classic", "options": {"piles": 3, "jokers": 2}}',
    '{"spitlog": 1, "ruleset": ["classic"]}',
    '{"spitlog": 1, "ruleset": {}}',
    '{"spitlog": 1, "ruleset": 7}',
    '{"spitlog": true}',
    '{"spitlog": 2}',
    '{"spitlog": 1, "options": [1, 2]}',
    '{"spitlog": 1, "options": {"piles": 4294967296}}',
    '{"spitlog": 1, "options": {"wrap": ["both"]}}',
    '{"spitlog": 1, "counts": [26, 1099511627776]}',
    '{"spitlog": 1, "counts": {"a": 1}}',
    '{"t": 1000, "ev": "stuck", "player": 0}',
    '{"hello": "world"}',
    '[1, 2, 3]',
    'not json at all',
)


def _int_text(rng, good_max):
    if rng.below(6) == 0:
        return _BAD_INTS[rng.below(len(_BAD_INTS))]
    return str(rng.below(good_max))


def _log_line(rng, t, deep_max):
    k = rng.below(40)
    if k == 0:
        return "[" * (1 + rng.below(deep_max))                # deep nesting
    if k == 1:
        return '{"t": %d, "ev": "card", "pile": %s}' % (t, "[" * 50 + "]" * 50)
    if k == 2:
        return "garbage %d" % rng.below(1000)
    if k == 3:
        return '{"t": %d, "verdict": "accept", "pile": 0, "card": "AS"}' % t
    ev = _EVENTS[rng.below(len(_EVENTS))]
    t_text = _int_text(rng, 1) if rng.below(12) == 0 else str(t)
    parts = ['"t": %s' % t_text, '"ev": "%s"' % ev]
    for field in ("pile", "player", "value"):
        if rng.below(3):
            parts.append('"%s": %s' % (field, _int_text(rng, 3)))
    if rng.below(2):
        parts.append('"card": %s' % (_CODES[rng.below(len(_CODES))] if rng.below(4) == 0 else
                                     '"%s%s"' % ("A23456789TJQK"[rng.below(13)], "CDHS"[rng.below(4)])))
    return "{" + ", ".join(parts) + "}"


def _fold_text(h, text):
    for ch in text:
        h = (h * 31 + ord(ch)) & 0x3FFFFFFF
    return h


def run_log(seed, n_lines=40, deep_max=3000):
    """Re-judge one random log (bad headers, out-of-range ints, wrong JSON types, nesting up to
    ``deep_max`` deep); returns (checksum over the verdict lines, verdict count)."""
    from spit.log import rejudge
    from spit.words import items_json
    rng = Rng(seed)
    lines = []
    if rng.below(4):
        lines.append(_HEADERS[rng.below(len(_HEADERS))])
    if rng.below(5) == 0:
        lines.append(_HEADERS[rng.below(2)])   # a real header after a bad first line
    t = 0
    for _ in range(n_lines):
        t += rng.below(300000)
        lines.append(_log_line(rng, t, deep_max))
    r = rejudge(lines)
    h = 17
    for line_no, items in r.verdicts:
        h = _fold_text((h * 31 + line_no) & 0x3FFFFFFF, items_json(items))
    return h, len(r.verdicts)


def run_logs(first_seed, count, n_lines=40, deep_max=3000):
    h = 0
    total = 0
    for seed in range(first_seed, first_seed + count):
        s, n = run_log(seed, n_lines, deep_max)
        h = (h * 1000003 + s) & 0x3FFFFFFF
        total += n
    return h, total


# --- play-heavy streams: what the per-landing path sees, checked verdict for verdict ---

def _fold_intents(h, intents):
    for z in range(7):
        h = (h * 31 + intents.color[z] * 8 + intents.pattern[z]) & 0x3FFFFFFF
        h = (h * 31 + intents.until_ms[z]) & 0x3FFFFFFF
    return (h * 31 + intents.dirty * 64 + intents.changes) & 0x3FFFFFFF


def _play_card(rng, ref, pile):
    """Mostly a card one rank up or down from the pile's top, sometimes any card or a joker."""
    top = ref.top_rank[pile]
    if rng.below(4) and top > 0:
        rank = (top + (1 if rng.below(2) else 11)) % 13 + 1
    else:
        rank = 1 + rng.below(13)
    return 0 if rng.below(30) == 0 else 16 * rng.below(4) + rank


def play_stream(seed, n_landings=80):
    """One game fed as the device feeds it, on every preset: landings (a touch edge, then its
    read 2-40 ms later; sometimes no touch, a landing on another pile in between, two tags in
    one activation, or a missed read), mostly cards that fit the pile's top, quiet reports,
    STUCK/slaps/READY/answers/undo/top now and then, the loop's advance between, and session
    times that start up to 13 minutes in (the intake moves its time base on the way).  Returns
    a checksum over the verdicts, the LED intents after every call and ``outcome()``, and the
    verdict count: two versions of the engine that agree on it judge these streams alike."""
    from spit.intents import LedIntents
    rng = Rng(seed)
    name, options = _RULESETS[rng.below(len(_RULESETS))]
    rules = make_ruleset(name, options)
    counts = None if rules.mode != 0 else _COUNTS[rng.below(len(_COUNTS))]
    intents = LedIntents()
    sink = Checksum()
    ref = Referee(rules, counts, sink, intents)
    npiles = rules.piles
    t = rng.below(4) * 200000000 + rng.below(1000)   # us
    h = 17
    gap = (1000, 30000, 200000)[rng.below(3)]   # dense, quick or calm play
    for _ in range(n_landings):
        t += rng.below(gap) + 200
        ms = t // 1000
        us = t % 1000
        pile = rng.below(npiles)
        k = rng.below(100)
        if k < 3:
            ref.feed(3, ms, us, rng.below(2), 0, 0)                    # stuck
        elif k < 4:
            ref.feed(4, ms, us, rng.below(2), pile, 0)                 # slap
        elif k < 8:
            ref.feed(5, ms, us, rng.below(2), 0, 0)                    # ready
        elif k < 9:
            ref.feed(6, ms, us, pile, 0, 0)                            # undo
        elif k < 10:
            ref.feed(7, ms, us, pile, 16 * rng.below(4) + 1 + rng.below(13), 0)   # top
        elif k < 11:
            ref.feed(8, ms, us, rng.below(2), rng.below(12), 0)       # answer
        else:
            card = _play_card(rng, ref, pile)
            player = rng.below(2) if rules.mode == 1 or rng.below(8) == 0 else -1
            if rng.below(8):
                ref.feed(1, ms, us, pile, 0, 0)
            r = t + 2000 + rng.below(38000)
            other = -1
            r2 = 0
            if rng.below(3) == 0:   # a landing on another pile before this read
                other = rng.below(npiles)
                t2 = t + rng.below(3000)
                r2 = t2 + 2000 + rng.below(38000)
                ref.feed(1, t2 // 1000, t2 % 1000, other, 0, 0)
                if r2 < r:
                    ref.feed(2, r2 // 1000, r2 % 1000, other, _play_card(rng, ref, other), player)
            if rng.below(25):   # (else the read is missed: no_read)
                ref.feed(2, r // 1000, r % 1000, pile, card, player)
                if rng.below(12) == 0:   # a second tag of the same activation
                    ref.feed(2, r // 1000, r % 1000, pile, _play_card(rng, ref, pile), player)
            if other >= 0 and r2 >= r:
                ref.feed(2, r2 // 1000, r2 % 1000, other, _play_card(rng, ref, other), player)
                r = r2
            if rng.below(3) == 0:
                ref.quiet(pile)
            t = r
        h = _fold_intents(h, intents)
        if rng.below(2):
            a = t + rng.below(60000)
            ref.advance(a // 1000, a % 1000)
            h = _fold_intents(h, intents)
    ref.flush()
    h = _fold_intents((h * 31 + sink.h) & 0x3FFFFFFF, intents)
    out = outcome(ref)
    if out is not None:
        h = _fold_text((h * 31 + out[0] + 1) & 0x3FFFFFFF, out[1])
    return h, sink.n


def play_many(first_seed, count, n_landings=80):
    """Run ``count`` play-heavy streams (``play_stream``)."""
    return _many(play_stream, first_seed, count, n_landings)


# --- long gaps between inputs: the same verdicts as with ticks in between (the time base) ---

# Gaps between landings: up to the intake's base period (2**29 us), just past it, past the
# 2**30 us ticks period, an hour, a day.
_GAPS = (63100000, 536870911, 536870912, 536871000, 600000000, 1073741824, 1073741825,
         3600000000, 86400000000)


def gap_stream(seed, n_landings=60, ticks=0, tick_seed=0):
    """A play-heavy game (touch, read 2-40 ms later, quiet now and then, STUCK/READY/slaps)
    with long gaps now and then, some right after a read that is still held (no touch: it waits
    reorder_us).  With ``ticks``, up to that many advance() calls at random times (from their
    own generator, ``tick_seed``) inside each gap, from the newest time so far to the next
    input's.  Returns (checksum, verdict count): a gap must judge as the same gap with ticks."""
    import gc
    gc.collect()   # (under the MicroPython runner's heap cap: the last referee's blocks back first)
    rng = Rng(seed)
    tick_rng = Rng(tick_seed)
    name, options = _RULESETS[rng.below(len(_RULESETS))]
    rules = make_ruleset(name, options)
    counts = None if rules.mode != 0 else _COUNTS[rng.below(len(_COUNTS))]
    sink = Checksum()
    ref = Referee(rules, counts, sink)
    t = rng.below(1000)
    newest = 0
    npiles = rules.piles
    last = [0] * npiles
    for _ in range(n_landings):
        step = rng.below(30000) + 200
        if rng.below(5) == 0:
            step = _GAPS[rng.below(len(_GAPS))] + rng.below(3)
            if ticks:
                span = t + step - newest
                at = []
                for _ in range(1 + tick_rng.below(ticks)):
                    at.append(newest + span * tick_rng.below(4097) // 4096)   # (span: maybe a big int)
                at.sort()
                for x in at:
                    ref.advance(x // 1000, x % 1000)
        t += step
        pile = rng.below(npiles)
        k = rng.below(100)
        if k < 4:
            ref.feed(3, t // 1000, t % 1000, rng.below(2), 0, 0)             # stuck
        elif k < 6:
            ref.feed(4, t // 1000, t % 1000, rng.below(2), pile, 0)          # slap
        elif k < 10:
            ref.feed(5, t // 1000, t % 1000, rng.below(2), 0, 0)             # ready
        elif k < 11:
            ref.feed(8, t // 1000, t % 1000, rng.below(2), rng.below(2), 0)  # answer
        else:
            # (a rank next to the pile's last card fed: not the referee's top, which a tick
            # may have updated sooner, and the stream would no longer be the same)
            top = last[pile]
            if rng.below(4) and top > 0:
                card = 16 * rng.below(4) + (top + (1 if rng.below(2) else 11)) % 13 + 1
            else:
                card = 16 * rng.below(4) + 1 + rng.below(13)
            last[pile] = card & 15
            player = rng.below(2) if rules.mode == 1 else -1
            r = t
            if rng.below(4):
                ref.feed(1, t // 1000, t % 1000, pile, 0, 0)
                r = t + 2000 + rng.below(38000)
            ref.feed(2, r // 1000, r % 1000, pile, card, player)   # (without a touch: held)
            if rng.below(3) == 0:
                ref.quiet(pile)
            t = r
        if t > newest:
            newest = t
        if rng.below(3) == 0:
            ref.advance(t // 1000, t % 1000)
    ref.flush()
    return sink.h, sink.n


def gap_divergences(first_seed, count, n_landings=60):
    """How many of ``count`` gap streams judge differently with ticks in their gaps (three
    different sets of ticks each); returns (divergent streams, verdicts, first divergent seed)."""
    bad = 0
    first = -1
    total = 0
    for seed in range(first_seed, first_seed + count):
        plain = gap_stream(seed, n_landings)
        total += plain[1]
        for k in range(3):
            if gap_stream(seed, n_landings, 1 + 4 * k, seed * 7 + k) != plain:
                bad += 1
                if first < 0:
                    first = seed
                break
    return bad, total, first


# --- lax JSON, whitespace, duplicate keys, BOMs and out-of-bound fields: one reader, both Pythons ---

# Whitespace and other characters the two Pythons' str.strip / json treat differently.
_EDGE_CHARS = (" ", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0",
               "\u2028", "\u3000", "\x00", "\ufeff", "\x01", "\x7f")
_T_EDGES = ("1073741823999", "1073741824000", "1073741822999", "1099511627776", "4611686018427387904",
            "-1", "0", "-0", "00", "0100", "1e3", "1.0", "2100000.0", "NaN", "Infinity", "-Infinity",
            "true", "null", '"2100000"', "2100000 ", " 2100000")
_FIELD_EDGES = ("1073741823", "1073741824", "-1073741823", "-1073741824", "01", "-0", "1.5", "1E2",
                "NaN", "Infinity", "-Infinity", "true", '"1"', "[1]")
_CODE_EDGES = ('"7h"', '" 7H"', '"7H "', '"7\\u0048"', '"\\u00377H"', '"7\\q"', '"7\\x48"', '"7\u0048"',
               '"7\uff28"', '"10\u017f"', '"1\u0030S"', '"T\u0053"', '"7H\\u0000"', '"\\ud83d\\ude00"',
               '"\\ud800"', '"jk"', '"Jk"')


_ACT_EDGES = ("[2600, 1]", "[0, 2]", "[1073741823, 1]", "[1073741824, 1]", "[-1, 1]", "[2600, 3]",
              "[2600, 0]", '["2600", 1]', "[2600]", "[2600, 1, 1]", "[2600.0, 1]", "[true, 1]", "{}",
              "null", "[02600, 1]", "[2600, 1,]")


def _good_line(rng, t, npiles):
    k = rng.below(10)
    pile = rng.below(npiles)
    if k < 4:
        return '{"t": %d, "ev": "touch", "pile": %d}' % (t, pile)
    if k < 8:
        return '{"t": %d, "ev": "card", "pile": %d, "card": "%s%s"}' % (
            t, pile, "A23456789TJQK"[rng.below(13)], "CDHS"[rng.below(4)])
    if k < 9:
        return '{"t": %d, "ev": "stuck", "player": %d}' % (t, rng.below(2))
    return '{"t": %d, "ev": "tick"}' % t


def _lax_line(rng, t, npiles):
    """A line as a writer might get it wrong (or a lax JSON parser accept it)."""
    line = _good_line(rng, t, npiles)
    k = rng.below(22)
    if k == 0:
        return line[:-1] + ",}"                                  # trailing comma
    if k == 1:
        return line.replace('"ev": ', '"ev" ', 1)                # missing colon
    if k == 2:
        return line[:-1] + "]"                                   # ']' closing an object
    if k == 3:
        return "{1: 2, " + line[1:]                              # an int key
    if k == 4:
        return '{"t": %s, ' % _T_EDGES[rng.below(len(_T_EDGES))] + line[line.index(", ") + 2:]
    if k == 5:
        field = ("pile", "player", "value")[rng.below(3)]
        return line[:-1] + ', "%s": %s}' % (field, _FIELD_EDGES[rng.below(len(_FIELD_EDGES))])
    if k == 6:
        return '{"t": %d, "ev": "card", "pile": %d, "card": %s}' % (
            t, rng.below(npiles), _CODE_EDGES[rng.below(len(_CODE_EDGES))])
    if k == 7:                                                   # duplicate keys
        return line[:-1] + (', "t": %d}' % (t + 1000), ', "ev": "tick"}', ', "\\u0074": 5}',
                            ', "pile": 1}', ', "card": "8H"}')[rng.below(5)]
    if k == 8:
        c = _EDGE_CHARS[rng.below(len(_EDGE_CHARS))]
        return (c + line, line + c, c + line + c)[rng.below(3)]  # around the line
    if k == 9:
        c = _EDGE_CHARS[rng.below(len(_EDGE_CHARS))]
        i = 1 + rng.below(len(line) - 2)
        return line[:i] + c + line[i:]                           # inside it
    if k == 10:
        return line.replace('"ev"', '"\\u0065v"', 1)             # an escape that is fine
    if k == 11:
        return line.replace(", ", ",", 1) if rng.below(2) else line.replace(": ", ":  ", 1)
    if k == 12:
        return "[" + line + "]"
    if k == 13:
        return line + " " + line                                 # two values
    if k == 14:
        return line.replace('"', "'")
    if k == 15:
        return line.replace("}", ', "x": {"y": [[[[[[[1]]]]]]]}}', 1)   # 9 deep
    if k == 16:
        return line.replace("}", ', "x": {"y": [[[[[[1]]]]]]}}', 1)     # 8 deep
    if k == 17:
        return '{"t": %d, "verdict": "accept", "pile": 0, "card": "7H",}' % t
    if k == 18:   # a read's evidence (act): good, out of bounds, of the wrong type
        return '{"t": %d, "ev": "card", "pile": %d, "card": "%s%s", "act": %s}' % (
            t, rng.below(npiles), "A23456789TJQK"[rng.below(13)], "CDHS"[rng.below(4)],
            _ACT_EDGES[rng.below(len(_ACT_EDGES))])
    return line


def lax_log_lines(seed, n_lines=40):
    """A log of good and lax lines (a header, maybe with a BOM or after a bad line, or none)."""
    rng = Rng(seed)
    lines = []
    k = rng.below(8)
    header = '{"spitlog": 1, "ruleset": "classic", "options": {"countdown_ms": 1000}}'
    if k == 0:
        lines.append("\ufeff" + header)
    elif k == 1:
        lines.append(_lax_line(rng, 0, 2))
        lines.append(header)
    elif k == 2:
        lines.append(header.replace("}}", "}, \"spitlog\": 1}"))   # a duplicate key in the header
    elif k == 3:
        lines.append(header[:-1] + ",}")
    elif k != 4:
        lines.append(header)
    t = 900000
    for _ in range(n_lines):
        t += rng.below(200000)
        if rng.below(3):
            lines.append(_good_line(rng, t, 2))
        else:
            lines.append(_lax_line(rng, t, 2))
        if rng.below(40) == 0:
            lines.append("\ufeff" + _good_line(rng, t, 2))     # a BOM that is not the file's
    return lines


def fold_verdicts(lines, pure=False):
    """Re-judge ``lines`` with spit.log; (checksum over the verdict lines, verdict count).
    ``pure``: the reader's str-method split on CPython too (as on MicroPython)."""
    from spit.log import Rejudge
    from spit.words import items_json
    r = Rejudge()
    if pure:
        r._split = None
    for line in lines:
        r.feed_line(line)
    r.finish()
    h = 17
    for line_no, items in r.verdicts:
        h = _fold_text((h * 31 + line_no) & 0x3FFFFFFF, items_json(items))
    return h, len(r.verdicts)


def run_lax_logs(first_seed, count, n_lines=40, pure=False):
    """``fold_verdicts`` over ``count`` lax logs; returns (checksum, verdict total)."""
    h = 0
    total = 0
    for seed in range(first_seed, first_seed + count):
        s, n = fold_verdicts(lax_log_lines(seed, n_lines), pure)
        h = (h * 1000003 + s) & 0x3FFFFFFF
        total += n
    return h, total


def lax_digests(first_seed, count, n_lines=40):
    """One digest per lax log (to count the logs two readers disagree on)."""
    out = []
    for seed in range(first_seed, first_seed + count):
        out.append(fold_verdicts(lax_log_lines(seed, n_lines))[0])
    return out
