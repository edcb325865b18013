package engine

import (
	"reflect"
	"testing"

	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

type strHintMsg struct {
	_ struct{} `kafka:"versions=0,flexible=0+"`
	P *string  `kafka:"v=0+,nullable=0+"`
	S string   `kafka:"v=0+"`
}

// The plan's string hint says how many string bytes the last message of
// its type used and whether it took a *string target, so that the next
// decode's first chunk carries the target only when the last one needed
// it: set by a message whose *string is present, cleared by one whose
// *string is null.
func TestStringHintFollowsTheLastMessage(t *testing.T) {
	_, pl, err := rootPlan(reflect.TypeOf(strHintMsg{}), 0, "test")
	if err != nil {
		t.Fatal(err)
	}
	p := "txn"
	for _, c := range []struct {
		in    strHintMsg
		bytes int32
		ptr   bool
	}{
		{strHintMsg{P: &p, S: "orders"}, 9, true},
		{strHintMsg{S: "orders"}, 6, false},
		// 6 bytes from the hint take "txn"; "payments" needs a new
		// chunk, and the 3 bytes left behind count as used.
		{strHintMsg{P: &p, S: "payments"}, 6 + 8, true},
	} {
		b, err := Marshal(&c.in, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out strHintMsg
		if err := Unmarshal(Options{}, b, &out, 0); err != nil {
			t.Fatal(err)
		}
		if h := pl.strHint.Load(); h>>1 != c.bytes || (h&1 != 0) != c.ptr {
			t.Errorf("after %+v: hint %d bytes, *string %v; want %d, %v", c.in, h>>1, h&1 != 0, c.bytes, c.ptr)
		}
	}
}

type otherTaggedField struct {
	Tag  uint32
	Data []byte
}

// otherUnknownTags has UnknownTags' layout, as package kwire's does.
type otherUnknownTags struct{ fields *[]otherTaggedField }

type otherUnknownMsg struct {
	_       struct{} `kafka:"versions=0,flexible=0+"`
	N       int32    `kafka:"v=0+"`
	Unknown otherUnknownTags
}

// AcceptUnknownTags takes a type with UnknownTags' layout (package
// kwire's own) and refuses one without it; a struct holding the accepted
// type keeps its unknown tagged fields across a decode and re-encode.
func TestAcceptUnknownTags(t *testing.T) {
	for _, bad := range []reflect.Type{
		reflect.TypeFor[struct{ p *[]struct{ A uint64 } }](),
		reflect.TypeFor[struct{ p *[]struct{ Tag, Data uint32 } }](),
		reflect.TypeFor[struct {
			p *[]otherTaggedField
			q int
		}](),
		reflect.TypeFor[struct{ p []otherTaggedField }](),
		reflect.TypeFor[int](),
	} {
		if AcceptUnknownTags(bad) == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if err := AcceptUnknownTags(reflect.TypeFor[otherUnknownTags]()); err != nil {
		t.Fatal(err)
	}
	in := []byte{0, 0, 0, 7, 2, 5, 1, 0xaa, 9, 2, 0xbb, 0xcc}
	var m otherUnknownMsg
	if err := Unmarshal(Options{}, in, &m, 0); err != nil {
		t.Fatal(err)
	}
	if m.Unknown.fields == nil || len(*m.Unknown.fields) != 2 || (*m.Unknown.fields)[1].Tag != 9 {
		t.Fatalf("unknown fields not kept: %+v", m.Unknown.fields)
	}
	out, err := Marshal(&m, 0)
	if err != nil || string(out) != string(in) {
		t.Fatalf("re-encoded %x, %v; want %x", out, err, in)
	}
}

// SameLayout, which package kwire's init runs on its headers and
// AcceptUnknownTags on its UnknownTags, tells the engine's layout from
// another one.
func TestSameLayout(t *testing.T) {
	if err := SameLayout(reflect.TypeFor[otherUnknownTags](), reflect.TypeFor[public.UnknownTags]()); err != nil {
		t.Error(err)
	}
	for _, pair := range [][2]reflect.Type{
		{reflect.TypeFor[public.RequestHeader](), reflect.TypeFor[public.ResponseHeader]()},
		{reflect.TypeFor[struct{ A, B int32 }](), reflect.TypeFor[struct{ A int32 }]()},
		{reflect.TypeFor[struct{ A int32 }](), reflect.TypeFor[struct{ A uint32 }]()},
		{reflect.TypeFor[struct{ P *[]struct{ A uint64 } }](), reflect.TypeFor[struct{ P *[]struct{ A, B uint32 } }]()},
	} {
		if SameLayout(pair[0], pair[1]) == nil {
			t.Errorf("%s and %s have the same layout", pair[0], pair[1])
		}
	}
}
