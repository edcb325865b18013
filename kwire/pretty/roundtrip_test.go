package pretty_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

// leaves lists "path=value" for every non-container field msg has at
// version: two messages equal at a version have equal leaves.
func leaves(t *testing.T, msg any, version int16) []string {
	var out []string
	err := kwire.Walk(msg, version, func(p *kwire.Path, f *kwire.Field, v reflect.Value) error {
		switch {
		case f.Struct != nil && v.Kind() == reflect.Pointer:
			out = append(out, fmt.Sprintf("%s nil=%v", p, v.IsNil()))
		case f.Elem != nil:
			out = append(out, fmt.Sprintf("%s len=%d nil=%v", p, v.Len(), v.IsNil() && f.Nullable))
			if f.Elem.Struct == nil {
				out = append(out, fmt.Sprintf("%s=%v", p, v.Interface()))
			}
		case f.Struct == nil:
			if v.Kind() == reflect.Pointer && !v.IsNil() {
				v = v.Elem()
			}
			out = append(out, fmt.Sprintf("%s=%#v", p, v.Interface()))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func hasRecords(s *kwire.Schema, seen map[*kwire.Schema]bool) bool {
	if seen[s] {
		return false
	}
	seen[s] = true
	for _, f := range s.Fields {
		sub := f.Struct
		if f.Elem != nil {
			sub = f.Elem.Struct
		}
		if f.Records || (sub != nil && hasRecords(sub, seen)) {
			return true
		}
	}
	return false
}

// Without records, the JSON of every message at every version is what
// encoding/json reads back into an equal message (equal in the fields the
// version has), unknown tagged fields included.
func TestJSONReadsBackEveryAPIAndVersion(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	checked := 0
	for _, api := range messages.APIs() {
		for _, newMsg := range []func() any{api.NewRequest, api.NewResponse} {
			for v := api.MinVersion; v <= api.MaxVersion; v++ {
				s, err := kwire.SchemaOf(newMsg(), v)
				if err != nil {
					t.Fatal(err)
				}
				if hasRecords(s, map[*kwire.Schema]bool{}) {
					checkValidJSON(t, r, newMsg, v)
					continue
				}
				for i := 0; i < 3; i++ {
					msg := newMsg()
					if err := kwire.FillRandom(r, msg, v, kwire.RandomOptions{MaxLen: 3}); err != nil {
						t.Fatal(err)
					}
					finiteFloats(t, msg, v)
					out, err := pretty.JSON(msg, v)
					if err != nil {
						t.Fatalf("%T v%d: %v", msg, v, err)
					}
					back := newMsg()
					if err := json.Unmarshal(out, back); err != nil {
						t.Fatalf("%T v%d: %v\n%s", msg, v, err, out)
					}
					if a, b := leaves(t, msg, v), leaves(t, back, v); !slices.Equal(a, b) {
						t.Fatalf("%T v%d: read back differs\n%q\n%q\n%s", msg, v, a, b, out)
					}
					if s.UnknownTags >= 0 {
						ua := reflect.ValueOf(msg).Elem().Field(s.UnknownTags).Interface()
						ub := reflect.ValueOf(back).Elem().Field(s.UnknownTags).Interface()
						if fmt.Sprint(ua) != fmt.Sprint(ub) {
							t.Fatalf("%T v%d: unknown tags %v, read back %v", msg, v, ua, ub)
						}
					}
					checked++
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d messages checked", checked)
	}
}

// finiteFloats replaces NaN and infinities, which JSON writes as strings
// (TestJSONFloats), with numbers.
func finiteFloats(t *testing.T, msg any, version int16) {
	err := kwire.Walk(msg, version, func(p *kwire.Path, f *kwire.Field, v reflect.Value) error {
		if v.Kind() == reflect.Float64 && (math.IsNaN(v.Float()) || math.IsInf(v.Float(), 0)) {
			v.SetFloat(1.5)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestJSONFloats(t *testing.T) {
	resp := &messages.DescribeClientQuotasResponse{Entries: []messages.DescribeClientQuotasResponseEntryData{{
		Values: []messages.DescribeClientQuotasResponseValueData{{Key: "a", Value: 0.25}, {Key: "b", Value: math.NaN()},
			{Key: "c", Value: math.Inf(1)}, {Key: "d", Value: math.Inf(-1)}, {Key: "e", Value: 1e21}},
	}}}
	expectJSON(t, resp, 0, `{"ThrottleTimeMs":0,"ErrorCode":0,"ErrorMessage":null,"Entries":[{"Entity":[],"Values":[`+
		`{"Key":"a","Value":0.25},{"Key":"b","Value":"NaN"},{"Key":"c","Value":"+Inf"},{"Key":"d","Value":"-Inf"},{"Key":"e","Value":1e+21}]}]}`)
}

// checkValidJSON: messages with records fields (random bytes or an empty
// batch) give valid JSON in both forms and a summary.
func checkValidJSON(t *testing.T, r *rand.Rand, newMsg func() any, v int16) {
	for i := 0; i < 5; i++ {
		msg := newMsg()
		if err := kwire.FillRandom(r, msg, v, kwire.RandomOptions{MaxLen: 3}); err != nil {
			t.Fatal(err)
		}
		for _, opts := range [][]pretty.Option{nil, {pretty.WithRecords()}} {
			out, err := pretty.JSON(msg, v, opts...)
			if err != nil || !json.Valid(out) {
				t.Fatalf("%T v%d: %v\n%s", msg, v, err, out)
			}
		}
		if s := pretty.Summary(msg, v); !strings.HasPrefix(s, reflect.TypeOf(msg).Elem().Name()) {
			t.Fatalf("%T v%d: summary %q", msg, v, s)
		}
	}
}
