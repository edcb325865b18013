package kwire

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"
)

const maxInt16String = math.MaxInt16

// encodeStruct appends the struct at p as plan pl describes it, running
// the plan's compiled program (program.go) up to its end instruction.
//
// The loop keeps the buffer's base, length and capacity, the struct and
// the instruction in registers: its cases write through pointers into
// room they have checked and make no call (short strings and byte strings
// are copied inline). Nested structs and arrays of them run in the same
// loop, their parents kept on a small stack. Long byte strings (records)
// go to copyLong, below the switch, for one memmove. Everything else
// (growing, long strings, null values, the rare forms, structs nested
// deeper than the stack, errors) goes through the one call to encodeInstr
// below the switch, so only those two paths spill and reload.
func encodeStruct(b []byte, pl *plan, p unsafe.Pointer) ([]byte, error) {
	if !pl.skipAbsent {
		var err error
		if b, err = checkAbsent(b, pl, p); err != nil {
			return b, err
		}
	}
	var st structStack // the parents of the struct at p
	base, n, c := unsafe.Pointer(unsafe.SliceData(b)), len(b), cap(b)
	in := unsafe.SliceData(pl.prog) // the program ends with an end instruction
	var long []byte                 // a byte string for copyLong
	for {
		switch in.code {
		case cSlow: // below the switch; a case, so the jump table starts at 0
		case cFixedRun:
			if n+int(in.n) <= c {
				// One walk over the slots, a store for each by its width, to
				// the spare slot past the last (width 0): runs are short, so
				// a loop per width would cost more in loop tests than it
				// saves in width tests.
				dst, s := unsafe.Add(base, n), unsafe.SliceData((*fixedRunCode)(in.ref).slots)
				for ; s.width != 0; s = nextSlot(s) {
					if w := s.width; w == 4 {
						put32(unsafe.Add(dst, s.at), *(*uint32)(unsafe.Add(p, s.off)))
					} else if w == 2 {
						put16(unsafe.Add(dst, s.at), *(*uint16)(unsafe.Add(p, s.off)))
					} else if w == 8 {
						put64(unsafe.Add(dst, s.at), *(*uint64)(unsafe.Add(p, s.off)))
					} else if w == 1 { // a Go bool is 0 or 1
						*(*uint8)(unsafe.Add(dst, s.at)) = *(*uint8)(unsafe.Add(p, s.off))
					} else {
						*(*UUID)(unsafe.Add(dst, s.at)) = *(*UUID)(unsafe.Add(p, s.off))
					}
				}
				n, in = n+int(in.n), nextInstr(in)
				continue
			}
		case cInt32:
			if n+4 <= c {
				put32(unsafe.Add(base, n), *(*uint32)(in.field(p)))
				n, in = n+4, nextInstr(in)
				continue
			}
		case cInt16:
			if n+2 <= c {
				put16(unsafe.Add(base, n), *(*uint16)(in.field(p)))
				n, in = n+2, nextInstr(in)
				continue
			}
		case cInt64:
			if n+8 <= c {
				put64(unsafe.Add(base, n), *(*uint64)(in.field(p)))
				n, in = n+8, nextInstr(in)
				continue
			}
		case cInt8, cBool:
			if n < c {
				*(*uint8)(unsafe.Add(base, n)) = *(*uint8)(in.field(p))
				n, in = n+1, nextInstr(in)
				continue
			}
		case cUUID:
			if n+16 <= c {
				*(*UUID)(unsafe.Add(base, n)) = *(*UUID)(in.field(p))
				n, in = n+16, nextInstr(in)
				continue
			}
		case cStringCompact:
			s := *(*string)(in.field(p))
			if len(s) <= maxInlineCopy && n+len(s) < c {
				*(*uint8)(unsafe.Add(base, n)) = byte(len(s) + 1)
				copyShort(base, n+1, unsafe.Pointer(unsafe.StringData(s)), len(s))
				n, in = n+1+len(s), nextInstr(in)
				continue
			}
		case cStringClassic:
			s := *(*string)(in.field(p))
			if len(s) <= maxInlineCopy && n+2+len(s) <= c {
				put16(unsafe.Add(base, n), uint16(len(s)))
				copyShort(base, n+2, unsafe.Pointer(unsafe.StringData(s)), len(s))
				n, in = n+2+len(s), nextInstr(in)
				continue
			}
		case cNullStringCompact:
			sp := *(**string)(in.field(p))
			if sp == nil {
				if in.nullable && n < c {
					*(*uint8)(unsafe.Add(base, n)) = 0
					n, in = n+1, nextInstr(in)
					continue
				}
			} else if s := *sp; len(s) <= maxInlineCopy && n+len(s) < c {
				*(*uint8)(unsafe.Add(base, n)) = byte(len(s) + 1)
				copyShort(base, n+1, unsafe.Pointer(unsafe.StringData(s)), len(s))
				n, in = n+1+len(s), nextInstr(in)
				continue
			}
		case cNullStringClassic:
			sp := *(**string)(in.field(p))
			if sp == nil {
				if in.nullable && n+2 <= c {
					put16(unsafe.Add(base, n), 0xffff)
					n, in = n+2, nextInstr(in)
					continue
				}
			} else if s := *sp; len(s) <= maxInlineCopy && n+2+len(s) <= c {
				put16(unsafe.Add(base, n), uint16(len(s)))
				copyShort(base, n+2, unsafe.Pointer(unsafe.StringData(s)), len(s))
				n, in = n+2+len(s), nextInstr(in)
				continue
			}
		case cArrayInt32Compact, cArrayInt32Classic:
			h := (*sliceHeader)(in.field(p))
			if h.data == nil && in.nullable && n+4 <= c {
				n, in = n+putNullLength(unsafe.Add(base, n), in.code == cArrayInt32Compact), nextInstr(in)
				continue
			}
			if (h.data != nil || !in.nullable) && h.len < 0x7f && n+4+4*h.len <= c {
				m := n
				if in.code == cArrayInt32Classic {
					put32(unsafe.Add(base, m), uint32(h.len))
					m += 4
				} else {
					*(*uint8)(unsafe.Add(base, m)) = byte(h.len + 1)
					m++
				}
				for j := range h.len {
					put32(unsafe.Add(base, m+4*j), *(*uint32)(unsafe.Add(h.data, 4*j)))
				}
				n, in = m+4*h.len, nextInstr(in)
				continue
			}
		case cArrayStringCompact:
			// Written ahead of n, which moves only if every element fit.
			h := (*sliceHeader)(in.field(p))
			if h.data != nil && h.len < 0x7f && n+h.len < c {
				*(*uint8)(unsafe.Add(base, n)) = byte(h.len + 1)
				m := n + 1
				for j := range h.len {
					s := *(*string)(unsafe.Add(h.data, j*int(unsafe.Sizeof(""))))
					if len(s) > maxInlineCopy || m+len(s) >= c {
						m = -1
						break
					}
					*(*uint8)(unsafe.Add(base, m)) = byte(len(s) + 1)
					copyShort(base, m+1, unsafe.Pointer(unsafe.StringData(s)), len(s))
					m += 1 + len(s)
				}
				if m >= 0 {
					n, in = m, nextInstr(in)
					continue
				}
			}
		case cBytesCompact:
			if bs := *(*[]byte)(in.field(p)); bs != nil && n+5+len(bs) <= c {
				if len(bs) <= maxInlineCopy {
					*(*uint8)(unsafe.Add(base, n)) = byte(len(bs) + 1)
					copyShort(base, n+1, unsafe.Pointer(unsafe.SliceData(bs)), len(bs))
					n, in = n+1+len(bs), nextInstr(in)
					continue
				}
				// Long (records): the length, then one memmove.
				v := uint32(len(bs) + 1)
				for ; v >= 0x80; v >>= 7 {
					*(*uint8)(unsafe.Add(base, n)) = byte(v) | 0x80
					n++
				}
				*(*uint8)(unsafe.Add(base, n)) = byte(v)
				n, long, in = n+1, bs, nextInstr(in)
				goto copyLong
			}
		case cBytesClassic:
			if bs := *(*[]byte)(in.field(p)); bs != nil && n+4+len(bs) <= c {
				put32(unsafe.Add(base, n), uint32(len(bs)))
				if len(bs) <= maxInlineCopy {
					copyShort(base, n+4, unsafe.Pointer(unsafe.SliceData(bs)), len(bs))
					n, in = n+4+len(bs), nextInstr(in)
					continue
				}
				n, long, in = n+4, bs, nextInstr(in)
				goto copyLong
			}
		case cArrayStructCompact:
			// 1 to 126 elements, the common case: the length, then the
			// first element. Null or empty: the length alone.
			h := (*sliceHeader)(in.field(p))
			if sub := in.plan(); uint(h.len-1) < 0x7e && n < c && sub.skipAbsent && st.depth < stackDepth {
				*(*uint8)(unsafe.Add(base, n)) = byte(h.len + 1)
				n++
				st.push(pl, p, in, h.len)
				pl, p, in = sub, h.data, unsafe.SliceData(sub.prog)
				continue
			}
			if h.len == 0 && n < c {
				if h.data == nil && in.nullable {
					*(*uint8)(unsafe.Add(base, n)) = 0 // null
				} else {
					*(*uint8)(unsafe.Add(base, n)) = 1
				}
				n, in = n+1, nextInstr(in)
				continue
			}
		case cArrayStructClassic:
			h := (*sliceHeader)(in.field(p))
			if sub := in.plan(); uint(h.len-1) < 0x7e && n+4 <= c && sub.skipAbsent && st.depth < stackDepth {
				put32(unsafe.Add(base, n), uint32(h.len))
				n += 4
				st.push(pl, p, in, h.len)
				pl, p, in = sub, h.data, unsafe.SliceData(sub.prog)
				continue
			}
			if h.len == 0 && n+4 <= c {
				if h.data == nil && in.nullable {
					put32(unsafe.Add(base, n), 0xffffffff) // null
				} else {
					put32(unsafe.Add(base, n), 0)
				}
				n, in = n+4, nextInstr(in)
				continue
			}
		case cStruct:
			if sub := in.plan(); sub.skipAbsent && st.depth < stackDepth {
				st.push(pl, p, in, 1)
				pl, p, in = sub, in.field(p), unsafe.SliceData(sub.prog)
				continue
			}
		case cEndNone:
			goto end
		case cEndEmpty:
			if n < c {
				*(*uint8)(unsafe.Add(base, n)) = 0
				n++
				goto end
			}
		case cEndUnknown:
			if (*UnknownTags)(in.field(p)).fields == nil && n < c {
				*(*uint8)(unsafe.Add(base, n)) = 0
				n++
				goto end
			}
		case cEndChecks:
			if (!in.hasUnknown || (*UnknownTags)(in.field(p)).fields == nil) && n < c {
				k := 0
				for k < int(in.n) {
					w := (*wordCheck)(unsafe.Add(in.ref, k*int(unsafe.Sizeof(wordCheck{}))))
					if *(*uintptr)(unsafe.Add(p, w.off))&w.mask != w.bits {
						break
					}
					k++
				}
				if k == int(in.n) { // nothing tagged
					*(*uint8)(unsafe.Add(base, n)) = 0
					n++
					goto end
				}
			}
		}
		// The general path: one call site for every case above that did
		// not fit, and for the codes that have no case. The plan and the
		// struct come back with the buffer and the next instruction so
		// that no value of the loop is live across the call.
		{
			b, err := bytesAt(base, n, c), error(nil)
			if b, pl, p, in, err = encodeInstr(b, pl, p, in); err != nil {
				return b, st.within(err)
			}
			base, n, c = unsafe.Pointer(unsafe.SliceData(b)), len(b), cap(b)
			if in != nil {
				continue
			}
			goto end
		}
	copyLong: // a long byte string, at n, where its length leaves room
		copy(bytesAt(unsafe.Add(base, n), len(long), len(long)), long)
		n += len(long)
		continue
	end: // of a struct: the next element, back to the parent, or done
		if st.depth == 0 {
			return bytesAt(base, n, c), nil
		}
		if f := &st.frames[st.depth-1]; f.left > 1 {
			f.left--
			p, in = unsafe.Add(p, f.in.n), unsafe.SliceData(pl.prog)
			continue
		}
		st.depth--
		f := &st.frames[st.depth]
		pl, p, in = f.pl, f.p, nextInstr(f.in)
	}
}

