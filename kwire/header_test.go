package kwire_test

import (
	"testing"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
)

// A header's fields, unknown tagged fields included, cross the API both
// ways: package kwire's headers are converted to and from the engine's.
func TestHeaderRoundTrip(t *testing.T) {
	id := "client-1"
	tags := kwire.NewUnknownTags(kwire.TaggedField{Tag: 3, Data: []byte{1, 2}}, kwire.TaggedField{Tag: 9, Data: []byte{}})
	in := kwire.RequestHeader{APIVersion: 1, CorrelationID: 42, ClientID: &id, UnknownTags: tags}
	frame, err := kwire.AppendRequestWithHeader(nil, in, wiretest.NewHeartbeat())
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := kwire.ReadRequest(frame, func(int16, int16) (any, error) { return &wiretest.Heartbeat{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != 2 || h.APIKey != 68 || h.APIVersion != 1 || h.CorrelationID != 42 || h.ClientID == nil || *h.ClientID != id ||
		h.UnknownTags.String() != tags.String() {
		t.Fatalf("read %+v (tags %v), wrote %+v (tags %v)", h, h.UnknownTags, in, tags)
	}
	resp, err := kwire.AppendResponseWithHeader(nil, kwire.ResponseHeader{CorrelationID: 7, UnknownTags: tags}, wiretest.NewHeartbeat(), 1)
	if err != nil {
		t.Fatal(err)
	}
	rh, err := kwire.Decoder{}.ReadResponse(resp, &wiretest.Heartbeat{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rh.Version != 1 || rh.CorrelationID != 7 || rh.UnknownTags.String() != tags.String() {
		t.Fatalf("read %+v (tags %v)", rh, rh.UnknownTags)
	}
}
