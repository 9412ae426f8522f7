"""Logbook (firmware/referee/logbook.py): RAM buffering, forced flushes, rotation, torn records.

CPython tests use a tmp dir (real ``os``) or an in-memory file system that can cut the power
part-way through a write.  ``test_logbook_under_micropython`` runs tests/micropython/mp_logbook_check.py on
the micropython unix port (write/flush/rotate/read and the allocation measurement of append).
"""

import errno
import json
import os
import shutil
import subprocess

import pytest

from referee.logbook import Logbook, list_sessions, session_name, session_number
from referee.logread import LogLines, iter_lines, read_log

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


HEADER = json.dumps({"spitlog": 1, "ruleset": "classic", "counts": [26, 26]})


def ev(i, pile=0):
    return json.dumps({"t": 1000 * i, "ev": "card", "pile": pile, "card": "7H"})


# ---------------------------------------------------------------- fake file systems
class PowerCut(OSError):
    pass


class MemFs:
    """In-memory fs.  ``budget``: after that many bytes in total the write in progress stores
    only the bytes that still fit and raises; from then on every operation fails (the power
    is off).  ``fail``: a set of operation names that raise OSError(ENOSPC)."""

    def __init__(self, files=None, budget=None):
        self.files = files if files is not None else {}   # path -> bytearray
        self.dirs = set()
        self.budget = budget
        self.dead = False
        self.fail = set()
        self.writes = []                                  # (path, bytes) per write call
        self.syncs = 0

    def _check(self, op):
        if self.dead:
            raise PowerCut(errno.EIO, "power off")
        if op in self.fail:
            raise OSError(errno.ENOSPC, op)

    def open(self, path, mode):
        self._check("open")
        if "w" in mode:
            self.files[path] = bytearray()
        elif path not in self.files:
            raise OSError(errno.ENOENT, path)
        return MemFile(self, path, "b" not in mode)

    def listdir(self, path):
        self._check("listdir")
        if path not in self.dirs:
            raise OSError(errno.ENOENT, path)
        pre = path + "/"
        return [p[len(pre):] for p in self.files if p.startswith(pre)]

    def remove(self, path):
        self._check("remove")
        del self.files[path]

    def stat(self, path):
        self._check("stat")
        return (0o100644, 0, 0, 1, 0, 0, len(self.files[path]), 0, 0, 0)

    def mkdir(self, path):
        self._check("mkdir")
        self.dirs.add(path)


class MemFile:
    def __init__(self, fs, path, text=False):
        self.fs = fs
        self.path = path
        self.pos = 0
        self.text = text   # (opened without "b": read() gives str, as a real file does)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def write(self, data):
        fs = self.fs
        fs._check("write")
        data = bytes(data)
        fs.writes.append((self.path, data))
        if fs.budget is not None and len(data) > fs.budget:
            fs.files[self.path].extend(data[:fs.budget])
            fs.budget = 0
            fs.dead = True
            raise PowerCut(errno.EIO, "power cut")
        fs.files[self.path].extend(data)
        if fs.budget is not None:
            fs.budget -= len(data)
        return len(data)

    def flush(self):
        self.fs._check("flush")
        self.fs.syncs += 1

    def read(self, n=-1):
        self.fs._check("read")
        data = self.fs.files[self.path]
        b = bytes(data[self.pos:] if n < 0 else data[self.pos:self.pos + n])
        self.pos += len(b)
        return b.decode() if self.text else b

    def close(self):
        self.fs._check("close")


def mem_logs(*sizes):
    """A MemFs whose logs/ already holds session files 1..len(sizes) of those sizes."""
    fs = MemFs()
    fs.dirs.add("logs")
    for i, size in enumerate(sizes):
        fs.files["logs/" + session_name(i + 1)] = bytearray(b"x" * size)
    return fs


# ---------------------------------------------------------------- names
def test_session_names():
    assert session_name(7) == "session-0007.spitlog"
    assert session_name(12345) == "session-12345.spitlog"
    assert session_number("session-0007.spitlog") == 7
    assert session_number("session-12345.spitlog") == 12345
    for bad in ("session-.spitlog", "session-00a1.spitlog", "session-0001.jsonl", "notes.txt",
                "xsession-0001.spitlog"):
        assert session_number(bad) == -1


