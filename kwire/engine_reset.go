package kwire

import (
	"reflect"
)

// Decoding resets the message first, but most of it is then written by
// decoding anyway: only what it may not write is cleared, by a list
// computed once per (type, version). That is the fields the version lacks,
// the tagged fields, the UnknownTags field and any field without a kafka
// tag, down through nested structs; every other field is stored on each
// path through decodeStruct. Defaults come after, from flatDefaults.

// clearSlot clears size bytes at off: one pointer word (so that the store
// has its write barrier) or a scalar stretch.
type clearSlot struct {
	off  uintptr
	size uintptr
	ptr  bool
}

// resetList is what pl's reset clears in the struct at base.
func resetList(pl *plan, base uintptr, out []clearSlot) []clearSlot {
	return resetIn(pl, base, uintptr(pl.typ.Align()), out)
}

// resetIn is resetList for pl's struct at base inside a struct aligned to
// align: the clears are stores no wider than that alignment holds.
func resetIn(pl *plan, base, align uintptr, out []clearSlot) []clearSlot {
	written := map[uintptr]*fieldPlan{}
	for _, o := range pl.fields {
		written[o.offset] = o
	}
	for i := 0; i < pl.typ.NumField(); i++ {
		f := pl.typ.Field(i)
		if f.Type.Size() == 0 {
			continue
		}
		o := written[f.Offset]
		switch {
		case o == nil:
			out = clearsFor(f.Type, base+f.Offset, align, out)
		case o.kind == kStruct:
			out = resetIn(o.sub, base+f.Offset, align, out)
		}
	}
	return out
}

// clearsFor appends the slots that zero a value of type t at off in a
// struct aligned to align. Its pointer words are cleared as pointers and
// its length words as scalars, at the offsets of the header types
// (engine_pointer.go).
func clearsFor(t reflect.Type, off, align uintptr, out []clearSlot) []clearSlot {
	ptr := func(at uintptr) { out = append(out, clearSlot{off: at, size: ptrSize, ptr: true}) }
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func:
		ptr(off)
		return out
	case reflect.String:
		ptr(off)
		return scalarClears(off+stringLenOff, intSize, align, out)
	case reflect.Slice:
		ptr(off)
		return scalarClears(off+sliceLenOff, sliceSize-sliceLenOff, align, out)
	case reflect.Interface:
		ptr(off + ifaceTypeOff)
		ptr(off + ifaceDataOff)
		return out
	case reflect.Struct:
		if hasPointers(t) {
			for i := 0; i < t.NumField(); i++ {
				out = clearsFor(t.Field(i).Type, off+t.Field(i).Offset, align, out)
			}
			return out
		}
	case reflect.Array:
		if hasPointers(t) {
			for i := 0; i < t.Len(); i++ {
				out = clearsFor(t.Elem(), off+uintptr(i)*t.Elem().Size(), align, out)
			}
			return out
		}
	}
	return scalarClears(off, t.Size(), align, out)
}

// scalarClears zeroes size bytes without pointers at off in a struct
// aligned to align: for a small stretch, the widest stores that offset and
// alignment hold (loadWidth), as an unaligned one faults on mips64; one
// clear for a long one.
func scalarClears(off, size, align uintptr, out []clearSlot) []clearSlot {
	if size > 32 {
		return append(out, clearSlot{off: off, size: size})
	}
	for size > 0 {
		w := uintptr(8)
		for w > size {
			w /= 2
		}
		w = loadWidth(off, align, w)
		out = append(out, clearSlot{off: off, size: w})
		off, size = off+w, size-w
	}
	return out
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func,
		reflect.String, reflect.Slice, reflect.Interface:
		return true
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	}
	return false
}

// reset clears what decoding the struct at p with pl would not write.
func (pl *plan) reset(p pointer) {
	for _, c := range pl.clears {
		if fp := p.add(c.off); c.ptr {
			*fp.ptr() = pointer{}
		} else {
			fp.zero(c.size)
		}
	}
}
