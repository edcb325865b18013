package kwire

import (
	"encoding/binary"
	"math"
	"reflect"
	"slices"
)

// A plan's fused fields are compiled once into instructions specialised by
// wire form (a compact string, a classic int16-length string, an array of
// structs ...), so that encode, size and decode run short call-free cases
// for the common forms and reach the general code over the field plan only for the
// rare ones. Instruction i is pl.fused[i] compiled: the field plan keeps the name and
// everything else an error message or a rare path needs. The cases are
// generated (engine_codec_gen.go) from one description of the wire forms
// (genforms/forms.go): a code's name is its payload and length form.

// instr is one compiled field.
type instr struct {
	code       code
	nullable   bool    // null is legal: strings, bytes, arrays
	records    bool    // cBytes*: records, which decode aliases into the input
	hasUnknown bool    // cEndChecks: an unknown-tags field at off
	n          uint32  // cFixedRun: wire size; arrays of structs: element stride; cEndChecks: words
	off        uintptr // of the field in its struct
	ref        pointer // *plan (structs, arrays of structs), *fixedRunCode (cFixedRun), words (cEndChecks)
}

func (in *instr) plan() *plan { return as[plan](in.ref) }

// fixedRunCode is a cFixedRun's fields, widest first, and how many there
// are of each width (the rest are one byte), so that decode copies each
// width in a loop of its own with no test of the width. Encode walks the
// slots to the zero spare one past the last and places each field by its
// at, so the order is free.
type fixedRunCode struct {
	slots           []fixedSlot
	n16, n8, n4, n2 int
}

// fixedSlot places one field of a fixed run: at off in the struct, at at
// in the run's bytes, width bytes wide.
type fixedSlot struct {
	off     uint32
	at      uint16
	width   uint8
	boolean bool // decode stores byte != 0 (and Exact refuses bytes over 1)
}

// tail is what follows a struct's fields on the wire, decided once.
type tail uint8

const (
	tailNone    tail = iota // not flexible
	tailEmpty               // flexible, no tagged and no unknown-tags field: one zero byte
	tailUnknown             // flexible, no tagged field, an unknown-tags field at unknownOff
	tailGeneral             // see nothingTagged
)

// compileProgram fills pl.prog from pl.fused, and the flat default checks
// that let encode and size skip the general per-field tests. The encoder
// runs to an end instruction just past pl.prog's length.
func compileProgram(pl *plan) {
	switch {
	case !pl.flexible:
		pl.tail = tailNone
	case len(pl.tagged) == 0 && !pl.hasUnknown:
		pl.tail = tailEmpty
	case len(pl.tagged) == 0:
		pl.tail = tailUnknown
	default:
		pl.tail = tailGeneral
	}
	prog := make([]instr, len(pl.fused)+1)
	for i := range pl.fused {
		prog[i] = compileField(&pl.fused[i])
	}
	end := &prog[len(pl.fused)]
	*end = instr{code: cEndNone + code(pl.tail), off: pl.unknownOff}
	pl.prog = prog[:len(pl.fused)]
	pl.tagChecksFlat = true
	for _, o := range pl.tagged {
		if !flatChecks(o, 0, uintptr(pl.typ.Align()), false, &pl.tagChecks) {
			pl.tagChecksFlat = false
			pl.tagChecks = nil
			break
		}
	}
	if pl.tail == tailGeneral && pl.tagChecksFlat {
		if words, ok := wordChecks(pl.tagChecks, pl.typ); ok && uint64(len(words)) <= math.MaxUint32 {
			end.code, end.hasUnknown, end.n = cEndChecks, pl.hasUnknown, uint32(len(words))
			end.ref = sliceData(words)
		}
	}
	pl.absentChecksFlat = true
	for _, o := range pl.absent {
		if o.ignorable {
			continue
		}
		if !flatChecks(o, 0, uintptr(pl.typ.Align()), true, &pl.absentChecks) {
			pl.absentChecksFlat = false
			pl.absentChecks = nil
			break
		}
	}
	pl.skipAbsent = pl.absentChecksFlat && len(pl.absentChecks) == 0
	pl.defaultStores = compileStores(pl.flatDefaults.fixed, uintptr(pl.typ.Align()))
	pl.hasDefaults = len(pl.flatDefaults.fixed) != 0 || len(pl.flatDefaults.other) != 0
}

