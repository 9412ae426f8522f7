// An emulated Raspberry Pi Pico (rp2040js) running the real MicroPython rp2 firmware image.
//
// The Python side (host_tools/rp2emu/emulator.py) starts this script and drives it over
// stdin/stdout with one JSON object per line. Everything here is synchronous: the emulator
// runs only inside a "run" command, and a byte clocked out on a watched SPI bus stops it
// until Python answers with the byte the device puts on MISO. So a device model in Python
// sees every byte at its exact emulated time, and emulated time never moves while Python thinks.
//
// Commands (stdin):  {"c":"run","until":NS[,"wall_ms":N]}   run to emulated time NS (ns)
//                    {"c":"gpio","pin":N,"v":0|1}            drive an input pin
//                    {"c":"serial","hex":"..."}              bytes from the USB host to the board
//                    {"c":"watch","pins":[..]}               report output edges of these pins
//                    {"c":"spi_device","bus":0,"cs":[..]}    SPI bytes while one of these CS is low go to Python
//                    {"c":"ws2812","pin":N}                  decode this pin as a WS2812 data line
//                    {"c":"pwm","pin":N}                     report the PWM tone on this pin
//                    {"c":"usb_stall","until":NS}            the host stops reading (NAKs IN
//                                                            transfers of the CDC data endpoint) until NS
//                    {"c":"save_fs","path":P}                write the file-system region of flash to P
//                    {"c":"save_ram","path":P}               write the SRAM (264 KB from 0x20000000) to P
//                    {"c":"stats"} / {"c":"quit"}
// Events (stdout):   {"e":"ready"} {"e":"done","t":NS} {"e":"ser","hex":..} {"e":"pin",..}
//                    {"e":"spi","bus":B,"tx":V,"t":NS} -> Python answers {"c":"rx","v":V} (after
//                    any other commands) {"e":"ws",..} {"e":"pwm",..} {"e":"flash",..}
//                    {"e":"mask",..} {"e":"reset",..} {"e":"log",..} {"e":"stats",..}
//
// What the stock rp2040js 1.4.1 needs around it for this firmware, each found by running it
// (see ../shared/rp2/README.md): boot from flash (boot2) with the bootrom loaded; the ROM's
// flash erase/program done here (the SSI is a stub); PIO stepped on the emulated clock with
// CLKDIV and delays; a USB host that NAKs OUT transfers until it has data; clk_sys read
// from the clock tree; a watchdog reset that restarts the chip from its flash.
'use strict';

const fs = require('fs');
const { RP2040, USBCDC } = require('rp2040js');
const { readLine, emit, flushOut } = require('./channel.js');
const { FLASH_BASE, loadUF2, romFunction, letters } = require('./images.js');
const { decodeWS2812, watchPWM } = require('./pins.js');
const FS_OFFSET = 0xa0000;           // MicroPython RPI_PICO v1.26.1: littlefs starts here ...
const FS_SIZE = 352 * 4096;          // ... 352 blocks of 4 KiB, up to the end of the 2 MB flash
const DEBUG = !!process.env.SPIT_EMU_DEBUG;
const WAIT_TX_FIFO = 3;              // rp2040js's StateMachine.waitType: a blocking PULL ...
const WAIT_OUT = 5;                  // ... or an OUT with autopull, on an empty TX FIFO

function parseArgs(argv) {
  const opts = { eraseMs: 45, programMsPerPage: 0.4 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if (a === '--firmware') { opts.firmware = v; i++; }
    else if (a === '--bootrom') { opts.bootrom = v; i++; }
    else if (a === '--fs') { opts.fs = v; i++; }
    else if (a === '--erase-ms') { opts.eraseMs = Number(v); i++; }
    else if (a === '--program-ms') { opts.programMsPerPage = Number(v); i++; }
    else throw new Error('unknown option ' + a);
  }
  if (!opts.firmware || !opts.bootrom) throw new Error('--firmware and --bootrom are required');
  return opts;
}

