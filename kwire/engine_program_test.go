package kwire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"unsafe"
)

// checked has a field of every kind with and without a non-zero default,
// tagged in v1 and absent (not ignorable) in v0, so that the flat checks
// of both lists can be held against the general tests.
type checked struct {
	_       struct{}    `kafka:"versions=0-1,flexible=0+"`
	I8      int8        `kafka:"v=1+,tag=0,tagged=1+,default=-1"`
	I16     int16       `kafka:"v=1+,tag=1,tagged=1+"`
	U16     uint16      `kafka:"v=1+,tag=2,tagged=1+,default=65535"`
	I32     int32       `kafka:"v=1+,tag=3,tagged=1+,default=0xffffffff"`
	U32     uint32      `kafka:"v=1+,tag=4,tagged=1+,default=7"`
	I64     int64       `kafka:"v=1+,tag=5,tagged=1+,default=-9"`
	VI      int32       `kafka:"v=1+,tag=6,tagged=1+,varint,default=3"`
	F       float64     `kafka:"v=1+,tag=7,tagged=1+,default=0.5"`
	FZ      float64     `kafka:"v=1+,tag=8,tagged=1+"`
	B       bool        `kafka:"v=1+,tag=9,tagged=1+,default=true"`
	ID      UUID        `kafka:"v=1+,tag=10,tagged=1+"`
	S       string      `kafka:"v=1+,tag=11,tagged=1+"`
	SD      string      `kafka:"v=1+,tag=12,tagged=1+,default=x"`
	NS      *string     `kafka:"v=1+,tag=13,tagged=1+,nullable=1+,default=null"`
	NSE     *string     `kafka:"v=1+,tag=14,tagged=1+,nullable=1+"`
	Bs      []byte      `kafka:"v=1+,tag=15,tagged=1+,nullable=1+,default=null"`
	BsE     []byte      `kafka:"v=1+,tag=16,tagged=1+"`
	A       []int32     `kafka:"v=1+,tag=17,tagged=1+,nullable=1+,default=null"`
	AE      []int32     `kafka:"v=1+,tag=18,tagged=1+"`
	Sub     checkedSub  `kafka:"v=1+,tag=19,tagged=1+"`
	SubPtr  *checkedSub `kafka:"v=1+,tag=20,tagged=1+,nullable=1+,default=null"`
	SubPtrE *checkedSub `kafka:"v=1+,tag=21,tagged=1+,nullable=1+"`
	Unknown UnknownTags
}

type checkedSub struct {
	X       int32 `kafka:"v=0+,default=-1"`
	Y       int64 `kafka:"v=0+"`
	Unknown UnknownTags
}

// pick sets the field at fp to one of a few values that matter to the
// checks: zero, the default, a neighbour, the odd float and the empty
// but present forms.
func pickValue(r *rand.Rand, o *fieldPlan, fp pointer) {
	v := reflect.NewAt(o.typ, fp.p).Elem()
	switch o.kind {
	case kInt8, kInt16, kInt32, kInt64, kVarint, kVarlong:
		v.SetInt([]int64{0, o.def.i, o.def.i + 1, -1}[r.Intn(4)])
	case kUint16, kUint32, kUvarint, kUvarint32:
		v.SetUint([]uint64{0, uint64(o.def.i), uint64(o.def.i) + 1}[r.Intn(3)])
	case kFloat64:
		v.SetFloat([]float64{0, math.Copysign(0, -1), o.def.f, math.NaN(), 1}[r.Intn(5)])
	case kBool:
		v.SetBool(r.Intn(2) == 0)
	case kUUID:
		*fp.uuid() = [][16]byte{{}, {1}, {15: 1}}[r.Intn(3)]
	case kString:
		*fp.string() = []string{"", "x", "y"}[r.Intn(3)]
	case kNullString:
		s := []string{"", "x"}[r.Intn(2)]
		*fp.stringPtr() = []*string{nil, &s}[r.Intn(2)]
	case kBytes:
		*fp.bytes() = [][]byte{nil, {}, {1}}[r.Intn(3)]
	case kArray:
		*fp.int32s() = [][]int32{nil, {}, {1}}[r.Intn(3)]
	case kStruct:
		for _, f := range o.sub.fields {
			pickValue(r, f, fp.add(f.offset))
		}
		if r.Intn(4) == 0 {
			*fp.add(o.sub.unknownOff).unknownTags() = NewUnknownTags(TaggedField{Tag: 9})
		}
	case kStructPtr:
		switch r.Intn(3) {
		case 0:
			*(**checkedSub)(fp.p) = nil
		case 1:
			*(**checkedSub)(fp.p) = &checkedSub{X: -1}
		default:
			*(**checkedSub)(fp.p) = &checkedSub{}
		}
	}
}

