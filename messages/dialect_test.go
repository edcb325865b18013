package messages_test

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// The vendor-shaped schemas (gen/testdata/dialects/README.md): Inkless's
// key-93 collision and key 99, AutoMQ's 513, Confluent's 10000.
const dialects = "../gen/testdata/dialects/"

func vendorAPIs(t *testing.T, dirs ...string) map[int16]messages.API {
	t.Helper()
	apis, err := gen.LoadAPIs(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int16]messages.API{}
	for _, a := range apis {
		out[a.Key] = a
	}
	return out
}

func TestDialectReplacesOnlyWhenAsked(t *testing.T) {
	vendor := vendorAPIs(t, dialects+"inkless", dialects+"automq", dialects+"confluent")
	if len(vendor) != 4 {
		t.Fatalf("%d vendor APIs, want 4", len(vendor))
	}
	apache, _ := messages.Lookup(93)

	r := messages.NewRegistry()
	for _, key := range []int16{513, 10000} {
		if err := r.Register(vendor[key]); err != nil {
			t.Fatalf("key %d: %v", key, err)
		}
	}
	// Without the explicit call the collision stays an error, and the
	// registry is as it was.
	err := r.Register(vendor[93])
	if err == nil || !strings.Contains(err.Error(), "register DisklessCommit: key 93 is StreamsGroupTopologyDescriptionUpdate already") {
		t.Fatalf("Register of key 93: %v", err)
	}
	if a, _ := r.Lookup(93); a.Name != "StreamsGroupTopologyDescriptionUpdate" {
		t.Fatalf("after a refused Register, key 93 is %s", a.Name)
	}
	if keys := r.ReplacedKeys(); len(keys) != 0 {
		t.Fatalf("replaced keys %v before any Replace", keys)
	}

	// A free key is Register's, not Replace's.
	if _, err := r.Replace(vendor[99]); err == nil || !strings.Contains(err.Error(), "no API holds key 99") {
		t.Fatalf("Replace at a free key: %v", err)
	}

	c := r.Clone()
	prev, err := c.Replace(vendor[93])
	if err != nil {
		t.Fatal(err)
	}
	if prev.Name != apache.Name || prev.Key != 93 {
		t.Fatalf("Replace returned %s (%d), want %s", prev.Name, prev.Key, apache.Name)
	}
	if a, _ := c.Lookup(93); a.Name != "DisklessCommit" {
		t.Fatalf("after Replace, key 93 is %s", a.Name)
	}
	if was, ok := c.Replaced(93); !ok || was.Name != apache.Name {
		t.Fatalf("Replaced(93) = %s, %v", was.Name, ok)
	}
	if _, ok := c.Replaced(99); ok {
		t.Fatal("Replaced(99): key 99 was registered, not replaced")
	}
	// Replacing again keeps the first holder as the one replaced; a
	// Register afterwards keeps the record.
	if _, err := c.Replace(vendor[93]); err != nil {
		t.Fatal(err)
	}
	if err := c.Register(vendor[99]); err != nil {
		t.Fatal(err)
	}
	if was, _ := c.Replaced(93); was.Name != apache.Name || !slices.Equal(c.ReplacedKeys(), []int16{93}) {
		t.Fatalf("after a second Replace and a Register: Replaced(93) = %s, keys %v", was.Name, c.ReplacedKeys())
	}
	if n := len(c.APIs()); n != len(r.APIs())+1 {
		t.Fatalf("%d APIs after replacing one and adding one to %d", n, len(r.APIs()))
	}
	// The registry it was cloned from, and Default, are untouched.
	for _, reg := range []*messages.Registry{r, messages.Default} {
		if a, _ := reg.Lookup(93); a.Name != apache.Name || len(reg.ReplacedKeys()) != 0 {
			t.Fatalf("a registry Replace did not act on has key 93 = %s, replaced %v", a.Name, reg.ReplacedKeys())
		}
	}

	// The dialect reads the vendor's frame at 93, and its Versions table
	// offers the vendor's versions.
	frame := vendorFrame(t, vendor[93], 0)
	_, body, err := c.ReadRequest(frame)
	if err != nil {
		t.Fatal(err)
	}
	if got := reflect.ValueOf(body).Elem().FieldByName("ObjectKey").String(); got != "wal/0001" {
		t.Fatalf("ObjectKey %q", got)
	}
	var at93 []kwire.APIVersionRange
	for _, v := range c.Versions(false) {
		if v.APIKey == 93 || v.APIKey == 99 || v.APIKey == 513 || v.APIKey == 10000 {
			at93 = append(at93, v)
		}
	}
	if want := []kwire.APIVersionRange{{APIKey: 93}, {APIKey: 99}, {APIKey: 513}, {APIKey: 10000, MaxVersion: 1}}; !slices.Equal(at93, want) {
		t.Fatalf("the dialect's versions of the vendor keys: %v, want %v", at93, want)
	}
}