// ---- the chip ----------------------------------------------------------------------------------
class Board {
  constructor(opts) {
    this.opts = opts;
    this.bootromBytes = fs.readFileSync(opts.bootrom);
    if (this.bootromBytes.length !== 16384) {
      throw new Error(opts.bootrom + ': expected the 16 KiB RP2040 B1 bootrom, got ' + this.bootromBytes.length + ' B');
    }
    this.eraseAddr = romFunction(this.bootromBytes, letters('RE'));
    this.programAddr = romFunction(this.bootromBytes, letters('RP'));
    if (this.eraseAddr == null || this.programAddr == null) {
      throw new Error(opts.bootrom + ': flash_range_erase/program not found in the ROM function table');
    }
    this.watchPins = new Set();
    this.spiDevices = [];            // [{bus, cs: Set}]
    this.ws2812Pins = new Set();
    this.pwmPins = new Set();
    this.serialIn = [];
    this.resets = 0;
    this.stats = { flashOps: 0, flashNs: 0, spiBytes: 0, wsFrames: 0, maskedMaxNs: 0 };
    const flash = new Uint8Array(16 * 1024 * 1024);
    flash.fill(0xff);
    loadUF2(opts.firmware, flash);
    if (opts.fs && fs.existsSync(opts.fs)) {
      const img = fs.readFileSync(opts.fs);
      if (img.length !== FS_SIZE) throw new Error(opts.fs + ': a file-system image is ' + FS_SIZE + ' B, this one ' + img.length + ' B');
      flash.set(img, FS_OFFSET);
    }
    this.start(flash, 0);
  }

  start(flash, nanos) {
    const mcu = new RP2040();
    this.mcu = mcu;
    mcu.logger = { debug() {}, info() {}, warn: (n, m) => this.log('warn', n + ': ' + m), error: (n, m) => this.log('error', n + ': ' + m) };
    const words = new Uint32Array(this.bootromBytes.buffer.slice(this.bootromBytes.byteOffset, this.bootromBytes.byteOffset + 16384));
    mcu.loadBootrom(words);            // (resets the core and erases the flash array)
    mcu.flash.set(flash);
    if (nanos) mcu.clock.tick(nanos);  // a restarted chip keeps the emulated time going
    this.patchRom();
    mcu.core.PC = FLASH_BASE;         // boot2 in flash, as the rp2040js demo does
    mcu.onBreak = (code) => this.onBreak(code);
    mcu.watchdog = mcu.peripherals[0x40058];
    mcu.watchdog.onWatchdogTrigger = () => { this.resetRequested = true; };
    this.setupUSB();
    this.setupPIO();
    this.setupSPI();
    for (const p of this.watchPins) this.watchPin(p);
    for (const p of this.ws2812Pins) decodeWS2812(this, p);
    for (const p of this.pwmPins) watchPWM(this, p);
    // Pad pull-ups are not modelled: the harness drives pulled-up inputs itself.
    this.primaskSince = -1;
    this.flashInMask = false;
    this.wsInMask = false;
  }

  log(level, msg) {
    // Core 1's FIFO is not modelled; each soft reset touches it (harmless).
    // The QSPI pads and the SSI are stubs: boot2 and the ROM's flash calls poke them.
    if (/invalid SIO address: (50|58)|^(IO_QSPI_BASE|SSI): Unimplemented/.test(msg)) return;
    emit({ e: 'log', level, msg });
  }

  patchRom() {
    const rom = this.mcu.bootrom;        // Uint32Array view of the ROM
    for (const [addr, n] of [[this.eraseAddr, 1], [this.programAddr, 2]]) {
      const word = rom[addr >> 2];
      const bkpt = 0xbe00 | n;
      rom[addr >> 2] = (addr & 2) ? ((word & 0xffff) | (bkpt << 16)) >>> 0 : ((word & 0xffff0000) | bkpt) >>> 0;
    }
  }

  onBreak(code) {
    const core = this.mcu.core;
    const at = (core.PC - 2) & ~1;
    const r = core.registers;
    if (at === this.eraseAddr || at === this.programAddr) {
      const flash = this.mcu.flash;
      const offset = r[0] >>> 0;
      let ns;
      if (at === this.eraseAddr) {
        const count = r[1] >>> 0;
        flash.fill(0xff, offset, offset + count);
        ns = this.opts.eraseMs * 1e6 * Math.ceil(count / 4096);
        emit({ e: 'flash', op: 'erase', off: offset, len: count, t: Math.round(this.mcu.clock.nanos), ns });
      } else {
        const src = r[1] >>> 0;
        const count = r[2] >>> 0;
        for (let i = 0; i < count; i++) flash[offset + i] &= this.mcu.readUint8(src + i);
        ns = this.opts.programMsPerPage * 1e6 * Math.ceil(count / 256);
        emit({ e: 'flash', op: 'program', off: offset, len: count, t: Math.round(this.mcu.clock.nanos), ns });
      }
      this.stats.flashOps++;
      this.stats.flashNs += ns;
      this.flashInMask = true;
      // The chip is busy (interrupts masked) while the flash erases or programs.
      this.mcu.clock.tick(ns);
      core.PC = core.LR & ~1;
      return;
    }
    this.log('warn', 'BKPT #' + code + ' at 0x' + at.toString(16) + ' (not a patched ROM call): stopping');
    this.halted = true;
  }

