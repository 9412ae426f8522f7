"""NfcReader service: newest-card detection, timestamps, strategies and reader faults."""

import os

import pytest

from host_tools.vboard import iso14443a
from support.readers import Table, _run_until_cards, uid  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


JUST_BELOW_US_WRAP = (1 << 30) - 60000  # ticks_us wraps 60 ms into the test
CS_PINS = (17, 18, 19)
IRQ_PINS = (20, 21, 22)


@pytest.fixture
def table():
    t = Table()
    yield t
    t.close()


def test_growing_pile_reports_each_new_card_once_in_order(table):
    table.run(20000)
    landed = []
    for n in range(6):
        landed.append(table.ticks_now())
        table.emulators[0].place_tag(uid(n))
        table.run(40000)
    assert [c[1] for c in table.cards] == [uid(n) for n in range(6)]
    assert all(c[0] == 0 for c in table.cards)
    emulator = table.emulators[0]
    for (_pile, _card, stamp), land in zip(table.cards, landed):
        delay = table.time.ticks_diff(stamp, land)
        # IRQ timestamp: after the RF work, within one attempt + anticollision of landing.
        assert emulator.anticollision_us <= delay <= emulator.anticollision_us + emulator.attempt_us + 250
    # The run crossed the 2**30 us wrap and the order is still right.
    stamps = [c[2] for c in table.cards]
    assert any(s < 1000000 for s in stamps) and any(s > (1 << 30) - 1000000 for s in stamps)
    assert all(table.time.ticks_diff(b, a) > 0 for a, b in zip(stamps, stamps[1:]))
    assert table.readers[0].failures == 0 and table.readers[0].status == table.mod.STATUS_OK


def test_each_pile_has_its_own_reader(table):
    table.emulators[1].place_tag(uid(1))
    table.run(10000)
    table.emulators[0].place_tag(uid(2))
    table.run(30000)
    assert [(c[0], c[1]) for c in table.cards] == [(1, uid(1)), (0, uid(2))]


def test_polling_without_irq_uses_the_poll_time():
    t = Table(piles=1, irq=False, transport="i2c")
    try:
        t.run(5000)
        landed = t.ticks_now()
        t.emulators[0].place_tag(uid(7))
        t.run(30000)
        assert len(t.cards) == 1
        delay = t.time.ticks_diff(t.cards[0][2], landed)
        assert t.emulators[0].anticollision_us <= delay <= 20000
    finally:
        t.close()


def test_rewoken_tag_is_halted_again_but_not_reported_twice(table):
    table.emulators[0].place_tag(uid(1))
    table.run(20000)
    table.emulators[0].tag(uid(1)).power_up()  # lost power when the stack detuned
    table.run(20000)
    assert [c[1] for c in table.cards] == [uid(1)]
    assert table.readers[0].rereads >= 1
    assert table.emulators[0].tag(uid(1)).state == iso14443a.HALT
    table.readers[0].clear_pile()  # pile taken: the same card may come back later
    table.emulators[0].remove_tag(uid(1))
    table.emulators[0].place_tag(uid(1))
    table.run(20000)
    assert [c[1] for c in table.cards] == [uid(1), uid(1)]


def test_field_reset_strategy_re_enumerates_the_pile():
    t = Table(piles=1, strategy="STRATEGY_FIELD_RESET", reader_options={"field_reset_us": 30000})
    try:
        for n in range(4):
            t.emulators[0].place_tag(uid(n))
            t.run(25000)
        t.run(100000)
        assert [c[1] for c in t.cards] == [uid(n) for n in range(4)]
        assert t.readers[0].field_resets >= 2
        assert t.readers[0].rereads >= 4  # old cards were read again after each reset
        assert 0x32 in t.emulators[0].commands
    finally:
        t.close()


