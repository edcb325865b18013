package engine

import public "github.com/kwirelabs/kwire/kwire/internal/public"

// sizeStruct is the number of bytes encodeStruct would append, from the
// same compiled program, or the error encodeStruct would return. The
// cases below count the common forms; the rest (varints, values too long
// or null where the version refuses them, and their errors) go to the
// wire-type table's size, as encodeStruct sends them to its appendTo.
func sizeStruct(pl *plan, p pointer) (int, error) {
	if !pl.skipAbsent {
		if _, err := checkAbsent(nil, pl, p); err != nil {
			return 0, err
		}
	}
	n := 0
	prog := pl.prog
	for i := range prog {
		in := &prog[i]
		fp := p.add(in.off)
		switch in.code {
		case cFixedRun:
			n += int(in.n)
			continue
		case cInt8, cBool:
			n++
			continue
		case cInt16:
			n += 2
			continue
		case cInt32:
			n += 4
			continue
		case cInt64:
			n += 8
			continue
		case cUUID:
			n += 16
			continue
		case cStringCompact:
			l := len(*fp.string())
			n += uvarintSize(uint32(l+1)) + l
			continue
		case cStringClassic:
			if l := len(*fp.string()); l <= maxInt16String {
				n += 2 + l
				continue
			}
		case cNullStringCompact:
			sp := *fp.stringPtr()
			if sp != nil {
				n += uvarintSize(uint32(len(*sp)+1)) + len(*sp)
				continue
			}
			if in.nullable {
				n++
				continue
			}
		case cNullStringClassic:
			sp := *fp.stringPtr()
			if sp != nil && len(*sp) <= maxInt16String {
				n += 2 + len(*sp)
				continue
			}
			if sp == nil && in.nullable {
				n += 2
				continue
			}
		case cArrayInt32Compact, cArrayInt32Classic, cBytesCompact, cBytesClassic:
			h := fp.slice()
			compact := in.code == cArrayInt32Compact || in.code == cBytesCompact
			if h.data.isNil() && in.nullable {
				n += lengthSize(-1, compact, true)
				continue
			}
			unit := 1
			if in.code == cArrayInt32Compact || in.code == cArrayInt32Classic {
				unit = 4
			}
			n += lengthSize(h.len, compact, true) + unit*h.len
			continue
		case cArrayStructCompact, cArrayStructClassic:
			h := fp.slice()
			if h.data.isNil() && in.nullable {
				n += lengthSize(-1, in.code == cArrayStructCompact, true)
				continue
			}
			n += lengthSize(h.len, in.code == cArrayStructCompact, true)
			sub := in.plan()
			for j := 0; j < h.len; j++ {
				s, err := sizeStruct(sub, h.data.add(uintptr(j)*uintptr(in.n)))
				if err != nil {
					return 0, within(withinIndex(err, j), pl.hot[i].name)
				}
				n += s
			}
			continue
		case cStruct:
			s, err := sizeStruct(in.plan(), fp)
			if err != nil {
				return 0, within(err, pl.hot[i].name)
			}
			n += s
			continue
		}
		s, err := sizeValue(&pl.hot[i], fp)
		if err != nil {
			return 0, within(err, pl.hot[i].name)
		}
		n += s
	}
	switch {
	case pl.tail == tailNone:
		return n, nil
	case pl.tail == tailEmpty || (pl.tail == tailUnknown && *p.add(pl.unknownOff).unknownFields() == nil) || nothingTagged(pl, p):
		return n + 1, nil // nothing tagged: one zero count
	}
	count := 0
	for _, o := range pl.tagged {
		fp := p.add(o.offset)
		if isDefault(o, fp) {
			continue
		}
		s, err := sizeValue(o, fp)
		if err != nil {
			return 0, within(err, o.name)
		}
		n += uvarintSize(o.tag) + uvarintSize(uint32(s)) + s
		count++
	}
	if pl.hasUnknown {
		// Kept fields that are written must rise in tag order. None has
		// the tag of a known field that is written, so the merge that
		// encodeTaggedFields writes rises exactly when they do, and fails
		// at the same kept field when they do not. (A value that is also
		// refused in a known tagged field fails first here; there, in tag
		// order.)
		last := int64(-1)
		for _, u := range p.add(pl.unknownOff).unknownTags().Fields() {
			if pl.shadowed(p, u.Tag) {
				continue
			}
			if int64(u.Tag) <= last {
				return 0, unknownTagOutOfOrder(u.Tag)
			}
			last = int64(u.Tag)
			n += uvarintSize(u.Tag) + uvarintSize(uint32(len(u.Data))) + len(u.Data)
			count++
		}
	}
	return n + uvarintSize(uint32(count)), nil
}

// unknownTagOutOfOrder is the error of a kept tagged field whose tag is
// not above the one written before it.
func unknownTagOutOfOrder(tag uint32) error {
	return within(newFieldError(public.ErrBadTag, -1, "unknown tag %d out of order or repeated", tag), "UnknownTags")
}