// stackDepth is how many levels of nested structs encodeStruct and
// decodeStruct keep on their own stack; deeper ones recurse through the
// general path (encodeInstr, decodeInstr).
const stackDepth = 2

// structFrame is a struct encodeStruct will return to: the parent plan,
// struct and instruction (a struct or an array of structs, whose n is the
// element stride), and how many elements are left, the current one
// included.
type structFrame struct {
	pl   *plan
	p    unsafe.Pointer
	in   *instr
	left int
}

// structStack is encodeStruct's (and decodeStruct's) stack of parents,
// depth of them in frames.
type structStack struct {
	frames [stackDepth]structFrame
	depth  int
}

func (st *structStack) push(pl *plan, p unsafe.Pointer, in *instr, elems int) {
	st.frames[st.depth] = structFrame{pl: pl, p: p, in: in, left: elems}
	st.depth++
}

// within adds the path of the stack, innermost last, to err: each
// parent's field name and, for arrays, the element's index.
func (st *structStack) within(err error) error {
	for k := st.depth - 1; k >= 0; k-- {
		f := &st.frames[k]
		if f.in.code != cStruct {
			h := (*sliceHeader)(unsafe.Add(f.p, f.in.off))
			err = withinIndex(err, h.len-f.left)
		}
		err = within(err, f.pl.fieldOf(f.in).name)
	}
	return err
}