def test_stacked_tag_misses_delay_but_do_not_lose_the_card():
    t = Table(piles=1, emulator_options={"stacked_miss_rate": 1.0, "stacked_miss_attempts": 3})
    try:
        t.emulators[0].place_tag(uid(1))
        t.run(20000)
        landed = t.ticks_now()
        t.emulators[0].place_tag(uid(2))
        t.run(40000)
        assert [c[1] for c in t.cards] == [uid(1), uid(2)]
        assert t.time.ticks_diff(t.cards[1][2], landed) >= 3 * t.emulators[0].attempt_us
    finally:
        t.close()


def test_unreadable_stacked_tag_is_never_reported_and_others_continue(table):
    table.emulators[0].place_tag(uid(1))
    table.run(20000)
    table.emulators[0].place_tag(uid(2), unreadable=True)
    table.run(20000)
    table.emulators[0].place_tag(uid(3))
    table.run(20000)
    assert [c[1] for c in table.cards] == [uid(1), uid(3)]


@pytest.mark.parametrize("fault,kind", [("nack_next", "nack"), ("bad_checksum_next", "checksum"),
                                        ("error_frame_next", "error-frame")])
def test_single_fault_is_reported_and_retried(table, fault, kind):
    table.run(5000)
    table.emulators[0].place_tag(uid(1))
    setattr(table.emulators[0], fault, True)
    table.emulators[1].place_tag(uid(2))
    table.run(200000)
    reader = table.readers[0]
    assert reader.failures == 1 and reader.last_error == kind
    assert reader.recoveries == 1 and reader.status == table.mod.STATUS_OK
    assert (0, 1, kind) in table.status_changes and table.status_changes[-1][:2] == (0, 0)
    assert sorted((c[0], c[1]) for c in table.cards) == [(0, uid(1)), (1, uid(2))]
    assert table.readers[1].failures == 0


def test_silent_reader_backs_off_while_the_other_pile_keeps_working(table):
    table.run(5000)
    table.emulators[0].silent = True
    for n in range(5):
        table.emulators[1].place_tag(uid(n))
        table.run(100000)
    reader = table.readers[0]
    assert reader.status == table.mod.STATUS_FAILING and reader.last_error == "timeout"
    # Exponential backoff: 20, 40, 80, 160 ms ... not a retry every loop pass.
    assert 3 <= reader.failures <= 7
    assert [c[1] for c in table.cards] == [uid(n) for n in range(5)]
    assert all(c[0] == 1 for c in table.cards)
    table.emulators[0].silent = False
    table.emulators[0].place_tag(uid(9))
    table.run(2500000)
    assert reader.status == table.mod.STATUS_OK and reader.recoveries == 1
    assert (0, uid(9)) in [(c[0], c[1]) for c in table.cards]
    assert table.emulators[0].commands.count(0x14) >= 2  # setup re-run after repeated failures


def test_service_never_raises_on_bus_errors():
    t = Table(piles=1, transport="i2c")
    try:
        t.run(5000)
        import machine  # noqa: F401
        t.emulators[0].silent = True  # address NACK: OSError inside the transport
        t.run(400000)
        assert t.readers[0].failures >= 1
        assert t.readers[0].last_error in ("bus", "timeout")
        assert t.readers[0].status == t.mod.STATUS_FAILING
    finally:
        t.close()


def test_retry_forever_waits_in_the_chip_and_relists_without_failures():
    # The firmware's setting: the PN532 waits for a card itself (MxRtyPassiveActivation 0xFF).
    # A quiet pile costs no bus traffic; after reply_timeout_us the listing is cancelled and
    # re-issued (its ACK is the health check), which is not a failure.
    t = Table(piles=1, reader_options={"passive_retries": 0xFF, "reply_timeout_us": 200000})
    try:
        t.readers[0].pn532.set_passive_retries(0xFF)
        t.run(1100000)                       # 1.1 s with an empty pile
        reader = t.readers[0]
        assert reader.failures == 0 and reader.status == t.mod.STATUS_OK
        assert t.cards == []
        landed = t.ticks_now()
        t.emulators[0].place_tag(uid(1))
        t.run(40000)
        assert [c[1] for c in t.cards] == [uid(1)]
        delay = t.time.ticks_diff(t.cards[0][2], landed)
        em = t.emulators[0]
        assert delay <= em.anticollision_us + em.attempt_us + 250
        t.emulators[0].silent = True         # a dead chip: the re-list's ACK never comes
        t.run(600000)
        assert reader.failures > 0 and reader.status == t.mod.STATUS_FAILING
    finally:
        t.close()


