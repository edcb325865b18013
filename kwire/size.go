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
		case cInt8:
			n++
		case cInt16:
			n += 2
		case cInt32:
			n += 4
		case cInt64:
			n += 8
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
	case pl.tail == tailEmpty || (pl.tail == tailUnknown && len(*(*UnknownTags)(unsafe.Add(p, pl.unknownOff))) == 0) || nothingTagged(pl, p):
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
		for _, u := range *(*UnknownTags)(fieldPtr(p, pl.unknownOff)) {
			n += uvarintSize(u.Tag) + uvarintSize(uint32(len(u.Data))) + len(u.Data)
			count++
		}
	}
	return n + uvarintSize(uint32(count)), nil
}

func sizeValue(o *op, fp unsafe.Pointer) (int, error) {
	if s := o.kind.fixedSize(); s > 0 {
		return s, nil
	}
	switch o.kind {
	case kVarint:
		return varintSize(*(*int32)(fp)), nil
	case kVarlong:
		return varlongSize(*(*int64)(fp)), nil
	case kUvarint, kUvarint32:
		return uvarintSize(*(*uint32)(fp)), nil
	case kString:
		s := *(*string)(fp)
		return lengthSize(len(s), o.compact, false) + len(s), nil
	case kNullString:
		sp := *(**string)(fp)
		if sp == nil {
			return lengthSize(-1, o.compact, false), nil
		}
		return lengthSize(len(*sp), o.compact, false) + len(*sp), nil
	case kBytes:
		bs := *(*[]byte)(fp)
		if bs == nil && o.nullable {
			return lengthSize(-1, o.compact, true), nil
		}
		return lengthSize(len(bs), o.compact, true) + len(bs), nil
	case kArray:
		h := (*sliceHeader)(fp)
		if h.data == nil && o.nullable {
			return lengthSize(-1, o.compact, true), nil
		}
		n := lengthSize(h.len, o.compact, true)
		if s := o.elem.kind.fixedSize(); s > 0 {
			return n + s*h.len, nil
		}
		for i := 0; i < h.len; i++ {
			s, err := sizeValue(o.elem, unsafe.Add(h.data, uintptr(i)*o.elemSize))
			if err != nil {
				return 0, withinIndex(err, i)
			}
			n += s
		}
		return n, nil
	case kStruct:
		return sizeStruct(o.sub, fp)
	case kStructPtr:
		sp := *(*unsafe.Pointer)(fp)
		marker := 0
		if o.nullable {
			marker = 1
		}
		if sp == nil {
			if !o.nullable {
				return 0, newFieldError(ErrNullNotAllowed, -1, "")
			}
			return marker, nil
		}
		s, err := sizeStruct(o.sub, sp)
		return marker + s, err
	}
	return 0, nil
}
