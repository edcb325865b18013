package kwire_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

// A request whose non-flexible v1 travels with header v2, as a schema's
// headerVersions may say (the rules ask a flexible body for a flexible
// header, not the other way round).
type statedHeaders struct {
	_           struct{} `kafka:"api=1000,versions=0-2,flexible=2+,reqheader=0:1/1+:2,respheader=0-1:0/2+:1"`
	N           int32    `kafka:"v=0+"`
	UnknownTags kwire.UnknownTags
}

type derivedHeaders struct {
	_ struct{} `kafka:"api=7,versions=0-3,flexible=3+"`
	N int32    `kafka:"v=0+"`
}

func TestHeaderVersionsStated(t *testing.T) {
	info, err := kwire.MessageInfoOf(&statedHeaders{})
	require.NoError(t, err)
	open := int16(math.MaxInt16)
	assert.Equal(t, kwire.HeaderVersions{{Versions: kwire.VersionRange{Min: 0, Max: 0}, Header: 1}, {Versions: kwire.VersionRange{Min: 1, Max: open}, Header: 2}}, info.RequestHeaders)
	assert.Equal(t, "0-1:0/2+:1", info.ResponseHeaders.String())

	// The table chooses the header AppendRequest writes and ReadRequest
	// reads: v1 has the tagged-field byte after the client id.
	client := "c"
	for v, want := range map[int16]int16{0: 1, 1: 2, 2: 2} {
		frame, err := kwire.AppendRequest(nil, &statedHeaders{N: 5}, v, 9, &client)
		require.NoError(t, err)
		wantLen := 4 + 8 + 2 + 1 + 4
		if want == 2 {
			wantLen++ // the header's tag section
		}
		if v == 2 {
			wantLen++ // the body's
		}
		assert.Len(t, frame, wantLen, "v%d", v)
		var body statedHeaders
		h, _, err := new(kwire.Decoder).ReadRequest(frame, func(int16, int16) (any, error) { return &body, nil })
		require.NoError(t, err, "v%d", v)
		assert.Equal(t, want, h.Version, "v%d", v)
		assert.Equal(t, int32(5), body.N)

		resp, err := kwire.AppendResponse(nil, &statedHeaders{N: 6}, v, 9)
		require.NoError(t, err)
		var got statedHeaders
		rh, err := kwire.ReadResponse(resp, &got, v)
		require.NoError(t, err)
		assert.Equal(t, info.ResponseHeaders.At(v), rh.Version, "v%d", v)
	}
}

func TestHeaderVersionsDerived(t *testing.T) {
	info, err := kwire.MessageInfoOf(&derivedHeaders{})
	require.NoError(t, err)
	assert.Equal(t, "0:0/1-2:1/3+:2", info.RequestHeaders.String())
	assert.Equal(t, "0-2:0/3+:1", info.ResponseHeaders.String())
	for v := int16(0); v <= 3; v++ {
		assert.Equal(t, kwire.RequestHeaderVersion(7, v, v >= 3), info.RequestHeaders.At(v))
		assert.Equal(t, kwire.ResponseHeaderVersion(7, v >= 3), info.ResponseHeaders.At(v))
	}
}

