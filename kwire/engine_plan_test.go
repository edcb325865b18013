package kwire

import (
	"reflect"
	"testing"
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
		if err := Unmarshal(b, &out, 0); err != nil {
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

// otherUnknownTags has UnknownTags' layout but is not UnknownTags.
type otherUnknownTags struct{ fields *[]otherTaggedField }

type otherUnknownMsg struct {
	_       struct{}         `kafka:"versions=0,flexible=0+"`
	N       int32            `kafka:"v=0+"`
	Unknown otherUnknownTags `kafka:"-"`
}

type unknownMsg struct {
	_       struct{} `kafka:"versions=0,flexible=0+"`
	N       int32    `kafka:"v=0+"`
	Unknown UnknownTags
}

// A field of type UnknownTags keeps a struct's unknown tagged fields
// across a decode and re-encode; a type with its layout and another name
// is no such field, and the fields are skipped.
func TestOnlyUnknownTagsKeepsUnknownFields(t *testing.T) {
	in := []byte{0, 0, 0, 7, 2, 5, 1, 0xaa, 9, 2, 0xbb, 0xcc}
	var m unknownMsg
	if err := Unmarshal(in, &m, 0); err != nil {
		t.Fatal(err)
	}
	if m.Unknown.fields == nil || len(*m.Unknown.fields) != 2 || (*m.Unknown.fields)[1].Tag != 9 {
		t.Fatalf("unknown fields not kept: %+v", m.Unknown.fields)
	}
	out, err := Marshal(&m, 0)
	if err != nil || string(out) != string(in) {
		t.Fatalf("re-encoded %x, %v; want %x", out, err, in)
	}
	var other otherUnknownMsg
	if err := Unmarshal(in, &other, 0); err != nil {
		t.Fatal(err)
	}
	if other.Unknown.fields != nil || other.N != 7 {
		t.Fatalf("%T kept unknown fields: %+v", other.Unknown, other)
	}
	if out, err := Marshal(&other, 0); err != nil || string(out) != string([]byte{0, 0, 0, 7, 0}) {
		t.Fatalf("re-encoded %x, %v; want 0000000700", out, err)
	}
}
