// What the emulated chip's pins show the outside world: WS2812 frames decoded from a data
// pin, and the tone a PWM slice plays on a pin (the buzzer).
'use strict';

const { emit } = require('./channel.js');

const FUNCSEL_PWM = 4;

function decodeWS2812(board, p) {
  // WS2812: a bit is a high pulse (0: ~0.4 us, 1: ~0.8 us) in a 1.25 us slot; a low of more
  // than 50 us ends a frame. Bytes come G, R, B per pixel.
  const pin = board.mcu.gpio[p];
  const clock = board.mcu.clock;
  let high = false, rise = 0, start = -1, bits = [], last = 0, maskedAll = true;
  const finish = () => {
    if (start < 0) return;
    const rgb = [];
    const nbytes = Math.floor(bits.length / 8);
    for (let i = 0; i < nbytes; i++) {
      let v = 0;
      for (let b = 0; b < 8; b++) v = (v << 1) | bits[i * 8 + b];
      rgb.push(v);
    }
    for (let i = 0; i + 2 < rgb.length; i += 3) { const g = rgb[i]; rgb[i] = rgb[i + 1]; rgb[i + 1] = g; }
    board.stats.wsFrames++;
    emit({ e: 'ws', pin: p, t: Math.round(start), end: Math.round(last), bits: bits.length,
           masked: maskedAll, rgb: Buffer.from(rgb).toString('hex') });
    start = -1; bits = []; maskedAll = true;
  };
  const endAlarm = clock.createAlarm(finish);
  pin.addListener(() => {
    const level = pin.outputValue && pin.outputEnable;
    const now = clock.nanos;
    if (level && !high) {
      if (start >= 0 && now - last > 50000) finish();
      if (start < 0) start = now;
      rise = now;
      if (!board.mcu.core.PM) maskedAll = false;
    } else if (!level && high) {
      bits.push(now - rise > 600 ? 1 : 0);
      last = now;
      board.wsInMask = board.wsInMask || board.mcu.core.PM;
      endAlarm.schedule(60000);
    }
    high = level;
  });
}


function watchPWM(board, p) {
  const mcu = board.mcu;
  const pwm = mcu.pwm;
  const slice = (p >> 1) & 7;
  const channelB = p & 1;
  let last = '';
  const check = () => {
    const ch = pwm.channels[slice];
    const pin = mcu.gpio[p];
    const on = pin.functionSelect === FUNCSEL_PWM && !!(ch.csr & 1);
    const top = ch.top + 1;
    const cc = channelB ? (ch.cc >>> 16) : (ch.cc & 0xffff);
    const freq = on ? mcu.clkSys / (ch.timer.prescaler * top) : 0;
    const duty = on ? Math.min(1, cc / top) : 0;
    const key = on && duty > 0 ? freq.toFixed(1) + '/' + duty.toFixed(3) : 'off';
    if (key !== last) {
      last = key;
      emit({ e: 'pwm', pin: p, t: Math.round(mcu.clock.nanos), freq: on && duty > 0 ? freq : 0, duty });
    }
  };
  const write = pwm.writeUint32.bind(pwm);
  pwm.writeUint32 = (offset, value) => { write(offset, value); check(); };
  const io = mcu.peripherals[0x40014];
  const ioWrite = io.writeUint32.bind(io);
  io.writeUint32 = (offset, value) => { ioWrite(offset, value); check(); };
}


module.exports = { decodeWS2812, watchPWM };
