// The line channel between the emulator and Python: one JSON object per line, read with
// blocking reads (the emulator runs only while Python waits for it) and written in batches.
'use strict';

const fs = require('fs');

const inBuf = Buffer.alloc(65536);
let pending = '';
function readLine() {
  for (;;) {
    const nl = pending.indexOf('\n');
    if (nl >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      return line;
    }
    let n;
    try {
      n = fs.readSync(0, inBuf, 0, inBuf.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN') { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); continue; }
      if (e.code === 'EOF') return null;
      throw e;
    }
    if (n === 0) return null;
    pending += inBuf.toString('latin1', 0, n);
  }
}

let outChunks = [];
function emit(obj) {
  outChunks.push(JSON.stringify(obj));
  if (outChunks.length >= 64) flushOut();
}
function flushOut() {
  if (!outChunks.length) return;
  const data = outChunks.join('\n') + '\n';
  outChunks = [];
  let off = 0;
  const buf = Buffer.from(data, 'latin1');
  while (off < buf.length) {
    try {
      off += fs.writeSync(1, buf, off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
    }
  }
}

module.exports = { readLine, emit, flushOut };
