package engine

import (
	"encoding/binary"
	"math"
	"slices"

	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

const maxInt16String = math.MaxInt16

// encodeStruct appends the struct at p as plan pl describes it, running
// the plan's compiled program (program.go) up to its end instruction.
//
// Its cases write through pointers into room they have checked and make
// no call (short strings and byte strings go through copyShort), so that
// the common forms cost no more than kmsg's generated code
// (interop/README.md has the rows). Nested structs and arrays of them run
// in the same loop, their parents kept on a small stack. Long byte strings
// (records) go to copyLong for one memmove; everything else (growing, long
// strings, null values, the rare forms, structs nested deeper than the
// stack, errors) goes through the one call to encodeInstr.
func encodeStruct(b []byte, pl *plan, p pointer) ([]byte, error) {
	if !pl.skipAbsent {
		var err error
		if b, err = checkAbsent(b, pl, p); err != nil {
			return b, err
		}
	}
	var st structStack // the parents of the struct at p
	base, n, c := sliceData(b), len(b), cap(b)
	in := first(pl.prog) // the program ends with an end instruction
	var long []byte      // a byte string for copyLong
	for {
		switch in.code {
		case cSlow: // the general path, below the switch
		case cFixedRun:
			if n+int(in.n) <= c {
				// One walk over the slots, a store for each by its width, up
				// to the spare slot past the last (width 0).
				dst, s := base.at(n), first(as[fixedRunCode](in.ref).slots)
				for ; s.width != 0; s = advance(s) {
					if w := s.width; w == 4 {
						put32(dst.add(uintptr(s.at)), *p.add(uintptr(s.off)).uint32())
					} else if w == 2 {
						put16(dst.add(uintptr(s.at)), *p.add(uintptr(s.off)).uint16())
					} else if w == 8 {
						put64(dst.add(uintptr(s.at)), *p.add(uintptr(s.off)).uint64())
					} else if w == 1 { // a Go bool is 0 or 1
						*dst.add(uintptr(s.at)).uint8() = *p.add(uintptr(s.off)).uint8()
					} else {
						*dst.add(uintptr(s.at)).uuid() = *p.add(uintptr(s.off)).uuid()
					}
				}
				n, in = n+int(in.n), advance(in)
				continue
			}
		case cInt32:
			if n+4 <= c {
				put32(base.at(n), *p.add(in.off).uint32())
				n, in = n+4, advance(in)
				continue
			}
		case cInt16:
			if n+2 <= c {
				put16(base.at(n), *p.add(in.off).uint16())
				n, in = n+2, advance(in)
				continue
			}
		case cInt64:
			if n+8 <= c {
				put64(base.at(n), *p.add(in.off).uint64())
				n, in = n+8, advance(in)
				continue
			}
		case cInt8, cBool:
			if n < c {
				*base.at(n).uint8() = *p.add(in.off).uint8()
				n, in = n+1, advance(in)
				continue
			}
		case cUUID:
			if n+16 <= c {
				*base.at(n).uuid() = *p.add(in.off).uuid()
				n, in = n+16, advance(in)
				continue
			}
		case cStringCompact:
			s := *p.add(in.off).string()
			if len(s) <= maxInlineCopy && n+len(s) < c {
				*base.at(n).uint8() = byte(len(s) + 1)
				copyShort(base, n+1, stringData(s), len(s))
				n, in = n+1+len(s), advance(in)
				continue
			}
		case cStringClassic:
			s := *p.add(in.off).string()
			if len(s) <= maxInlineCopy && n+2+len(s) <= c {
				put16(base.at(n), uint16(len(s)))
				copyShort(base, n+2, stringData(s), len(s))
				n, in = n+2+len(s), advance(in)
				continue
			}
		case cNullStringCompact:
			sp := *p.add(in.off).stringPtr()
			if sp == nil {
				if in.nullable && n < c {
					*base.at(n).uint8() = 0
					n, in = n+1, advance(in)
					continue
				}
			} else if s := *sp; len(s) <= maxInlineCopy && n+len(s) < c {
				*base.at(n).uint8() = byte(len(s) + 1)
				copyShort(base, n+1, stringData(s), len(s))
				n, in = n+1+len(s), advance(in)
				continue
			}
		case cNullStringClassic:
			sp := *p.add(in.off).stringPtr()
			if sp == nil {
				if in.nullable && n+2 <= c {
					put16(base.at(n), 0xffff)
					n, in = n+2, advance(in)
					continue
				}
			} else if s := *sp; len(s) <= maxInlineCopy && n+2+len(s) <= c {
				put16(base.at(n), uint16(len(s)))
				copyShort(base, n+2, stringData(s), len(s))
				n, in = n+2+len(s), advance(in)
				continue
			}
		case cArrayInt32Compact, cArrayInt32Classic:
			h := p.add(in.off).slice()
			if h.data.isNil() && in.nullable && n+4 <= c {
				n, in = n+putNullLength(base.at(n), in.code == cArrayInt32Compact), advance(in)
				continue
			}
			if (!h.data.isNil() || !in.nullable) && h.len < 0x7f && n+4+4*h.len <= c {
				m := n
				if in.code == cArrayInt32Classic {
					put32(base.at(m), uint32(h.len))
					m += 4
				} else {
					*base.at(m).uint8() = byte(h.len + 1)
					m++
				}
				for j := range h.len {
					put32(base.at(m+4*j), *h.data.at(4 * j).uint32())
				}
				n, in = m+4*h.len, advance(in)
				continue
			}
		case cArrayStringCompact:
			// Written ahead of n, which moves only if every element fit.
			h := p.add(in.off).slice()
			if !h.data.isNil() && h.len < 0x7f && n+h.len < c {
				*base.at(n).uint8() = byte(h.len + 1)
				m := n + 1
				for j := range h.len {
					s := *h.data.at(j * int(stringHeaderSize)).string()
					if len(s) > maxInlineCopy || m+len(s) >= c {
						m = -1
						break
					}
					*base.at(m).uint8() = byte(len(s) + 1)
					copyShort(base, m+1, stringData(s), len(s))
					m += 1 + len(s)
				}
				if m >= 0 {
					n, in = m, advance(in)
					continue
				}
			}
		case cBytesCompact:
			if bs := *p.add(in.off).bytes(); bs != nil && n+5+len(bs) <= c {
				if len(bs) <= maxInlineCopy {
					*base.at(n).uint8() = byte(len(bs) + 1)
					copyShort(base, n+1, sliceData(bs), len(bs))
					n, in = n+1+len(bs), advance(in)
					continue
				}
				// Long (records): the length, then one memmove.
				v := uint32(len(bs) + 1)
				for ; v >= 0x80; v >>= 7 {
					*base.at(n).uint8() = byte(v) | 0x80
					n++
				}
				*base.at(n).uint8() = byte(v)
				n, long, in = n+1, bs, advance(in)
				goto copyLong
			}
		case cBytesClassic:
			if bs := *p.add(in.off).bytes(); bs != nil && n+4+len(bs) <= c {
				put32(base.at(n), uint32(len(bs)))
				if len(bs) <= maxInlineCopy {
					copyShort(base, n+4, sliceData(bs), len(bs))
					n, in = n+4+len(bs), advance(in)
					continue
				}
				n, long, in = n+4, bs, advance(in)
				goto copyLong
			}
		case cArrayStructCompact:
			// 1 to 126 elements, the common case: the length, then the
			// first element. Null or empty: the length alone.
			h := p.add(in.off).slice()
			if sub := in.plan(); uint(h.len-1) < 0x7e && n < c && sub.skipAbsent && st.depth < stackDepth {
				*base.at(n).uint8() = byte(h.len + 1)
				n++
				st.push(pl, p, in, h.len)
				pl, p, in = sub, h.data, first(sub.prog)
				continue
			}
			if h.len == 0 && n < c {
				if h.data.isNil() && in.nullable {
					*base.at(n).uint8() = 0 // null
				} else {
					*base.at(n).uint8() = 1
				}
				n, in = n+1, advance(in)
				continue
			}
		case cArrayStructClassic:
			h := p.add(in.off).slice()
			if sub := in.plan(); uint(h.len-1) < 0x7e && n+4 <= c && sub.skipAbsent && st.depth < stackDepth {
				put32(base.at(n), uint32(h.len))
				n += 4
				st.push(pl, p, in, h.len)
				pl, p, in = sub, h.data, first(sub.prog)
				continue
			}
			if h.len == 0 && n+4 <= c {
				if h.data.isNil() && in.nullable {
					put32(base.at(n), 0xffffffff) // null
				} else {
					put32(base.at(n), 0)
				}
				n, in = n+4, advance(in)
				continue
			}
		case cStruct:
			if sub := in.plan(); sub.skipAbsent && st.depth < stackDepth {
				st.push(pl, p, in, 1)
				pl, p, in = sub, p.add(in.off), first(sub.prog)
				continue
			}
		case cEndNone:
			goto end
		case cEndEmpty:
			if n < c {
				*base.at(n).uint8() = 0
				n++
				goto end
			}
		case cEndUnknown:
			if *p.add(in.off).unknownFields() == nil && n < c {
				*base.at(n).uint8() = 0
				n++
				goto end
			}
		case cEndChecks:
			if (!in.hasUnknown || *p.add(in.off).unknownFields() == nil) && n < c {
				k := 0
				for k < int(in.n) {
					w := elemAt[wordCheck](in.ref, k)
					if *p.add(w.off).word()&w.mask != w.bits {
						break
					}
					k++
				}
				if k == int(in.n) { // nothing tagged
					*base.at(n).uint8() = 0
					n++
					goto end
				}
			}
		}
		// The general path: one call site for every case above that did
		// not fit, and for the codes that have no case; it hands back the
		// buffer, plan, struct and next instruction for the loop to go on.
		{
			b, err := base.bytesOf(n, c), error(nil)
			if b, pl, p, in, err = encodeInstr(b, pl, p, in); err != nil {
				return b, st.within(err)
			}
			base, n, c = sliceData(b), len(b), cap(b)
			if in != nil {
				continue
			}
			goto end
		}
	copyLong: // a long byte string, at n, where its length leaves room
		copy(base.at(n).bytesOf(len(long), len(long)), long)
		n += len(long)
		continue
	end: // of a struct: the next element, back to the parent, or done
		if st.depth == 0 {
			return base.bytesOf(n, c), nil
		}
		if f := &st.frames[st.depth-1]; f.left > 1 {
			f.left--
			p, in = p.add(uintptr(f.in.n)), first(pl.prog)
			continue
		}
		st.depth--
		f := &st.frames[st.depth]
		pl, p, in = f.pl, f.p, advance(f.in)
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
	p    pointer
	in   *instr
	left int
}

// structStack is encodeStruct's (and decodeStruct's) stack of parents,
// depth of them in frames.
type structStack struct {
	frames [stackDepth]structFrame
	depth  int
}

func (st *structStack) push(pl *plan, p pointer, in *instr, elems int) {
	st.frames[st.depth] = structFrame{pl: pl, p: p, in: in, left: elems}
	st.depth++
}

// within adds the path of the stack, innermost last, to err: each
// parent's field name and, for arrays, the element's index.
func (st *structStack) within(err error) error {
	for k := st.depth - 1; k >= 0; k-- {
		f := &st.frames[k]
		if f.in.code != cStruct {
			h := f.p.add(f.in.off).slice()
			err = withinIndex(err, h.len-f.left)
		}
		err = within(err, f.pl.fieldOf(f.in).name)
	}
	return err
}

// instrIndex is the index of in, an instruction of pl's program.
func (pl *plan) instrIndex(in *instr) int {
	return indexIn(first(pl.prog), in)
}

// fieldOf is the hot field that in, an instruction of pl's program, compiles.
func (pl *plan) fieldOf(in *instr) *fieldPlan { return &pl.hot[pl.instrIndex(in)] }

// putNullLength stores a null array length at dst and returns its size.
func putNullLength(dst pointer, compact bool) int {
	if compact {
		*dst.uint8() = 0
		return 1
	}
	put32(dst, 0xffffffff)
	return 4
}

// maxInlineCopy is the longest string or byte string encodeStruct copies
// itself; longer ones are worth a call to memmove.
const maxInlineCopy = 32

// encodeInstr runs instruction in of pl's program, for the struct at p,
// by the general path, and returns pl, p and the next instruction (nil
// after an end instruction) for encodeStruct's loop to go on with.
func encodeInstr(b []byte, pl *plan, p pointer, in *instr) ([]byte, *plan, pointer, *instr, error) {
	var err error
	switch in.code {
	case cEndNone, cEndEmpty, cEndUnknown, cEndGeneral, cEndChecks:
		b, err = encodeTail(b, pl, p)
		return b, pl, p, nil, err
	case cFixedRun: // only short of room: the loop's own case writes it once grown
		return slices.Grow(b, int(in.n)), pl, p, in, nil
	}
	b, err = appendInstr(b, pl, p, in)
	return b, pl, p, advance(in), err
}

// appendInstr appends instruction in of pl's program, for the struct at
// p, by the general path: it grows b as needed and handles every form,
// the rare ones and the errors through the field plan.
func appendInstr(b []byte, pl *plan, p pointer, in *instr) ([]byte, error) {
	fp := p.add(in.off)
	switch in.code {
	case cInt32:
		return binary.BigEndian.AppendUint32(b, *fp.uint32()), nil
	case cStringCompact:
		s := *fp.string()
		return append(appendUvarint(b, uint32(len(s)+1)), s...), nil
	case cStringClassic:
		s := *fp.string()
		if len(s) > maxInt16String {
			return encodeField(b, pl, in, fp)
		}
		return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...), nil
	case cNullStringCompact:
		sp := *fp.stringPtr()
		if sp == nil {
			if !in.nullable {
				return encodeField(b, pl, in, fp) // the error
			}
			return append(b, 0), nil
		}
		return append(appendUvarint(b, uint32(len(*sp)+1)), *sp...), nil
	case cNullStringClassic:
		sp := *fp.stringPtr()
		if sp == nil && in.nullable {
			return append(b, 0xff, 0xff), nil
		}
		if sp == nil || len(*sp) > maxInt16String {
			return encodeField(b, pl, in, fp)
		}
		return append(binary.BigEndian.AppendUint16(b, uint16(len(*sp))), *sp...), nil
	case cInt16:
		return binary.BigEndian.AppendUint16(b, *fp.uint16()), nil
	case cInt64:
		return binary.BigEndian.AppendUint64(b, *fp.uint64()), nil
	case cInt8, cBool:
		return append(b, *fp.uint8()), nil
	case cUUID:
		return append(b, fp.uuid()[:]...), nil
	}
	return encodeField(b, pl, in, fp)
}

// encodeTail writes what follows a struct's fields: the tagged-field
// section of a flexible version.
func encodeTail(b []byte, pl *plan, p pointer) ([]byte, error) {
	switch pl.tail {
	case tailNone:
		return b, nil
	case tailUnknown:
		if *p.add(pl.unknownOff).unknownFields() != nil {
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
func nothingTagged(pl *plan, p pointer) bool {
	return (!pl.hasUnknown || *p.add(pl.unknownOff).unknownFields() == nil) &&
		(len(pl.tagged) == 0 || (pl.tagChecksFlat && checksPass(pl.tagChecks, p)))
}

// encodeField writes the hot field of instruction in of pl, at fp, through
// the general path: the rare forms (varints, null, too long) and their
// errors.
func encodeField(b []byte, pl *plan, in *instr, fp pointer) ([]byte, error) {
	o := pl.fieldOf(in)
	b, err := encodeValue(b, o, fp)
	if err != nil {
		return b, within(err, o.name)
	}
	return b, nil
}

// checkAbsent fails if a field the version lacks holds a value that would
// be lost.
func checkAbsent(b []byte, pl *plan, p pointer) ([]byte, error) {
	if pl.absentChecksFlat && checksPass(pl.absentChecks, p) {
		return b, nil
	}
	for i := range pl.absent {
		o := pl.absent[i]
		if !o.ignorable && !isUnset(o, p.add(o.offset)) {
			return b, within(newFieldError(public.ErrFieldNotInVersion, -1, "version %d does not have it", pl.version), o.name)
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
	if h.data.isNil() && o.nullable {
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
		dst := sliceData(b[at:])
		for i, v := range h.data.uint32sOf(n) {
			put32(dst.at(4*i), v)
		}
		return b, nil
	case kInt64:
		at := len(b)
		b = extend(b, 8*n)
		dst := b[at:]
		for i, v := range h.data.uint64sOf(n) {
			binary.BigEndian.PutUint64(dst[8*i:], v)
		}
		return b, nil
	case kStruct:
		var err error
		for i := 0; i < n; i++ {
			if b, err = encodeStruct(b, e.sub, h.data.add(uintptr(i)*o.elemSize)); err != nil {
				return b, withinIndex(err, i)
			}
		}
		return b, nil
	}
	var err error
	appendTo := wireTypes[e.kind].appendTo
	for i := 0; i < n; i++ {
		if b, err = appendTo(b, e, h.data.add(uintptr(i)*o.elemSize)); err != nil {
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
func encodeTaggedFields(b []byte, pl *plan, p pointer) ([]byte, error) {
	var unknown []public.TaggedField
	if pl.hasUnknown {
		unknown = p.add(pl.unknownOff).unknownTags().Fields()
	}
	count := 0
	for i := range pl.tagged {
		o := pl.tagged[i]
		if !isDefault(o, p.add(o.offset)) {
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
		fp := p.add(o.offset)
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
func (pl *plan) shadowed(p pointer, t uint32) bool {
	o := pl.fieldWithTag(t)
	return o != nil && !isDefault(o, p.add(o.offset))
}

// extend lengthens b by n bytes, growing it only when it lacks room.
func extend(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		b = slices.Grow(b, n)
	}
	return b[:len(b)+n]
}