# ---------------------------------------------------------------- buffering
def test_nothing_written_until_flush(tmp_path):
    d = str(tmp_path / "logs")
    book = Logbook(d)
    path = book.start(HEADER)
    assert path == d + "/session-0001.spitlog"
    assert open(path, "rb").read() == HEADER.encode() + b"\n"     # the header goes out at once
    size0 = os.stat(path).st_size
    lines = [ev(i) for i in range(20)]
    for line in lines:
        book.append(line)
    assert os.stat(path).st_size == size0                         # still only in RAM
    assert book.bytes_buffered == sum(len(x) + 1 for x in lines)
    assert book.flush() is True
    assert book.bytes_buffered == 0 and book.forced_flushes == 0
    assert open(path).read().splitlines() == [HEADER] + lines
    book.append(ev(99))
    book.close()
    assert read_log(path) == ([HEADER] + lines + [ev(99)], 0, 0)
    assert book.dropped_lines == 0 and book.last_error is None


def test_one_write_call_per_flush_with_whole_lines():
    fs = MemFs()
    book = Logbook("logs", buffer_bytes=4096, fs=fs)
    book.start(HEADER)
    fs.writes.clear()
    lines = [ev(i) for i in range(30)]
    for line in lines:
        book.append(line)
    assert fs.writes == []
    book.flush()
    assert len(fs.writes) == 1
    assert fs.writes[0][1] == ("\n".join(lines) + "\n").encode()
    assert fs.syncs == 2                                          # header flush + this one
    book.flush()                                                  # nothing buffered: no write
    assert len(fs.writes) == 1


def test_forced_flush_when_buffer_full():
    fs = MemFs()
    book = Logbook("logs", buffer_bytes=100, fs=fs)
    book.start(HEADER)
    fs.writes.clear()
    line = json.dumps("x" * 27)                                   # 30 bytes with its newline
    for _ in range(3):
        book.append(line)
    assert fs.writes == [] and book.bytes_buffered == 90
    book.append(line)                                             # 120 > 100: forced
    assert book.forced_flushes == 1
    assert [w for _, w in fs.writes] == [(line + "\n").encode() * 3]
    assert book.bytes_buffered == 30
    for _ in range(6):
        book.append(line)
    assert book.forced_flushes == 3
    for _, w in fs.writes:                                        # every write ends on a line
        assert w.endswith(b"\n")
    book.close()
    lines, dropped_b, dropped_l = read_log(book.path, fs)
    assert lines == [HEADER] + [line] * 10 and dropped_b == dropped_l == 0
    # exactly filling the buffer (99 bytes + newline) still fits
    book2 = Logbook("logs", buffer_bytes=100, fs=fs)
    book2.start(HEADER)
    book2.append(json.dumps("y" * 97))
    assert book2.forced_flushes == 0 and book2.bytes_buffered == 100
    book2.append("1")
    assert book2.forced_flushes == 1


def test_line_longer_than_buffer_is_written_through():
    fs = MemFs()
    book = Logbook("logs", buffer_bytes=64, fs=fs)
    book.start(HEADER)
    book.append("[1]")
    fs.writes.clear()
    long = json.dumps({"t": 1, "ev": "card", "note": "n" * 200})
    book.append(long)
    assert [w for _, w in fs.writes] == [b"[1]\n", long.encode() + b"\n"]
    assert book.bytes_buffered == 0
    book.append("[2]")
    book.close()
    assert read_log(book.path, fs)[0] == [HEADER, "[1]", long, "[2]"]


def test_non_ascii_line_counts_bytes():
    fs = MemFs()
    book = Logbook("logs", buffer_bytes=64, fs=fs)
    book.start(HEADER)
    line = '{"note": "\u00e9\u00e9"}'
    book.append(line)
    assert book.bytes_buffered == len(line.encode()) + 1
    book.close()
    assert read_log(book.path, fs)[0] == [HEADER, line]


