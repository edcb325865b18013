package kwire

import (
	"math"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// decodeState reads one message from src. Strings are carved from arena
// chunks it owns, and small arrays from typed slabs, so decoding a large
// message costs a handful of allocations rather than one per value.
type decodeState struct {
	src []byte
	off int

	strArena       []byte   // bytes for strings; never written once handed out
	strPtrs        []string // backing for *string fields
	int32s         []int32  // backing for []int32 arrays
	lastStrChunk   int      // size of the last string chunk: they double
	strBytes       int      // string chunk bytes allocated so far
	lastPtrChunk   int      // size of the last *string chunk: they double
	lastInt32Chunk int      // size of the last []int32 chunk: they double
	// Backing for arrays of structs: one slab per element type met, the
	// first few inline (a message rarely has more element types).
	structs     [4]slab
	moreStructs []slab
	// slack is the bytes of slab room allocated and not handed out
	// (abandoned room included): never more than one byte for every
	// four bytes of input, so unused room is bounded by the input,
	// however many element types share it.
	slack int

	// limited says budget counts down: what the call may still allocate.
	limited bool
	budget  int
	// exact refuses what encoding would not write back byte for byte.
	exact bool
	// kafka holds the decode to Kafka's reader limits (Decoder.KafkaLimits).
	kafka bool
	// trace, when set, is told of every value read: the decode is a
	// layout trace (engine_trace.go), which runs the general path only.
	trace *tracer
}

// slab is spare zeroed storage for elements of one struct type.
type slab struct {
	elem *plan
	data pointer // nil when empty, never one past the end
	left int
	used int // elements of this type handed out so far
}

// The arena chunk sizes bound what one allocation may take beyond the
// value being decoded: never more than the input still unread.
const (
	strChunk   = 4096
	int32Chunk = 1024
	ptrChunk   = 64
	slabChunk  = 128 // elements

	slackShift = 2 // slab room left unused: at most 1 byte per 1<<slackShift bytes of input
)

func (d *decodeState) remaining() int { return len(d.src) - d.off }

func (d *decodeState) truncated(need int) error {
	return newFieldError(ErrTruncated, d.off, "need %d bytes, have %d", need, d.remaining())
}

func (d *decodeState) readUvarint() (uint32, error) {
	v, err := d.readUvarintBits(32)
	return uint32(v), err
}

func (d *decodeState) readUvarint64() (uint64, error) { return d.readUvarintBits(64) }

// readUvarintBits reads an unsigned LEB128 varint that must fit in bits
// bits: its last possible byte may carry only the bits left, so an
// overflowing varint is an error, never a wrapped value (Kafka's Java
// reader drops the extra bits). A varint longer than it needs to be
// (0x80 0x00 for 0) is read as Java reads it, unless the decode is exact.
func (d *decodeState) readUvarintBits(bits uint) (uint64, error) {
	if d.off < len(d.src) && d.src[d.off] < 0x80 {
		// One byte, the common case (small lengths, counts and tags):
		// never overlong, never over bits (7 at most).
		d.off++
		return uint64(d.src[d.off-1]), nil
	}
	return d.readUvarintLong(bits)
}

// readUvarintLong is readUvarintBits for the varints of two or more bytes
// and the errors.
func (d *decodeState) readUvarintLong(bits uint) (uint64, error) {
	start := d.off
	var v uint64
	var n int
	if bits == 32 {
		u, m := wire.ConsumeUvarint(d.src[start:])
		v, n = uint64(u), m
	} else {
		v, n = wire.ConsumeUvarint64(d.src[start:])
	}
	switch err := wire.ParseError(n); {
	case err == wire.ErrTruncated:
		d.off = len(d.src)
		return 0, d.truncated(1)
	case err != nil: // the last byte a varint of bits may have carries more
		return 0, newFieldError(ErrBadVarint, start+int(bits+6)/7-1, "uvarint overflows %d bits", bits)
	case d.exact && n > wire.SizeUvarint64(v):
		return 0, newFieldError(ErrBadVarint, start, "overlong varint: %d bytes for %d", n, v)
	}
	d.off += n
	return v, nil
}

// readLength reads a length prefix; -1 means null. The length is checked
// against the bytes left (each unit at least unit bytes) before anyone
// allocates for it.
//
// The length is held in an int64 until it has passed those checks: a
// compact length reaches 2^32-2, which an int on a 32-bit machine cannot
// hold.
func (d *decodeState) readLength(form wire.LengthForm, unit int) (int, error) {
	start := d.off
	var n int64
	if form == wire.CompactLength {
		u, err := d.readUvarint() // its errors, exactness included
		if err != nil {
			return 0, err
		}
		n = int64(u) - 1
	} else {
		var m int
		if n, m = form.ConsumeRaw(d.src[start:]); m < 0 {
			return 0, d.truncated(form.Size(0))
		}
		d.off += m
	}
	if n < -1 {
		return 0, newFieldError(ErrInvalidLength, start, "length %d", n)
	}
	unit = max(unit, 1)
	if n > 0 && n > int64(d.remaining()/unit) {
		return 0, newFieldError(ErrInvalidLength, start, "length %d needs at least %d bytes, %d left", n, n*int64(unit), d.remaining())
	}
	return int(n), nil
}

// strPtr returns a pointer to the next n bytes as a string, the string
// header carved from a chunk as the bytes are.
func (d *decodeState) strPtr(n int) (*string, error) {
	if len(d.strPtrs) == 0 && d.lastPtrChunk == 0 && d.strBytes == 0 && n > 0 && n <= 64 {
		// The first *string of a message with no chunk yet takes the
		// first string chunk with it.
		d.firstChunk(packStrings(64, true))
	}
	if len(d.strPtrs) == 0 {
		d.lastPtrChunk = min(max(2*d.lastPtrChunk, 2), ptrChunk)
		count := min(d.lastPtrChunk, d.remaining()+1)
		if err := d.charge(count * int(stringHeaderSize)); err != nil {
			return nil, err
		}
		d.strPtrs = make([]string, count)
	}
	sp := &d.strPtrs[0]
	d.strPtrs = d.strPtrs[1:]
	var err error
	*sp, err = d.str(n)
	return sp, err
}

// firstChunk allocates a decode's first string chunk as h (packStrings)
// describes it: of its size, bounded by the bytes left, and with one
// *string target in the same object when h says a *string was taken and
// the chunk is small (one allocation where two would be: a request's
// client id is most often a message's only *string). Decoding with the
// chunk of the size the last message used, the strings take
// decodeStruct's inline case from the first. Over the budget it
// allocates nothing, and each string takes a chunk as it needs one.
func (d *decodeState) firstChunk(h int32) {
	size := min(int(h>>1), d.remaining())
	ptr := h&1 != 0 && size <= 64
	cost := size
	if ptr {
		cost += int(stringHeaderSize)
	}
	if size == 0 || d.charge(cost) != nil {
		return
	}
	if ptr {
		d.strPtrs, d.strArena = firstStrings(size)
		d.lastPtrChunk = 1
	} else {
		d.strArena = make([]byte, size)
	}
	d.lastStrChunk, d.strBytes = size, size
}

// stringsUsed is the string chunk bytes the decode took less the room
// left in its last chunk (the tail of an earlier chunk, left for a string
// it could not hold, counts as used), and whether it took a *string
// target: the plan's hint for the next message's first chunk.
func (d *decodeState) stringsUsed() (int, bool) {
	ptr := d.lastPtrChunk > 1 || d.lastPtrChunk == 1 && len(d.strPtrs) == 0
	return d.strBytes - len(d.strArena), ptr
}

// firstStrings allocates one *string target and a string chunk of size
// bytes (1 to 64) as one object, the chunk rounded up to 16 bytes as Go's
// size classes would round it alone (32, 48, 64 or 80 bytes in all). One
// target, not two: a request's client id is most often a message's only
// *string, and a second would cost 16 bytes on every frame.
func firstStrings(size int) ([]string, []byte) {
	switch (size + 15) / 16 {
	case 1:
		c := new(struct {
			p [1]string
			b [16]byte
		})
		return c.p[:], c.b[:size]
	case 2:
		c := new(struct {
			p [1]string
			b [32]byte
		})
		return c.p[:], c.b[:size]
	case 3:
		c := new(struct {
			p [1]string
			b [48]byte
		})
		return c.p[:], c.b[:size]
	}
	c := new(struct {
		p [1]string
		b [64]byte
	})
	return c.p[:], c.b[:size]
}

// str returns the next n bytes as a string from the arena.
func (d *decodeState) str(n int) (string, error) {
	if n == 0 {
		return "", nil
	}
	if len(d.strArena) < n {
		// Chunks double from 64 bytes, bounded by the bytes left (the
		// first is most often taken before the first string, sized by
		// the last message of this type: firstChunk).
		d.lastStrChunk = min(max(2*d.lastStrChunk, 64), strChunk)
		size := max(n, min(d.remaining(), d.lastStrChunk))
		if err := d.charge(size); err != nil {
			return "", err
		}
		d.strArena = make([]byte, size)
		d.strBytes += size
	}
	buf := d.strArena[:n:n]
	d.strArena = d.strArena[n:]
	if n <= maxInlineCopy {
		copyShort(sliceData(buf), 0, sliceData(d.src[d.off:]), n)
	} else {
		copy(buf, d.src[d.off:])
	}
	d.off += n
	return sliceData(buf).stringOf(n), nil
}

// charge takes n bytes from the call's allocation budget, or refuses
// before they are allocated.
func (d *decodeState) charge(n int) error {
	if !d.limited {
		return nil // most decodes have no budget
	}
	return d.chargeBudget(n)
}

// chargeElems is charge for n values of size bytes each, which it refuses
// when they would take more than an int can count (a length that holds
// on a 64-bit machine may not on a 32-bit one).
func (d *decodeState) chargeElems(n int, size uintptr) error {
	if uint64(n)*uint64(size) > math.MaxInt {
		return newFieldError(ErrTooLarge, d.off, "%d values of %d bytes: more than this machine can allocate", n, size)
	}
	return d.charge(n * int(size))
}

func (d *decodeState) chargeBudget(n int) error {
	if n > d.budget {
		return newFieldError(ErrTooLarge, d.off, "decoding needs more than the %d bytes left of the allocation budget", d.budget)
	}
	d.budget -= n
	return nil
}

// decodeInstrOutOfLine runs instruction in of pl's program, for the struct at p,
// at off, by the general path, and hands decodeStruct's loop its state
// back: the next instruction (nil after the struct's tag section) and
// offset, or, entering a nested struct while st has room, its plan,
// struct and first instruction, the parent pushed on st. Anything else
// reads the field from its start through its field plan, so the values, the
// errors with their path and offset, and the hostile-input checks are
// the general path's own.
func (d *decodeState) decodeInstrOutOfLine(pl *plan, p pointer, in *instr, off int, st *structStack) (*plan, pointer, *instr, int, error) {
	fp := p.add(in.off)
	switch in.code {
	case cEndNone, cEndEmpty, cEndUnknown, cEndGeneral, cEndChecks:
		d.off = off
		if !pl.flexible {
			return pl, p, nil, off, nil
		}
		err := d.decodeTaggedFields(pl, p)
		return pl, p, nil, d.off, err
	case cStruct:
		if st.depth == stackDepth {
			break
		}
		st.push(pl, p, in, 1)
		sub := in.plan()
		if sub.hasDefaults {
			sub.applyDefaults(fp)
		}
		return sub, fp, first(sub.prog), off, nil
	case cStringCompact, cStringClassic, cNullStringCompact, cNullStringClassic:
		// Long, or the arena needs a new chunk (the first string of a
		// message does when no first chunk was taken before it): the
		// length read as the loop reads it.
		n, next := compactLength(d.src, off)
		if in.code == cStringClassic || in.code == cNullStringClassic {
			n, next = int16Length(d.src, off)
		}
		if n < 0 || n > len(d.src)-next {
			break // null, too long, malformed
		}
		d.off = next
		var err error
		if in.code == cStringCompact || in.code == cStringClassic {
			*fp.string(), err = d.str(n)
		} else {
			*fp.stringPtr(), err = d.strPtr(n)
		}
		if err != nil {
			return pl, p, in, off, within(err, pl.fieldOf(in).name)
		}
		return pl, p, advance(in), d.off, nil
	case cArrayStringCompact, cArrayStringClassic:
		n, next := compactLength(d.src, off)
		if in.code == cArrayStringClassic {
			n, next = int32Length(d.src, off)
		}
		o := pl.fieldOf(in)
		if n <= 0 || uint64(n)*uint64(o.elemMinWire) > uint64(len(d.src)-next) {
			break // empty, null, too long
		}
		d.off = next
		if err := d.chargeElems(n, stringHeaderSize); err != nil {
			return pl, p, in, off, within(err, o.name)
		}
		vals := make([]string, n)
		*fp.strings() = vals
		for j := range vals {
			if err := d.arrayString(o.elem, &vals[j]); err != nil {
				return pl, p, in, off, within(withinIndex(err, j), o.name)
			}
		}
		return pl, p, advance(in), d.off, nil
	}
	off, err := d.decodeFusedField(pl, pl.instrIndex(in), p, off)
	return pl, p, advance(in), off, err
}

// withDefaults stores pl's defaults that are not the Go zero value into
// the struct at p, before decoding it, and hands pl and p back to
// decodeStruct's loop as its other calls do.
func (pl *plan) withDefaults(p pointer) (*plan, pointer) {
	pl.applyDefaults(p)
	return pl, p
}

// applyDefaults stores pl's defaults that are not the Go zero value into
// the struct at p: the fixed-width ones a loop per width (defaultStores),
// then the others by their wire type's setDefault. The loops are written
// here, not called, as they run for every element of an array of structs
// with defaults (the Decode Fetch row in interop/README.md, issue #18).
func (pl *plan) applyDefaults(p pointer) {
	ds := &pl.defaultStores
	for _, s := range ds.w8 {
		*p.add(s.off).uint64() = s.bits
	}
	for _, s := range ds.w4 {
		*p.add(s.off).uint32() = uint32(s.bits)
	}
	for _, s := range ds.w2 {
		*p.add(s.off).uint16() = uint16(s.bits)
	}
	for _, s := range ds.w1 {
		*p.add(s.off).uint8() = uint8(s.bits)
	}
	for _, d := range pl.flatDefaults.other {
		wireTypes[d.o.kind].setDefault(d.o, p.add(d.off))
	}
}

// arrayString reads one string element of an array (field plan e) at d.off: the
// short form inline, the rest through decodeByWireType.
func (d *decodeState) arrayString(e *fieldPlan, s *string) error {
	n, next := compactLength(d.src, d.off)
	if e.length != wire.CompactLength {
		n, next = int16Length(d.src, d.off)
	}
	if n <= 0 || n > len(d.src)-next || len(d.strArena) < n {
		return d.decodeByWireType(e, pointerOf(s)) // empty, null, too long, a new chunk
	}
	buf := d.strArena[:n:n]
	d.strArena = d.strArena[n:]
	copy(buf, d.src[next:])
	*s = sliceData(buf).stringOf(n)
	d.off = next + n
	return nil
}

// decodeFusedField reads fused field i of pl, which starts at off, through the
// general path over its field plan, and returns the offset after it.
func (d *decodeState) decodeFusedField(pl *plan, i int, p pointer, off int) (int, error) {
	d.off = off
	o := &pl.fused[i]
	if o.kind == kFixedRun {
		err := d.decodeFixedRun(o, p)
		return d.off, err
	}
	if err := d.decodeByWireType(o, p.add(o.offset)); err != nil {
		return d.off, within(err, o.name)
	}
	return d.off, nil
}

// decodeByWireType reads one field or array element into fp, by its wire
// type's decode. d goes through the table hidden from escape analysis
// (noEscape): no decode keeps it past the call, and a call through a
// function value would otherwise put every decode's decodeState on the
// heap.
func (d *decodeState) decodeByWireType(o *fieldPlan, fp pointer) error {
	return wireTypes[o.kind].decode(noEscape(d), o, fp)
}

// decodeOrTrace reads one value of field plan o into fp, and when tracing records
// it as a node named name.
func (d *decodeState) decodeOrTrace(o *fieldPlan, fp pointer, name string) error {
	if d.trace != nil {
		return d.traced(o, fp, name)
	}
	return d.decodeByWireType(o, fp)
}

// decodeStructGeneral reads the struct at p field by field, in wire order,
// through the general path: decodeStruct's loop is the fast form of it,
// and a trace runs it so that each field gets its node.
func (d *decodeState) decodeStructGeneral(pl *plan, p pointer) error {
	if pl.hasDefaults {
		pl.applyDefaults(p)
	}
	for _, o := range pl.fields {
		if err := d.decodeOrTrace(o, p.add(o.offset), o.name); err != nil {
			return within(err, o.name)
		}
	}
	if pl.flexible {
		return d.decodeTaggedFields(pl, p)
	}
	return nil
}

// decodeStructOrTrace reads the struct at p: by decodeStruct's loop, or field by
// field when tracing.
func (d *decodeState) decodeStructOrTrace(pl *plan, p pointer) error {
	if d.trace != nil {
		d.trace.summary("struct")
		return d.decodeStructGeneral(pl, p)
	}
	return d.decodeStruct(pl, p)
}

// The wire types' decode pieces (wireType.decode): each reads one value at
// d.off into fp.

// fixed takes the next n bytes, or fails as an input cut short.
func (d *decodeState) fixed(n int) ([]byte, error) {
	if d.remaining() < n {
		return nil, d.truncated(n)
	}
	d.off += n
	return d.src[d.off-n : d.off], nil
}

// decodeFixed reads a value of a fixed-width wire type, by its width as
// the fused runs copy it. A bool takes any byte but 0 as true, as Kafka's
// Java reader does; an exact decode takes only 0 and 1.
func (d *decodeState) decodeFixed(o *fieldPlan, fp pointer) error {
	n := o.kind.fixedSize()
	b, err := d.fixed(n)
	if err != nil {
		return err
	}
	switch n {
	case 1:
		if o.kind == kBool && b[0] > 1 && d.exact {
			d.off--
			return newFieldError(ErrValueOutOfRange, d.off, "bool byte %d", b[0])
		}
		v := b[0]
		if o.kind == kBool {
			v = min(v, 1)
		}
		*fp.uint8() = v
	case 2:
		*fp.uint16() = wire.Uint16(b)
	case 4:
		*fp.uint32() = wire.Uint32(b)
	case 8:
		*fp.uint64() = wire.Uint64(b)
	default:
		*fp.uuid() = UUID(b)
	}
	return nil
}

func (d *decodeState) decodeVarint(_ *fieldPlan, fp pointer) error {
	u, err := d.readUvarint()
	*fp.int32() = wire.UnZigZag32(u)
	return err
}

func (d *decodeState) decodeVarlong(_ *fieldPlan, fp pointer) error {
	u, err := d.readUvarint64()
	*fp.int64() = wire.UnZigZag64(u)
	return err
}

func (d *decodeState) decodeUvarint(_ *fieldPlan, fp pointer) error {
	u, err := d.readUvarint()
	*fp.uint32() = u
	return err
}

// decodeString reads a string or a *string (kNullString).
func (d *decodeState) decodeString(o *fieldPlan, fp pointer) error {
	start := d.off
	n, err := d.readLength(o.length, 1)
	if err != nil {
		return err
	}
	switch {
	case n < 0 && (o.kind == kString || !o.nullable):
		return newFieldError(ErrNullNotAllowed, start, "")
	case n < 0:
		*fp.stringPtr() = nil
	case o.kind == kString:
		*fp.string(), err = d.str(n)
	default:
		*fp.stringPtr(), err = d.strPtr(n)
	}
	return err
}

func (d *decodeState) decodeBytes(o *fieldPlan, fp pointer) error {
	start := d.off
	n, err := d.readLength(o.length, 1)
	if err != nil {
		return err
	}
	if n < 0 {
		if !o.nullable {
			return newFieldError(ErrNullNotAllowed, start, "")
		}
		*fp.bytes() = nil
		return nil
	}
	var bs []byte
	if o.records {
		bs = d.src[d.off : d.off+n : d.off+n] // records may alias the input
	} else {
		if err := d.charge(n); err != nil {
			return err
		}
		bs = make([]byte, n)
		copy(bs, d.src[d.off:])
	}
	d.off += n
	*fp.bytes() = bs
	return nil
}

func (d *decodeState) decodeStructPtr(o *fieldPlan, fp pointer) error {
	start := d.off
	present, err := d.presence(o)
	if err != nil || !present {
		*fp.ptr() = pointer{}
		if err == nil && d.trace != nil {
			d.trace.presence(o, d.src[start:d.off], start)
			d.trace.summary("null")
		}
		return err
	}
	if d.trace != nil {
		d.trace.presence(o, d.src[start:d.off], start)
	}
	if err := d.charge(int(o.sub.typ.Size())); err != nil {
		return err
	}
	sp := newValue(o.sub.rtype)
	*fp.ptr() = sp
	return d.decodeStructOrTrace(o.sub, sp)
}

// presence reads the int8 marker before a nullable struct: as Kafka's
// Java reader does, a negative byte is null and any other present; an
// exact decode takes only -1 and 1, the bytes encoding writes.
func (d *decodeState) presence(o *fieldPlan) (bool, error) {
	if !o.nullable {
		return true, nil
	}
	present, strict, n := wire.ConsumePresence(d.src[d.off:])
	switch {
	case n < 0:
		return false, d.truncated(1)
	case d.exact && !strict:
		return false, newFieldError(ErrInvalidLength, d.off, "presence marker %d is neither 1 nor -1", int8(d.src[d.off]))
	}
	d.off += n
	return present, nil
}

// arrayLength reads an array's length: -1 for null, which only a
// nullable array may be, and never more elements than the bytes left
// could hold.
func (d *decodeState) arrayLength(o *fieldPlan) (int, error) {
	start := d.off
	n, err := d.readLength(o.length, int(o.elemMinWire))
	if err != nil {
		return 0, err
	}
	if n < 0 && !o.nullable {
		return 0, newFieldError(ErrNullNotAllowed, start, "")
	}
	if n > kafkaMaxElements && d.kafka {
		return 0, newFieldError(ErrKafkaLimit, start, "%d elements: Kafka's reader refuses arrays of more than %d (Decoder.KafkaLimits)", n, kafkaMaxElements)
	}
	return n, nil
}

func (d *decodeState) decodeArray(o *fieldPlan, fp pointer) error {
	e, h := o.elem, fp.slice()
	start := d.off
	n, err := d.arrayLength(o)
	if err != nil {
		return err
	}
	if d.trace != nil {
		d.trace.arrayLength(o, n, start, d.off)
	}
	if n < 0 {
		*h = sliceHeader{}
		return nil
	}
	if n == 0 {
		// Empty, not null: a non-nil slice that points at no storage.
		*h = sliceHeader{data: pointerOf(&zeroSizedValue)}
		return nil
	}
	if e.kind == kInt32 && d.trace == nil {
		if len(d.int32s) < n {
			d.lastInt32Chunk = min(max(2*d.lastInt32Chunk, 16), int32Chunk)
			count := max(n, min(d.lastInt32Chunk, d.remaining()/4))
			if err := d.charge(4 * count); err != nil {
				return err
			}
			d.int32s = make([]int32, count)
		}
		vals := d.int32s[:n:n]
		d.int32s = d.int32s[n:]
		b := d.src[d.off:]
		for i := range vals {
			vals[i] = wire.Int32(b[4*i:])
		}
		d.off += 4 * n
		*pointerOf(h).int32s() = vals
		return nil
	}
	var data pointer
	if e.kind == kStruct {
		data, err = d.structElems(e.sub, o.elemSize, n)
	} else if err = d.chargeElems(n, o.elemSize); err == nil {
		data = newArray(o.elemType, n)
	}
	if err != nil {
		return err
	}
	*h = sliceHeader{data: data, len: n, cap: n}
	for i := 0; i < n; i++ {
		ep := data.add(uintptr(i) * o.elemSize)
		switch {
		case d.trace != nil:
			err = d.traced(e, ep, d.trace.elemName(o, i))
		case e.kind == kStruct:
			err = d.decodeStruct(e.sub, ep)
		default:
			err = d.decodeByWireType(e, ep)
		}
		if err != nil {
			return withinIndex(err, i)
		}
	}
	return nil
}

func (d *decodeState) decodeTaggedFields(pl *plan, p pointer) error {
	sectionAt := d.off
	count, err := d.tagCount()
	if err != nil {
		return err
	}
	if d.trace != nil {
		d.trace.tagSection(count, sectionAt, d.off)
	}
	var unknown **[]TaggedField
	if pl.hasUnknown {
		unknown = p.add(pl.unknownOff).unknownFields()
	}
	last := int64(-1)
	for i := uint32(0); i < count; i++ {
		tagAt := d.off
		tag, end, err := d.tagHeader(pl, &last)
		if err != nil {
			return err
		}
		if d.trace != nil {
			d.trace.taggedField(tag, tagAt, d.off, end)
		}
		start := d.off
		keep := unknown != nil
		if o := pl.fieldWithTag(tag); o != nil {
			fp := p.add(o.offset)
			if err := d.taggedValue(o, fp, end); err != nil {
				return err
			}
			// A known field sent with its default value would not be
			// written again: keep its bytes so that it is.
			keep = keep && isDefault(o, fp)
		} else {
			d.off = end
			if d.trace != nil {
				d.trace.unknownTag(d.src[start:end], start)
			}
		}
		if d.trace != nil {
			d.trace.close(d.off)
		}
		if keep {
			if err := d.keepTag(unknown, tag, d.src[start:end], count-i); err != nil {
				return err
			}
		}
	}
	if d.trace != nil && count > 0 {
		d.trace.close(d.off)
	}
	return nil
}

// tagCount reads how many tagged fields follow; each takes two bytes at
// least.
func (d *decodeState) tagCount() (uint32, error) {
	start := d.off
	count, err := d.readUvarint()
	if err != nil {
		return 0, err
	}
	if uint64(count) > uint64(d.remaining()/2) {
		return 0, newFieldError(ErrInvalidLength, start, "%d tagged fields in %d bytes", count, d.remaining())
	}
	if count > kafkaMaxTagFields && d.kafka {
		return 0, newFieldError(ErrKafkaLimit, start, "%d tagged fields: Kafka's reader refuses sections of more than %d (Decoder.KafkaLimits)", count, kafkaMaxTagFields)
	}
	return count, nil
}

// tagHeader reads one tagged field's tag and size and returns where its
// value ends. Tags must ascend (last is the previous one), a tag the
// struct declares for other versions only is refused, and the value must
// fit in the bytes left.
func (d *decodeState) tagHeader(pl *plan, last *int64) (tag uint32, end int, err error) {
	tagAt := d.off
	if tag, err = d.readUvarint(); err != nil {
		return 0, 0, err
	}
	if int64(tag) <= *last {
		return 0, 0, newFieldError(ErrBadTag, tagAt, "tag %d after tag %d: tags must ascend", tag, *last)
	}
	*last = int64(tag)
	for _, t := range pl.inactiveTags {
		if t == tag {
			return 0, 0, newFieldError(ErrBadTag, tagAt, "tag %d is not valid in version %d", tag, pl.version)
		}
	}
	size, err := d.readUvarint()
	if err != nil {
		return 0, 0, err
	}
	if uint64(size) > uint64(d.remaining()) {
		return 0, 0, newFieldError(ErrInvalidLength, tagAt, "tagged field %d of %d bytes, %d left", tag, size, d.remaining())
	}
	return tag, d.off + int(size), nil
}

// taggedValue reads a known tagged field's value into fp, which must fill
// exactly the size its prefix gave.
func (d *decodeState) taggedValue(o *fieldPlan, fp pointer, end int) error {
	full := d.src
	d.src = d.src[:end]
	err := d.decodeOrTrace(o, fp, o.name)
	d.src = full
	if err != nil {
		return within(err, o.name)
	}
	if d.off != end {
		return within(newFieldError(ErrBadTag, d.off, "tagged field %d has %d bytes left over", o.tag, end-d.off), o.name)
	}
	return nil
}

// keepTag appends a tagged field's raw bytes to unknown. left is how many
// fields the section still holds, this one included, which tagCount has
// held to what the bytes left can carry: the list takes room for them all
// at once (one field, the usual case, costs one 32-byte entry).
func (d *decodeState) keepTag(unknown **[]TaggedField, tag uint32, raw []byte, left uint32) error {
	if *unknown == nil {
		if err := d.charge(int(sliceSize)); err != nil {
			return err
		}
		*unknown = new([]TaggedField)
	}
	list := *unknown
	if len(*list) == cap(*list) {
		grown := len(*list) + int(left)
		if err := d.chargeElems(grown, taggedFieldSize); err != nil {
			return err
		}
		*list = append(make([]TaggedField, 0, grown), *list...)
	}
	if err := d.charge(len(raw)); err != nil {
		return err
	}
	data := make([]byte, len(raw))
	copy(data, raw)
	*list = append(*list, TaggedField{Tag: tag, Data: data})
	return nil
}

// fieldWithTag finds the field with tag t in this version, or nil.
func (pl *plan) fieldWithTag(t uint32) *fieldPlan {
	for i := range pl.tagged {
		if pl.tagged[i].tag == t {
			return pl.tagged[i]
		}
	}
	return nil
}

// zeroSizedValue gives empty slices a non-nil data pointer, as
// make([]T, 0) does, so that they stay distinct from null.
var zeroSizedValue [0]byte

// decodeFixedRun is a run's general path, which the program's cFixedRun
// case takes only for a run the input cuts short or, in an exact decode,
// one holding a bool byte above 1: it reads the fields one by one, in
// wire order, so the error names the field and its offset.
func (d *decodeState) decodeFixedRun(o *fieldPlan, p pointer) error {
	if d.remaining() < int(o.runSize) {
		for _, f := range o.run {
			if d.remaining() < f.at+f.kind.fixedSize() {
				d.off += f.at
				return within(d.truncated(f.kind.fixedSize()), f.name)
			}
		}
	}
	for _, f := range o.run {
		if err := d.decodeByWireType(&fieldPlan{kind: f.kind}, p.add(f.offset)); err != nil {
			return within(err, f.name)
		}
	}
	return nil
}

// structElems returns zeroed storage for n elements of a struct array,
// carved from the slab of that element type when it has room. The slice
// gets cap n, so appending to it never writes into a neighbour.
//
// A new slab never holds more spare elements than the type has had so far
// (nor more than slabChunk, nor more than the bytes left could encode), so
// the storage of each type is at most about twice what it holds; all
// slabs' unused room together stays under a quarter of the input, however
// the message mixes types; and a slab is kept per type, so
// mixing types never throws a slab away.
func (d *decodeState) structElems(elem *plan, stride uintptr, n int) (pointer, error) {
	sl := d.slabOf(elem)
	size := int(stride)
	sl.used += n
	if sl.used == n {
		// The first array of this type: exactly its room (the count
		// below would be 0, as no earlier array asks for a spare).
		if err := d.chargeElems(n, stride); err != nil {
			return pointer{}, err
		}
		return newArray(elem.rtype, n), nil
	}
	if sl.left >= n {
		p := sl.data
		sl.left -= n
		d.slack -= n * size
		if sl.left == 0 {
			sl.data = pointer{}
		} else {
			sl.data = p.add(uintptr(n) * stride)
		}
		return p, nil
	}
	count := min(slabChunk, sl.used-n, d.remaining()/max(1, elem.minWire))
	if size > 0 {
		count = min(count, n+max(0, len(d.src)>>slackShift-d.slack)/size)
	}
	if n >= count/2 {
		// A big array gets exactly its room; the slab keeps its spare.
		if err := d.chargeElems(n, stride); err != nil {
			return pointer{}, err
		}
		return newArray(elem.rtype, n), nil
	}
	if err := d.charge(count * size); err != nil {
		return pointer{}, err
	}
	p := newArray(elem.rtype, count)
	sl.data, sl.left = p.add(uintptr(n)*stride), count-n
	d.slack += (count - n) * size
	return p, nil
}

// slabOf finds the slab of element type elem, adding an empty one the
// first time.
func (d *decodeState) slabOf(elem *plan) *slab {
	for i := range d.structs {
		sl := &d.structs[i]
		if sl.elem == elem {
			return sl
		}
		if sl.elem == nil {
			sl.elem = elem
			return sl
		}
	}
	for i := range d.moreStructs {
		if d.moreStructs[i].elem == elem {
			return &d.moreStructs[i]
		}
	}
	d.moreStructs = append(d.moreStructs, slab{elem: elem})
	return &d.moreStructs[len(d.moreStructs)-1]
}