  // ---- USB: a host that answers OUT reads only when it has data --------------------------------
  setupUSB() {
    const cdc = new USBCDC(this.mcu.usbCtrl);
    this.cdc = cdc;
    this.usbPending = null;
    cdc.onDeviceConnected = () => { this.usbConnected = true; emit({ e: 'usb', connected: true }); };
    cdc.onSerialData = (buf) => { emit({ e: 'ser', hex: Buffer.from(buf).toString('hex') }); };
    const usb = this.mcu.usbCtrl;
    const answer = usb.onEndpointRead;
    usb.onEndpointRead = (endpoint, size) => {
      if (DEBUG) this.log('debug', 'usb read ep' + endpoint + ' size ' + size + ' fifo ' + cdc.txFIFO.itemCount + ' t ' + this.mcu.clock.nanos);
      if (endpoint === cdc.outEndpoint && cdc.txFIFO.empty) {
        this.usbPending = [endpoint, size];  // NAK until the host has something to send
        return;
      }
      answer(endpoint, size);
    };
    this.usbAnswer = answer;
    // A host that holds the port open and stops reading: it NAKs the CDC data IN endpoint's
    // transfers, so the device's armed buffer stays AVAILABLE (RP2040 datasheet 4.1.2.5: the
    // controller clears the bit only once the host has taken the packet) until the stall ends.
    this.stallUntil = -1;
    this.stalledIn = [];
    const dpramUpdated = usb.DPRAMUpdated.bind(usb);
    usb.DPRAMUpdated = (offset, value) => {
      const inCtrl = 0x80 + 8 * cdc.inEndpoint;
      if (this.stallUntil >= 0 && offset === inCtrl && (value & (1 << 10))) {
        this.stalledIn.push([offset, value]);
        this.stalledBuffers = (this.stalledBuffers || 0) + 1;
        return;
      }
      dpramUpdated(offset, value);
    };
    for (const b of this.serialIn) cdc.sendSerialByte(b);
    this.serialIn = [];
  }

  serialWrite(bytes) {
    const cdc = this.cdc;
    for (const b of bytes) {
      if (cdc.txFIFO.full) this.serialIn.push(b); else cdc.sendSerialByte(b);
    }
    this.kickUSB();
  }

  unstallUSB() {
    this.stallUntil = -1;
    const usb = this.mcu.usbCtrl;
    const pending = this.stalledIn;
    this.stalledIn = [];
    for (const [offset, value] of pending) usb.DPRAMUpdated(offset, value);
  }

  kickUSB() {
    const cdc = this.cdc;
    while (this.serialIn.length && !cdc.txFIFO.full) cdc.sendSerialByte(this.serialIn.shift());
    if (this.usbPending && !cdc.txFIFO.empty) {
      const [ep, size] = this.usbPending;
      this.usbPending = null;
      this.usbAnswer(ep, size);
    }
  }

  // ---- PIO on the emulated clock -----------------------------------------------------------
  // A machine stalled on an empty TX FIFO (a blocking PULL, or OUT with autopull: the WS2812
  // program between frames) is parked: only a write to its PIO (the CPU's or the DMA's, into
  // TXF, or CTRL, SM_INSTR, ...) can wake it, and rp2040js wakes it inside that write. Stepping
  // it every PIO clock meanwhile bounded each WFI skip to one PIO clock: 171 M calls of stepPIO
  // in 26 s of emulated time, 13 % of node's time (node --cpu-prof); 20 s of a classic game
  // took 60 s of wall time, now 46.
  setupPIO() {
    this.pioNext = Infinity;
    for (const pio of this.mcu.pio) {
      pio.run = () => { this.pioNext = Math.min(this.pioNext, this.mcu.clock.nanos); };
      for (const sm of pio.machines) sm.nextNs = -1;
      const write = pio.writeUint32.bind(pio);
      pio.writeUint32 = (offset, value) => {
        write(offset, value);
        for (const sm of pio.machines) {
          if (sm.nextNs === Infinity) { sm.nextNs = -1; this.pioNext = Math.min(this.pioNext, this.mcu.clock.nanos); }
        }
      };
    }
  }

