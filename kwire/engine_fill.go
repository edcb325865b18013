package kwire

import (
	"math"
	"math/rand"
	"reflect"
)

// maxFillDepth stops a recursive type from filling forever: past it,
// arrays stay empty and nullable structs null.
const maxFillDepth = 16

func fillStruct(pl *plan, p pointer, depth int) {
	pl.flatDefaults.apply(p) // tagged and absent fields only: numbers on the wire stay zero
	for _, o := range pl.fields {
		fillValue(o, p.add(o.offset), depth)
	}
}

func fillValue(o *fieldPlan, fp pointer, depth int) {
	if fill := wireTypes[o.kind].fillMinimal; fill != nil {
		fill(o, fp, depth)
	}
}

// fillMinimalArray gives an array one sample element.
func fillMinimalArray(o *fieldPlan, fp pointer, depth int) {
	n := 1
	if depth >= maxFillDepth {
		n = 0
	}
	s := reflect.MakeSlice(o.typ, n, n)
	*fp.slice() = sliceHeader{data: valuePointer(s), len: n, cap: n}
	if n == 1 {
		fillValue(o.elem, valuePointer(s), depth+1)
	}
}

// fillMinimalStructPtr makes a nullable struct present.
func fillMinimalStructPtr(o *fieldPlan, fp pointer, depth int) {
	if depth >= maxFillDepth && o.nullable {
		return
	}
	sp := valuePointer(reflect.New(o.sub.typ))
	*fp.ptr() = sp
	fillStruct(o.sub, sp, depth+1)
}

type randomFiller struct {
	r    *rand.Rand
	opts RandomOptions
}

func (f *randomFiller) chance(n int) bool { return f.r.Intn(n) == 0 }

func (f *randomFiller) fillStruct(pl *plan, p pointer, depth int) {
	pl.flatDefaults.apply(p)
	for _, o := range pl.fields {
		f.fillValue(o, p.add(o.offset), depth)
	}
	if !pl.flexible {
		return
	}
	for _, o := range pl.tagged {
		if !f.chance(2) {
			continue
		}
		fp := p.add(o.offset)
		f.fillValue(o, fp, depth)
		if isDefault(o, fp) {
			// Not written, so decoded as the default itself: store that
			// (an empty slice would come back nil).
			fp.value(o.typ).SetZero()
			if o.nonZeroDefault {
				setFieldDefault(o, p)
			}
		}
	}
	if pl.hasUnknown && f.chance(4) {
		// Unknown tags sit above every tag the struct declares.
		next := uint32(0)
		for _, o := range pl.tagged {
			next = max(next, o.tag+1)
		}
		for _, t := range pl.inactiveTags {
			next = max(next, t+1)
		}
		var tags []TaggedField
		for n := 1 + f.r.Intn(2); n > 0; n-- {
			next += uint32(f.r.Intn(200))
			tags = append(tags, TaggedField{Tag: next, Data: f.bytes(f.r.Intn(f.opts.MaxLen + 1))})
			next++
		}
		p.add(pl.unknownOff).unknownTags().Set(tags...)
	}
}

func (f *randomFiller) fillValue(o *fieldPlan, fp pointer, depth int) {
	maybeNull := o.nullable && f.chance(4)
	wireTypes[o.kind].fillRandom(f, o, fp, depth, maybeNull)
}

func (f *randomFiller) fillArray(o *fieldPlan, fp pointer, depth int, maybeNull bool) {
	if maybeNull {
		return
	}
	n := f.r.Intn(f.opts.MaxLen + 1)
	if depth >= f.opts.MaxDepth {
		n = 0
	}
	s := reflect.MakeSlice(o.typ, n, n)
	*fp.slice() = sliceHeader{data: valuePointer(s), len: n, cap: n}
	for i := 0; i < n; i++ {
		f.fillValue(o.elem, valuePointer(s).add(uintptr(i)*o.elemSize), depth+1)
	}
}

func (f *randomFiller) fillStructPtr(o *fieldPlan, fp pointer, depth int, maybeNull bool) {
	if maybeNull || (o.nullable && depth >= f.opts.MaxDepth) {
		return
	}
	sp := valuePointer(reflect.New(o.sub.typ))
	*fp.ptr() = sp
	f.fillStruct(o.sub, sp, depth+1)
}

// integer favours the values that break codecs: zero, -1, the extremes.
func (f *randomFiller) integer(bits uint) int64 {
	lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	if bits == 64 {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	switch f.r.Intn(6) {
	case 0:
		return 0
	case 1:
		return -1
	case 2:
		return lo
	case 3:
		return hi
	default:
		return int64(f.r.Uint64()) >> (64 - bits)
	}
}

func (f *randomFiller) str() string {
	const alphabet = "abcXYZ019-._ é☃"
	runes := []rune(alphabet)
	n := f.r.Intn(f.opts.MaxLen + 1)
	out := make([]rune, n)
	for i := range out {
		out[i] = runes[f.r.Intn(len(runes))]
	}
	return string(out)
}

func (f *randomFiller) bytes(n int) []byte {
	b := make([]byte, n)
	f.r.Read(b)
	return b
}
