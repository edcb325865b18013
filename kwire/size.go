package kwire

import "unsafe"

// sizeStruct is the number of bytes encodeStruct would append, from the
// same compiled program.
func sizeStruct(pl *plan, p unsafe.Pointer) (int, error) {
	n := 0
	prog := pl.enc
	for i := range prog {
		in := &prog[i]
		fp := unsafe.Add(p, in.off)
		switch in.code {
		case cFixedRun:
			n += int(in.n)
		case cInt8, cBool:
			n++
		case cInt16:
			n += 2
		case cInt32:
			n += 4
		case cInt64:
			n += 8
		case cUUID:
			n += 16
		case cStringCompact:
			l := len(*(*string)(fp))
			n += uvarintSize(uint32(l+1)) + l
		case cStringClassic:
			n += 2 + len(*(*string)(fp))
		case cNullStringCompact:
			if sp := *(**string)(fp); sp != nil {
				n += uvarintSize(uint32(len(*sp)+1)) + len(*sp)
			} else {
				n++
			}
		case cNullStringClassic:
			if sp := *(**string)(fp); sp != nil {
				n += len(*sp)
			}
			n += 2
		case cArrayInt32Compact, cArrayInt32Classic, cBytesCompact, cBytesClassic:
			h := (*sliceHeader)(fp)
			compact := in.code == cArrayInt32Compact || in.code == cBytesCompact
			if h.data == nil && in.nullable {
				n += lengthSize(-1, compact, true)
				continue
			}
			unit := 1
			if in.code == cArrayInt32Compact || in.code == cArrayInt32Classic {
				unit = 4
			}
			n += lengthSize(h.len, compact, true) + unit*h.len
		case cArrayStructCompact, cArrayStructClassic:
			h := (*sliceHeader)(fp)
			if h.data == nil && in.nullable {
				n += lengthSize(-1, in.code == cArrayStructCompact, true)
				continue
			}
			n += lengthSize(h.len, in.code == cArrayStructCompact, true)
			sub := in.plan()
			for j := 0; j < h.len; j++ {
				s, err := sizeStruct(sub, unsafe.Add(h.data, uintptr(j)*uintptr(in.n)))
				if err != nil {
					return 0, within(withinIndex(err, j), pl.hot[i].name)
				}
				n += s
			}
		case cStruct:
			s, err := sizeStruct(in.plan(), fp)
			if err != nil {
				return 0, within(err, pl.hot[i].name)
			}
			n += s
		default:
			s, err := sizeValue(&pl.hot[i], fp)
			if err != nil {
				return 0, within(err, pl.hot[i].name)
			}
			n += s
		}
	}
	switch {
	case pl.tail == tailNone:
		return n, nil
	case pl.tail == tailEmpty || (pl.tail == tailUnknown && (*UnknownTags)(unsafe.Add(p, pl.unknownOff)).fields == nil) || nothingTagged(pl, p):
		return n + 1, nil // nothing tagged: one zero count
	}
	count := 0
	for i := range pl.tagged {
		o := &pl.tagged[i]
		fp := fieldPtr(p, o.offset)
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
		for _, u := range (*UnknownTags)(fieldPtr(p, pl.unknownOff)).Fields() {
			if pl.shadowed(p, u.Tag) {
				continue
			}
			n += uvarintSize(u.Tag) + uvarintSize(uint32(len(u.Data))) + len(u.Data)
			count++
		}
	}
	return n + uvarintSize(uint32(count)), nil
}