  stepPIO(now) {
    let next = Infinity;
    const clkSys = this.mcu.clkSys;
    for (const pio of this.mcu.pio) {
      let any = false;
      for (const sm of pio.machines) {
        if (!sm.enabled) { sm.nextNs = -1; continue; }
        any = true;
        if (sm.nextNs < 0) sm.nextNs = now;
        const div = (sm.clockDivInt || 65536) + sm.clockDivFrac / 256;
        const cycleNs = div * 1e9 / clkSys;
        let guard = 0;
        while (sm.nextNs <= now && guard++ < 64) {
          const before = sm.cycles;
          sm.step();
          const used = sm.cycles - before;
          sm.nextNs += (used > 0 ? used : 1) * cycleNs;
        }
        if (sm.waiting && (sm.waitType === WAIT_TX_FIFO || sm.waitType === WAIT_OUT)) sm.nextNs = Infinity;   // parked
        if (sm.nextNs < next) next = sm.nextNs;
      }
      if (any) pio.checkChangedPins();
    }
    this.pioNext = next;
  }

  // ---- SPI devices modelled in Python ---------------------------------------------------------
  setupSPI() {
    this.mcu.spi.forEach((spi, bus) => {
      spi.onTransmit = (value) => {
        const dev = this.spiDevices.find((d) => d.bus === bus && [...d.cs].some((p) => !this.mcu.gpio[p].outputValue));
        let rx = 0xff;
        if (dev) {
          this.stats.spiBytes++;
          flushOut();
          emit({ e: 'spi', bus, tx: value, t: Math.round(this.mcu.clock.nanos) });
          flushOut();
          rx = this.serve('rx');
        }
        // One byte takes 8 SPI clocks on the wire.
        const ns = 8e9 / Math.max(1, spi.clockFrequency);
        const alarm = this.mcu.clock.createAlarm(() => spi.completeTransmit(rx));
        alarm.schedule(ns);
      };
    });
  }

  // ---- pins seen from outside -----------------------------------------------------------------
  watchPin(p) {
    // A chip-select of a device modelled in Python is synchronous: the device may schedule
    // something (a reply ready) that must stop the current run early.
    const pin = this.mcu.gpio[p];
    let last = pin.outputEnable ? (pin.outputValue ? 1 : 0) : -1;
    pin.addListener(() => {
      const v = pin.outputEnable ? (pin.outputValue ? 1 : 0) : -1;
      if (v !== last) {
        last = v;
        const sync = this.spiDevices.some((d) => d.cs.has(p));
        emit({ e: 'pin', p, v, t: Math.round(this.mcu.clock.nanos), sync });
        const h = this.heap;
        if (h && h.stepPin === p && v === 0) {
          // The end of a loop step (the firmware's probe pin falls): every call frame of the
          // step is freed again, so a rise since the last step's end is what the loop kept
          // (garbage or growth); a drop is a collection.
          const used = this.heapInUse();
          if (h.stepLast >= 0 && used > h.stepLast) {
            h.stepAllocated += used - h.stepLast;
            // Each rise with its time, so that a bench can tell play from pauses (bounded).
            if (h.stepRises.length < 100000) h.stepRises.push([Math.round(this.mcu.clock.nanos), used - h.stepLast]);
          }
          h.stepLast = used;
          h.steps++;
        }
        if (sync) {
          flushOut();
          this.serve('go');
        }
      }
    });
  }