// instrIndex is the index of in, an instruction of pl's program.
func (pl *plan) instrIndex(in *instr) int {
	return int((uintptr(unsafe.Pointer(in)) - uintptr(unsafe.Pointer(unsafe.SliceData(pl.prog)))) / unsafe.Sizeof(instr{}))
}

// fieldOf is the hot field that in, an instruction of pl's program, compiles.
func (pl *plan) fieldOf(in *instr) *fieldPlan { return &pl.hot[pl.instrIndex(in)] }

// putNullLength stores a null array length at dst and returns its size.
func putNullLength(dst unsafe.Pointer, compact bool) int {
	if compact {
		*(*uint8)(dst) = 0
		return 1
	}
	put32(dst, 0xffffffff)
	return 4
}

// maxInlineCopy is the longest string or byte string encodeStruct copies
// itself; longer ones are worth a call to memmove.
const maxInlineCopy = 32

func nextInstr(in *instr) *instr {
	return (*instr)(unsafe.Add(unsafe.Pointer(in), unsafe.Sizeof(instr{})))
}

// bytesAt is the slice of n bytes and capacity c at base, put together
// without the checks of unsafe.Slice and reslicing: encodeStruct keeps
// n <= c.
func bytesAt(base unsafe.Pointer, n, c int) []byte {
	return *(*[]byte)(unsafe.Pointer(&sliceHeader{base, n, c}))
}

