"""A log line's JSON, read strictly and alike on CPython and MicroPython (docs/log-format.md).

MicroPython's ``json`` accepts what RFC 8259 does not (a trailing comma, a missing colon,
leading zeros, ``]`` closing an object, bare int keys, ``\\q`` or ``\\x41`` escapes, raw
control characters, a trailing NUL) and refuses what CPython's accepts (NaN, Infinity).
``loads`` checks the text first, with the same code on both, then lets ``json`` build the
value, so a line is valid on both or on neither, and gives the same value:

* RFC 8259 JSON, whitespace being space, tab, CR and LF only (no NaN, Infinity, comments);
* strings: no raw character below U+0020 and no surrogate (U+D800..U+DFFF), raw or as a
  ``\\u`` escape (MicroPython's json cannot decode a surrogate pair as CPython's does);
* no object with the same key twice (``"t"`` and ``"\\u0074"`` are the same key): a line with
  one is refused, not read as either of its values;
* arrays and objects nested at most ``MAX_DEPTH`` deep (CPython's parser would recurse,
  MicroPython's run out of memory).

A host module (``spit.log`` reads logs with it): not installed on the board.
"""

import json

MAX_DEPTH = 8
_WS = " \t\r\n"
_DIGITS = "0123456789"
_HEX = "0123456789abcdefABCDEF"
_ESCAPES = '"\\/bfnrt'
_PRINTABLE = getattr(str, "isprintable", None)   # (CPython: a quick first test of a string)


class JSONError(ValueError):
    """Not a line of strict JSON; the message says where and why."""


def loads(text):
    """The value of ``text``, one strict JSON value (surrounding whitespace allowed, as above);
    raises JSONError."""
    n = len(text)
    i = _value(text, _skip(text, 0, n), n, 0)
    i = _skip(text, i, n)
    if i != n:
        raise JSONError("extra text at column %d" % (i + 1))
    try:
        return json.loads(text)
    except (ValueError, RuntimeError, MemoryError) as e:   # (checked above: not expected)
        raise JSONError("not JSON: %s" % e)


def _skip(s, i, n):
    while i < n and s[i] in _WS:
        i += 1
    return i


def _error(s, i, what):
    return JSONError("%s at column %d" % (what, i + 1) if i < len(s) else "%s at the end" % what)


def _value(s, i, n, depth):
    """The end of the value starting at ``s[i]`` (no whitespace before it)."""
    if i >= n:
        raise _error(s, i, "a value expected")
    c = s[i]
    if c == '"':
        return _string(s, i, n)[0]
    if c == "{" or c == "[":
        if depth >= MAX_DEPTH:
            raise _error(s, i, "nested deeper than %d" % MAX_DEPTH)
        if c == "{":
            return _object(s, i, n, depth + 1)
        return _array(s, i, n, depth + 1)
    if c == "-" or c in _DIGITS:
        return _number(s, i, n)
    for word in ("true", "false", "null"):
        if s.startswith(word, i):
            return i + len(word)
    raise _error(s, i, "a value expected")


def _object(s, i, n, depth):
    i = _skip(s, i + 1, n)
    if i < n and s[i] == "}":
        return i + 1
    keys = []
    while True:
        if i >= n or s[i] != '"':
            raise _error(s, i, "a string key expected")
        i, key = _string(s, i, n)
        if key in keys:
            raise _error(s, i, "key %s given twice" % (key if len(key) < 20 else key[:20] + "..."))
        keys.append(key)
        i = _skip(s, i, n)
        if i >= n or s[i] != ":":
            raise _error(s, i, "':' expected")
        i = _skip(s, _value(s, _skip(s, i + 1, n), n, depth), n)
        if i < n and s[i] == ",":
            i = _skip(s, i + 1, n)
            continue
        if i < n and s[i] == "}":
            return i + 1
        raise _error(s, i, "',' or '}' expected")


def _array(s, i, n, depth):
    i = _skip(s, i + 1, n)
    if i < n and s[i] == "]":
        return i + 1
    while True:
        i = _skip(s, _value(s, i, n, depth), n)
        if i < n and s[i] == ",":
            i = _skip(s, i + 1, n)
            continue
        if i < n and s[i] == "]":
            return i + 1
        raise _error(s, i, "',' or ']' expected")


def _plain(s, j, k):
    """Check the raw characters ``s[j:k]`` of a string (no escapes among them)."""
    if _PRINTABLE is not None and _PRINTABLE(s[j:k]):
        return   # (no control character, no surrogate)
    for x in range(j, k):
        c = s[x]
        if c < " ":
            raise _error(s, x, "a raw control character in a string")
        if "\ud7ff" < c < "\ue000":
            raise _error(s, x, "a surrogate in a string")


def _string(s, i, n):
    """``(end, text)`` of the string starting at ``s[i]`` (a quote); ``text`` is its decoded
    value (for the duplicate key test)."""
    j = i + 1
    escaped = False
    while True:
        k = s.find('"', j)
        if k < 0:
            raise _error(s, n, "an unterminated string")
        b = s.find("\\", j, k)
        if b < 0:
            _plain(s, j, k)
            break
        _plain(s, j, b)
        escaped = True
        c = s[b + 1] if b + 1 < n else ""
        if c == "u":
            h = s[b + 2:b + 6]
            if len(h) < 4 or h[0] not in _HEX or h[1] not in _HEX or h[2] not in _HEX or h[3] not in _HEX:
                raise _error(s, b, "a \\u escape without 4 hex digits")
            if h[0] in "dD" and h[1] in "89abcdefABCDEF":
                raise _error(s, b, "a surrogate escape")
            j = b + 6
        elif c and c in _ESCAPES:
            j = b + 2
        else:
            raise _error(s, b, "an unknown escape")
    text = s[i + 1:k]
    if escaped:
        text = json.loads(s[i:k + 1])   # (checked: the same text on both Pythons)
    return k + 1, text


def _number(s, i, n):
    j = i
    if s[j] == "-":
        j += 1
    if j < n and s[j] == "0":
        j += 1
        if j < n and s[j] in _DIGITS:
            raise _error(s, j, "a number with a leading zero")
    else:
        j = _digits(s, j, n)
    if j < n and s[j] == ".":
        j = _digits(s, j + 1, n)
    if j < n and s[j] in "eE":
        j += 1
        if j < n and s[j] in "+-":
            j += 1
        j = _digits(s, j, n)
    return j


def _digits(s, j, n):
    start = j
    while j < n and s[j] in _DIGITS:
        j += 1
    if j == start:
        raise _error(s, j, "a digit expected")
    return j