  // ---- running --------------------------------------------------------------------------------
  run(untilNs, wallMs) {
    const mcu = this.mcu;
    const clock = mcu.clock;
    const core = mcu.core;
    const wallEnd = wallMs ? Date.now() + wallMs : 0;
    let i = 0;
    let nextCheck = 0x1000;
    this.runLimit = untilNs;          // a device model may bring it forward ("until")
    while (clock.nanos < this.runLimit && !this.halted) {
      untilNs = this.runLimit;
      const cycleNs = 1e9 / mcu.clkSys;
      if (core.waiting) {
        let to = clock.nanosToNextAlarm > 0 ? clock.nanos + clock.nanosToNextAlarm : untilNs;
        if (this.pioNext < to) to = this.pioNext;
        if (to > untilNs) to = untilNs;
        if (to <= clock.nanos) to = clock.nanos + cycleNs;
        clock.tick(to - clock.nanos);     // an interrupt raised by an alarm ends the WFI
      } else {
        // A run of instructions up to the next thing due (a PIO step, a heap sample, the end),
        // left when the core waits, PRIMASK changes or a device model moves the end. (Each
        // check once per instruction: 20 s of a classic game took 46 s of wall time, now 41.)
        let stop = this.runLimit;
        if (this.pioNext < stop) stop = this.pioNext;
        if (this.heap && this.heap.next < stop) stop = this.heap.next;
        const pm = core.PM;
        let n = 0;
        do {
          clock.tick(core.executeInstruction() * cycleNs);
        } while (++n < 256 && clock.nanos < stop && !core.waiting && core.PM === pm && !this.resetRequested && !this.halted
                 && this.pioNext >= stop && this.runLimit >= stop);
        i += n - 1;
      }
      if (this.pioNext <= clock.nanos) this.stepPIO(clock.nanos);
      if (this.heap && this.heap.next <= clock.nanos) this.sampleHeap(clock.nanos);
      this.trackMask();
      if (this.resetRequested) this.restart();
      if (++i >= nextCheck) {
        nextCheck = i + 0x1000;
        if (this.serialIn.length || this.usbPending) this.kickUSB();
        if (this.stallUntil >= 0 && clock.nanos >= this.stallUntil) this.unstallUSB();
        if (wallEnd && Date.now() >= wallEnd) break;
      }
    }
    this.trackMask();
  }

  // ---- MicroPython's heap, read from its allocation table (2 bits per 16-byte block) ------
  heapInUse() {
    const h = this.heap;
    const sram = this.mcu.sram;
    const base = h.atb - 0x20000000;
    let used = 0;
    const bytes = h.blocks >> 2;
    for (let i = 0; i < bytes; i++) {
      const b = sram[base + i];
      if (!b) continue;
      // each 2-bit entry: 0 free, 1 head, 2 tail, 3 mark
      used += ((b & 3) !== 0) + (((b >> 2) & 3) !== 0) + (((b >> 4) & 3) !== 0) + (((b >> 6) & 3) !== 0);
    }
    return used * 16;
  }

  sampleHeap(now) {
    const h = this.heap;
    const used = this.heapInUse();
    if (used > h.peak) { h.peak = used; h.peakNs = now; }
    if (used > h.last) h.allocated += used - h.last;
    h.last = used;
    h.samples++;
    // The lowest heap in use in each emulated second: with no garbage left after a collect,
    // that floor is the live heap, and its trend over a game is growth (or none).
    const second = Math.floor(now / 1e9);
    if (second !== h.second) {
      if (h.second >= 0) h.floors.push([h.second, h.floor]);
      h.second = second;
      h.floor = used;
    } else if (used < h.floor) h.floor = used;
    h.next = now + h.every;
  }

  trackMask() {
    // Interrupts masked (PRIMASK) for a while: how long, and whether a flash operation or
    // a WS2812 frame happened inside.
    const pm = this.mcu.core.PM;
    const now = this.mcu.clock.nanos;
    if (pm && this.primaskSince < 0) {
      this.primaskSince = now;
      this.flashInMask = false;
      this.wsInMask = false;
    } else if (!pm && this.primaskSince >= 0) {
      const ns = now - this.primaskSince;
      if (ns > 20000) {
        const cause = this.flashInMask ? 'flash' : (this.wsInMask ? 'leds' : 'other');
        emit({ e: 'mask', t: Math.round(this.primaskSince), ns: Math.round(ns), cause });
      }
      if (ns > this.stats.maskedMaxNs) this.stats.maskedMaxNs = ns;
      this.primaskSince = -1;
    }
  }

  restart() {
    // rp2040js has no watchdog reset: start the chip again from its flash (file system kept).
    this.resetRequested = false;
    this.resets++;
    const flash = new Uint8Array(this.mcu.flash);
    const nanos = this.mcu.clock.nanos;
    emit({ e: 'reset', t: Math.round(nanos), n: this.resets });
    this.start(flash, nanos);
  }

