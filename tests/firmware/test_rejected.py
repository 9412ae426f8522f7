"""referee/rejected.py: a rejected card's UID is handed back to its pile's reader to forget."""

from referee.rejected import RejectedUids


class Reader:
    def __init__(self):
        self.forgotten = []

    def forget(self, uid):
        self.forgotten.append(bytes(uid))


def test_only_rejected_uids_of_each_length_are_forgotten_on_their_pile():
    rejected = RejectedUids(2)
    uids = [bytes.fromhex(h) for h in ("04A1B2C3", "04A1B2C3D4E5F6", "04A1B2C3D4E5F6A7B8C9")]
    for card, uid in enumerate(uids, 1):
        rejected.keep(1, card, uid)
    rejected.keep(0, 1, bytes.fromhex("0400BEEF"))
    assert rejected.reject(1, 1) and rejected.reject(1, 3) and not rejected.reject(1, 9)
    assert rejected.pending[1] and not rejected.pending[0]
    readers = [Reader(), Reader()]
    rejected.forget_now(1, readers[1])
    rejected.forget_now(0, readers[0])
    assert readers[1].forgotten == [uids[0], uids[2]] and readers[0].forgotten == []
    assert not rejected.pending[1]
    rejected.forget_now(1, readers[1])          # nothing twice
    assert len(readers[1].forgotten) == 2


def test_a_newer_read_of_the_slot_cancels_the_forget_and_clear_drops_everything():
    rejected = RejectedUids(1)
    rejected.keep(0, 5, bytes.fromhex("04000001"))
    rejected.reject(0, 5)
    for i in range(8):                          # the ring of 8 slots comes round to it again
        rejected.keep(0, 6, bytes.fromhex("0400010%d" % i))
    reader = Reader()
    rejected.forget_now(0, reader)
    assert reader.forgotten == []
    rejected.keep(0, 7, bytes.fromhex("04000002"))
    rejected.reject(0, 7)
    rejected.clear()
    rejected.forget_now(0, reader)
    assert reader.forgotten == []
