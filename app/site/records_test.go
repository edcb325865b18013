package site

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// A records field's bytes are coloured as the legend says: the batch
// header RecordBatch, each record Record, the length prefix body.
func TestRecordsAreOpenedAndColoured(t *testing.T) {
	batch, err := record.Build([]record.Record{{Key: []byte("k"), Value: []byte("value")}, {Value: []byte("v2")}})
	require.NoError(t, err)
	second, err := record.Build(nil)
	require.NoError(t, err)
	records := append(append([]byte{}, batch...), second...)
	for _, version := range []int16{3, 9} { // int32 and compact length prefixes
		msg := &messages.ProduceRequest{TopicData: []messages.ProduceRequestTopicProduceData{{Name: "t",
			PartitionData: []messages.ProduceRequestPartitionProduceData{{Records: records}}}}}
		frame, tree, err := kwire.LayoutRequest(msg, version, 0, nil)
		require.NoError(t, err)
		require.NoError(t, openRecords(tree, frame))
		cats := categorize(tree, len(frame), false)

		field := findNode(tree, func(n *kwire.LayoutNode) bool { return n.Type == "records" })
		require.NotNil(t, field)
		require.Len(t, field.Children, 3, "v%d: the length and two batches", version)
		length, b0, b1 := field.Children[0], field.Children[1], field.Children[2]
		assert.Equal(t, field.Offset, length.Offset)
		assert.Equal(t, field.Offset+field.Size-len(records), b0.Offset, "v%d: the batches follow the prefix", version)
		assert.Equal(t, len(batch), b0.Size)
		assert.Equal(t, b0.Offset+b0.Size, b1.Offset)
		assert.Equal(t, 61, b1.Size)
		assert.Equal(t, "v2, 2 records", b0.Value)

		for i := length.Offset; i < length.Offset+length.Size; i++ {
			assert.Equal(t, CatRequestBody, cats[i], "v%d: length byte %d", version, i)
		}
		for i := b0.Offset; i < b0.Offset+61; i++ {
			assert.Equal(t, CatRecordBatch, cats[i], "v%d: batch header byte %d", version, i)
		}
		recs := b0.Children[len(batchHeader):]
		require.Len(t, recs, 2)
		assert.Equal(t, b0.Offset+61, recs[0].Offset)
		assert.Equal(t, recs[0].Offset+recs[0].Size, recs[1].Offset)
		assert.Equal(t, b0.Offset+b0.Size, recs[1].Offset+recs[1].Size, "the records fill the batch")
		for i := recs[0].Offset; i < b0.Offset+b0.Size; i++ {
			assert.Equal(t, CatRecord, cats[i], "v%d: record byte %d", version, i)
		}
		assert.Equal(t, "2", findNode(b0, func(n *kwire.LayoutNode) bool { return n.Name == "recordCount" }).Value)
	}
}

// A null records field stays one leaf.
func TestNullRecordsStayWhole(t *testing.T) {
	for _, version := range []int16{3, 9} {
		msg := &messages.ProduceRequest{TopicData: []messages.ProduceRequestTopicProduceData{{
			PartitionData: []messages.ProduceRequestPartitionProduceData{{Records: nil}}}}}
		frame, tree, err := kwire.LayoutRequest(msg, version, 0, nil)
		require.NoError(t, err)
		require.NoError(t, openRecords(tree, frame))
		field := findNode(tree, func(n *kwire.LayoutNode) bool { return n.Type == "records" })
		require.NotNil(t, field)
		assert.Empty(t, field.Children, "v%d", version)
	}
}

// The site's Produce and Fetch pages colour the minimal instance's empty
// 61-byte batch as RecordBatch.
func TestSitePagesColourTheBatch(t *testing.T) {
	for _, c := range []struct {
		key      int16
		version  int16
		response bool
	}{{0, 9, false}, {0, 3, false}, {1, 12, true}} {
		api, _ := messages.Lookup(c.key)
		p := parseFile(t, siteDir+"/"+PageFile(api, c.version))
		side := p.sides[0]
		if c.response {
			side = p.sides[1]
		}
		n := 0
		for _, cell := range side.cells {
			if cell.class == CatRecordBatch.Class() {
				n++
			}
		}
		assert.Equal(t, 61, n, "%s v%d", api.Name, c.version)
	}
}
