package genapi_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/internal/genapi"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kwiretest"
	"github.com/kwirelabs/kwire/messages"
)

// TestGeneratedUpToDate is the -check of go generate: the files here are
// what kwire gen writes from schemas/.
func TestGeneratedUpToDate(t *testing.T) {
	res, err := gen.Generate(gen.Config{SchemaDirs: []string{"schemas"}, Package: "genapi",
		MessagesImport: gen.DefaultMessagesImport})
	require.NoError(t, err)
	assert.Equal(t, []gen.Warning{"API key 1002 has a request and no response: left out of the API table"}, res.Warnings)
	require.NoError(t, gen.CheckFiles(".", res.Files))
}

// TestGeneratedTypesValidateAndRoundTrip: generated structs go through the
// same tag validation as hand-written ones, and the test kit.
func TestGeneratedTypesValidateAndRoundTrip(t *testing.T) {
	for _, m := range []any{genapi.NewAuditRequest(), genapi.NewAuditResponse(), genapi.NewPingRequest(), genapi.NewAuditLogEntry()} {
		require.NoError(t, kwire.Validate(m), "%T", m)
		kwiretest.RoundTrip(t, m, kwiretest.Samples(20))
	}
	kwiretest.RoundTrip(t, &genapi.AuditRequest{Reason: "x", Topics: []genapi.AuditRequestTopic{{Name: "t", Partitions: []int32{1}}}})
}

// TestQuotedDefaultsSurvive: defaults with commas and quotes are written
// quoted in the tags, and decoding an old version fills them in.
func TestQuotedDefaultsSurvive(t *testing.T) {
	var e genapi.AuditLogEntry
	require.NoError(t, kwire.Unmarshal([]byte{0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0}, &e, 0))
	assert.Equal(t, "a,b", e.Note, "v0 lacks Note: its default")
	assert.Equal(t, `routine, "scheduled"`, genapi.NewAuditRequest().Reason)
	f, _ := reflect.TypeOf(genapi.AuditRequest{}).FieldByName("Reason")
	assert.Equal(t, `v=0+,default='routine, "scheduled"'`, f.Tag.Get("kafka"))
}

func TestGeneratedRegister(t *testing.T) {
	reg := messages.NewRegistry()
	require.NoError(t, genapi.Register(reg))
	api, ok := reg.Lookup(1001)
	require.True(t, ok)
	assert.Equal(t, "Audit", api.Name)
	_, ok = reg.Lookup(1002)
	assert.False(t, ok, "a request without a response is no API")

	req := genapi.NewAuditRequest()
	req.Topics = []genapi.AuditRequestTopic{{Name: "orders", Partitions: []int32{0, 1}}}
	frame, err := kwire.AppendRequest(nil, req, 2, 3, nil)
	require.NoError(t, err)
	_, body, err := reg.ReadRequest(frame)
	require.NoError(t, err)
	assert.Equal(t, req.Topics[0].Name, body.(*genapi.AuditRequest).Topics[0].Name)
	assert.EqualError(t, genapi.Register(reg), "messages: register Audit: key 1001 is Audit already (Replace puts a vendor's API in its place)")
}