// defaultStores is a plan's fixed-width defaults (flatDefaults.fixed) as
// decodeStruct stores them: a loop per width, no switch per store, and,
// in a struct aligned to 8, two 4-byte stores into one aligned 8-byte word
// merged into one.
type defaultStores struct {
	w8, w4, w2, w1 []defaultStore
}

type defaultStore struct {
	off  uintptr
	bits uint64
}

// compileStores compiles the fixed defaults of a struct whose values are
// align-aligned. Two 4-byte stores merge only when align is at least 8:
// an offset that is a multiple of 8 is then an 8-aligned address, and an
// 8-byte store to a 4-aligned one faults on mips64 (SIGBUS) and traps on
// riscv64.
func compileStores(fixed []fixedDefault, align uintptr) defaultStores {
	var ds defaultStores
	words := map[uintptr]*uint64{} // 8-byte words holding 4-byte defaults
	var wordOffs []uintptr
	for _, f := range fixed {
		switch {
		case f.size == 8:
			ds.w8 = append(ds.w8, defaultStore{f.off, f.bits})
		case f.size == 4 && align < 8:
			ds.w4 = append(ds.w4, defaultStore{f.off, f.bits})
		case f.size == 4:
			at := f.off &^ 7
			w := words[at]
			if w == nil {
				w = new(uint64)
				words[at] = w
				wordOffs = append(wordOffs, at)
			}
			*pointerOf(w).add(f.off - at).uint32() = uint32(f.bits)
		case f.size == 2:
			ds.w2 = append(ds.w2, defaultStore{f.off, f.bits})
		case f.size == 1:
			ds.w1 = append(ds.w1, defaultStore{f.off, f.bits})
		}
	}
	for _, at := range wordOffs {
		w := words[at]
		halves := 0
		for _, f := range fixed {
			if f.size == 4 && f.off&^7 == at {
				halves++
			}
		}
		if halves == 2 {
			ds.w8 = append(ds.w8, defaultStore{at, *w})
			continue
		}
		for _, f := range fixed {
			if f.size == 4 && f.off&^7 == at {
				ds.w4 = append(ds.w4, defaultStore{f.off, f.bits})
			}
		}
	}
	return ds
}

func compileField(o *fieldPlan) instr {
	in := instr{off: o.offset, nullable: o.nullable}
	switch o.kind {
	case kFixedRun:
		// One spare slot past the end, left zero: encode's walk stops at
		// its width 0, so it reads it rather than forming a pointer one
		// past the allocation (which checkptr refuses).
		run := make([]fixedSlot, len(o.run), len(o.run)+1)
		for i, f := range o.run {
			run[i] = fixedSlot{off: uint32(f.offset), at: uint16(f.at), width: uint8(f.kind.fixedSize()), boolean: f.kind == kBool}
		}
		slices.SortStableFunc(run, func(a, b fixedSlot) int { return int(b.width) - int(a.width) })
		rc := &fixedRunCode{slots: run}
		for _, f := range run {
			switch f.width {
			case 16:
				rc.n16++
			case 8:
				rc.n8++
			case 4:
				rc.n4++
			case 2:
				rc.n2++
			}
		}
		in.code, in.n, in.ref = cFixedRun, uint32(o.runSize), pointerOf(rc)
	case kStruct:
		in.code, in.ref = cStruct, pointerOf(o.sub)
	default:
		compileForm(o, &in) // the wire forms' codes (genforms), or cSlow
	}
	return in
}

func pick(compact bool, ifCompact, otherwise code) code {
	if compact {
		return ifCompact
	}
	return otherwise
}

// defaultCheck passes when the size bytes at off hold bits (or, with
// orZero, zero).
type defaultCheck struct {
	off    uint32
	size   uint8
	orZero bool
	bits   uint64
}

// checksPass runs flat default checks on the struct at p.
func checksPass(cs []defaultCheck, p pointer) bool {
	for i := range cs {
		if !cs[i].passes(p) {
			return false
		}
	}
	return true
}

// passes runs one flat default check on the struct at p.
func (c *defaultCheck) passes(p pointer) bool {
	v := p.add(uintptr(c.off)).bits(uintptr(c.size))
	return v == c.bits || c.orZero && v == 0
}