# ---------------------------------------------------------------- numbering and rotation
def test_numbering_continues_after_reboot(tmp_path):
    d = str(tmp_path / "logs")
    os.mkdir(d)
    open(d + "/notes.txt", "w").write("keep me")
    open(d + "/session-0041.spitlog", "w").write(HEADER + "\n")
    open(d + "/session-0007.spitlog", "w").write(HEADER + "\n")
    book = Logbook(d)
    assert book.start(HEADER).endswith("session-0042.spitlog")
    book.close()
    book = Logbook(d)                                             # reboot: a fresh object
    assert book.start(HEADER).endswith("session-0043.spitlog")
    assert book.start(HEADER).endswith("session-0044.spitlog")   # start closes the open one
    book.close()
    assert [n for n, _ in list_sessions(d)] == [7, 41, 42, 43, 44]
    assert os.path.exists(d + "/notes.txt")


def test_missing_directory_is_created(tmp_path):
    d = str(tmp_path / "logs")
    book = Logbook(d)
    assert book.start(HEADER) == d + "/session-0001.spitlog"
    book.close()
    assert os.path.isdir(d) and book.last_error is None


def test_rotation_by_size_deletes_oldest():
    fs = mem_logs(300, 300, 300, 300, 300)                        # 1500 bytes in 5 sessions
    book = Logbook("logs", max_total_bytes=1000, max_files=50, fs=fs)
    path = book.start(HEADER)
    assert path == "logs/session-0006.spitlog"
    assert sorted(fs.files) == ["logs/session-%04d.spitlog" % i for i in (3, 4, 5, 6)]
    assert book.deleted == 2


def test_rotation_by_count_deletes_oldest():
    fs = mem_logs(10, 10, 10, 10, 10)
    fs.files["logs/other.txt"] = bytearray(b"not a session")
    book = Logbook("logs", max_total_bytes=10 ** 6, max_files=3, fs=fs)
    book.start(HEADER)
    assert sorted(fs.files) == ["logs/other.txt"] + [
        "logs/session-%04d.spitlog" % i for i in (4, 5, 6)]
    book.start(HEADER)                                            # next session: 4 goes
    assert sorted(fs.files) == ["logs/other.txt"] + [
        "logs/session-%04d.spitlog" % i for i in (5, 6, 7)]
    book = Logbook("logs", max_files=1, fs=fs)                    # only the new one stays
    assert book.start(HEADER) == "logs/session-0008.spitlog"
    assert sorted(fs.files) == ["logs/other.txt", "logs/session-0008.spitlog"]


def test_rotation_while_writing_never_deletes_current_session():
    fs = mem_logs(200, 200, 200)
    book = Logbook("logs", buffer_bytes=256, max_total_bytes=1000, fs=fs)
    cur = book.start(HEADER)
    assert len(fs.files) == 4
    for i in range(40):                                           # ~1.6 KB in this session
        book.append(ev(i))
        if i % 5 == 4:
            book.flush()
    book.close()
    assert cur in fs.files
    assert list(fs.files) == [cur]                                # every older one went
    assert book.deleted == 3
    assert read_log(cur, fs)[0] == [HEADER] + [ev(i) for i in range(40)]
    # and the next session deletes the oversized previous one, never itself
    nxt = book.start(HEADER)
    assert list(fs.files) == [nxt]


def test_forced_flush_does_not_rotate():
    fs = mem_logs(500)
    book = Logbook("logs", buffer_bytes=128, max_total_bytes=600, fs=fs)
    book.start(HEADER)
    for i in range(10):
        book.append(ev(i))                                        # forced flushes only
    assert book.forced_flushes > 0
    assert "logs/session-0001.spitlog" in fs.files
    book.flush()                                                  # a pause: now it may
    assert "logs/session-0001.spitlog" not in fs.files


# ---------------------------------------------------------------- power cut / torn records
def _play(book, n_lines=30, pause_every=7):
    lines = [HEADER] + [ev(i, i % 2) for i in range(n_lines)]
    book.start(HEADER)
    for i in range(1, len(lines)):
        book.append(lines[i])
        if i % pause_every == 0:
            book.flush()
    book.close()
    return lines


