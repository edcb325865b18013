package kwire

import (
	"encoding/binary"
	"math"
	"reflect"
	"unsafe"
)

// decoder reads one message from src. Strings are carved from arena
// chunks it owns, and small arrays from typed slabs, so decoding a large
// message costs a handful of allocations rather than one per value.
type decoder struct {
	src []byte
	off int

	strArena       []byte   // bytes for strings; never written once handed out
	strPtrs        []string // backing for *string fields
	int32s         []int32  // backing for []int32 arrays
	lastStrChunk   int      // size of the last string chunk: they double
	lastPtrChunk   int      // size of the last *string chunk: they double
	lastInt32Chunk int      // size of the last []int32 chunk: they double
	structs        [4]slab  // backing for arrays of structs, by element plan
	nextSlab       int      // which slab a new element type replaces
}

// slab is spare zeroed storage for elements of one struct type.
type slab struct {
	elem *plan
	data unsafe.Pointer // nil when empty, never one past the end
	left int
}

// The arena chunk sizes bound what one allocation may take beyond the
// value being decoded: never more than the input still unread.
const (
	strChunk   = 4096
	int32Chunk = 1024
	ptrChunk   = 64
	slabChunk  = 128 // elements
)

func (d *decoder) remaining() int { return len(d.src) - d.off }

func (d *decoder) truncated(need int) error {
	return newFieldError(ErrTruncated, d.off, "need %d bytes, have %d", need, d.remaining())
}

func (d *decoder) readUvarint() (uint32, error) {
	v, err := d.readUvarintBits(32)
	return uint32(v), err
}

func (d *decoder) readUvarint64() (uint64, error) { return d.readUvarintBits(64) }

