package record

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// assertRecords compares read records with the built ones. With baseOffset
// >= 0 offsets must count from it; with exactOffsets, want's own Offset
// and Timestamp fields are compared instead.
func assertRecords(t testing.TB, got, want []Record, baseOffset int64, exactOffsets bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := &got[i], &want[i]
		wantOffset := baseOffset + int64(i)
		if exactOffsets {
			wantOffset = w.Offset
		}
		if g.Offset != wantOffset || g.Timestamp != w.Timestamp {
			t.Fatalf("record %d: offset %d timestamp %d, want %d and %d", i, g.Offset, g.Timestamp, wantOffset, w.Timestamp)
		}
		if !sameBytes(g.Key, w.Key) || !sameBytes(g.Value, w.Value) {
			t.Fatalf("record %d: key %q value %.40q, want %q and %.40q", i, g.Key, g.Value, w.Key, w.Value)
		}
		if len(g.Headers) != len(w.Headers) {
			t.Fatalf("record %d: %d headers, want %d", i, len(g.Headers), len(w.Headers))
		}
		for j := range w.Headers {
			if g.Headers[j].Key != w.Headers[j].Key || !sameBytes(g.Headers[j].Value, w.Headers[j].Value) {
				t.Fatalf("record %d header %d: %+v, want %+v", i, j, g.Headers[j], w.Headers[j])
			}
		}
	}
}

// sameBytes is bytes.Equal that also tells null from empty.
func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// fixBatchLengthAndCRC rewrites a hand-edited v2 batch's length and CRC.
func fixBatchLengthAndCRC(batch []byte) {
	binary.BigEndian.PutUint32(batch[8:], uint32(len(batch)-12))
	binary.BigEndian.PutUint32(batch[17:], crc32.Checksum(batch[21:], crc32.MakeTable(crc32.Castagnoli)))
}