func nextSlot(s *fixedSlot) *fixedSlot {
	return (*fixedSlot)(unsafe.Add(unsafe.Pointer(s), unsafe.Sizeof(fixedSlot{})))
}

// copyShort copies l bytes (at most maxInlineCopy) from src to base+at
// without a call or a loop over words: in two 16- or 8-byte blocks,
// the second overlapping the first rather than reaching past l, or byte
// by byte under 8. It forms base+at only when there is a byte to copy:
// at may be the end of the buffer, and a pointer one past an allocation
// is invalid (checkptr, under -race, says so).
func copyShort(base unsafe.Pointer, at int, src unsafe.Pointer, l int) {
	if l == 0 {
		return
	}
	dst := unsafe.Add(base, at)
	switch {
	case l >= 16:
		*(*[16]byte)(dst) = *(*[16]byte)(src)
		*(*[16]byte)(unsafe.Add(dst, l-16)) = *(*[16]byte)(unsafe.Add(src, l-16))
	case l >= 8:
		*(*[8]byte)(dst) = *(*[8]byte)(src)
		*(*[8]byte)(unsafe.Add(dst, l-8)) = *(*[8]byte)(unsafe.Add(src, l-8))
	default:
		for i := range l {
			*(*byte)(unsafe.Add(dst, i)) = *(*byte)(unsafe.Add(src, i))
		}
	}
}

// encodeInstr runs instruction in of pl's program, for the struct at p,
// by the general path, and returns pl, p and the next instruction (nil
// after an end instruction) for encodeStruct's loop to go on with.
func encodeInstr(b []byte, pl *plan, p unsafe.Pointer, in *instr) ([]byte, *plan, unsafe.Pointer, *instr, error) {
	var err error
	switch in.code {
	case cEndNone, cEndEmpty, cEndUnknown, cEndGeneral, cEndChecks:
		b, err = encodeTail(b, pl, p)
		return b, pl, p, nil, err
	case cFixedRun: // only short of room: the loop's own case writes it once grown
		return slices.Grow(b, int(in.n)), pl, p, in, nil
	}
	b, err = appendInstr(b, pl, p, in)
	return b, pl, p, nextInstr(in), err
}

