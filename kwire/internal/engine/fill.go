package engine

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand"
	"reflect"

	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// FillMinimal is kwire.FillMinimal.
func FillMinimal(msg any, version int16) error {
	pl, p, err := messagePlan(msg, version, "fill", writeValue)
	if err != nil {
		return err
	}
	p.value(pl.typ).SetZero()
	fillStruct(pl, p, 0)
	return nil
}

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

// EmptyRecordBatch is kwire.EmptyRecordBatch: 61 bytes, every field zero but
// the batch length (49), the magic (2) and the CRC-32C over the attributes
// and everything after them.
func EmptyRecordBatch() []byte {
	b := make([]byte, 61)
	binary.BigEndian.PutUint32(b[8:], 61-12) // batch length: bytes after this field
	b[16] = 2                                // magic
	crc := crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli))
	binary.BigEndian.PutUint32(b[17:], crc)
	return b
}

// FillRandom is kwire.FillRandom.
func FillRandom(r *rand.Rand, msg any, version int16, opts public.RandomOptions) error {
	pl, p, err := messagePlan(msg, version, "fill", writeValue)
	if err != nil {
		return err
	}
	if opts.MaxLen <= 0 {
		opts.MaxLen = 8
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 4
	}
	p.value(pl.typ).SetZero()
	f := randomFiller{r: r, opts: opts}
	f.fillStruct(pl, p, 0)
	return nil
}

type randomFiller struct {
	r    *rand.Rand
	opts public.RandomOptions
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
		var tags []public.TaggedField
		for n := 1 + f.r.Intn(2); n > 0; n-- {
			next += uint32(f.r.Intn(200))
			tags = append(tags, public.TaggedField{Tag: next, Data: f.bytes(f.r.Intn(f.opts.MaxLen + 1))})
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