  setInput(p, v) {
    this.mcu.gpio[p].setInputValue(!!v);
  }

  // Process commands until one of `until` kinds ("rx" inside an SPI byte, or "run"/"quit"
  // at top level); returns the value for "rx".
  serve(until) {
    for (;;) {
      flushOut();
      const line = readLine();
      if (line === null) process.exit(0);
      if (!line.trim()) continue;
      const m = JSON.parse(line);
      switch (m.c) {
        case 'rx':
          if (until === 'rx') return m.v & 0xff;
          throw new Error('rx outside an SPI exchange');
        case 'go':
          if (until === 'go') return 0;
          throw new Error('go outside a synchronous event');
        case 'until': if (m.t < this.runLimit) this.runLimit = m.t; break;
        case 'gpio': this.setInput(m.pin, m.v); break;
        case 'serial': this.serialWrite(Buffer.from(m.hex, 'hex')); break;
        case 'usb_stall': this.stallUntil = m.until; this.stalledBuffers = 0; break;
        case 'watch': for (const p of m.pins) { if (!this.watchPins.has(p)) { this.watchPins.add(p); this.watchPin(p); } } break;
        case 'spi_device': this.spiDevices.push({ bus: m.bus, cs: new Set(m.cs) }); break;
        case 'ws2812': if (!this.ws2812Pins.has(m.pin)) { this.ws2812Pins.add(m.pin); decodeWS2812(this, m.pin); } break;
        case 'pwm': if (!this.pwmPins.has(m.pin)) { this.pwmPins.add(m.pin); watchPWM(this, m.pin); } break;
        case 'save_fs': fs.writeFileSync(m.path, Buffer.from(this.mcu.flash.subarray(FS_OFFSET, FS_OFFSET + FS_SIZE))); emit({ e: 'saved', path: m.path }); break;
        case 'save_ram': fs.writeFileSync(m.path, Buffer.from(this.mcu.sram)); emit({ e: 'saved', path: m.path }); break;
        case 'heap_probe':
          this.heap = { atb: m.atb, blocks: m.blocks, every: m.every_ns || 100000, peak: 0, peakNs: 0, last: 0, allocated: 0, samples: 0, next: 0,
                        second: -1, floor: 0, floors: [],
                        stepPin: m.step_pin === undefined ? -1 : m.step_pin, stepLast: -1, stepAllocated: 0, stepRises: [], steps: 0 };
          this.heap.last = this.heapInUse();
          break;
        case 'heap': {
          const h = this.heap;
          const now = h ? this.heapInUse() : -1;
          emit({ e: 'heap', now, peak: h ? Math.max(h.peak, now) : -1,
                 peak_ns: h ? Math.round(now > h.peak ? this.mcu.clock.nanos : h.peakNs) : -1, allocated: h ? h.allocated : 0, samples: h ? h.samples : 0,
                 floors: h ? h.floors : [], step_allocated: h ? h.stepAllocated : 0,
                 step_rises: h ? h.stepRises : [], steps: h ? h.steps : 0 });
          if (h && m.reset) {
            h.peak = now; h.peakNs = this.mcu.clock.nanos; h.allocated = 0; h.samples = 0; h.last = now; h.floors = []; h.second = -1;
            h.stepAllocated = 0; h.stepRises = []; h.steps = 0;
          }
          break;
        }
        case 'stats': emit({ e: 'stats', t: Math.round(this.mcu.clock.nanos), resets: this.resets, ...this.stats }); break;
        case 'run':
          if (until !== 'run') throw new Error('run inside a synchronous event');
          this.run(m.until, m.wall_ms || 0);
          emit({ e: 'done', t: Math.round(this.mcu.clock.nanos), halted: !!this.halted });
          break;
        case 'quit': flushOut(); process.exit(0);
        default: throw new Error('unknown command ' + line);
      }
    }
  }
}

function main() {
  let board;
  try {
    board = new Board(parseArgs(process.argv.slice(2)));
  } catch (e) {
    emit({ e: 'error', msg: String(e.message || e) });
    flushOut();
    process.exit(2);
  }
  emit({ e: 'ready', t: 0 });
  board.serve('run');
}

main();