# ---- issue 10 items 3 and 7: slow ACKs, wedged readers, hung buses --------------------------

def _run_measuring_service(t, duration_us, step_us=250):
    """Like Table.run, returning the longest virtual time one service() call took."""
    worst = 0
    end = t.clock.now_us + duration_us
    while t.clock.now_us < end:
        t.clock.advance_us(step_us)
        for emulator in t.emulators:
            emulator.update()
        for reader in t.readers:
            before = t.clock.now_us
            reader.service(t.time.ticks_us())
            worst = max(worst, t.clock.now_us - before)
    return worst


def test_slow_acks_during_relists_are_not_reader_failures():
    t = Table(piles=1, emulator_options={"slow_ack_rate": 0.5, "slow_ack_us": 15000},
              reader_options={"passive_retries": 0xFF, "reply_timeout_us": 100000})
    try:
        t.readers[0].pn532.set_passive_retries(0xFF)
        worst = _run_measuring_service(t, 2000000)
        for n in range(3):
            t.emulators[0].place_tag(uid(n))
            worst = max(worst, _run_measuring_service(t, 200000))
        reader = t.readers[0]
        assert t.emulators[0].slow_acks >= 5
        assert reader.failures == 0 and t.status_changes == []
        assert [c[1] for c in t.cards] == [uid(n) for n in range(3)]
        assert worst <= 500   # no busy wait for an ACK inside the loop
    finally:
        t.close()


def test_wedged_reader_is_reset_through_rstpd_n_without_blocking_the_loop():
    t = Table(piles=1, reader_options={"passive_retries": 0xFF, "reply_timeout_us": 100000})
    try:
        import machine
        em = t.emulators[0]
        reader = t.readers[0]
        em.reset_gpio = 9
        reader.pn532.reset_pin = machine.Pin(9, machine.Pin.OUT, value=1)
        reader.pn532.set_passive_retries(0xFF)
        t.run(50000)
        em.wedged = True                       # answers nothing until RSTPD_N is pulsed
        worst = _run_measuring_service(t, 1500000)
        assert em.resets == 1 and reader.setup.resets == 1
        assert reader.status == t.mod.STATUS_OK and reader.setup.version == (0x32, 1, 6, 7)
        em.place_tag(uid(5))
        worst = max(worst, _run_measuring_service(t, 100000))
        assert [c[1] for c in t.cards] == [uid(5)]
        # The re-setup ran in steps: only the 2 ms wake pulse (CS held low) blocks.
        assert worst <= 2500
    finally:
        t.close()


def test_hung_i2c_bus_is_cleared_and_the_reader_recovers():
    t = Table(piles=1, transport="i2c", reader_options={"passive_retries": 0xFF,
                                                        "reply_timeout_us": 100000})
    try:
        import machine
        reader = t.readers[0]
        driver = reader.pn532
        scl, sda = machine.Pin(5), machine.Pin(4)
        driver._bus_pins = (0, scl, sda, 100000)   # what board_hw.build_pn532 passes
        driver.set_passive_retries(0xFF)
        t.run(50000)
        bus = driver._i2c
        bus.hang(scl, sda)
        t.run(1000000)
        assert driver.bus_clears >= 1 and not bus.hung
        assert reader.status == t.mod.STATUS_OK
        t.emulators[0].place_tag(uid(6))
        t.run(100000)
        assert [c[1] for c in t.cards] == [uid(6)]
    finally:
        t.close()


