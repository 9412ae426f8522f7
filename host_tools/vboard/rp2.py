"""Fake ``rp2`` module for the virtual board: PIO programs and state machines (no hardware).

``asm_pio`` assembles a program the way the real decorator does (it runs the function with
the PIO instruction names put into its globals) into a list of ``Instr``;
``StateMachine.put`` records the words pushed into the TX FIFO (``words``, ``puts``), as the
chip's C code would, outside the virtual board's step heap lock.  ``run_bits`` steps a
program cycle by cycle for a bit sequence (``out``/``jmp``/``nop``/``set`` with side-set and
delays), so tests can check the waveform a driver's program makes on its side-set pin.
"""

from . import heapgate


class PIO:
    IN_LOW = 0
    IN_HIGH = 1
    OUT_LOW = 2
    OUT_HIGH = 3
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2
    IRQ_SM0 = 0x100
    IRQ_SM1 = 0x200
    IRQ_SM2 = 0x400
    IRQ_SM3 = 0x800

    def __init__(self, id):
        self.id = id


class PIOASMError(Exception):
    pass


class Instr:
    """One PIO instruction: ``op`` with ``args``, side-set value and delay cycles."""

    def __init__(self, op, args):
        self.op = op
        self.args = args
        self.sideset = None
        self.delay = 0

    def side(self, value):
        self.sideset = value
        return self

    def __getitem__(self, delay):
        if not 0 <= delay <= 31:
            raise PIOASMError("delay %d out of range" % delay)
        self.delay = delay
        return self

    def __repr__(self):
        return "%s%r.side(%r)[%d]" % (self.op, self.args, self.sideset, self.delay)


class Program:
    def __init__(self, options):
        self.options = options
        self.instrs = []
        self.labels = {}
        self.wrap_target = 0
        self.wrap = -1

    def __len__(self):
        return len(self.instrs)


# Operand names the real assembler puts into a program's globals.
_OPERANDS = ("x", "y", "pins", "pindirs", "pc", "isr", "osr", "exec", "null", "status",
             "not_x", "not_y", "x_dec", "y_dec", "x_not_y", "pin", "not_osre", "block", "noblock",
             "iffull", "ifempty", "gpio", "rel", "clear", "invert", "reverse")


def asm_pio(**options):
    def assemble(f):
        prog = Program(options)

        def emit(op):
            def instr(*args):
                i = Instr(op, args)
                prog.instrs.append(i)
                return i
            return instr

        def label(name):
            prog.labels[name] = len(prog.instrs)

        def wrap_target():
            prog.wrap_target = len(prog.instrs)

        def wrap():
            prog.wrap = len(prog.instrs) - 1

        names = {"label": label, "wrap_target": wrap_target, "wrap": wrap}
        for op in ("out", "jmp", "nop", "set", "mov", "pull", "push", "in_", "irq", "wait"):
            names[op] = emit(op)
        for operand in _OPERANDS:
            names[operand] = operand
        g = f.__globals__
        saved = {}
        for k in names:
            if k in g:
                saved[k] = g[k]
            g[k] = names[k]
        try:
            f()
        finally:
            for k in names:
                del g[k]
            for k in saved:
                g[k] = saved[k]
        if prog.wrap < 0:
            prog.wrap = len(prog.instrs) - 1
        if len(prog.instrs) > 32:
            raise PIOASMError("program longer than 32 instructions")
        return prog
    return assemble


def run_bits(prog, bits, max_cycles=100000):
    """Step ``prog`` shifting ``bits`` (ints 0/1, MSB first) through ``out(x, 1)``; returns
    the side-set pin level of every cycle until the program stalls for more data, plus one
    cycle of the level it rests at (a stalled instruction's side-set applies at once)."""
    level = 0
    x = 0
    pc = 0
    levels = []
    bits = list(bits)
    while len(levels) < max_cycles:
        ins = prog.instrs[pc]
        if ins.op == "out" and not bits:
            levels.append(ins.sideset if ins.sideset is not None else level)
            return levels
        if ins.sideset is not None:
            level = ins.sideset
        nxt = pc + 1 if pc != prog.wrap else prog.wrap_target
        if ins.op == "out":
            if ins.args != ("x", 1):
                raise PIOASMError("run_bits only models out(x, 1): %r" % (ins,))
            x = bits.pop(0)
        elif ins.op == "jmp":
            cond = ins.args[0] if len(ins.args) == 2 else None
            target = ins.args[-1]
            if cond is None or (cond == "not_x" and x == 0) or (cond == "x" and x != 0):
                nxt = prog.labels[target]
            elif cond not in ("not_x", "x"):
                raise PIOASMError("run_bits does not model jmp(%r)" % (cond,))
        elif ins.op not in ("nop", "set"):
            raise PIOASMError("run_bits does not model %r" % (ins,))
        for _ in range(1 + ins.delay):
            levels.append(level)
        pc = nxt
    raise PIOASMError("program did not stall within %d cycles" % max_cycles)