// wordCheck passes when the aligned pointer-sized word at off in the
// struct, masked, holds bits: the flat default checks that fall in one
// word, merged, so that encode tests a tag section with a load and a
// compare per word.
type wordCheck struct {
	off        uintptr
	mask, bits uintptr
}

// wordChecks merges flat default checks (none orZero) on a struct of type
// t by the aligned words their bytes fall in. It reports false when t is
// not word-aligned: its words could not be loaded whole everywhere.
func wordChecks(cs []defaultCheck, t reflect.Type) ([]wordCheck, bool) {
	return wordChecksIn(binary.NativeEndian, cs, t)
}

// wordChecksIn is wordChecks on a machine that keeps words in order: each
// byte is placed as a field holds it in memory, and a word's mask and
// bits are its bytes read in that order.
func wordChecksIn(order binary.ByteOrder, cs []defaultCheck, t reflect.Type) ([]wordCheck, bool) {
	if uintptr(t.Align()) < ptrSize {
		return nil, false
	}
	type wordBytes struct {
		off        uintptr
		mask, bits [8]byte
	}
	var words []wordBytes
	for _, c := range cs {
		if c.orZero {
			return nil, false
		}
		held := c.held(order)
		for i := range uintptr(c.size) {
			at := uintptr(c.off) + i
			off := at &^ (ptrSize - 1)
			k := slices.IndexFunc(words, func(w wordBytes) bool { return w.off == off })
			if k < 0 {
				k = len(words)
				words = append(words, wordBytes{off: off})
			}
			w := &words[k]
			if w.mask[at-off] != 0 && w.bits[at-off] != held[i] {
				return nil, false // two checks of one byte that disagree
			}
			w.mask[at-off], w.bits[at-off] = 0xff, held[i]
		}
	}
	var out []wordCheck
	for _, w := range words {
		out = append(out, wordCheck{off: w.off, mask: wordOf(order, w.mask), bits: wordOf(order, w.bits)})
	}
	return out, true
}

// wordOf is the pointer-sized word whose bytes, in order, begin b.
func wordOf(order binary.ByteOrder, b [8]byte) uintptr {
	if ptrSize == 8 {
		return uintptr(order.Uint64(b[:]))
	}
	return uintptr(order.Uint32(b[:4]))
}

// held is the bytes, in memory order on a machine of that byte order, of
// a field that passes the check.
func (c *defaultCheck) held(order binary.ByteOrder) [8]byte {
	var b [8]byte
	switch c.size {
	case 1:
		b[0] = uint8(c.bits)
	case 2:
		order.PutUint16(b[:], uint16(c.bits))
	case 4:
		order.PutUint32(b[:], uint32(c.bits))
	default:
		order.PutUint64(b[:], c.bits)
	}
	return b
}

// bitsOf is the n-byte (1, 2, 4 or 8) value whose bytes, in order, begin b.
func bitsOf(order binary.ByteOrder, b []byte, n uintptr) uint64 {
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(order.Uint16(b))
	case 4:
		return uint64(order.Uint32(b))
	}
	return order.Uint64(b)
}

// flatChecks appends compares that all pass only if the value of o (at
// base inside a struct aligned to align) holds its default (isDefault) or,
// with orZero, if it may be left out (isUnset). They may be stricter than
// those tests, never looser: a failing check sends the caller to the
// general path. It reports false when o's default has no flat form (a
// string default other than "", say); every wire type has a flatCheck,
// which plan building holds it to (wireType.lacks).
func flatChecks(o *fieldPlan, base, align uintptr, orZero bool, out *[]defaultCheck) bool {
	c := checkList{orZero: orZero, align: align, checks: *out}
	ok := c.field(o, base)
	*out = c.checks
	return ok
}

// checkList collects the flat checks of one list of fields in a struct
// aligned to align.
type checkList struct {
	orZero bool
	align  uintptr
	checks []defaultCheck
}

// field adds the checks of o, whose struct sits at base.
func (c *checkList) field(o *fieldPlan, base uintptr) bool {
	off := base + o.offset
	if off > math.MaxUint32-16 {
		return false
	}
	return wireTypes[o.kind].flatCheck(c, o, off)
}