@pytest.mark.parametrize("buffer_bytes", [96, 512, 4096])
def test_power_cut_mid_write_keeps_every_complete_record(buffer_bytes):
    ref_fs = MemFs()
    lines = _play(Logbook("logs", buffer_bytes=buffer_bytes, fs=ref_fs))
    stream = bytes(ref_fs.files["logs/session-0001.spitlog"])
    assert stream == ("\n".join(lines) + "\n").encode()
    ends = [i + 1 for i, b in enumerate(stream) if b == 10]        # byte offset after each record
    for k in range(len(stream) + 1):
        fs = MemFs(budget=k)
        book = Logbook("logs", buffer_bytes=buffer_bytes, fs=fs)
        _play(book)                                               # must not raise
        if k < len(stream):
            assert fs.dead and isinstance(book.last_error, OSError)
            assert book.dropped_lines > 0
        # reboot and read back
        after = MemFs(files=fs.files)
        got, dropped_bytes, dropped_lines = read_log("logs/session-0001.spitlog", after)
        complete = sum(1 for e in ends if e <= k)
        assert got == lines[:complete], k
        last_end = ends[complete - 1] if complete else 0
        assert dropped_bytes == k - last_end
        assert dropped_lines == (1 if k > last_end else 0)


def test_read_drops_last_line_that_is_not_json(tmp_path):
    p = str(tmp_path / "a.spitlog")
    open(p, "wb").write(b'{"a": 1}\n{"b": 2}\n{"t": 12, "ev\n')
    assert read_log(p) == (['{"a": 1}', '{"b": 2}'], 14, 1)
    open(p, "wb").write(b'{"a": 1}\nnot json\n{"b": 2}\n\n\n')    # only the LAST line is judged
    assert read_log(p) == (['{"a": 1}', "not json", '{"b": 2}'], 0, 0)
    open(p, "wb").write(b'{"a": 1}\n\xff\xfe\n{"b": 2}\n{"c": \xff')
    it = iter_lines(p)
    assert list(it) == ['{"a": 1}', '{"b": 2}']
    assert (it.dropped_bytes, it.dropped_lines, it.bad_lines, it.lines) == (7, 1, 1, 2)
    open(p, "wb").write(b"")
    assert read_log(p) == ([], 0, 0)
    open(p, "wb").write(b'{"a": 1')
    assert read_log(p) == ([], 7, 1)


def test_read_lines_across_small_chunks(tmp_path):
    p = str(tmp_path / "a.spitlog")
    lines = [ev(i) for i in range(50)] + [json.dumps({"long": "L" * 1500})]
    open(p, "wb").write(("\n".join(lines) + "\n").encode() + b'{"torn')
    for chunk in (1, 7, 64, 512, 4096):
        it = LogLines(p, chunk=chunk)
        assert list(it) == lines and it.dropped_bytes == 6 and it.dropped_lines == 1


def test_torn_log_rejudges_like_its_complete_prefix():
    """What read_log keeps of a cut log is a valid spitlog: the engine re-judges it with no
    problems, exactly as it re-judges the records written before the cut."""
    from spit.log import rejudge

    header = json.dumps({"spitlog": 1, "ruleset": "classic", "counts": [26, 26]})
    events = [{"t": 2600000, "ev": "card", "pile": 0, "card": "7H"},
              {"t": 2600500, "ev": "card", "pile": 1, "card": "KS"},
              {"t": 3000000, "ev": "touch", "pile": 0},
              {"t": 3010000, "ev": "card", "pile": 0, "card": "8H"},
              {"t": 3500000, "ev": "card", "pile": 1, "card": "QD"}]
    full = MemFs()
    book = Logbook("logs", fs=full)
    book.start(header)
    for e in events:
        book.append(json.dumps(e))
    book.close()
    stream = bytes(full.files[book.path])
    cut = stream.rindex(b"\n", 0, len(stream) - 1) + 9           # 8 bytes into the last record
    fs = MemFs(files={book.path: bytearray(stream[:cut])})
    lines, dropped_bytes, dropped_lines = read_log(book.path, fs)
    assert (dropped_bytes, dropped_lines) == (8, 1)
    assert lines == [header] + [json.dumps(e) for e in events[:-1]]
    r = rejudge(lines)
    assert r.problems == []
    assert r.verdicts == rejudge([header] + [json.dumps(e) for e in events[:-1]]).verdicts
    assert any(dict(items).get("verdict") == "accept" for _, items in r.verdicts)