def test_slow_acks_on_the_board_never_show_reader_down():
    # The board's readers re-list every 500 ms; a chip that ACKs in 15 ms now and then is
    # healthy (the firmware used to give up after 3 ms and show reader_down).
    from host_tools.vboard.runner import VirtualTable

    t = VirtualTable(emulator={"slow_ack_rate": 0.5, "slow_ack_us": 15000})
    try:
        t.run_until(1_000_000)
        t.land_card(0, "7H", 2_100_000)
        t.land_card(1, "KS", 2_150_000)
        t.run_until(4_000_000)
        errors = [o for o in t.log_objects() if o.get("verdict") == "error"]
        assert errors == []
        assert all(e.slow_acks >= 3 for e in t.emulators)
        assert all(r.failures == 0 for r in t.app.readers)
        assert [o["card"] for o in t.log_objects() if o.get("verdict") == "spit"] == ["7H", "KS"]
    finally:
        t.close()


# ---- issue 8: no allocation per card or idle step ---------------------------------------

def test_readers_allocate_nothing_per_card_or_idle_step_under_heap_lock(run_mp):
    result = run_mp("mp_reader_heap_check.py", timeout=300)
    assert result.returncode == 0 and "mp_reader_heap_check: OK" in result.stdout, \
        result.stdout + result.stderr


def test_reader_heap_check_catches_an_allocating_card_callback(run_mp):
    result = run_mp("mp_reader_heap_check.py", "--bad", timeout=300)
    assert result.returncode == 0 and "mp_reader_heap_check: caught" in result.stdout, \
        result.stdout + result.stderr


@pytest.mark.parametrize("wupa", [False, True], ids=["listing-REQA", "listing-WUPA"])
def test_r_play_5_quiet_follows_all_cards_of_an_activation_once(wupa):
    # R-PLAY-5: the referee holds other piles back after a read until the reader is sure no
    # other tag of that activation is still to come; on_quiet says so, once per activation and
    # only after its last card (two tags landing together: after both).
    t = Table(emulator_options={"list_uses_wupa": wupa})
    try:
        quiet = []
        for r in t.readers:
            r.on_quiet = lambda pile: quiet.append((pile, len(t.cards)))
        t.run(20000)
        assert quiet == []                    # nothing read, nothing to settle
        t.emulators[0].place_tag(uid(1))
        t.run(60000)
        assert quiet == [(0, 1)]
        t.emulators[0].place_tag(uid(2))
        t.emulators[0].place_tag(uid(3))
        t.run(150000)
        assert sorted(c[1] for c in t.cards[1:]) == [uid(2), uid(3)]
        assert quiet == [(0, 1), (0, 3)]
        t.run(600000)                         # quiet piles, relists: no more quiet calls
        assert quiet == [(0, 1), (0, 3)]
    finally:
        t.close()


def test_r_play_5_a_single_listed_tag_settles_its_pile_at_once():
    # A listing that found one tag: any other tag answers a later REQA, with a later time, so
    # the pile is quiet for the referee as the card is reported, not a halt and a scan later.
    t = Table(piles=1)
    try:
        at_quiet = []
        em = t.emulators[0]
        t.readers[0].on_quiet = lambda pile: at_quiet.append((len(t.cards), em.commands[-1]))
        t.run(20000)
        em.place_tag(uid(1))
        t.run(60000)
        assert at_quiet == [(1, 0x4A)]   # with the card, before the tag's halt (InRelease 0x52)
    finally:
        t.close()