class StateMachine:
    """A state machine that records what the firmware pushes into its TX FIFO (``put`` or a
    ``DMA`` transfer to its FIFO address)."""

    by_id = {}   # the state machines made, by number (a DMA finds its target here)

    def __init__(self, id, program=None, freq=-1, **kw):
        StateMachine.by_id[id] = self
        self.id = id
        self.program = None
        self.freq = freq
        self.kw = {}
        self._active = False
        self.words = []    # the words of the last put(), shifted as the FIFO gets them
        self.puts = 0
        if program is not None:
            self.init(program, freq, **kw)

    def init(self, program, freq=-1, **kw):
        if not isinstance(program, Program):
            raise TypeError("program must come from rp2.asm_pio")
        self.program = program
        self.freq = freq
        self.kw = kw

    def active(self, value=None):
        if value is not None:
            self._active = bool(value)
        return self._active

    def put(self, value, shift=0):
        heapgate.enter_c()
        try:
            if not self._active:
                raise OSError("state machine not active: put() would block forever")
            # (no comprehension: it would make ``shift`` a cell, allocated at every call)
            words = []
            for w in ((value,) if isinstance(value, int) else value):
                words.append((w << shift) & 0xFFFFFFFF)
            self.words = words
            self.puts += 1
        finally:
            heapgate.exit_c()

    def tx_fifo(self):
        return 0

    def rx_fifo(self):
        return 0

    def restart(self):
        pass

    def exec(self, instr):
        pass

    def irq(self, handler=None, trigger=0, hard=False):
        return None


_PIO_TXF0 = (0x50200010, 0x50300010)   # TX FIFO of state machine 0 of PIO0 / PIO1


class DMA:
    """A DMA channel whose transfers into a PIO TX FIFO land in that ``StateMachine``'s
    ``words`` at once (the fake's FIFO never fills).  Other targets are not modelled.  Like
    the chip's channel it keeps its registers between ``config`` calls: a trigger uses the
    read and write addresses, count and control word set so far (the count is reloaded)."""

    def __init__(self):
        self.configs = 0
        self._active = False
        self.closed = False
        self.ctrl_fields = None
        self._regs = [None, None, None, None]   # read, write, count, ctrl as last set

    def pack_ctrl(self, default=None, **fields):
        self.ctrl_fields = fields
        return fields.get("treq_sel", 0) << 15 | fields.get("size", 2) << 2 | 1

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        heapgate.enter_c()
        try:
            self.configs += 1
            regs = self._regs
            for i, value in enumerate((read, write, count, ctrl)):
                if value is not None:
                    regs[i] = value
            read, write, count, ctrl = regs
            if not trigger:
                return
            if ctrl is None or count is None or read is None:
                raise OSError("DMA triggered before its control word, count and read address were set")
            sm = None
            for pio in range(2):
                off = (write or 0) - _PIO_TXF0[pio]
                if 0 <= off < 16 and off % 4 == 0:
                    sm = StateMachine.by_id.get(4 * pio + off // 4)
            if sm is None or not sm.active():
                raise OSError("DMA target %r is not an active state machine's TX FIFO" % (write,))
            if (self.ctrl_fields or {}).get("treq_sel") != (sm.id & 3) + 8 * (sm.id >> 2):
                raise OSError("DMA paced by the wrong DREQ for state machine %d" % sm.id)
            words = []
            for i in range(count):
                words.append(read[i] & 0xFFFFFFFF)
            sm.words = words
            sm.puts += 1
        finally:
            heapgate.exit_c()

    def active(self, value=None):
        return self._active

    def close(self):
        self.closed = True


def _rev8(v):
    r = 0
    for b in range(8):
        if v & (1 << b):
            r |= 0x80 >> b
    return r


class Ws2812View:
    """What a WS2812 strip fed by ``sm`` shows: the last frame put, decoded to (r, g, b)
    (the state machine shifts right: a word's bit 0 is G7, the first bit on the wire)."""

    def __init__(self, sm, n):
        self.sm = sm
        self.n = n

    @property
    def shown(self):
        words = self.sm.words
        out = []
        for i in range(self.n):
            w = words[i] if i < len(words) else 0
            g = _rev8(w & 0xFF)
            r = _rev8((w >> 8) & 0xFF)
            b = _rev8((w >> 16) & 0xFF)
            out.append((r, g, b))
        return out

    @property
    def writes(self):
        return self.sm.puts

    def lit(self):
        """Indices of pixels that are shown non-black."""
        shown = self.shown
        return [i for i in range(self.n) if shown[i] != (0, 0, 0)]