# ---------------------------------------------------------------- file system errors
def test_file_system_errors_never_raise():
    for op in ("open", "listdir", "mkdir", "write", "flush", "close", "remove", "stat"):
        fs = mem_logs(10, 10, 10) if op != "mkdir" else MemFs()   # mkdir: only if logs/ is missing
        fs.fail.add(op)
        book = Logbook("logs", buffer_bytes=64, max_files=2, fs=fs)
        book.start(HEADER)
        for i in range(10):
            book.append(ev(i))
        book.flush()
        book.close()
        book.start(HEADER)
        book.close()
        if op in ("open", "write", "flush"):
            assert book.dropped_lines > 0, op
        if op not in ("listdir",):                                # listdir: treated as empty dir
            assert isinstance(book.last_error, OSError), op
    fs = MemFs()
    fs.dead = True                                                # everything fails
    book = Logbook("logs", fs=fs)
    book.start(HEADER)
    book.append(ev(1))
    book.close()
    assert book.dropped_lines == 2 and isinstance(book.last_error, OSError)


def test_append_without_session_is_dropped_not_raised():
    book = Logbook("logs", fs=MemFs())
    book.append(ev(1))
    book.flush()
    book.close()
    assert book.dropped_lines == 1 and book.last_error.errno == errno.EBADF


def test_failed_write_then_recovery_keeps_later_records_readable():
    """A write that stops part-way (ENOSPC) leaves a fragment; the next write starts on a new
    line so later records stay intact, and the fragment is one malformed middle line."""
    fs = MemFs()
    book = Logbook("logs", buffer_bytes=256, fs=fs)
    book.start(HEADER)
    for i in range(3):
        book.append(ev(i))
    real_write = MemFile.write

    def half_write(self, data):
        data = bytes(data)
        self.fs.files[self.path].extend(data[:len(data) // 2])
        raise OSError(errno.ENOSPC, "full")

    MemFile.write = half_write
    try:
        assert book.flush() is False
    finally:
        MemFile.write = real_write
    assert book.dropped_lines == 3 and book.last_error.errno == errno.ENOSPC
    for i in range(3, 6):
        book.append(ev(i))
    assert book.flush() is True
    book.close()
    got, dropped_bytes, dropped_lines = read_log(book.path, fs)
    assert dropped_bytes == dropped_lines == 0
    assert got[0] == HEADER and got[-3:] == [ev(i) for i in range(3, 6)]
    # header, the first record (the half write held it whole), the fragment, 3 records
    assert len(got) == 6 and got[1] == ev(0)
    with pytest.raises(ValueError):
        json.loads(got[2])


# ---------------------------------------------------------------- micropython
def test_logbook_under_micropython(tmp_path):
    exe = os.path.join(ROOT, ".venv", "bin", "micropython")
    if not os.path.exists(exe):
        exe = shutil.which("micropython")
        if not exe:
            pytest.skip("micropython unix port not installed")
    env = dict(os.environ)
    env["MICROPYPATH"] = ".frozen:%s:%s" % (os.path.join(ROOT, "firmware"),
                                            os.path.join(ROOT, "firmware", "lib"))
    r = subprocess.run([exe, "-X", "heapsize=256k", os.path.join(ROOT, "tests", "micropython", "mp_logbook_check.py")],
                       cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "mp_logbook_check: OK" in out, out


def test_rotation_drops_pulled_logs_first_and_says_so(capsys):
    # Issue 28: `spit logs pull` names what it copied in logs/pulled.txt; when the board must make
    # room, those go first (oldest first), and only then sessions nobody has pulled.
    fs = mem_logs(10, 10, 10, 10, 10)
    fs.files["logs/pulled.txt"] = bytearray(b"session-0002.spitlog\nsession-0004.spitlog\n")
    book = Logbook("logs", max_total_bytes=10 ** 6, max_files=4, fs=fs)
    book.start(HEADER)
    assert sorted(n for n in fs.files if n.endswith(".spitlog")) == [
        "logs/session-%04d.spitlog" % i for i in (1, 3, 5, 6)]
    out = capsys.readouterr().out
    assert "removed logs/session-0002.spitlog" in out and "removed logs/session-0004.spitlog" in out
    assert "NOT pulled" not in out
    book.start(HEADER)                                            # none pulled left: the oldest
    assert "removed logs/session-0001.spitlog (NOT pulled)" in capsys.readouterr().out