// Each rule a schema's headerVersions is held to, broken once on the
// _ field; the error names the key and the range.
func TestHeaderVersionsRefused(t *testing.T) {
	type (
		notFromZero struct {
			_ struct{} `kafka:"api=1000,versions=0-3,reqheader=1+:1"`
		}
		gap struct {
			_ struct{} `kafka:"api=1000,versions=0-3,reqheader=0:1/2+:1"`
		}
		overlap struct {
			_ struct{} `kafka:"api=1000,versions=0-3,reqheader=0-2:1/2+:1"`
		}
		closed struct {
			_ struct{} `kafka:"api=1000,versions=0-3,reqheader=0-1:1/2-3:1"`
		}
		decreasing struct {
			_ struct{} `kafka:"api=1000,versions=0-3,reqheader=0-1:2/2+:1"`
		}
		noSuchRequestHeader struct {
			_ struct{} `kafka:"api=1000,versions=0-3,reqheader=0+:4"`
		}
		noSuchResponseHeader struct {
			_ struct{} `kafka:"api=1000,versions=0-3,respheader=0+:2"`
		}
		flexibleOnOldHeader struct {
			_ struct{} `kafka:"api=1000,versions=0-3,flexible=2+,reqheader=0+:1"`
		}
		apiVersionsNotPinned struct {
			_ struct{} `kafka:"api=18,versions=0-4,flexible=3+,respheader=0-2:0/3+:1"`
		}
		noHeader struct {
			_ struct{} `kafka:"api=1000,versions=0-3,reqheader=0+"`
		}
	)
	for _, c := range []struct {
		msg  any
		want string
	}{
		{&notFromZero{}, `key "reqheader": the table starts at version 1 (1+): it must start at version 0`},
		{&gap{}, `key "reqheader": versions 1 are in no range (between 0 and 2+)`},
		{&overlap{}, `key "reqheader": ranges 0-2 and 2+ overlap or are out of order`},
		{&closed{}, `key "reqheader": the last range 2-3 must be open-ended (2+)`},
		{&decreasing{}, `key "reqheader": header v1 for 2+ is below v2 for 0-1: header versions never decrease`},
		{&noSuchRequestHeader{}, `key "reqheader": 0+: header v4 is not a version of RequestHeader (kwire reads 0-3)`},
		{&noSuchResponseHeader{}, `key "respheader": 0+: header v2 is not a version of ResponseHeader (kwire reads 0-1)`},
		{&flexibleOnOldHeader{}, `key "reqheader": 0+: v2 is flexible (flexible=2+) but RequestHeader v1 is not (flexible from v2)`},
		{&apiVersionsNotPinned{}, `key "respheader": 3+: ApiVersions responses use response header v0 only, not v1`},
		{&noHeader{}, `key "reqheader": entry "0+": want RANGE:HEADER`},
	} {
		err := kwire.Validate(c.msg)
		if assert.Error(t, err, "%T", c.msg) {
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.Contains(err.Error(), "._: invalid kafka struct tag"), err.Error())
		}
	}
}

// A request on header v3 (KIP-1313), as a schema set that defines it
// maps one: v2 and a tagged ClientInstanceId.
type onHeaderV3 struct {
	_ struct{} `kafka:"api=1000,versions=0-1,reqheader=0:1/1+:3"`
	N int32    `kafka:"v=0+"`
}

// TestRequestHeaderV3 writes and reads header v3 against bytes written
// out by hand from KIP-1313's description: the v2 header, then a tagged
// section holding ClientInstanceId at kwire.ClientInstanceIDTag. Without
// the id the header is byte for byte a v2 one.
func TestRequestHeaderV3(t *testing.T) {
	client := "app"
	id := kwire.UUID{0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0}
	want := []byte{
		0, 0, 0, 36, // size
		0x03, 0xe8, 0, 1, 0, 0, 0, 42, // key 1000, v1, correlation id 42
		0, 3, 'a', 'p', 'p', // client id, a classic string
		1, kwire.ClientInstanceIDTag, 16, // one tagged field: tag, size
		0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0,
		0, 0, 0, 7, // N
	}
	h := kwire.RequestHeader{APIVersion: 1, CorrelationID: 42, ClientID: &client, ClientInstanceID: id}
	frame, err := kwire.AppendRequestWithHeader(nil, h, &onHeaderV3{N: 7})
	require.NoError(t, err)
	assert.Equal(t, want, frame)

	var body onHeaderV3
	got, _, err := kwire.ReadRequest(frame, func(int16, int16) (any, error) { return &body, nil })
	require.NoError(t, err)
	assert.Equal(t, int16(3), got.Version)
	assert.Equal(t, id, got.ClientInstanceID)
	assert.Zero(t, got.UnknownTags.Len(), "the id is not an unknown field")
	again, err := kwire.AppendRequestWithHeader(nil, got, &body)
	require.NoError(t, err)
	assert.Equal(t, frame, again, "read and written back byte for byte")

	// Later requests leave the id out: the bytes of a v2 header.
	plain, err := kwire.AppendRequest(nil, &onHeaderV3{N: 7}, 1, 42, &client)
	require.NoError(t, err)
	v2 := append(append([]byte{0, 0, 0, 18}, want[4:17]...), 0, 0, 0, 0, 7)
	assert.Equal(t, v2, plain)
	got, _, err = kwire.ReadRequest(plain, func(int16, int16) (any, error) { return &body, nil })
	require.NoError(t, err)
	assert.Equal(t, int16(3), got.Version)
	assert.Zero(t, got.ClientInstanceID)

	// A ClientInstanceId that is not 16 bytes is refused, naming it.
	bad := append([]byte(nil), want...)
	bad[19] = 15
	bad = append(bad[:36], bad[37:]...)
	bad[3]--
	_, _, err = kwire.ReadRequest(bad, func(int16, int16) (any, error) { return &body, nil })
	assert.ErrorIs(t, err, kwire.ErrBadTag)
	assert.ErrorContains(t, err, "ClientInstanceID")

	// Unknown tags around it keep their order.
	h.UnknownTags = kwire.NewUnknownTags(kwire.TaggedField{Tag: 5, Data: []byte{1}})
	frame, err = kwire.AppendRequestWithHeader(nil, h, &onHeaderV3{N: 7})
	require.NoError(t, err)
	got, _, err = kwire.ReadRequest(frame, func(int16, int16) (any, error) { return &body, nil })
	require.NoError(t, err)
	assert.Equal(t, id, got.ClientInstanceID)
	assert.Equal(t, []kwire.TaggedField{{Tag: 5, Data: []byte{1}}}, got.UnknownTags.Fields())
}

