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

// A field without a kafka tag is reset too.
func TestDecodeResetsUntaggedFields(t *testing.T) {
	type inner struct {
		A    int32 `kafka:"v=0+"`
		Note string
	}
	type msg struct {
		_     struct{} `kafka:"versions=0"`
		In    inner    `kafka:"v=0+"`
		Cache []byte
		N     int64
	}
	m := msg{In: inner{A: 7, Note: "x"}, Cache: []byte{1}, N: 9}
	if err := kwire.Unmarshal([]byte{0, 0, 0, 5}, &m, 0); err != nil {
		t.Fatal(err)
	}
	if want := (msg{In: inner{A: 5}}); !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v, want %+v", m, want)
	}
}
