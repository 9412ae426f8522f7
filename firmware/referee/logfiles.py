"""The session files of a ``referee.logbook.Logbook``: naming, listing, starting and rotation.

Files are ``<dir>/session-NNNN.spitlog``.  This is the code a ``Logbook`` runs at a session
start (``start``: the next number, rotation, the new file, the header) and at a pause when the
logs outgrew ``max_total_bytes`` (``rotate``); the firmware drops the module again after a
session start (referee/app.py), so its code does not hold heap during play.  File system
access goes through the ``Logbook``'s ``fs`` (open/listdir/remove/stat/mkdir: tests inject
failures), or ``os`` and the builtin ``open`` when it has none.
"""

import os

from micropython import const

_PREFIX = const("session-")
_SUFFIX = const(".spitlog")


def _join(directory, name):
    if not directory:
        return name
    if directory[-1] == "/":
        return directory + name
    return directory + "/" + name


def session_number(name):
    """The NNNN of ``session-NNNN.spitlog``, or -1 for any other file name."""
    if not (name.startswith(_PREFIX) and name.endswith(_SUFFIX)):
        return -1
    digits = name[len(_PREFIX):len(name) - len(_SUFFIX)]
    if not digits or not digits.isdigit():
        return -1
    return int(digits)


def session_name(number):
    return "%s%04d%s" % (_PREFIX, number, _SUFFIX)


def list_sessions(directory="logs", fs=None):
    """Sorted ``[(number, path), ...]`` of the session files in ``directory`` (none if missing)."""
    fs = fs or os
    try:
        names = fs.listdir(directory)
    except OSError:
        return []
    out = []
    for name in names:
        n = session_number(name)
        if n >= 0:
            out.append((n, _join(directory, name)))
    out.sort()
    return out


def start(book, header_line):
    """``Logbook.start``: close any open session, rotate, open the next session file and write
    the header.  Returns the new file's path (also ``book.path``)."""
    if book._f is not None or book._n:
        book.close()
    fs = book._fs or os
    try:
        names = fs.listdir(book.directory)
    except OSError:
        names = []
        if book.directory:
            try:
                fs.mkdir(book.directory)
            except OSError as e:
                book.last_error = e
    top = 0
    for name in names:
        n = session_number(name)
        if n > top:
            top = n
    book.number = top + 1
    book.path = _join(book.directory, session_name(book.number))
    book.bytes_written = 0
    book._torn = False
    rotate(book)
    try:
        book._f = (book._fs.open if book._fs else open)(book.path, "wb")
    except OSError as e:
        book._f = None
        book.last_error = e
    book.append(header_line)
    book.flush()
    return book.path


def rotate(book):
    """``Logbook.rotate``: delete session files, never the current one (``book.path``), the
    pulled ones first (named in ``pulled.txt`` by `spit logs pull`), oldest first, until the
    others plus the current one total less than ``book.max_total_bytes`` and at most
    ``book.max_files`` files remain counting the current one; each deletion is said on the
    console.  Returns how many were deleted."""
    fs = book._fs or os
    try:
        with (book._fs.open if book._fs else open)(_join(book.directory, "pulled.txt"), "r") as f:
            pulled = f.read().split()
    except OSError:
        pulled = ()
    files = []
    total = 0
    names = list_sessions(book.directory, fs)
    names.sort(key=lambda e: (e[1][-20:] not in pulled, e[0]))   # (pulled first, oldest first)
    for n, path in names:
        if path == book.path:
            continue
        try:
            size = fs.stat(path)[6]
        except OSError as e:
            book.last_error = e
            size = 0
        files.append((path, size))
        total += size
    own = book.bytes_written + book._n
    keep = book.max_files - (0 if book.path is None else 1)
    deleted = 0
    i = 0
    while i < len(files) and (len(files) - i > keep or total + own >= book.max_total_bytes):
        path, size = files[i]
        i += 1
        try:
            fs.remove(path)
        except OSError as e:
            book.last_error = e
            continue
        print("spit-referee: logs full: removed", path, "" if path[-20:] in pulled else "(NOT pulled)")
        total -= size
        deleted += 1
    book._others_bytes = total
    book.deleted += deleted
    return deleted
