# What goes on the board, in MicroPython's manifest format (tools/manifestfile.py): every file
# `spit flash` compiles and copies is named here, and nothing else under firmware/ is installed.
# The same file freezes the firmware into a custom image with MicroPython's own build
# (docs/architecture.md, "Freezing the firmware"); spit flash, the emulated Pico, the size checks
# and tests/guards/test_manifest.py read it (host_tools/device/manifest.py).
#
# Options (a board file gives them: spit flash passes its nfc bus and LED type):
#   nfc_bus  "spi" or "i2c": the PN532 transport the board's readers use;
#   leds     "neopixel", "gpio" or "none": the board's LED driver.
# Not installed, on purpose (tests/guards/test_manifest.py wants each file of firmware/ either named
# below in a package() or listed here):
#   PC-side checks whose results spit flash writes to the board: referee/board.py (board.json),
#     spit/rules.py (ruleset.json), spit/cardfile.py (cards.bin), spit/logtables.py and
#     spit/notation.py (logtables.bin);
#   PC-side readers and words: spit/log.py (with spit/logjson.py, spit/logfields.py), spit/words.py,
#     spit/describe.py, spit/verdicts.py, spit/cards.py, spit/timebase.py, referee/logread.py, referee/sources.py;
#   bring-up scripts that `mpremote run` sends: referee/enroll.py, referee/nfc_probe.py, referee/doctor.py,
#     referee/doctor_pile.py;
#   drivers/byteloops_py.py, the unix port's stand-in for the native drivers/byteloops;
#   drivers/pn532_blocking.py, blocking PN532 calls for tests and bring-up.

metadata(description="Spit referee: the firmware for an RP2040 under the table", version="0.1.0")

options.defaults(nfc_bus="spi", leds="neopixel")

module("main.py")

# The rules engine's device half (firmware/lib/spit).
package("spit", files=("__init__.py", "cardmap.py", "clock.py", "corrections.py", "intake.py",
                       "intents.py", "legal.py", "referee.py", "settle.py"), base_path="lib")

# The device program.
package("referee", files=("app.py", "board_hw.py", "boardfile.py", "boot.py", "corrections.py", "live.py",
                          "logbook.py", "logfiles.py", "logline.py", "loop.py", "rejected.py", "sessionlog.py",
                          "stalls.py", "startup.py", "waiting.py"))

# Drivers every board runs.
package("drivers", files=("buzzer.py", "byteloops.py", "debouncer.py", "edge_input.py",
                          "input_ring.py", "nfc_reader.py", "pn532.py", "pn532_setup.py", "tag_scan.py",
                          "uid_memory.py"))

# The board's own transport and LED drivers.
if options.nfc_bus == "spi":
    package("drivers", files=("pn532_spi.py",))
elif options.nfc_bus == "i2c":
    package("drivers", files=("pn532_i2c.py",))
else:
    raise ValueError("nfc_bus: spi or i2c, not %r" % (options.nfc_bus,))

# The LED effects go as a folder: a new effect is a new file there (drivers/led_patterns.py).
if options.leds == "neopixel":
    package("drivers", files=("led_patterns.py", "led_strip.py", "ws2812_pio.py"))
    package("drivers/led_effects")
elif options.leds == "gpio":
    package("drivers", files=("led_patterns.py", "gpio_leds.py"))
    package("drivers/led_effects")
elif options.leds != "none":
    raise ValueError("leds: neopixel, gpio or none, not %r" % (options.leds,))
