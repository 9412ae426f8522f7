"""Shared by several test modules (moved from test_watch.py)."""

import json
import subprocess
import threading
import time
from host_tools.watch import Watch, Hub  # noqa: E402
from host_tools.cli.watch import WatchServer  # noqa: E402


CHROMIUM = "/usr/bin/chromium"


class Served:
    def __init__(self):
        self.watch, self.hub = Watch(), Hub()
        self.server = WatchServer(("127.0.0.1", 0), self.watch, self.hub)
        self.url = "http://127.0.0.1:%d/" % self.server.server_address[1]
        self.tops_at = {0: [None, None]}
        publish = self.hub.publish

        def keep(events):
            for ev in events:
                if "state" in ev:
                    self.tops_at[ev["seq"]] = ev["state"]["tops"]
            publish(events)
        self.hub.publish = keep
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    def close(self):
        self.server.closing.set()
        self.server.shutdown()
        self.server.server_close()

    def acks(self):
        with self.server.acks_lock:
            return [q for _t, q in self.server.acks]


def open_page(tmp_path, url, name):
    return subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             "--disable-background-networking", "--disable-component-update", "--disable-sync",
                             "--user-data-dir=" + str(tmp_path / name), "--remote-debugging-port=0",
                             url + "?ack=1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for(cond, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


def log_objects(lines):
    """The session log objects in a stream (protocol lines without their seq/dev, or plain lines)."""
    from host_tools.device.live import split_line
    out = []
    for line in lines:
        parts = split_line(line.rstrip("\r"))
        text = parts[3] if parts else line
        if text.startswith("{"):
            try:
                out.append(json.loads(text))
            except ValueError:
                pass
    return out


def watch_pages(tmp_path, feed_first, feed_rest):
    """One page open from the start, a second opened between ``feed_first()`` and ``feed_rest()``
    (each feeds the served Watch); returns (the acks per page, early page first, tops by event seq)."""
    served = Served()
    first = second = None
    try:
        first = open_page(tmp_path, served.url, "p1")
        assert wait_for(lambda: any("state" in a for a in served.acks()), 60), "the first page never connected"
        feed_first(served)
        second = open_page(tmp_path, served.url, "p2")
        assert wait_for(lambda: sum("state" in a for a in served.acks()) >= 2, 60), "the late page never connected"
        feed_rest(served)
        settled = [-1]

        def quiet():   # no new acknowledgement for a second: both pages have drawn all they got
            n = len(served.acks())
            if n == settled[0]:
                return True
            settled[0] = n
            time.sleep(1.0)
            return False
        assert wait_for(quiet, 60)
        acks = served.acks()
    finally:
        for p in (first, second):
            if p is not None:
                p.terminate()
                p.wait(10)
        served.close()
    pages = {}
    for a in acks:
        pages.setdefault(a["pid"], []).append(a)
    assert len(pages) == 2
    for page in pages.values():
        page.sort(key=lambda a: int(a["i"]))   # the order the page drew them (acks may arrive out of order)
    return sorted(pages.values(), key=lambda p: int(p[0]["state"])), served.tops_at


def assert_pages(pages, tops_at, verdicts):
    early, late = pages
    assert int(late[0]["state"]) > 0, "the late page joined mid-game"
    assert json.loads(late[0]["tops"]) == tops_at[int(late[0]["state"])], "it shows the tops at once"
    assert any(json.loads(late[0]["tops"])), "mid-game: some pile has a top"
    # Every verdict of the game appears on the first page, in order; the late one has every verdict after it joined.
    assert [(a["verdict"], int(a["t"])) for a in early if "verdict" in a] == [(v["verdict"], v["t"]) for v in verdicts]
    tail = [(a["verdict"], int(a["t"])) for a in late if "verdict" in a]
    assert tail and tail == [(v["verdict"], v["t"]) for v in verdicts][-len(tail):]