// add checks that the size bytes at off hold bits (or, with orZero, zero).
// A check is one load of its size, so one that the struct's alignment and
// off do not align as Go aligns that load (a UUID, 1-aligned, at an odd
// offset) is split into the widest loads they do align: an unaligned load
// faults on mips64 and traps on riscv64. The pieces compare the bytes as
// memory holds them, whatever the byte order; split, a nonzero bits with
// orZero checks bits only, stricter than asked, as flatChecks allows.
func (c *checkList) add(off, size uintptr, bits uint64) {
	if size < 8 {
		bits &= 1<<(8*size) - 1
	}
	n := loadWidth(off, c.align, size)
	if n == size {
		c.checks = append(c.checks, defaultCheck{off: uint32(off), size: uint8(size), orZero: c.orZero, bits: bits})
		return
	}
	held := (&defaultCheck{size: uint8(size), bits: bits}).held(binary.NativeEndian)
	for i := uintptr(0); i < size; i += n {
		c.checks = append(c.checks, defaultCheck{off: uint32(off + i), size: uint8(n),
			orZero: c.orZero && bits == 0, bits: bitsOf(binary.NativeEndian, held[i:], n)})
	}
}

// loadWidth is the widest load or store, at most size bytes (1, 2, 4 or 8), that
// Go's alignment of that width holds at offset off inside a struct
// aligned to align: what an unsigned integer of n bytes needs, there.
func loadWidth(off, align, size uintptr) uintptr {
	n := size
	for n > 1 {
		need := min(n, uint64Align)
		if off%need == 0 && align%need == 0 {
			break
		}
		n /= 2
	}
	return n
}

// The wire types' flatCheck entries: the checks of field o at off.

func flatNumber(c *checkList, o *fieldPlan, off uintptr) bool {
	c.add(off, o.typ.Size(), uint64(o.def.i))
	return true
}

func flatBool(c *checkList, o *fieldPlan, off uintptr) bool {
	bits := uint64(0)
	if o.def.b {
		bits = 1
	}
	c.add(off, 1, bits)
	return true
}

func flatFloat(c *checkList, o *fieldPlan, off uintptr) bool {
	c.add(off, 8, math.Float64bits(o.def.f)) // stricter than ==: -0 and NaN go the general way
	return true
}

func flatUUID(c *checkList, _ *fieldPlan, off uintptr) bool {
	c.add(off, 8, 0)
	c.add(off+8, 8, 0)
	return true
}

func flatString(c *checkList, o *fieldPlan, off uintptr) bool {
	if o.def.s != "" && !c.orZero {
		return false
	}
	c.add(off+stringLenOff, intSize, 0) // the length; with orZero, a default other than "" goes the general way
	return true
}

func flatNullString(c *checkList, o *fieldPlan, off uintptr) bool {
	if !o.def.null && !c.orZero {
		return false
	}
	c.add(off, ptrSize, 0) // null; with orZero, a present default goes the general way
	return true
}

func flatBytes(c *checkList, o *fieldPlan, off uintptr) bool {
	switch {
	case c.orZero: // isUnset: empty or null
		c.add(off+sliceLenOff, intSize, 0)
	case o.def.null:
		c.add(off, ptrSize, 0)
	default: // the default is empty and not null: two tests, no flat form
		return false
	}
	return true
}

func flatArray(c *checkList, o *fieldPlan, off uintptr) bool {
	if o.def.null && !c.orZero {
		c.add(off, ptrSize, 0)
	} else { // empty or null; a default of empty holds for a nil array too
		c.add(off+sliceLenOff, intSize, 0)
	}
	return true
}

func flatStructPtr(c *checkList, _ *fieldPlan, off uintptr) bool {
	c.add(off, ptrSize, 0) // absent; a present struct holding defaults goes the general way
	return true
}

func flatStruct(c *checkList, o *fieldPlan, off uintptr) bool {
	for _, list := range [][]*fieldPlan{o.sub.fields, o.sub.tagged, o.sub.absent} {
		for _, f := range list {
			if !c.field(f, off) {
				return false
			}
		}
	}
	if o.sub.hasUnknown { // none held: a nil pointer
		c.add(off+o.sub.unknownOff, ptrSize, 0)
	}
	return true
}