// readUvarintBits reads an unsigned LEB128 varint that must fit in bits
// bits: its last possible byte may carry only the bits left, so an
// overlong or overflowing varint is an error, never a wrapped value.
func (d *decoder) readUvarintBits(bits uint) (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if d.off >= len(d.src) {
			return 0, d.truncated(1)
		}
		c := d.src[d.off]
		d.off++
		if shift+7 > bits && c>>(bits-shift) != 0 {
			return 0, newFieldError(ErrBadVarint, d.off-1, "uvarint overflows %d bits", bits)
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
}

// readLength reads a length prefix; -1 means null. The length is checked
// against the bytes left (each unit at least unit bytes) before anyone
// allocates for it.
func (d *decoder) readLength(compact, wide bool, unit int) (int, error) {
	start := d.off
	var n int
	switch {
	case compact:
		u, err := d.readUvarint()
		if err != nil {
			return 0, err
		}
		n = int(u) - 1
	case wide:
		if d.remaining() < 4 {
			return 0, d.truncated(4)
		}
		n = int(int32(binary.BigEndian.Uint32(d.src[d.off:])))
		d.off += 4
	default:
		if d.remaining() < 2 {
			return 0, d.truncated(2)
		}
		n = int(int16(binary.BigEndian.Uint16(d.src[d.off:])))
		d.off += 2
	}
	if n < -1 {
		return 0, newFieldError(ErrInvalidLength, start, "length %d", n)
	}
	if unit < 1 {
		unit = 1
	}
	if n > 0 && n > d.remaining()/unit {
		return 0, newFieldError(ErrInvalidLength, start, "length %d needs at least %d bytes, %d left", n, n*unit, d.remaining())
	}
	return n, nil
}

// strPtr returns a pointer to the next n bytes as a string, the string
// header carved from a chunk as the bytes are.
func (d *decoder) strPtr(n int) *string {
	if len(d.strPtrs) == 0 {
		d.lastPtrChunk = min(max(2*d.lastPtrChunk, 2), ptrChunk)
		d.strPtrs = make([]string, min(d.lastPtrChunk, d.remaining()+1))
	}
	sp := &d.strPtrs[0]
	d.strPtrs = d.strPtrs[1:]
	*sp = d.str(n)
	return sp
}

// str returns the next n bytes as a string from the arena.
func (d *decoder) str(n int) string {
	if n == 0 {
		return ""
	}
	if len(d.strArena) < n {
		// Chunks start small and double, so a message with one short
		// string (next to, say, records) pays for that string only.
		d.lastStrChunk = min(max(2*d.lastStrChunk, 64), strChunk)
		d.strArena = make([]byte, max(n, min(d.remaining(), d.lastStrChunk)))
	}
	buf := d.strArena[:n:n]
	d.strArena = d.strArena[n:]
	copy(buf, d.src[d.off:])
	d.off += n
	return unsafe.String(&buf[0], n)
}

func (d *decoder) decodeStruct(pl *plan, p unsafe.Pointer) error {
	pl.flatDefaults.apply(p)
	for i := range pl.hot {
		o := &pl.hot[i]
		if o.kind == kFixedRun {
			if err := d.decodeFixedRun(o, p); err != nil {
				return err
			}
			continue
		}
		if err := d.decodeValue(o, fieldPtr(p, o.offset)); err != nil {
			return within(err, o.name)
		}
	}
	if pl.flexible {
		return d.decodeTaggedFields(pl, p)
	}
	return nil
}

func (d *decoder) decodeValue(o *op, fp unsafe.Pointer) error {
	if s := o.kind.fixedSize(); s > 0 {
		if d.remaining() < s {
			return d.truncated(s)
		}
		b := d.src[d.off:]
		switch o.kind {
		case kInt8:
			*(*uint8)(fp) = b[0]
		case kBool:
			*(*bool)(fp) = b[0] != 0
		case kInt16, kUint16:
			*(*uint16)(fp) = binary.BigEndian.Uint16(b)
		case kInt32, kUint32:
			*(*uint32)(fp) = binary.BigEndian.Uint32(b)
		case kInt64:
			*(*uint64)(fp) = binary.BigEndian.Uint64(b)
		case kFloat64:
			*(*float64)(fp) = math.Float64frombits(binary.BigEndian.Uint64(b))
		case kUUID:
			copy((*UUID)(fp)[:], b)
		}
		d.off += s
		return nil
	}
	switch o.kind {
	case kVarint:
		u, err := d.readUvarint()
		*(*int32)(fp) = int32(u>>1) ^ -int32(u&1)
		return err
	case kVarlong:
		u, err := d.readUvarint64()
		*(*int64)(fp) = int64(u>>1) ^ -int64(u&1)
		return err
	case kUvarint, kUvarint32:
		u, err := d.readUvarint()
		*(*uint32)(fp) = u
		return err
	case kString, kNullString:
		start := d.off
		n, err := d.readLength(o.compact, false, 1)
		if err != nil {
			return err
		}
		if n < 0 {
			if o.kind == kString || !o.nullable {
				return newFieldError(ErrNullNotAllowed, start, "")
			}
			*(**string)(fp) = nil
			return nil
		}
		if o.kind == kString {
			*(*string)(fp) = d.str(n)
			return nil
		}
		*(**string)(fp) = d.strPtr(n)
		return nil
	case kBytes:
		start := d.off
		n, err := d.readLength(o.compact, true, 1)
		if err != nil {
			return err
		}
		if n < 0 {
			if !o.nullable {
				return newFieldError(ErrNullNotAllowed, start, "")
			}
			*(*[]byte)(fp) = nil
			return nil
		}
		var bs []byte
		if o.records {
			bs = d.src[d.off : d.off+n : d.off+n] // records may alias the input
		} else {
			bs = make([]byte, n)
			copy(bs, d.src[d.off:])
		}
		d.off += n
		*(*[]byte)(fp) = bs
		return nil
	case kArray:
		return d.decodeArray(o, (*sliceHeader)(fp))
	case kStruct:
		return d.decodeStruct(o.sub, fp)
	case kStructPtr:
		if o.nullable {
			if d.remaining() < 1 {
				return d.truncated(1)
			}
			switch int8(d.src[d.off]) {
			case -1:
				d.off++
				*(*unsafe.Pointer)(fp) = nil
				return nil
			case 1:
				d.off++
			default:
				return newFieldError(ErrInvalidLength, d.off, "presence marker %d is neither 1 nor -1", int8(d.src[d.off]))
			}
		}
		sp := reflect.New(o.sub.typ).UnsafePointer()
		*(*unsafe.Pointer)(fp) = sp
		return d.decodeStruct(o.sub, sp)
	}
	return nil
}

func (d *decoder) decodeArray(o *op, h *sliceHeader) error {
	start := d.off
	e := o.elem
	n, err := d.readLength(o.compact, true, int(o.elemMinWire))
	if err != nil {
		return err
	}
	if n < 0 {
		if !o.nullable {
			return newFieldError(ErrNullNotAllowed, start, "")
		}
		*h = sliceHeader{}
		return nil
	}
	if n == 0 {
		// Empty, not null: a non-nil slice that points at no storage.
		*h = sliceHeader{data: unsafe.Pointer(&zeroSizedValue)}
		return nil
	}
	if e.kind == kInt32 {
		if len(d.int32s) < n {
			d.lastInt32Chunk = min(max(2*d.lastInt32Chunk, 16), int32Chunk)
			d.int32s = make([]int32, max(n, min(d.lastInt32Chunk, d.remaining()/4)))
		}
		vals := d.int32s[:n:n]
		d.int32s = d.int32s[n:]
		b := d.src[d.off:]
		for i := range vals {
			vals[i] = int32(binary.BigEndian.Uint32(b[4*i:]))
		}
		d.off += 4 * n
		*(*[]int32)(unsafe.Pointer(h)) = vals
		return nil
	}
	var data unsafe.Pointer
	if e.kind == kStruct {
		data = d.structElems(o, n, h)
	} else {
		data = newArray(o, h, n)
	}
	*h = sliceHeader{data: data, len: n, cap: n}
	if e.kind == kStruct {
		for i := 0; i < n; i++ {
			if err := d.decodeStruct(e.sub, unsafe.Add(data, uintptr(i)*o.elemSize)); err != nil {
				return withinIndex(err, i)
			}
		}
		return nil
	}
	for i := 0; i < n; i++ {
		if err := d.decodeValue(e, unsafe.Add(data, uintptr(i)*o.elemSize)); err != nil {
			return withinIndex(err, i)
		}
	}
	return nil
}

func (d *decoder) decodeTaggedFields(pl *plan, p unsafe.Pointer) error {
	start := d.off
	count, err := d.readUvarint()
	if err != nil {
		return err
	}
	if int(count) > d.remaining()/2 {
		return newFieldError(ErrInvalidLength, start, "%d tagged fields in %d bytes", count, d.remaining())
	}
	var unknown *UnknownTags
	if pl.hasUnknown {
		unknown = (*UnknownTags)(fieldPtr(p, pl.unknownOff))
	}
	last := int64(-1)
	for i := uint32(0); i < count; i++ {
		tagAt := d.off
		tag, err := d.readUvarint()
		if err != nil {
			return err
		}
		if int64(tag) <= last {
			return newFieldError(ErrBadTag, tagAt, "tag %d after tag %d: tags must ascend", tag, last)
		}
		last = int64(tag)
		size, err := d.readUvarint()
		if err != nil {
			return err
		}
		if int(size) > d.remaining() {
			return newFieldError(ErrInvalidLength, tagAt, "tagged field %d of %d bytes, %d left", tag, size, d.remaining())
		}
		end := d.off + int(size)
		if o := pl.taggedOp(tag); o != nil {
			full := d.src
			d.src = d.src[:end]
			err := d.decodeValue(o, fieldPtr(p, o.offset))
			d.src = full
			if err != nil {
				return within(err, o.name)
			}
			if d.off != end {
				return within(newFieldError(ErrBadTag, d.off, "tagged field %d has %d bytes left over", tag, end-d.off), o.name)
			}
			continue
		}
		for _, t := range pl.inactiveTags {
			if t == tag {
				return newFieldError(ErrBadTag, tagAt, "tag %d is not valid in version %d", tag, pl.version)
			}
		}
		if unknown != nil {
			data := make([]byte, size)
			copy(data, d.src[d.off:end])
			*unknown = append(*unknown, TaggedField{Tag: tag, Data: data})
		}
		d.off = end
	}
	return nil
}

// taggedOp finds the field with tag t in this version, or nil.
func (pl *plan) taggedOp(t uint32) *op {
	for i := range pl.tagged {
		if pl.tagged[i].tag == t {
			return &pl.tagged[i]
		}
	}
	return nil
}

// zeroSizedValue gives empty slices a non-nil data pointer, as
// make([]T, 0) does, so that they stay distinct from null.
var zeroSizedValue [0]byte

// minWire is the fewest bytes one value of this op takes on the wire.
func (o *op) minWire() int {
	if s := o.kind.fixedSize(); s > 0 {
		return s
	}
	switch o.kind {
	case kString, kNullString:
		if o.compact {
			return 1
		}
		return 2
	case kBytes, kArray:
		if o.compact {
			return 1
		}
		return 4
	case kStruct:
		return o.sub.minWire
	case kStructPtr:
		if o.nullable {
			return 1
		}
		return o.sub.minWire
	}
	return 1 // varints
}

// decodeFixedRun reads a stretch of fixed-width fields after one check
// that they are all there.
func (d *decoder) decodeFixedRun(o *op, p unsafe.Pointer) error {
	if d.remaining() < int(o.runSize) {
		for _, f := range o.run {
			if d.remaining() < f.at+f.kind.fixedSize() {
				d.off += f.at
				return within(d.truncated(f.kind.fixedSize()), f.name)
			}
		}
	}
	src := d.src[d.off : d.off+int(o.runSize)]
	g := o.slots
	for _, s := range g.int32s {
		*(*uint32)(unsafe.Add(p, s.off)) = binary.BigEndian.Uint32(src[s.at:])
	}
	for _, s := range g.int16s {
		*(*uint16)(unsafe.Add(p, s.off)) = binary.BigEndian.Uint16(src[s.at:])
	}
	for _, s := range g.int64s {
		*(*uint64)(unsafe.Add(p, s.off)) = binary.BigEndian.Uint64(src[s.at:])
	}
	for _, s := range g.int8s {
		*(*uint8)(unsafe.Add(p, s.off)) = src[s.at]
	}
	for _, s := range g.bools {
		*(*bool)(unsafe.Add(p, s.off)) = src[s.at] != 0
	}
	for _, s := range g.uuids {
		copy((*UUID)(unsafe.Add(p, s.off))[:], src[s.at:s.at+16])
	}
	d.off += int(o.runSize)
	return nil
}

// structElems returns zeroed storage for n elements of a struct array,
// carved from a slab of that element type when one has room. The slice
// gets cap n, so appending to it never writes into a neighbour.
func (d *decoder) structElems(o *op, n int, h *sliceHeader) unsafe.Pointer {
	for i := range d.structs {
		sl := &d.structs[i]
		if sl.elem != o.elem.sub || sl.left < n {
			continue
		}
		p := sl.data
		sl.left -= n
		if sl.left == 0 {
			sl.data = nil
		} else {
			sl.data = unsafe.Add(p, uintptr(n)*o.elemSize)
		}
		return p
	}
	// The first array of an element type gets exactly its room; from the
	// second on, a slab with room for more of the same, but never more
	// elements than the bytes left could encode.
	seen := false
	for i := range d.structs {
		seen = seen || d.structs[i].elem == o.elem.sub
	}
	count := n
	if seen {
		count = max(n, min(slabChunk, d.remaining()/max(1, int(o.elemMinWire))))
	}
	p := newArray(o, h, count)
	var rest unsafe.Pointer
	if count > n {
		rest = unsafe.Add(p, uintptr(n)*o.elemSize)
	}
	for i := range d.structs {
		if d.structs[i].elem == o.elem.sub {
			d.structs[i] = slab{elem: o.elem.sub, data: rest, left: count - n}
			return p
		}
	}
	d.structs[d.nextSlab] = slab{elem: o.elem.sub, data: rest, left: count - n}
	d.nextSlab = (d.nextSlab + 1) % len(d.structs)
	return p
}

// newArray allocates a zeroed backing array of n elements for the slice
// at h (the array op o's field) and stores it there with length and
// capacity n. It grows the slice in place through a *[]T made from h and
// the type the plan kept: reflect.MakeSlice would also put a slice header
// on the heap, and reflect.NewAt would look *[]T up on every call.
func newArray(o *op, h *sliceHeader, n int) unsafe.Pointer {
	*h = sliceHeader{}
	var ptr any
	*(*eface)(unsafe.Pointer(&ptr)) = eface{typ: o.ptrToSlice, data: unsafe.Pointer(h)}
	reflect.ValueOf(ptr).Elem().Grow(n)
	h.len, h.cap = n, n
	return h.data
}
