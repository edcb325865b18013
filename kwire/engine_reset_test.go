package kwire_test

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Decoding into a message that holds another version's random values gives
// what decoding into a new one gives, so the reset list leaves nothing
// behind (fields the version lacks, tagged fields, unknown tags); after a
// failed decode the message is zero.
func TestDecodeIntoUsedMessage(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, api := range messages.APIs() {
		for _, newMsg := range []func() any{api.NewRequest, api.NewResponse} {
			for v := api.MinVersion; v <= api.MaxVersion; v++ {
				src := newMsg()
				if err := kwire.FillRandom(r, src, v, kwire.RandomOptions{}); err != nil {
					t.Fatal(err)
				}
				data, err := kwire.Marshal(src, v)
				if err != nil {
					t.Fatal(err)
				}
				other := api.MaxVersion
				if v == other {
					other = api.MinVersion
				}
				used := newMsg()
				if err := kwire.FillRandom(r, used, other, kwire.RandomOptions{}); err != nil {
					t.Fatal(err)
				}
				fresh := newMsg()
				if err := kwire.Unmarshal(data, fresh, v); err != nil {
					t.Fatal(err)
				}
				if err := kwire.Unmarshal(data, used, v); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(fresh, used) {
					t.Fatalf("%T v%d: decoding into a used message gives\n%+v\nnot\n%+v", fresh, v, used, fresh)
				}
				if len(data) == 0 {
					continue
				}
				if err := kwire.Unmarshal(data[:len(data)-1], used, v); err == nil {
					t.Fatalf("%T v%d: truncated body decoded", used, v)
				}
				if !reflect.ValueOf(used).Elem().IsZero() {
					t.Fatalf("%T v%d: a failed decode leaves the message non-zero", used, v)
				}
			}
		}
	}
}

// A field kept off the wire (kafka:"-") is reset too.
func TestDecodeResetsUntaggedFields(t *testing.T) {
	type inner struct {
		A    int32  `kafka:"v=0+"`
		Note string `kafka:"-"`
	}
	type msg struct {
		_     struct{} `kafka:"versions=0"`
		In    inner    `kafka:"v=0+"`
		Cache []byte   `kafka:"-"`
		N     int64    `kafka:"-"`
	}
	m := msg{In: inner{A: 7, Note: "x"}, Cache: []byte{1}, N: 9}
	if err := kwire.Unmarshal([]byte{0, 0, 0, 5}, &m, 0); err != nil {
		t.Fatal(err)
	}
	if want := (msg{In: inner{A: 5}}); !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v, want %+v", m, want)
	}
}

// The reset clears a string, a slice and an interface in the words they
// take on this machine and no further: the value after the message (here
// in the same struct) keeps its pointer. With 8-byte words assumed on a
// 32-bit machine, the reset wrote past the message's end, and stored
// zeros over pointers with no write barrier for the collector.
func TestResetStaysInsideTheMessage(t *testing.T) {
	type msgString struct {
		_    struct{} `kafka:"versions=0"`
		A    int32    `kafka:"v=0+"`
		Note string   `kafka:"-"`
	}
	type msgSlice struct {
		_    struct{} `kafka:"versions=0"`
		A    int32    `kafka:"v=0+"`
		Note []byte   `kafka:"-"`
	}
	type msgAny struct {
		_    struct{} `kafka:"versions=0"`
		A    int32    `kafka:"v=0+"`
		Note any      `kafka:"-"`
	}
	keep := new(int)
	var s struct {
		M     msgString
		After [3]*int
	}
	var b struct {
		M     msgSlice
		After [3]*int
	}
	var a struct {
		M     msgAny
		After [3]*int
	}
	s.After, b.After, a.After = [3]*int{keep, keep, keep}, [3]*int{keep, keep, keep}, [3]*int{keep, keep, keep}
	s.M.Note, b.M.Note, a.M.Note = "x", []byte("x"), "x"
	for _, tc := range []struct {
		msg   any
		after *[3]*int
	}{{&s.M, &s.After}, {&b.M, &b.After}, {&a.M, &a.After}} {
		if err := kwire.Unmarshal([]byte{0, 0, 0, 5}, tc.msg, 0); err != nil {
			t.Fatal(err)
		}
		if *tc.after != [3]*int{keep, keep, keep} {
			t.Errorf("%T: the reset cleared the value after the message: %v", tc.msg, *tc.after)
		}
	}
	if s.M.Note != "" || b.M.Note != nil || a.M.Note != nil || s.M.A != 5 {
		t.Errorf("not reset: %+v %+v %+v", s.M, b.M, a.M)
	}
}

// quadMessage has no field Go aligns to 8, so it is 4-aligned on every
// machine; the UUID that v0 lacks sits at offset 8.
type quadMessage struct {
	_  struct{}   `kafka:"versions=0-1"`
	A  int32      `kafka:"v=1+"`
	B  int32      `kafka:"v=1+"`
	ID kwire.UUID `kafka:"v=1+"`
	C  int32      `kafka:"v=0+"`
}

// Resetting a message that is only 4-aligned, at an address that is not
// 8-aligned, clears the UUID without an 8-byte store (which faults on
// mips64).
func TestResetOfA4AlignedMessage(t *testing.T) {
	type outer struct {
		X int32
		M quadMessage // at offset 4
	}
	outers := make([]outer, 2)
	for i := range outers {
		m := &outers[i].M
		*m = quadMessage{A: 1, B: 2, ID: kwire.UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, C: 3}
		if err := kwire.Unmarshal([]byte{0, 0, 0, 9}, m, 0); err != nil {
			t.Fatal(err)
		}
		if *m != (quadMessage{C: 9}) {
			t.Errorf("decoded into a used message: %+v, want C 9 only", *m)
		}
	}
}