def test_r_play_5_race_second_tag_is_listed_after_the_scans_reqa():
    # Two cards race onto one pile: the first is listed alone, the second lands while it is
    # halted.  On a chip that does not give CIU_Coll (learned at a collision), the scan's REQA
    # hears the second, and the chip's listing reads it in one command, not the scan's own
    # anticollision and SELECT frames (one command each).
    t = Table(piles=1, emulator_options={"coll_readable": False})
    try:
        t.readers[0].scan.use_coll = False   # (as learned from CollPosNotValid)
        em = t.emulators[0]
        t.run(20000)
        em.place_tag(uid(1))
        _run_until_cards(t, 1)
        em.place_tag(uid(2))
        landed = t.ticks_now()
        frames = len(em.raw_frames)
        commands = len(em.commands)
        _run_until_cards(t, 2)
        assert [c[1] for c in t.cards] == [uid(1), uid(2)]
        # HLTA of the first (ours), REQA, then HLTA again: the second card is READY after its
        # REQA, and a READY tag takes the listing's REQA as unexpected (NTAG213F 8.4.4).
        assert [f for f, _ in em.raw_frames[frames:]] == [0x50, 0x26, 0x50]
        # halt, raw mode, REQA, chip mode, park, listing
        assert em.commands[commands:] == [0x42, 0x08, 0x42, 0x08, 0x42, 0x4A]
        assert sum(tag.unexpected for tag in em.tags) == 0
        # Stamped when its REQA was answered: not before it landed.
        assert t.time.ticks_diff(t.cards[1][2], landed) > 0
        assert not t.readers[0].wakes_halted
    finally:
        t.close()


def test_handed_over_listing_with_no_new_tag_lets_the_next_scan_resolve_it():
    # A chip whose listing wakes halted tags, before the reader has learned it: the listing
    # handed a new tag's REQA answer returns two halted tags instead (higher UIDs win), and the
    # same ones again after they were halted.  The next scan then resolves anticollision itself
    # and reads the new tag, rather than handing over to the same listing for ever.
    t = Table(piles=1, emulator_options={"list_uses_wupa": True, "coll_readable": False})
    try:
        em = t.emulators[0]
        reader = t.readers[0]
        reader.scan.use_coll = False   # (the hand-over is for chips without CIU_Coll)
        t.run(20000)
        em.place_tag(uid(0x50))
        em.place_tag(uid(0x60))
        t.run(100000)
        assert sorted(c[1] for c in t.cards) == [uid(0x50), uid(0x60)]
        assert reader.wakes_halted
        while reader._state != t.mod._POLL_WAIT:   # between two scans (no listing pending)
            t.run(250, 250)
        reader.wakes_halted = False    # as if not learned yet
        reader._relists = 0
        em.place_tag(uid(0x10))
        commands = len(em.commands)
        _run_until_cards(t, 3)
        assert t.cards[2][1] == uid(0x10)
        assert em.commands[commands:].count(0x4A) == 2     # the same tags twice, then its own
        assert any(f == 0x93 for f, _ in em.raw_frames)   # the scan's own anticollision
    finally:
        t.close()


def test_r_play_5_field_resets_keep_a_growing_pile_in_order():
    # After each field reset every tag on the pile answers REQA again: the reader re-reads them
    # two by two through handed-over listings, reports only the new ones, in landing order and
    # soon after they land, and does not take the woken tags for a chip that wakes halted ones.
    t = Table(piles=1, strategy="STRATEGY_FIELD_RESET", reader_options={"field_reset_us": 30000})
    try:
        em = t.emulators[0]
        landed = []
        for n in range(12):
            em.place_tag(uid(0x40 + 7 * n))   # UIDs up and down the order the chip lists in
            landed.append(t.ticks_now())
            t.run(45000)
        t.run(100000)
        reader = t.readers[0]
        assert [c[1] for c in t.cards] == [uid(0x40 + 7 * n) for n in range(12)]
        assert reader.field_resets >= 10 and reader.rereads >= 20
        assert not reader.wakes_halted
        assert max(t.time.ticks_diff(c[2], at) for c, at in zip(t.cards, landed)) < 20000
    finally:
        t.close()
