// What goes into the emulated chip's memories: a UF2 image into flash, and the bootrom's
// function table (to find the ROM routines the harness does itself).
'use strict';

const fs = require('fs');

const FLASH_BASE = 0x10000000;

function loadUF2(path, flash) {
  const data = fs.readFileSync(path);
  let blocks = 0;
  for (let off = 0; off + 512 <= data.length; off += 512) {
    if (data.readUInt32LE(off) !== 0x0a324655 || data.readUInt32LE(off + 4) !== 0x9e5d5157) {
      throw new Error(path + ': not a UF2 file (bad magic in block ' + (off / 512) + ')');
    }
    const addr = data.readUInt32LE(off + 12);
    const size = data.readUInt32LE(off + 16);
    if (addr < FLASH_BASE || addr + size > FLASH_BASE + flash.length) continue;
    flash.set(data.subarray(off + 32, off + 32 + size), addr - FLASH_BASE);
    blocks++;
  }
  if (!blocks) throw new Error(path + ': no flash blocks in this UF2 file');
}

function romFunction(bootrom, code) {
  // The B1 bootrom: a 16-bit pointer at 0x14 to a table of (16-bit code, 16-bit address)
  // pairs ending with code 0; codes are two ASCII letters, first letter in the low byte.
  let p = bootrom.readUInt16LE(0x14);
  for (;;) {
    const c = bootrom.readUInt16LE(p);
    if (!c) return null;
    if (c === code) return bootrom.readUInt16LE(p + 2) & ~1;
    p += 4;
  }
}

function letters(s) { return s.charCodeAt(0) | (s.charCodeAt(1) << 8); }

module.exports = { FLASH_BASE, loadUF2, romFunction, letters };