// TestFlatChecksAgree holds the flat default checks against isDefault
// (tagged fields) and isUnset (absent fields), field by field over random
// values: a flat pass must never be wrong, and must happen whenever the
// general test passes except for the forms documented as stricter.
func TestFlatChecksAgree(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	typ := reflect.TypeOf(checked{})
	tagged, err := planFor(typ, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	absent, err := planFor(typ, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(tagged.tagged) != 22 || len(absent.absent) != 22 {
		t.Fatalf("%d tagged, %d absent", len(tagged.tagged), len(absent.absent))
	}
	passes := map[string]int{}
	for _, c := range []struct {
		pl      *plan
		list    []*fieldPlan
		general func(*fieldPlan, pointer) bool
		orZero  bool
	}{{tagged, tagged.tagged, isDefault, false}, {absent, absent.absent, isUnset, true}} {
		for _, o := range c.list {
			var checks []defaultCheck
			flat := flatChecks(o, 0, uintptr(c.pl.typ.Align()), c.orZero, &checks)
			for n := 0; n < 200; n++ {
				var m checked
				p := pointerOf(&m)
				pickValue(r, o, p.add(o.offset))
				want := c.general(o, p.add(o.offset))
				if !flat {
					continue
				}
				got := checksPass(checks, p)
				if got && !want {
					t.Fatalf("%s (orZero %v): flat check passes a value the general test refuses: %+v", o.name, c.orZero, m)
				}
				if want && !got && !stricter(o, p.add(o.offset)) {
					t.Fatalf("%s (orZero %v): flat check refuses a default: %+v", o.name, c.orZero, m)
				}
				if got {
					passes[o.name]++
				}
			}
		}
		// Every tagged field of the test type but the four without a
		// flat form must reach the fast path.
		for _, o := range c.list {
			var checks []defaultCheck
			if flatChecks(o, 0, uintptr(c.pl.typ.Align()), c.orZero, &checks) && passes[o.name] == 0 {
				t.Errorf("%s: the flat check never passed", o.name)
			}
		}
	}
	if tagged.tagChecksFlat || !absent.absentChecksFlat {
		t.Errorf("tagChecksFlat %v (SD has no flat form), absentChecksFlat %v", tagged.tagChecksFlat, absent.absentChecksFlat)
	}
}

// stricter names the values the flat checks send to the general path on
// purpose: -0 and NaN floats, present structs behind pointers and, for
// absent fields, strings equal to a default other than the zero value.
func stricter(o *fieldPlan, fp pointer) bool {
	switch o.kind {
	case kFloat64:
		f := *fp.float64()
		return math.IsNaN(f) || (f == 0 && math.Signbit(f))
	case kStructPtr:
		return *(**checkedSub)(fp.p) != nil
	case kString: // only with orZero
		return *fp.string() != ""
	case kNullString: // only with orZero
		return *fp.stringPtr() != nil
	}
	return false
}

// TestNothingTaggedFastPath: a message whose tagged fields all hold their
// defaults is written with a single zero byte for its tag section, and a
// change to any one of them is written.
func TestNothingTaggedFastPath(t *testing.T) {
	type msg struct {
		_    struct{}   `kafka:"versions=0,flexible=0+"`
		A    int32      `kafka:"v=0+"`
		Sub  checkedSub `kafka:"v=0+,tag=0,tagged=0+"`
		Tail *string    `kafka:"v=0+,tag=1,tagged=0+,nullable=0+,default=null"`
	}
	m := msg{Sub: checkedSub{X: -1}}
	b, err := Marshal(&m, 0)
	if err != nil || string(b) != "\x00\x00\x00\x00\x00" {
		t.Fatalf("%x %v", b, err)
	}
	m.Sub.Y = 1
	if b, _ = Marshal(&m, 0); len(b) == 5 {
		t.Fatalf("changed nested default not written: %x", b)
	}
	m.Sub.Y = 0
	m.Sub.Unknown = NewUnknownTags(TaggedField{Tag: 5})
	if b, _ = Marshal(&m, 0); len(b) == 5 {
		t.Fatalf("nested unknown tag not written: %x", b)
	}
	m.Sub.Unknown = UnknownTags{}
	s := ""
	m.Tail = &s
	if b, _ = Marshal(&m, 0); len(b) == 5 {
		t.Fatalf("non-null *string not written: %x", b)
	}
}

// Types for TestEncodeErrorPaths: arrays of structs and a nested struct,
// nested a dozen deep.
type pathLeaf struct {
	Name *string `kafka:"v=0+"` // not nullable: nil is an error
}

type pathMid struct {
	Leaf pathLeaf   `kafka:"v=0+"`
	More []pathLeaf `kafka:"v=0+"`
}

type pathChain struct {
	Next []pathChain `kafka:"v=0+"`
	Mids []pathMid   `kafka:"v=0+"`
}

type pathRoot struct {
	_     struct{}    `kafka:"versions=0"`
	Chain []pathChain `kafka:"v=0+"`
}

// TestEncodeErrorPaths: an error deep in nested structs names the whole
// path at every depth, and Size agrees with Marshal on the messages
// that encode.
func TestEncodeErrorPaths(t *testing.T) {
	s := "x"
	good := pathMid{Leaf: pathLeaf{Name: &s}, More: []pathLeaf{{Name: &s}}}
	for depth := 0; depth < 12; depth++ {
		// depth chain levels, then a mid whose second More leaf is nil.
		bad := pathMid{Leaf: pathLeaf{Name: &s}, More: []pathLeaf{{Name: &s}, {}}}
		chain := pathChain{Mids: []pathMid{good, bad}}
		want := "Mids[1].More[1].Name"
		for d := 0; d < depth; d++ {
			chain = pathChain{Next: []pathChain{{}, chain}}
			want = "Next[1]." + want
		}
		root := pathRoot{Chain: []pathChain{{Mids: []pathMid{good}}, chain}}
		want = "Chain[1]." + want
		_, err := Marshal(&root, 0)
		e, ok := err.(*Error)
		if !ok || e.Path != want {
			t.Fatalf("depth %d: got %v, want path %s", depth, err, want)
		}
		bad.More[1].Name = &s
		b, err := Marshal(&root, 0)
		if err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		if n, _ := Size(&root, 0); n != len(b) {
			t.Fatalf("depth %d: Size %d, Marshal %d bytes", depth, n, len(b))
		}
		var back pathRoot
		if err := Unmarshal(b, &back, 0); err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		if again, err := Marshal(&back, 0); err != nil || string(again) != string(b) {
			t.Fatalf("depth %d: round trip: %v", depth, err)
		}
	}
	// The nested struct by value: its path has no index.
	bad := pathRoot{Chain: []pathChain{{Mids: []pathMid{{Leaf: pathLeaf{}}}}}}
	if _, err := Marshal(&bad, 0); err == nil || mustError(t, err).Path != "Chain[0].Mids[0].Leaf.Name" {
		t.Fatalf("got %v", err)
	}
}

// pairs has 4-byte defaults that share 8-byte words and one that does not.
type pairs struct {
	_ struct{} `kafka:"versions=0,flexible=0+"`
	A int32    `kafka:"v=0+,tag=0,tagged=0+,default=-1"`
	B int32    `kafka:"v=0+,tag=1,tagged=0+,default=7"`
	C int64    `kafka:"v=0+,tag=2,tagged=0+,default=-2"`
	D int32    `kafka:"v=0+,tag=3,tagged=0+,default=5"`
	E int16    `kafka:"v=0+,tag=4,tagged=0+,default=-3"`
	F bool     `kafka:"v=0+,tag=5,tagged=0+,default=true"`
	G int32    `kafka:"v=0+,tag=6,tagged=0+"`
	H int32    `kafka:"v=0+,tag=7,tagged=0+,default=9"`
}

// The decoder's compiled default stores write what flatDefaults.apply
// writes, for every type the tests know, merged words included.
func TestDefaultStoresAgree(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(checked{}), reflect.TypeOf(pairs{})} {
		for v := int16(0); v <= 1; v++ {
			pl, err := planFor(typ, v, true)
			if err != nil {
				continue
			}
			want, got := reflect.New(typ), reflect.New(typ)
			pl.flatDefaults.apply(valuePointer(want))
			pl.applyDefaults(valuePointer(got))
			if !reflect.DeepEqual(want.Interface(), got.Interface()) {
				t.Errorf("%v v%d: stores give %+v, flatDefaults %+v", typ, v, got.Elem(), want.Elem())
			}
		}
	}
	pl, err := planFor(reflect.TypeOf(pairs{}), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	// pairs is 8-aligned where an int64 is (64-bit machines), 4-aligned
	// on 32-bit ones, where A and B stay two stores.
	want8, want4 := 2, 2 // C, A+B; D, H
	if reflect.TypeOf(pairs{}).Align() < 8 {
		want8, want4 = 1, 4 // C; A, B, D, H
	}
	if ds := pl.defaultStores; len(ds.w8) != want8 || len(ds.w4) != want4 {
		t.Errorf("pairs (aligned to %d): %d 8-byte and %d 4-byte stores, want %d and %d",
			reflect.TypeOf(pairs{}).Align(), len(ds.w8), len(ds.w4), want8, want4)
	}
}

// quads holds only 4-byte fields, so it is 4-aligned on every machine.
type quads struct {
	_ struct{} `kafka:"versions=0,flexible=0+"`
	A int32    `kafka:"v=0+,tag=0,tagged=0+,default=-1"`
	B int32    `kafka:"v=0+,tag=1,tagged=0+,default=7"`
	C int32    `kafka:"v=0+"`
}

// Defaults in one 8-byte word of a struct that is only 4-aligned are not
// merged into an 8-byte store: the word may start at a 4-aligned address
// (the second element of a []quads), and such a store faults on mips64.
// Decoding that slice puts every default where it belongs.
func TestDefaultStoresStayAligned(t *testing.T) {
	pl, err := planFor(reflect.TypeOf(quads{}), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if ds := pl.defaultStores; len(ds.w8) != 0 || len(ds.w4) != 2 {
		t.Errorf("quads: %d 8-byte and %d 4-byte stores, want 0 and 2 (A, B)", len(ds.w8), len(ds.w4))
	}
	type msg struct {
		_     struct{} `kafka:"versions=0,flexible=0+"`
		Elems []quads  `kafka:"v=0+"`
	}
	in := msg{Elems: []quads{{A: -1, B: 7, C: 1}, {A: -1, B: 7, C: 2}, {A: -1, B: 7, C: 3}}}
	b, err := Marshal(&in, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out msg
	if err := Unmarshal(b, &out, 0); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("decoded %+v, want %+v", out, in)
	}
}

type recordsOnly struct {
	_ struct{} `kafka:"versions=0,flexible=0+"`
	R []byte   `kafka:"v=0+,records,nullable=0+"`
}

// decodeStruct's loop reads the length of records (one to three bytes)
// itself: whatever the bytes, it decodes as the general path over the field plan
// does, with the same error at the same offset.
func TestRecordsLengthAgrees(t *testing.T) {
	pl, err := planFor(reflect.TypeOf(recordsOnly{}), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(3))
	interesting := []byte{0x00, 0x01, 0x02, 0x0f, 0x10, 0x7f, 0x80, 0x81, 0xff}
	for i := 0; i < 100000; i++ {
		b := make([]byte, r.Intn(6))
		for j := range b {
			if r.Intn(2) == 0 {
				b[j] = interesting[r.Intn(len(interesting))]
			} else {
				b[j] = byte(r.Intn(256))
			}
		}
		b = append(b, make([]byte, []int{0, 1, 3, 130, 20000}[r.Intn(5)])...)
		for _, exact := range []bool{false, true} {
			var fast, general recordsOnly
			df := decodeState{src: b, exact: exact}
			fastErr := df.decodeStruct(pl, pointerOf(&fast))
			dg := decodeState{src: b, exact: exact}
			off, generalErr := dg.decodeFusedField(pl, 0, pointerOf(&general), 0)
			if generalErr == nil {
				generalErr = dg.decodeTaggedFields(pl, pointerOf(&general))
				off = dg.off
			}
			if fmt.Sprint(fastErr) != fmt.Sprint(generalErr) || (fastErr == nil && (df.off != off || len(fast.R) != len(general.R) || (fast.R == nil) != (general.R == nil))) {
				t.Fatalf("%x (exact %v): the loop read %d bytes at %d, %v; the general path %d at %d, %v",
					b[:min(len(b), 8)], exact, len(fast.R), df.off, fastErr, len(general.R), off, generalErr)
			}
		}
	}
}

// oddUUID puts a UUID, which Go aligns to 1, at an odd offset (1), then
// at offset 24 of a struct aligned to 4 only.
type oddUUID struct {
	_  struct{} `kafka:"versions=0-1,flexible=0+"`
	B  bool     `kafka:"v=1+,tag=0,tagged=1+,default=true"`
	ID UUID     `kafka:"v=1+,tag=1,tagged=1+"`
	N  int16    `kafka:"v=1+,tag=2,tagged=1+,default=-1"`
	I  int32    `kafka:"v=1+,tag=3,tagged=1+,default=7"`
	J  UUID     `kafka:"v=1+,tag=4,tagged=1+"`
}

// Every flat check is one load of its size, so each must sit where Go
// aligns a load of that size, given the struct's alignment: an unaligned
// one faults on mips64 (a UUID's two 8-byte checks at an odd offset did).
// The tag section's word checks and the encoding still see the defaults.
func TestFlatChecksAligned(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(checked{}), reflect.TypeOf(wordChecked{}), reflect.TypeOf(oddUUID{})} {
		for v := int16(0); v <= 1; v++ {
			pl, err := planFor(typ, v, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range append(append([]defaultCheck(nil), pl.tagChecks...), pl.absentChecks...) {
				need := min(uintptr(c.size), uint64Align)
				if uintptr(c.off)%need != 0 || uintptr(typ.Align())%need != 0 {
					t.Errorf("%v v%d: a %d-byte check at offset %d of a struct aligned to %d", typ, v, c.size, c.off, typ.Align())
				}
			}
		}
	}
	pl, err := planFor(reflect.TypeOf(oddUUID{}), 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if !pl.tagChecksFlat || !pl.absentChecksFlat {
		t.Fatal("oddUUID's checks are not flat")
	}
	m := oddUUID{B: true, N: -1, I: 7}
	if !checksPass(pl.tagChecks, pointerOf(&m)) {
		t.Errorf("%+v: flat checks refuse the defaults", m)
	}
	if b, err := Marshal(&m, 1); err != nil || !bytes.Equal(b, []byte{0}) {
		t.Errorf("defaults encode as %x %v, want 00", b, err)
	}
	for i := range 16 {
		for _, id := range []*UUID{&m.ID, &m.J} {
			id[i] = 1
			if checksPass(pl.tagChecks, pointerOf(&m)) {
				t.Errorf("flat checks pass a UUID with byte %d set", i)
			}
			id[i] = 0
		}
	}
}

// A check split into narrower loads compares the bytes memory holds for
// its value, in this machine's byte order, and nothing else.
func TestSplitCheckInMemoryOrder(t *testing.T) {
	const v = 0x0102030405060708
	for _, align := range []uintptr{1, 2, 4, 8} {
		for off := uintptr(0); off < 8; off++ {
			c := checkList{align: align}
			c.add(off, 8, v)
			n := loadWidth(off, align, 8)
			if len(c.checks) != int(8/n) {
				t.Fatalf("align %d off %d: %d checks, want %d of %d bytes", align, off, len(c.checks), 8/n, n)
			}
			var words [3]uint64 // 8-aligned, as align asks at most
			mem := (*[24]byte)(unsafe.Pointer(&words))
			p := pointerOf(&words)
			binary.NativeEndian.PutUint64(mem[off:], v) // v as this machine holds it
			if !checksPass(c.checks, p) {
				t.Errorf("align %d off %d: the checks refuse the value itself", align, off)
			}
			for i := range 8 {
				mem[off+uintptr(i)] ^= 0x80
				if checksPass(c.checks, p) {
					t.Errorf("align %d off %d: the checks pass with byte %d changed", align, off, i)
				}
				mem[off+uintptr(i)] ^= 0x80
			}
		}
	}
	// Go aligns an 8-byte load to 8 on 64-bit machines and to 4 on 32-bit.
	if got := loadWidth(4, 8, 8); got != map[uintptr]uintptr{8: 4, 4: 8}[uint64Align] {
		t.Errorf("an 8-byte check at offset 4: %d-byte loads", got)
	}
	if got := loadWidth(1, 8, 8); got != 1 {
		t.Errorf("an 8-byte check at offset 1: %d-byte loads", got)
	}
}

// The words of the tag section's word checks are bytes placed as memory
// holds them, read in the machine's byte order: pinned here for both
// orders and both word sizes, whatever machine runs the test.
func TestWordChecksByteOrder(t *testing.T) {
	checks := []defaultCheck{
		{off: 0, size: 2, bits: 0x1234},
		{off: 4, size: 4, bits: 0xdeadbeef},
		{off: 9, size: 1, bits: 0x5a},
	}
	type word struct {
		off        uintptr
		mask, bits uint64
	}
	want := map[uintptr]map[binary.ByteOrder][]word{
		8: {
			binary.LittleEndian: {{0, 0xffffffff0000ffff, 0xdeadbeef00001234}, {8, 0xff00, 0x5a00}},
			binary.BigEndian:    {{0, 0xffff0000ffffffff, 0x12340000deadbeef}, {8, 0x00ff000000000000, 0x005a000000000000}},
		},
		4: {
			binary.LittleEndian: {{0, 0x0000ffff, 0x00001234}, {4, 0xffffffff, 0xdeadbeef}, {8, 0x0000ff00, 0x00005a00}},
			binary.BigEndian:    {{0, 0xffff0000, 0x12340000}, {4, 0xffffffff, 0xdeadbeef}, {8, 0x00ff0000, 0x005a0000}},
		},
	}[ptrSize]
	for order, want := range want {
		words, ok := wordChecksIn(order, checks, reflect.TypeOf(pairs{}))
		if !ok || len(words) != len(want) {
			t.Fatalf("%v: %+v %v, want %d words", order, words, ok, len(want))
		}
		for i, w := range words {
			if got := (word{w.off, uint64(w.mask), uint64(w.bits)}); got != want[i] {
				t.Errorf("%v word %d: off %d mask %#x bits %#x, want off %d mask %#x bits %#x",
					order, i, got.off, got.mask, got.bits, want[i].off, want[i].mask, want[i].bits)
			}
		}
	}
	// A second check of a byte that disagrees with the first has no word form.
	if _, ok := wordChecksIn(binary.LittleEndian, append(checks, defaultCheck{off: 1, size: 1, bits: 0x13}), reflect.TypeOf(pairs{})); ok {
		t.Error("checks that disagree on byte 1 merged")
	}
	// This machine's words pass a struct holding those bytes and refuse
	// it with any one of them changed.
	words, _ := wordChecks(checks, reflect.TypeOf(pairs{}))
	var m [2]uint64 // aligned as pairs is
	mem := (*[16]byte)(unsafe.Pointer(&m))
	binary.NativeEndian.PutUint16(mem[0:], 0x1234)
	binary.NativeEndian.PutUint32(mem[4:], 0xdeadbeef)
	mem[9] = 0x5a
	if !wordsPass(words, pointerOf(&m)) {
		t.Fatal("the words refuse the bytes they were built from")
	}
	for _, i := range []int{0, 1, 4, 5, 6, 7, 9} {
		mem[i] ^= 1
		if wordsPass(words, pointerOf(&m)) {
			t.Errorf("the words pass with byte %d changed", i)
		}
		mem[i] ^= 1
	}
}

// mustError is err as the engine's *Error (a test binary that links
// package kwire gets kwire's type, which ErrorOf converts back).
func mustError(t *testing.T, err error) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("%v (%T) is not an *Error", err, err)
	}
	return e
}
