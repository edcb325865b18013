package kwire

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"
)

// sliceHeader is the runtime layout of any Go slice.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

const maxInt16String = math.MaxInt16

// encodeStruct appends the struct at p as plan pl describes it, running
// the plan's compiled program (program.go).
func encodeStruct(b []byte, pl *plan, p unsafe.Pointer) ([]byte, error) {
	if !pl.skipAbsent && (!pl.absentChecksFlat || !checksPass(pl.absentChecks, p)) {
		if err := checkAbsent(pl, p); err != nil {
			return b, err
		}
	}
	var err error
	prog := pl.enc
	for i := range prog {
		in := &prog[i]
		fp := unsafe.Add(p, in.off)
		switch in.code {
		case cFixedRun:
			n := len(b)
			if cap(b)-n < int(in.n) {
				b = slices.Grow(b, int(in.n))
			}
			b = b[:n+int(in.n)]
			putFixedRun(unsafe.Pointer(unsafe.SliceData(b[n:])), in.fixedRun(), p)
		case cInt32:
			v := *(*uint32)(fp)
			b = append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
		case cStringCompact:
			s := *(*string)(fp)
			if len(s) < 0x7f {
				b = append(b, byte(len(s)+1))
			} else {
				b = appendUvarint(b, uint32(len(s)+1))
			}
			b = append(b, s...)
		case cStringClassic:
			s := *(*string)(fp)
			if len(s) > maxInt16String {
				if b, err = encodeOp(b, pl, i, fp); err != nil {
					return b, err
				}
				continue
			}
			b = append(b, byte(len(s)>>8), byte(len(s)))
			b = append(b, s...)
		case cNullStringCompact:
			sp := *(**string)(fp)
			if sp == nil {
				if !in.nullable {
					return encodeOp(b, pl, i, fp) // the error
				}
				b = append(b, 0)
				continue
			}
			if len(*sp) < 0x7f {
				b = append(b, byte(len(*sp)+1))
			} else {
				b = appendUvarint(b, uint32(len(*sp)+1))
			}
			b = append(b, *sp...)
		case cNullStringClassic:
			sp := *(**string)(fp)
			if sp == nil && in.nullable {
				b = append(b, 0xff, 0xff)
				continue
			}
			if sp == nil || len(*sp) > maxInt16String {
				if b, err = encodeOp(b, pl, i, fp); err != nil {
					return b, err
				}
				continue
			}
			b = append(b, byte(len(*sp)>>8), byte(len(*sp)))
			b = append(b, *sp...)
		case cArrayStructCompact, cArrayStructClassic:
			h := (*sliceHeader)(fp)
			if h.data == nil && in.nullable {
				b = appendNullLength(b, in.code == cArrayStructCompact, true)
				continue
			}
			b = appendArrayLength(b, h.len, in.code == cArrayStructCompact)
			sub := in.plan()
			for j := 0; j < h.len; j++ {
				if b, err = encodeStruct(b, sub, unsafe.Add(h.data, uintptr(j)*uintptr(in.n))); err != nil {
					return b, within(withinIndex(err, j), pl.hot[i].name)
				}
			}
		case cArrayInt32Compact, cArrayInt32Classic:
			h := (*sliceHeader)(fp)
			if h.data == nil && in.nullable {
				b = appendNullLength(b, in.code == cArrayInt32Compact, true)
				continue
			}
			// One room check for the length (at most 5 bytes) and the
			// elements; the stores then go through pointers.
			n := len(b)
			if cap(b)-n < 5+4*h.len {
				b = slices.Grow(b, 5+4*h.len)
			}
			dst := unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), n)
			if in.code == cArrayInt32Classic {
				put32(dst, uint32(h.len))
				dst, n = unsafe.Add(dst, 4), n+4
			} else if h.len < 0x7f {
				*(*byte)(dst) = byte(h.len + 1)
				dst, n = unsafe.Add(dst, 1), n+1
			} else {
				l := len(appendUvarint(b[n:n], uint32(h.len+1)))
				dst, n = unsafe.Add(dst, l), n+l
			}
			for j := 0; j < h.len; j++ {
				put32(unsafe.Add(dst, 4*j), *(*uint32)(unsafe.Add(h.data, 4*j)))
			}
			b = b[:n+4*h.len]
		case cArrayStringCompact:
			h := (*sliceHeader)(fp)
			if h.data == nil && in.nullable {
				b = append(b, 0)
				continue
			}
			b = appendArrayLength(b, h.len, true)
			for _, s := range unsafe.Slice((*string)(h.data), h.len) {
				if len(s) < 0x7f {
					b = append(b, byte(len(s)+1))
				} else {
					b = appendUvarint(b, uint32(len(s)+1))
				}
				b = append(b, s...)
			}
		case cInt16:
			v := *(*uint16)(fp)
			b = append(b, byte(v>>8), byte(v))
		case cInt64:
			b = appendInt64(b, *(*int64)(fp))
		case cInt8, cBool:
			b = append(b, *(*uint8)(fp))
		case cUUID:
			b = append(b, (*UUID)(fp)[:]...)
		case cBytesCompact, cBytesClassic:
			bs := *(*[]byte)(fp)
			if bs == nil && in.nullable {
				b = appendNullLength(b, in.code == cBytesCompact, true)
				continue
			}
			b = appendArrayLength(b, len(bs), in.code == cBytesCompact)
			b = append(b, bs...)
		case cStruct:
			if b, err = encodeStruct(b, in.plan(), fp); err != nil {
				return b, within(err, pl.hot[i].name)
			}
		default:
			if b, err = encodeOp(b, pl, i, fp); err != nil {
				return b, err
			}
		}
	}
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

