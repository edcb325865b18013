package kwire_test

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
)

// badTag is a message whose tags Validate refuses (a tagged field in a
// struct that is never flexible).
type badTag struct {
	_ struct{} `kafka:"api=1,versions=0"`
	N int32    `kafka:"v=0+,tag=0,tagged=0+"`
}

// TestErrorsAreKwireErrors calls every exported function on input it
// refuses and checks that the error is a *kwire.Error (by type assertion
// where it is not wrapped, by errors.As where it is) wrapping the sentinel
// errors.Is expects: the engine builds its errors as its own type, and
// package kwire must give them its Error's type on the way out.
func TestErrorsAreKwireErrors(t *testing.T) {
	hb := wiretest.NewHeartbeat()
	body, err := kwire.Marshal(hb, 1)
	if err != nil {
		t.Fatal(err)
	}
	req, err := kwire.AppendRequest(nil, hb, 1, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := kwire.AppendResponse(nil, hb, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	newBody := func(int16, int16) (any, error) { return &wiretest.Heartbeat{}, nil }
	past := wiretest.NewHeartbeat()
	past.SubscribedTopicRegex = new(string) // v1+ only: refused at v0
	callbackErr := &kwire.Error{Op: "resolve", Offset: 4, Err: kwire.ErrUnknownAPI}
	newBad := func(int16, int16) (any, error) { return nil, callbackErr }
	two := func(_ any, err error) error { return err }
	three := func(_, _ any, err error) error { return err }
	tracker := kwire.NewTracker(4, newBody)

	cases := []struct {
		name    string
		err     error
		want    error
		wrapped bool // inside another error (errors.Join): As, not a type assertion
	}{
		{"Marshal/not a message", two(kwire.Marshal(42, 0)), kwire.ErrNotAMessage, false},
		{"Marshal/version", two(kwire.Marshal(hb, 9)), kwire.ErrUnsupportedVersion, false},
		{"Marshal/field not in version", two(kwire.Marshal(past, 0)), kwire.ErrFieldNotInVersion, false},
		{"Append", two(kwire.Append(nil, past, 0)), kwire.ErrFieldNotInVersion, false},
		{"Size", two(kwire.Size(past, 0)), kwire.ErrFieldNotInVersion, false},
		{"Unmarshal/empty", kwire.Unmarshal(nil, &wiretest.Heartbeat{}, 1), kwire.ErrTruncated, false},
		{"Unmarshal/cut", kwire.Unmarshal(body[:5], &wiretest.Heartbeat{}, 1), kwire.ErrInvalidLength, false},
		{"Unmarshal/trailing", kwire.Unmarshal(append(body[:len(body):len(body)], 0), &wiretest.Heartbeat{}, 1), kwire.ErrTrailingBytes, false},
		{"Unmarshal/not a pointer", kwire.Unmarshal(body, wiretest.Heartbeat{}, 1), kwire.ErrNotAMessage, false},
		{"Decoder.Unmarshal/MaxAlloc", kwire.Decoder{MaxAlloc: 8}.Unmarshal(body, &wiretest.Heartbeat{}, 1), kwire.ErrTooLarge, false},
		{"ReadRequest/no size prefix", three(kwire.ReadRequest(req[:2], newBody)), kwire.ErrTruncated, false},
		{"ReadRequest/body cut", three(kwire.ReadRequest(wiretest.Frame(string(req[4:len(req)-3])), newBody)), kwire.ErrInvalidLength, false},
		{"ReadRequest/callback's own error", three(kwire.ReadRequest(req, newBad)), kwire.ErrUnknownAPI, false},
		{"Decoder.ReadRequest", three(kwire.Decoder{MaxAlloc: 8}.ReadRequest(req, newBody)), kwire.ErrTooLarge, false},
		{"ReadResponse", two(kwire.ReadResponse(wiretest.Frame(string(resp[4:len(resp)-3])), &wiretest.Heartbeat{}, 1)), kwire.ErrInvalidLength, false},
		{"Decoder.ReadResponse", two(kwire.Decoder{MaxAlloc: 8}.ReadResponse(resp, &wiretest.Heartbeat{}, 1)), kwire.ErrTooLarge, false},
		{"AppendRequest", two(kwire.AppendRequest(nil, hb, 9, 7, nil)), kwire.ErrUnsupportedVersion, false},
		{"AppendRequestWithHeader", two(kwire.AppendRequestWithHeader(nil, kwire.RequestHeader{APIVersion: 0}, past)), kwire.ErrFieldNotInVersion, false},
		{"AppendResponse", two(kwire.AppendResponse(nil, hb, 9, 7)), kwire.ErrUnsupportedVersion, false},
		{"AppendResponseWithHeader", two(kwire.AppendResponseWithHeader(nil, kwire.ResponseHeader{}, past, 0)), kwire.ErrFieldNotInVersion, false},
		{"PeekRequest", func() error { _, _, _, err := kwire.PeekRequest(req[:5]); return err }(), kwire.ErrTruncated, false},
		{"PeekResponse", two(kwire.PeekResponse(resp[:5])), kwire.ErrTruncated, false},
		{"TraceRequest", two(kwire.TraceRequest(wiretest.Frame(string(req[4:len(req)-3])), newBody)), kwire.ErrInvalidLength, false},
		{"TraceResponse", two(kwire.TraceResponse(wiretest.Frame(string(resp[4:len(resp)-3])), &wiretest.Heartbeat{}, 1)), kwire.ErrInvalidLength, false},
		{"LayoutRequest", three(kwire.LayoutRequest(hb, 9, 7, nil)), kwire.ErrUnsupportedVersion, false},
		{"LayoutResponse", three(kwire.LayoutResponse(42, 0, 7)), kwire.ErrNotAMessage, false},
		{"Validate", kwire.Validate(badTag{}), kwire.ErrInvalidSpec, false},
		{"SchemaOf/version", two(kwire.SchemaOf(hb, 9)), kwire.ErrUnsupportedVersion, false},
		{"SchemaOf/bad tag", two(kwire.SchemaOf(badTag{}, 0)), kwire.ErrInvalidSpec, false},
		{"Describe", two(kwire.MessageInfoOf(badTag{})), kwire.ErrInvalidSpec, false},
		{"FillMinimal", kwire.FillMinimal(42, 0), kwire.ErrNotAMessage, false},
		{"FillRandom", kwire.FillRandom(rand.New(rand.NewSource(1)), hb, 9, kwire.RandomOptions{}), kwire.ErrUnsupportedVersion, false},
		{"Walk", kwire.Walk(hb, 9, func(*kwire.Path, *kwire.Field, reflect.Value) error { return nil }), kwire.ErrUnsupportedVersion, false},
		{"SplitFrame", three(kwire.SplitFrame([]byte{0xff, 0xff, 0xff, 0xff}, 1<<20)), kwire.ErrInvalidLength, false},
		{"Tracker.ReadResponse", func() error { _, _, _, err := tracker.ReadResponse(resp); return err }(), kwire.ErrUnknownCorrelation, true},
		{"fmt.Errorf %w", fmt.Errorf("reading: %w", kwire.Unmarshal(body[:5], &wiretest.Heartbeat{}, 1)), kwire.ErrInvalidLength, true},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v is not %v", c.name, c.err, c.want)
		}
		var e *kwire.Error
		if !errors.As(c.err, &e) {
			t.Errorf("%s: %v (%T) holds no *kwire.Error", c.name, c.err, c.err)
			continue
		}
		if _, ok := c.err.(*kwire.Error); !ok && !c.wrapped {
			t.Errorf("%s: %T, not *kwire.Error", c.name, c.err)
		}
	}
	if _, _, err := kwire.ReadRequest(req, newBad); err != error(callbackErr) {
		t.Errorf("ReadRequest gave %v for its callback's *kwire.Error, not the error itself", err)
	}
}
