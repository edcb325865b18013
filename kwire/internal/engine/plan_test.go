package engine

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
		if err := Unmarshal(Options{}, b, &out, 0); err != nil {
			t.Fatal(err)
		}
		if h := pl.strHint.Load(); h>>1 != c.bytes || (h&1 != 0) != c.ptr {
			t.Errorf("after %+v: hint %d bytes, *string %v; want %d, %v", c.in, h>>1, h&1 != 0, c.bytes, c.ptr)
		}
	}
}