// encodeOp writes hot field i of pl, at fp, through the general path:
// the rare forms (varints, null, too long) and their errors.
func encodeOp(b []byte, pl *plan, i int, fp unsafe.Pointer) ([]byte, error) {
	b, err := encodeValue(b, &pl.hot[i], fp)
	if err != nil {
		return b, within(err, pl.hot[i].name)
	}
	return b, nil
}

// checkAbsent fails if a field the version lacks holds a value that would
// be lost.
func checkAbsent(pl *plan, p unsafe.Pointer) error {
	for i := range pl.absent {
		o := &pl.absent[i]
		if !o.ignorable && !isUnset(o, fieldPtr(p, o.offset)) {
			return within(newFieldError(ErrFieldNotInVersion, -1, "version %d does not have it", pl.version), o.name)
		}
	}
	return nil
}

// appendArrayLength writes the length of a non-null array or byte string.
func appendArrayLength(b []byte, n int, compact bool) []byte {
	if compact {
		if n < 0x7f {
			return append(b, byte(n+1))
		}
		return appendUvarint(b, uint32(n+1))
	}
	return append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func appendNullLength(b []byte, compact, wide bool) []byte {
	return appendLength(b, -1, compact, wide)
}

func appendString(b []byte, o *op, s string) ([]byte, error) {
	if !o.compact && len(s) > maxInt16String {
		return b, newFieldError(ErrValueOutOfRange, -1, "string of %d bytes is longer than an int16 length allows", len(s))
	}
	b = appendLength(b, len(s), o.compact, false)
	return append(b, s...), nil
}

func encodeArray(b []byte, o *op, h *sliceHeader) ([]byte, error) {
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
	if len(pl.tagged) == 0 {
		if len(unknown) == 0 {
			return append(b, 0), nil
		}
	}
	count := 0
	for i := range pl.tagged {
		o := &pl.tagged[i]
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
				return within(newFieldError(ErrBadTag, -1, "unknown tag %d out of order or repeated", u.Tag), "UnknownTags")
			}
			b = appendUvarint(b, u.Tag)
			b = appendUvarint(b, uint32(len(u.Data)))
			b = append(b, u.Data...)
			last = int64(u.Tag)
		}
		return nil
	}
	for i := range pl.tagged {
		o := &pl.tagged[i]
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
	o := pl.taggedOp(t)
	return o != nil && !isDefault(o, fieldPtr(p, o.offset))
}

// extend lengthens b by n bytes, growing it only when it lacks room.
func extend(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		b = slices.Grow(b, n)
	}
	return b[:len(b)+n]
}

// putFixedRun stores a stretch of fixed-width fields of the struct at p
// into dst, which has room for all of them, so the stores go through
// pointers without a bounds check each.
func putFixedRun(dst unsafe.Pointer, run []fixedSlot, p unsafe.Pointer) {
	for _, s := range run {
		src, to := unsafe.Add(p, s.off), unsafe.Add(dst, s.at)
		switch s.width {
		case 4:
			put32(to, *(*uint32)(src))
		case 2:
			binary.BigEndian.PutUint16((*[2]byte)(to)[:], *(*uint16)(src))
		case 8:
			binary.BigEndian.PutUint64((*[8]byte)(to)[:], *(*uint64)(src))
		case 1:
			*(*uint8)(to) = *(*uint8)(src) // a Go bool is 0 or 1
		default:
			*(*UUID)(to) = *(*UUID)(src)
		}
	}
}

// put32 stores v big-endian at p, which must have 4 bytes of room.
func put32(p unsafe.Pointer, v uint32) {
	binary.BigEndian.PutUint32((*[4]byte)(p)[:], v)
}
