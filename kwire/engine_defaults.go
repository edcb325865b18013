package kwire

// isUnset reports whether a field may be left out of a version that lacks
// it without losing information: it holds its schema default or its Go
// zero value. Kafka's generated code accepts only the default; kwire also
// accepts the zero value, which is how Go code says "not set".
func isUnset(o *fieldPlan, fp pointer) bool {
	return isDefault(o, fp) || isZero(o, fp)
}

// structIsDefault applies test to every field the struct declares.
func structIsDefault(pl *plan, p pointer, test func(*fieldPlan, pointer) bool) bool {
	for _, list := range [][]*fieldPlan{pl.fields, pl.tagged, pl.absent} {
		for _, o := range list {
			if !test(o, p.add(o.offset)) {
				return false
			}
		}
	}
	if pl.hasUnknown && p.add(pl.unknownOff).unknownTags().Len() > 0 {
		return false
	}
	return true
}

// setFieldDefault gives one field of the struct at p its schema default,
// nested structs included.
func setFieldDefault(o *fieldPlan, p pointer) {
	var fd flatDefaults
	flattenDefaults([]*fieldPlan{o}, 0, &fd)
	fd.apply(p)
}

// flatDefaults is a plan's defaults compiled for the decoder: fixed-width
// values, nested structs included, as (offset, width, bits) stores; the
// rest (strings) as (offset, field plan) pairs whose wire type's setDefault
// stores them.
type flatDefaults struct {
	fixed []fixedDefault
	other []placedDefault
}

// placedDefault is a field whose default its wire type's setDefault
// stores, at off in the struct being decoded (a nested struct's field
// sits past its parent's offset; the field plan is the plan's own).
type placedDefault struct {
	off uintptr
	o   *fieldPlan
}

type fixedDefault struct {
	off  uintptr
	size uint8
	bits uint64
}

// flattenDefaults compiles list, whose fields sit at base inside the
// struct being decoded.
func flattenDefaults(list []*fieldPlan, base uintptr, out *flatDefaults) {
	for _, o := range list {
		if flatten := wireTypes[o.kind].flattenDefault; flatten != nil {
			flatten(o, base, out)
		}
	}
}

func (f *flatDefaults) apply(p pointer) {
	for _, d := range f.fixed {
		fp := p.add(d.off)
		switch d.size {
		case 1:
			*fp.uint8() = uint8(d.bits)
		case 2:
			*fp.uint16() = uint16(d.bits)
		case 4:
			*fp.uint32() = uint32(d.bits)
		case 8:
			*fp.uint64() = d.bits
		}
	}
	f.applyOther(p)
}

// applyOther stores the defaults that are not flat stores of bits.
func (f *flatDefaults) applyOther(p pointer) {
	for _, d := range f.other {
		wireTypes[d.o.kind].setDefault(d.o, p.add(d.off))
	}
}
