package kwire

import (
	"math"
	"slices"

	"github.com/kwirelabs/kwire/kwire/wire"
)

const maxInt16String = math.MaxInt16

// stackDepth is how many levels of nested structs encodeStruct and
// decodeStruct keep on their own stack; deeper ones recurse through the
// general path (encodeInstr, decodeInstrOutOfLine).
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

// fieldOf is the fused field that in, an instruction of pl's program, compiles.
func (pl *plan) fieldOf(in *instr) *fieldPlan { return &pl.fused[pl.instrIndex(in)] }

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
// the fixed widths here, the others and the errors through the field
// plan's wire type.
func appendInstr(b []byte, pl *plan, p pointer, in *instr) ([]byte, error) {
	fp := p.add(in.off)
	switch in.code {
	case cInt32:
		return wire.AppendUint32(b, *fp.uint32()), nil
	case cInt16:
		return wire.AppendUint16(b, *fp.uint16()), nil
	case cInt64:
		return wire.AppendUint64(b, *fp.uint64()), nil
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
		return append(b, wire.EmptyTaggedFields), nil
	case tailEmpty:
		return append(b, wire.EmptyTaggedFields), nil
	}
	if nothingTagged(pl, p) {
		return append(b, wire.EmptyTaggedFields), nil
	}
	return encodeTaggedFields(b, pl, p)
}

// nothingTagged reports that the struct at p has no tagged field to write:
// every known one holds its default and no unknown one is kept.
func nothingTagged(pl *plan, p pointer) bool {
	return (!pl.hasUnknown || *p.add(pl.unknownOff).unknownFields() == nil) &&
		(len(pl.tagged) == 0 || (pl.tagChecksFlat && checksPass(pl.tagChecks, p)))
}

// encodeField writes the fused field of instruction in of pl, at fp, through
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
			return b, within(newFieldError(ErrFieldNotInVersion, -1, "version %d does not have it", pl.version), o.name)
		}
	}
	return b, nil
}

func appendString(b []byte, o *fieldPlan, s string) ([]byte, error) {
	if err := checkStringLength(o, len(s)); err != nil {
		return b, err
	}
	b = o.length.Append(b, len(s))
	return append(b, s...), nil
}

func encodeArray(b []byte, o *fieldPlan, h *sliceHeader) ([]byte, error) {
	if h.data.isNil() && o.nullable {
		return o.length.Append(b, -1), nil
	}
	n := h.len
	b = o.length.Append(b, n)
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
		dst := sliceData(b[at:])
		for i, v := range h.data.uint64sOf(n) {
			put64(dst.at(8*i), v)
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
	var unknown []TaggedField
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
	b = wire.AppendUvarint(b, uint32(count))
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
			b = wire.AppendTaggedField(b, u.Tag, u.Data)
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
		b = wire.AppendTaggedFieldHead(b, o.tag, size)
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