// TestTraceRequestHeaderV3: the layout tree of a header v3 names the
// ClientInstanceId it carries (a UUID), as decode shows it, rather than
// as an unknown tag's bytes; another tag there stays unknown bytes.
func TestTraceRequestHeaderV3(t *testing.T) {
	client := "app"
	id := kwire.UUID{0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0}
	h := kwire.RequestHeader{APIVersion: 1, CorrelationID: 42, ClientID: &client, ClientInstanceID: id,
		UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 5, Data: []byte{1}})}
	frame, err := kwire.AppendRequestWithHeader(nil, h, &onHeaderV3{N: 7})
	require.NoError(t, err)
	root, err := kwire.TraceRequest(frame, func(int16, int16) (any, error) { return &onHeaderV3{}, nil })
	require.NoError(t, err)
	tree := root.Format()
	assert.Contains(t, tree, "RequestHeader v3 ")
	assert.Contains(t, tree, "+-- tag 0 tagged field [0x0012, 18B]\n")
	assert.Contains(t, tree, "client_instance_id uuid = a1a2a3a4-a5a6-a7a8-a9aa-abacadaeafb0 [0x0014, 16B]\n")
	assert.Contains(t, tree, "unknown bytes = 01 [")
}

// TestTrackerKeepsTheConnectionsClientIDs: a KIP-1313 client sends its
// client id and ClientInstanceId on the first request only; the tracker
// hands both back with every later request's response.
func TestTrackerKeepsTheConnectionsClientIDs(t *testing.T) {
	info, err := kwire.MessageInfoOf(&onHeaderV3{})
	require.NoError(t, err)
	tr := kwire.NewTracker(8, func(int16, int16) (any, error) { return &onHeaderV3{}, nil })
	tr.SetRequestHeaders(func(key, v int16) (int16, bool) { return info.RequestHeaders.At(v), key == 1000 })

	client := "app"
	id := kwire.UUID{9: 1}
	first, err := kwire.AppendRequestWithHeader(nil, kwire.RequestHeader{APIVersion: 1, CorrelationID: 1, ClientID: &client, ClientInstanceID: id}, &onHeaderV3{})
	require.NoError(t, err)
	later, err := kwire.AppendRequest(nil, &onHeaderV3{}, 1, 2, nil)
	require.NoError(t, err)
	for _, f := range [][]byte{first, later} {
		_, err := tr.Request(f)
		require.NoError(t, err)
	}
	for corr := int32(1); corr <= 2; corr++ {
		resp, err := kwire.AppendResponse(nil, &onHeaderV3{}, 1, corr)
		require.NoError(t, err)
		req, err := tr.Response(resp)
		require.NoError(t, err)
		require.NotNil(t, req.ClientID, "request %d", corr)
		assert.Equal(t, client, *req.ClientID)
		assert.Equal(t, id, req.ClientInstanceID)
	}
}
