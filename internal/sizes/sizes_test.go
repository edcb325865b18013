package sizes

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/messages"
)

func TestTableRoundTripsThroughTSV(t *testing.T) {
	rows, err := Table()
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, WriteTSV(&b, rows))
	back, err := ReadTSV(&b)
	require.NoError(t, err)
	assert.Equal(t, rows, back)
}

func TestMeasureNotesPresenceMarkers(t *testing.T) {
	cgh, _ := messages.Lookup(68)
	r, err := Measure(cgh, 1)
	require.NoError(t, err)
	assert.Equal(t, Row{Key: 68, Name: "ConsumerGroupHeartbeat", Version: 1, Request: 55, Response: 51,
		Note: "response includes 1 presence marker (Assignment), which the reference page's counting leaves out: the page says 50, kwire writes 51 as Kafka does"}, r)

	// Markers inside array elements are named by their path.
	sgd, _ := messages.Lookup(89)
	r, err = Measure(sgd, 1)
	require.NoError(t, err)
	assert.Equal(t, "response includes 3 presence markers "+
		"(Groups[0].Topology, Groups[0].Members[0].UserEndpoint, Groups[0].TopologyDescription), which the reference page's counting leaves out", r.Note)

	// No nullable struct, no note.
	produce, _ := messages.Lookup(0)
	r, err = Measure(produce, 3)
	require.NoError(t, err)
	assert.Empty(t, r.Note)
}

func TestReadTSVErrors(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{"", "line 1: want the header"},
		{"key\tname\n", "line 1: want the header"},
		{Header + "\n0\tProduce\t0\t99\n", "line 2: 4 columns, want 6"},
		{Header + "\n0\tProduce\t0\t99\t32\t\nx\tFetch\t0\t1\t1\t\n", `line 3: "x" is not a size`},
		{Header + "\n0\tProduce\t-1\t99\t32\t\n", `line 2: "-1" is not a size`},
		{Header + "\n40000\tProduce\t0\t99\t32\t\n", "line 2: key or version out of int16 range"},
	} {
		_, err := ReadTSV(strings.NewReader(c.in))
		assert.ErrorContains(t, err, c.err, "%q", c.in)
	}
}