// vendorFrame is a request frame of api at version, its fields set by
// name where the vendor schemas have them.
func vendorFrame(t *testing.T, api messages.API, version int16) []byte {
	t.Helper()
	msg := api.NewRequest()
	v := reflect.ValueOf(msg).Elem()
	if f := v.FieldByName("ObjectKey"); f.IsValid() {
		f.SetString("wal/0001")
	}
	if f := v.FieldByName("BrokerId"); f.IsValid() {
		f.SetInt(3)
	}
	frame, err := kwire.AppendRequest(nil, msg, version, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	return frame
}

// TestHeaderTableAgreesWithKafka: the header table each generated struct
// states (written by kwire gen from messages/schemas' headerVersions)
// against Kafka's derivation, kwire.RequestHeaderVersion and
// ResponseHeaderVersion, for every API and version of the shipped set;
// and the registry answers the same.
func TestHeaderTableAgreesWithKafka(t *testing.T) {
	n := 0
	for _, a := range messages.APIs() {
		req, err := kwire.MessageInfoOf(a.NewRequest())
		if err != nil {
			t.Fatal(err)
		}
		resp, err := kwire.MessageInfoOf(a.NewResponse())
		if err != nil {
			t.Fatal(err)
		}
		for v := a.MinVersion; v <= a.MaxVersion; v++ {
			wantReq, wantResp := kwire.RequestHeaderVersion(a.Key, v, a.IsFlexible(v)), kwire.ResponseHeaderVersion(a.Key, a.IsFlexible(v))
			if got := req.RequestHeaders.At(v); got != wantReq {
				t.Errorf("%s v%d: request header v%d in the table, v%d derived", a.Name, v, got, wantReq)
			}
			if got := resp.ResponseHeaders.At(v); got != wantResp {
				t.Errorf("%s v%d: response header v%d in the table, v%d derived", a.Name, v, got, wantResp)
			}
			rq, rs, ok := messages.Default.HeaderVersions(a.Key, v)
			if !ok || rq != wantReq || rs != wantResp {
				t.Errorf("%s v%d: the registry says request v%d, response v%d", a.Name, v, rq, rs)
			}
			n++
		}
	}
	if n != 736/2 {
		t.Errorf("%d API versions checked, the shipped set has 368", n)
	}
	t.Logf("%d API versions: request and response header agree with the derivation", n)
}

// TestKIP1313Fixture: the KIP-1313 fixture set (gen/testdata/kip1313:
// request header v3 and OffsetDelete v1 on it) as a dialect of the
// shipped set. An OffsetDelete v1 request with a ClientInstanceId reads
// back with header v3 and the id, and writes back byte for byte; its body
// is the shipped OffsetDelete v0's, byte for byte, behind a longer header.
func TestKIP1313Fixture(t *testing.T) {
	apis := vendorAPIs(t, "../gen/testdata/kip1313")
	reg := messages.Default.Clone()
	if _, err := reg.Replace(apis[47]); err != nil {
		t.Fatal(err)
	}
	if rq, rs, _ := reg.HeaderVersions(47, 1); rq != 3 || rs != 0 {
		t.Fatalf("OffsetDelete v1 travels with request header v%d, response v%d", rq, rs)
	}
	shipped := &messages.OffsetDeleteRequest{GroupID: "g", Topics: []messages.OffsetDeleteRequestTopic{{Name: "t", Partitions: []messages.OffsetDeleteRequestPartition{{PartitionIndex: 3}}}}}
	client := "kip1313-client"
	id := kwire.UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	v0, err := kwire.AppendRequest(nil, shipped, 0, 9, &client)
	if err != nil {
		t.Fatal(err)
	}

	// The same body in the fixture's run-time type, at v1.
	_, body, err := reg.ReadRequest(v0)
	if err != nil {
		t.Fatal(err)
	}
	frame, err := kwire.AppendRequestWithHeader(nil, kwire.RequestHeader{APIVersion: 1, CorrelationID: 9, ClientID: &client, ClientInstanceID: id}, body)
	if err != nil {
		t.Fatal(err)
	}
	h, got, err := reg.ReadRequest(frame)
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != 3 || h.ClientInstanceID != id || h.APIVersion != 1 || *h.ClientID != client {
		t.Fatalf("header %+v", h)
	}
	again, err := kwire.AppendRequestWithHeader(nil, h, got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, frame) {
		t.Fatalf("written back:\n%x\nread:\n%x", again, frame)
	}
	// Header v1 (v0's) is 8+2+len(client) bytes; v3 adds the tagged
	// section: a count, the tag, the size and the 16 bytes.
	headerV1 := 4 + 8 + 2 + len(client)
	if !bytes.Equal(frame[headerV1+1+1+1+16:], v0[headerV1:]) || !bytes.Equal(frame[4:headerV1], append([]byte{0, 47, 0, 1}, v0[8:headerV1]...)) {
		t.Fatalf("v1 on header v3 is not v0's body behind a v3 header:\n%x\n%x", frame, v0)
	}
	t.Logf("OffsetDelete v1 on request header v3: %d bytes, round trip byte for byte: %x", len(frame), frame)

	// The shipped registry does not know v1.
	if _, _, err := messages.ReadRequest(frame); !errors.Is(err, kwire.ErrUnsupportedVersion) {
		t.Fatalf("the shipped registry reads OffsetDelete v1: %v", err)
	}
}
