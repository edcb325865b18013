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