// appendInstr appends instruction in of pl's program, for the struct at
// p, by the general path: it grows b as needed and handles every form,
// the rare ones and the errors through the field plan.
func appendInstr(b []byte, pl *plan, p unsafe.Pointer, in *instr) ([]byte, error) {
	fp := unsafe.Add(p, in.off)
	switch in.code {
	case cInt32:
		return binary.BigEndian.AppendUint32(b, *(*uint32)(fp)), nil
	case cStringCompact:
		s := *(*string)(fp)
		return append(appendUvarint(b, uint32(len(s)+1)), s...), nil
	case cStringClassic:
		s := *(*string)(fp)
		if len(s) > maxInt16String {
			return encodeField(b, pl, in, fp)
		}
		return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...), nil
	case cNullStringCompact:
		sp := *(**string)(fp)
		if sp == nil {
			if !in.nullable {
				return encodeField(b, pl, in, fp) // the error
			}
			return append(b, 0), nil
		}
		return append(appendUvarint(b, uint32(len(*sp)+1)), *sp...), nil
	case cNullStringClassic:
		sp := *(**string)(fp)
		if sp == nil && in.nullable {
			return append(b, 0xff, 0xff), nil
		}
		if sp == nil || len(*sp) > maxInt16String {
			return encodeField(b, pl, in, fp)
		}
		return append(binary.BigEndian.AppendUint16(b, uint16(len(*sp))), *sp...), nil
	case cInt16:
		return binary.BigEndian.AppendUint16(b, *(*uint16)(fp)), nil
	case cInt64:
		return binary.BigEndian.AppendUint64(b, *(*uint64)(fp)), nil
	case cInt8, cBool:
		return append(b, *(*uint8)(fp)), nil
	case cUUID:
		return append(b, (*UUID)(fp)[:]...), nil
	}
	return encodeField(b, pl, in, fp)
}

// encodeTail writes what follows a struct's fields: the tagged-field
// section of a flexible version.
func encodeTail(b []byte, pl *plan, p unsafe.Pointer) ([]byte, error) {
	switch pl.tail {
	case tailNone:
		return b, nil
	case tailUnknown:
		if (*UnknownTags)(unsafe.Add(p, pl.unknownOff)).fields != nil {
			return encodeTaggedFields(b, pl, p)
		}
		return append(b, 0), nil
	case tailEmpty:
		return append(b, 0), nil
	}
	if nothingTagged(pl, p) {
		return append(b, 0), nil
	}
	return encodeTaggedFields(b, pl, p)
}

// nothingTagged reports that the struct at p has no tagged field to write:
// every known one holds its default and no unknown one is kept.
func nothingTagged(pl *plan, p unsafe.Pointer) bool {
	return (!pl.hasUnknown || (*UnknownTags)(fieldPtr(p, pl.unknownOff)).fields == nil) &&
		(len(pl.tagged) == 0 || (pl.tagChecksFlat && checksPass(pl.tagChecks, p)))
}

// encodeField writes the hot field of instruction in of pl, at fp, through
// the general path: the rare forms (varints, null, too long) and their
// errors.
func encodeField(b []byte, pl *plan, in *instr, fp unsafe.Pointer) ([]byte, error) {
	o := pl.fieldOf(in)
	b, err := encodeValue(b, o, fp)
	if err != nil {
		return b, within(err, o.name)
	}
	return b, nil
}

// checkAbsent fails if a field the version lacks holds a value that would
// be lost. It hands b back, so that encodeStruct keeps nothing across the
// call.
func checkAbsent(b []byte, pl *plan, p unsafe.Pointer) ([]byte, error) {
	if pl.absentChecksFlat && checksPass(pl.absentChecks, p) {
		return b, nil
	}
	for i := range pl.absent {
		o := pl.absent[i]
		if !o.ignorable && !isUnset(o, fieldPtr(p, o.offset)) {
			return b, within(newFieldError(ErrFieldNotInVersion, -1, "version %d does not have it", pl.version), o.name)
		}
	}
	return b, nil
}

func appendString(b []byte, o *fieldPlan, s string) ([]byte, error) {
	if err := checkStringLength(o, len(s)); err != nil {
		return b, err
	}
	b = appendLength(b, len(s), o.compact, false)
	return append(b, s...), nil
}

