package kwire

import (
	"bytes"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// fastForms has a field of each form encodeStruct writes without leaving
// its loop, in a classic (v0) and a flexible (v1) version.
type fastForms struct {
	_       struct{}  `kafka:"versions=0-1,flexible=1+"`
	S       string    `kafka:"v=0+"`
	NS      *string   `kafka:"v=0+,nullable=0+"`
	Bytes   []byte    `kafka:"v=0+,nullable=0+"`
	Ints    []int32   `kafka:"v=0+,nullable=0+"`
	Strs    []string  `kafka:"v=0+"`
	Subs    []fastSub `kafka:"v=0+,nullable=0+"`
	One     fastSub   `kafka:"v=0+"`
	Run     int64     `kafka:"v=0+"`
	Run2    int16     `kafka:"v=0+"`
	Run3    bool      `kafka:"v=0+"`
	ID      UUID      `kafka:"v=0+"`
	Unknown UnknownTags
}

type fastSub struct {
	X       int32     `kafka:"v=0+"`
	T       string    `kafka:"v=0+"`
	Deeper  []fastSub `kafka:"v=0+"`
	Unknown UnknownTags
}

// TestEncodeFastPaths: strings and byte strings of every length around
// the inline copy's limits and the one-byte compact length, null and
// empty arrays, and nested structs encode to the same bytes whatever
// room the buffer has (none: every field grows it; exact; plenty; behind
// a prefix), Size agrees, and the decoder reads the message back.
func TestEncodeFastPaths(t *testing.T) {
	for l := 0; l <= 140; l++ {
		s := strings.Repeat("abcdefghijklmnopqrstuvwxyz", 6)[:l]
		ms := []fastForms{
			{S: s, NS: &s, Bytes: []byte(s), Ints: make([]int32, l%9), Strs: []string{s, "", s},
				Subs: []fastSub{{X: int32(l), T: s, Deeper: []fastSub{{T: s, Deeper: []fastSub{{X: 1, T: s}}}}}, {}},
				One:  fastSub{T: s, Deeper: []fastSub{{X: 2}}}, Run: -int64(l), Run2: int16(l), Run3: l%2 == 1, ID: UUID{byte(l)}},
			{S: s, Subs: []fastSub{}, Ints: []int32{}, Bytes: []byte{}},
			{Strs: make([]string, l)},
		}
		for i := range ms {
			m := &ms[i]
			for v := int16(0); v <= 1; v++ {
				want, err := Append(nil, m, v)
				if err != nil {
					t.Fatalf("len %d, message %d, v%d: %v", l, i, v, err)
				}
				if n, _ := Size(m, v); n != len(want) {
					t.Fatalf("len %d, message %d, v%d: Size %d, Append %d", l, i, v, n, len(want))
				}
				for _, room := range []int{len(want), len(want) + 200} {
					if got, _ := Append(make([]byte, 0, room), m, v); !bytes.Equal(got, want) {
						t.Fatalf("len %d, message %d, v%d, room %d:\n got %x\nwant %x", l, i, v, room, got, want)
					}
				}
				if got, _ := Append([]byte("prefix"), m, v); string(got) != "prefix"+string(want) {
					t.Fatalf("len %d, message %d, v%d: behind a prefix: %x", l, i, v, got)
				}
				var back fastForms
				if err := Unmarshal(want, &back, v); err != nil {
					t.Fatalf("len %d, message %d, v%d: %v", l, i, v, err)
				}
				if again, _ := Append(nil, &back, v); !bytes.Equal(again, want) {
					t.Fatalf("len %d, message %d, v%d: round trip differs", l, i, v)
				}
			}
		}
	}
	// The prefix of the string field, as Kafka writes it.
	s := strings.Repeat("x", 200)
	for _, tc := range []struct {
		v      int16
		s      string
		prefix string
	}{
		{0, "", "\x00\x00"}, {0, s[:3], "\x00\x03xxx"}, {0, s[:64], "\x00\x40" + s[:64]}, {0, s[:65], "\x00\x41" + s[:65]},
		{1, "", "\x01"}, {1, s[:3], "\x04xxx"}, {1, s[:64], "\x41" + s[:64]}, {1, s[:126], "\x7f" + s[:126]}, {1, s[:127], "\x80\x01" + s[:127]},
	} {
		got, err := Append(nil, &fastForms{S: tc.s}, tc.v)
		if err != nil || !strings.HasPrefix(string(got), tc.prefix) {
			t.Errorf("v%d, %d bytes: got %x... %v", tc.v, len(tc.s), got[:min(len(got), 4)], err)
		}
	}
}

// wordChecked is checked without the fields that have no flat form, so
// that its tag section is tested by encode's word checks.
type wordChecked struct {
	_       struct{}   `kafka:"versions=0,flexible=0+"`
	I8      int8       `kafka:"v=0+,tag=0,tagged=0+,default=-1"`
	I16     int16      `kafka:"v=0+,tag=1,tagged=0+"`
	U16     uint16     `kafka:"v=0+,tag=2,tagged=0+,default=65535"`
	I32     int32      `kafka:"v=0+,tag=3,tagged=0+,default=0xffffffff"`
	U32     uint32     `kafka:"v=0+,tag=4,tagged=0+,default=7"`
	I64     int64      `kafka:"v=0+,tag=5,tagged=0+,default=-9"`
	F       float64    `kafka:"v=0+,tag=7,tagged=0+,default=0.5"`
	B       bool       `kafka:"v=0+,tag=9,tagged=0+,default=true"`
	ID      UUID       `kafka:"v=0+,tag=10,tagged=0+"`
	S       string     `kafka:"v=0+,tag=11,tagged=0+"`
	NS      *string    `kafka:"v=0+,tag=13,tagged=0+,nullable=0+,default=null"`
	Bs      []byte     `kafka:"v=0+,tag=15,tagged=0+,nullable=0+,default=null"`
	AE      []int32    `kafka:"v=0+,tag=18,tagged=0+"`
	Sub     checkedSub `kafka:"v=0+,tag=19,tagged=0+"`
	Unknown UnknownTags
}

// TestTagWordsAgree: encode's tag section test, the flat checks merged
// into words, passes exactly when the flat checks do, and writes what the
// general path writes, over random values of a few fields at a time.
func TestTagWordsAgree(t *testing.T) {
	pl, err := planFor(reflect.TypeOf(wordChecked{}), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if end := sliceData(pl.prog).add(uintptr(len(pl.prog)) * unsafe.Sizeof(instr{})); (*instr)(end.p).code != cEndChecks {
		t.Fatalf("end code %d, want cEndChecks", (*instr)(end.p).code)
	}
	words, _ := wordChecks(pl.tagChecks, pl.typ)
	r := rand.New(rand.NewSource(1))
	empty := 0
	for range 5000 {
		var m wordChecked
		if err := Unmarshal([]byte{0}, &m, 0); err != nil { // every tagged field at its default
			t.Fatal(err)
		}
		for range 1 + r.Intn(2) {
			o := pl.tagged[r.Intn(len(pl.tagged))]
			pickValue(r, o, pointerOf(&m).add(o.offset))
		}
		if wp, cp := wordsPass(words, pointerOf(&m)), checksPass(pl.tagChecks, pointerOf(&m)); wp != cp {
			t.Fatalf("%+v: word checks %v, flat checks %v", m, wp, cp)
		}
		got, err := Marshal(&m, 0)
		if err != nil {
			t.Fatal(err)
		}
		want, err := encodeTaggedFields(nil, pl, pointerOf(&m))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%+v:\n got %x\nwant %x %v", m, got, want, err)
		}
		if len(got) == 1 {
			empty++
		}
	}
	if empty == 0 {
		t.Error("no message held its defaults")
	}
}

func wordsPass(words []wordCheck, p pointer) bool {
	for _, w := range words {
		if *p.add(w.off).word()&w.mask != w.bits {
			return false
		}
	}
	return true
}

// TestRequestHeaderFastPath: the request header stored into room checked
// once is the header the general path appends, for every header version,
// client id (null, empty, around the inline copy's limit) and tags, with
// and without room, behind a prefix.
func TestRequestHeaderFastPath(t *testing.T) {
	long := strings.Repeat("c", 40)
	for v := int16(0); v <= 2; v++ {
		for _, cid := range []*string{nil, new(string), &long, ptrTo(long[:1]), ptrTo(long[:32]), ptrTo(long[:33])} {
			for _, tags := range []UnknownTags{{}, NewUnknownTags(TaggedField{Tag: 3, Data: []byte{1}})} {
				h := RequestHeader{Version: v, APIKey: 12, APIVersion: 4, CorrelationID: -2, ClientID: cid, UnknownTags: tags}
				want := appendRequestHeaderSlow([]byte("pre\x00\x00\x00\x00"), &h)
				for _, room := range []int{0, 100} {
					got := appendRequestHeader(append(make([]byte, 0, 3+room), "pre"...), &h)
					if !bytes.Equal(got[7:], want[7:]) || string(got[:3]) != "pre" || len(got) != len(want) {
						t.Fatalf("v%d, client id %v, tags %v, room %d:\n got %x\nwant %x", v, cid, tags.Len(), room, got, want)
					}
				}
			}
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// A tagged field that differs from its default is written whatever the
// word size: the flat checks read a string's length, a pointer and a
// slice's length where the machine keeps them (on a 32-bit machine they
// once read the next field and dropped this one).
func TestTaggedFieldsWrittenOnEveryWordSize(t *testing.T) {
	type msg struct {
		_ struct{} `kafka:"versions=0,flexible=0+"`
		S string   `kafka:"v=0+,tag=0,tagged=0+"`
		N int64    `kafka:"v=0+,tag=1,tagged=0+"`
	}
	got, err := Marshal(&msg{S: "x"}, 0)
	if want := []byte{1, 0, 2, 2, 'x'}; err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %x %v, want %x", got, err, want)
	}
	type others struct {
		_  struct{}    `kafka:"versions=0,flexible=0+"`
		NS *string     `kafka:"v=0+,tag=0,tagged=0+,nullable=0+,default=null"`
		Bs []byte      `kafka:"v=0+,tag=1,tagged=0+,nullable=0+,default=null"`
		A  []int32     `kafka:"v=0+,tag=2,tagged=0+"`
		P  *checkedSub `kafka:"v=0+,tag=3,tagged=0+,nullable=0+,default=null"`
		N  int64       `kafka:"v=0+,tag=4,tagged=0+"`
	}
	s := ""
	for _, tc := range []struct {
		m    others
		want []byte
	}{
		{others{NS: &s}, []byte{1, 0, 1, 1}},
		{others{Bs: []byte{}}, []byte{1, 1, 1, 1}},
		{others{A: []int32{7}}, []byte{1, 2, 5, 2, 0, 0, 0, 7}},
		{others{P: &checkedSub{}}, append([]byte{1, 3, 14, 1}, make([]byte, 13)...)},
	} {
		got, err := Marshal(&tc.m, 0)
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%+v: got %x %v, want %x", tc.m, got, err, tc.want)
		}
	}
}
