package site

import (
	"fmt"
	"strconv"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/kwire/wire"
)

// Node types of the records a records field holds; categorize colours by
// them.
const (
	typeRecordBatch = "RecordBatch"
	typeRecord      = "Record"
)

// The RecordBatch v2 header, field by field: names and widths are the
// wire format's (Kafka's DefaultRecordBatch). kwire/record reads the
// values; the page needs where each one sits.
var batchHeader = []struct {
	name, typ string
	size      int
}{
	{"baseOffset", "int64", 8}, {"batchLength", "int32", 4}, {"partitionLeaderEpoch", "int32", 4},
	{"magic", "int8", 1}, {"crc", "uint32", 4}, {"attributes", "int16", 2},
	{"lastOffsetDelta", "int32", 4}, {"baseTimestamp", "int64", 8}, {"maxTimestamp", "int64", 8},
	{"producerId", "int64", 8}, {"producerEpoch", "int16", 2}, {"baseSequence", "int32", 4},
	{"recordCount", "int32", 4},
}

// openRecords gives every records leaf of kwire's layout tree children:
// its length prefix, then each batch with its header fields and records,
// so that the page can colour RecordBatch and Record bytes.
func openRecords(n *kwire.LayoutNode, frame []byte) error {
	if n.Type == "records" && len(n.Children) == 0 {
		return openRecordsField(n, frame[n.Offset:n.Offset+n.Size])
	}
	for _, c := range n.Children {
		if err := openRecords(c, frame); err != nil {
			return err
		}
	}
	return nil
}

// openRecordsField splits a records field (length prefix and batches).
// The tracer has checked the prefix; which of the two encodings it is
// follows from the field's size: a compact prefix holds size-len(prefix)+1,
// an int32 one size-4.
func openRecordsField(n *kwire.LayoutNode, b []byte) error {
	prefix, lenType, lenValue := 0, "", ""
	if u, k := wire.ConsumeUvarint(b); k > 0 && int64(u) == int64(len(b)-k+1) {
		prefix, lenType, lenValue = k, "uvarint", fmt.Sprintf("%d (compact, n+1)", u)
	} else if len(b) >= 4 && int(wire.Int32(b)) == len(b)-4 {
		prefix, lenType, lenValue = 4, "int32", strconv.Itoa(len(b)-4)
	} else {
		return nil // null, or a prefix this view cannot place: leave the leaf whole
	}
	n.Children = append(n.Children, &kwire.LayoutNode{Name: "length", Type: lenType, Value: lenValue, Offset: n.Offset, Size: prefix})
	base := n.Offset + prefix
	set := b[prefix:]
	r := record.NewReader(set)
	for i := 0; ; i++ {
		start := r.Offset()
		batch, err := r.Next()
		if err != nil || batch == nil {
			break
		}
		n.Children = append(n.Children, batchNode(i, batch, base+start))
		batch.Release() // the nodes hold the header's values, not the records
	}
	if end := base + r.Offset(); end < n.Offset+n.Size {
		n.Children = append(n.Children, &kwire.LayoutNode{Name: "rest", Type: typeRecordBatch,
			Value: "bytes that do not read as a batch", Offset: end, Size: n.Offset + n.Size - end})
	}
	return nil
}

func batchNode(i int, b *record.Batch, off int) *kwire.LayoutNode {
	n := &kwire.LayoutNode{Name: fmt.Sprintf("RecordBatch[%d]", i), Type: typeRecordBatch, Offset: off, Size: len(b.Raw)}
	if b.Magic != 2 {
		n.Value = fmt.Sprintf("legacy message, magic %d", b.Magic)
		return n
	}
	n.Value = fmt.Sprintf("v2, %d records", b.NumRecords)
	pos := 0
	for _, f := range batchHeader {
		raw := b.Raw[pos : pos+f.size]
		n.Children = append(n.Children, &kwire.LayoutNode{Name: f.name, Type: f.typ, Value: fixedValue(f.typ, raw), Offset: off + pos, Size: f.size})
		pos += f.size
	}
	if b.Attributes.Codec() != record.CodecNone {
		if pos < len(b.Raw) {
			n.Children = append(n.Children, &kwire.LayoutNode{Name: "records", Type: typeRecord,
				Value: fmt.Sprintf("%d records, %s-compressed", b.NumRecords, b.Attributes.Codec()), Offset: off + pos, Size: len(b.Raw) - pos})
		}
		return n
	}
	for j := 0; pos < len(b.Raw); j++ {
		length, k := wire.ConsumeVarint(b.Raw[pos:])
		end := pos + k + int(length)
		if k <= 0 || length < 0 || end > len(b.Raw) {
			n.Children = append(n.Children, &kwire.LayoutNode{Name: "rest", Type: typeRecord, Value: "bytes that do not read as a record",
				Offset: off + pos, Size: len(b.Raw) - pos})
			break
		}
		rec := &kwire.LayoutNode{Name: fmt.Sprintf("Record[%d]", j), Type: typeRecord, Value: fmt.Sprintf("%d bytes", length), Offset: off + pos, Size: end - pos}
		rec.Children = append(rec.Children, &kwire.LayoutNode{Name: "length", Type: "varint", Value: strconv.FormatInt(int64(length), 10), Offset: off + pos, Size: k})
		if pos+k < end {
			rec.Children = append(rec.Children, &kwire.LayoutNode{Name: "body", Type: "bytes", Value: "attributes, deltas, key, value, headers",
				Offset: off + pos + k, Size: end - pos - k})
		}
		n.Children = append(n.Children, rec)
		pos = end
	}
	return n
}

func fixedValue(typ string, raw []byte) string {
	switch typ {
	case "int8":
		return strconv.Itoa(int(int8(raw[0])))
	case "int16":
		return strconv.Itoa(int(wire.Int16(raw)))
	case "int32":
		return strconv.Itoa(int(wire.Int32(raw)))
	case "uint32":
		return fmt.Sprintf("0x%08x", wire.Uint32(raw))
	}
	return strconv.FormatInt(wire.Int64(raw), 10)
}