func encodeArray(b []byte, o *fieldPlan, h *sliceHeader) ([]byte, error) {
	if h.data == nil && o.nullable {
		return appendLength(b, -1, o.compact, true), nil
	}
	n := h.len
	b = appendLength(b, n, o.compact, true)
	e := o.elem
	// The common element kinds get their own loops: no switch per element.
	switch e.kind {
	case kInt32:
		at := len(b)
		b = extend(b, 4*n)
		dst := unsafe.Pointer(unsafe.SliceData(b[at:]))
		for i, v := range unsafe.Slice((*uint32)(h.data), n) {
			put32(unsafe.Add(dst, 4*i), v)
		}
		return b, nil
	case kInt64:
		at := len(b)
		b = extend(b, 8*n)
		dst := b[at:]
		for i, v := range unsafe.Slice((*uint64)(h.data), n) {
			binary.BigEndian.PutUint64(dst[8*i:], v)
		}
		return b, nil
	case kStruct:
		var err error
		for i := 0; i < n; i++ {
			if b, err = encodeStruct(b, e.sub, unsafe.Add(h.data, uintptr(i)*o.elemSize)); err != nil {
				return b, withinIndex(err, i)
			}
		}
		return b, nil
	}
	var err error
	appendTo := wireTypes[e.kind].appendTo
	for i := 0; i < n; i++ {
		if b, err = appendTo(b, e, unsafe.Add(h.data, uintptr(i)*o.elemSize)); err != nil {
			return b, withinIndex(err, i)
		}
	}
	return b, nil
}

// encodeTaggedFields writes the tagged-field section: the count, then each
// known field that differs from its default merged with the unknown ones,
// in ascending tag order. A kept entry with the tag of a known field (the
// bytes of a known field that arrived holding its default) is written
// while the field still holds its default; a value set since replaces it.
func encodeTaggedFields(b []byte, pl *plan, p unsafe.Pointer) ([]byte, error) {
	var unknown []TaggedField
	if pl.hasUnknown {
		unknown = (*UnknownTags)(fieldPtr(p, pl.unknownOff)).Fields()
	}
	count := 0
	for i := range pl.tagged {
		o := pl.tagged[i]
		if !isDefault(o, fieldPtr(p, o.offset)) {
			count++
		}
	}
	for _, u := range unknown {
		if !pl.shadowed(p, u.Tag) {
			count++
		}
	}
	b = appendUvarint(b, uint32(count))
	ui := 0
	last := int64(-1)
	writeUnknownBelow := func(limit int64) error {
		for ui < len(unknown) && int64(unknown[ui].Tag) < limit {
			u := unknown[ui]
			ui++
			if pl.shadowed(p, u.Tag) {
				continue
			}
			if int64(u.Tag) <= last {
				return unknownTagOutOfOrder(u.Tag)
			}
			b = appendUvarint(b, u.Tag)
			b = appendUvarint(b, uint32(len(u.Data)))
			b = append(b, u.Data...)
			last = int64(u.Tag)
		}
		return nil
	}
	for i := range pl.tagged {
		o := pl.tagged[i]
		fp := fieldPtr(p, o.offset)
		if isDefault(o, fp) {
			continue
		}
		if err := writeUnknownBelow(int64(o.tag)); err != nil {
			return b, err
		}
		size, err := sizeValue(o, fp)
		if err != nil {
			return b, within(err, o.name)
		}
		b = appendUvarint(b, o.tag)
		b = appendUvarint(b, uint32(size))
		if b, err = encodeValue(b, o, fp); err != nil {
			return b, within(err, o.name)
		}
		last = int64(o.tag)
	}
	return b, writeUnknownBelow(math.MaxInt64)
}

// shadowed reports whether a kept tagged field with tag t gives way to the
// known field of that tag, which holds a value other than its default.
func (pl *plan) shadowed(p unsafe.Pointer, t uint32) bool {
	o := pl.fieldWithTag(t)
	return o != nil && !isDefault(o, fieldPtr(p, o.offset))
}

// extend lengthens b by n bytes, growing it only when it lacks room.
func extend(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		b = slices.Grow(b, n)
	}
	return b[:len(b)+n]
}

// put32 stores v big-endian at p, which must have 4 bytes of room. The
// byte stores compile to one swapped store, as binary.BigEndian's do; a
// call to PutUint32 here would leave a NOP (its inline mark) in every
// loop that stores through put32.
func put32(p unsafe.Pointer, v uint32) {
	b := (*[4]byte)(p)
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func put16(p unsafe.Pointer, v uint16) {
	b := (*[2]byte)(p)
	b[0], b[1] = byte(v>>8), byte(v)
}

func put64(p unsafe.Pointer, v uint64) {
	b := (*[8]byte)(p)
	b[0], b[1], b[2], b[3] = byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32)
	b[4], b[5], b[6], b[7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}
