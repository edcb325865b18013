package record

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"testing"
)

// FuzzReadRecords decodes arbitrary bytes as a record set. Nothing may
// panic, loop, or read past the input; whatever decodes must re-encode and
// decode to the same records. Run longer with:
//
//	go test ./kwire/record -run '^$' -fuzz FuzzReadRecords -fuzztime 5m
func FuzzReadRecords(f *testing.F) {
	seeds := [][]byte{
		golden(f),
		mustBuild(f, nil),
		mustBuild(f, goldenRecords, WithCodec(CodecGzip)),
		mustBuild(f, goldenRecords, WithCodec(CodecSnappy)),
		mustBuild(f, goldenRecords, WithCodec(CodecLZ4)),
		// The second LZ4 batch of a Reader is decoded into a guessed size.
		append(mustBuild(f, goldenRecords, WithCodec(CodecLZ4)), mustBuild(f, goldenRecords[:1], WithCodec(CodecLZ4))...),
		mustBuild(f, goldenRecords, WithCodec(CodecZstd)),
		mustBuild(f, []Record{{Key: []byte("k"), Value: []byte("v")}, {}}, WithMagic(0)),
		mustBuild(f, []Record{{Key: []byte("k"), Value: []byte("v")}, {}}, WithMagic(1), WithCodec(CodecSnappy)),
		mustBuild(f, []Record{{Value: []byte("v")}}, WithMagic(0), WithCodec(CodecGzip)),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Random bytes rarely carry a right CRC; decoding a copy with the
		// CRCs set right lets the fuzzer reach the records.
		fuzzDecode(t, data)
		fuzzDecode(t, withFixedCRCs(data))
	})
}

func fuzzDecode(t *testing.T, data []byte) {
	r := NewReader(data)
	r.MaxDecompressedSize = 1 << 20
	for {
		b, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			expectTypedError(t, err)
			return
		}
		if r.Offset() > len(data) {
			t.Fatalf("offset %d past %d bytes", r.Offset(), len(data))
		}
		recs, err := b.Records()
		if err != nil {
			expectTypedError(t, err)
			continue
		}
		checkIterationMatches(t, b, recs)
		if b.Attributes.Control() && len(recs) > 0 {
			_, _ = recs[0].ControlKey()
			_, _ = ParseEndTxnMarker(recs[0].Value)
		}
		checkRebuild(t, b, recs)
	}
}

// checkIterationMatches reads b again without materialising, through
// RecordWithoutHeaders and Headers, and compares with what Records gave.
func checkIterationMatches(t *testing.T, b *Batch, recs []Record) {
	it := b.Iter()
	i := 0
	for ; it.Next(); i++ {
		if i >= len(recs) {
			t.Fatalf("iteration yields more than the %d records of Records", len(recs))
		}
		r, want := it.RecordWithoutHeaders(), &recs[i]
		if r.Offset != want.Offset || r.Timestamp != want.Timestamp || r.Attributes != want.Attributes || !sameBytes(r.Key, want.Key) || !sameBytes(r.Value, want.Value) {
			t.Fatalf("record %d: iterated %+v, Records gave %+v", i, r, want)
		}
		h := it.Headers()
		if h.Len() != len(want.Headers) {
			t.Fatalf("record %d: %d headers, Records gave %d", i, h.Len(), len(want.Headers))
		}
		for j := 0; h.Next(); j++ {
			if string(h.Key()) != want.Headers[j].Key || !sameBytes(h.Value(), want.Headers[j].Value) {
				t.Fatalf("record %d header %d differs", i, j)
			}
		}
	}
	if it.Err() != nil || i != len(recs) {
		t.Fatalf("iteration: %d records, err %v; Records gave %d", i, it.Err(), len(recs))
	}
}

func expectTypedError(t *testing.T, err error) {
	if _, ok := err.(*Error); !ok {
		t.Fatalf("error of type %T: %v", err, err)
	}
}

// withFixedCRCs copies data with each complete entry's CRC recomputed.
func withFixedCRCs(data []byte) []byte {
	out := append([]byte(nil), data...)
	for pos := 0; len(out)-pos > magicPos; {
		n := int(int32(binary.BigEndian.Uint32(out[pos+8:])))
		if n < 0 || n > len(out)-pos-entryOverhead || n <= magicPos-entryOverhead {
			break
		}
		entry := out[pos : pos+entryOverhead+n]
		switch entry[magicPos] {
		case 2:
			if len(entry) >= batchHeaderLen {
				binary.BigEndian.PutUint32(entry[batchCRCPos:], crc32.Checksum(entry[batchAttrsPos:], castagnoli))
			}
		case 0, 1:
			binary.BigEndian.PutUint32(entry[legacyCRCPos:], crc32.ChecksumIEEE(entry[legacyMagicPos:]))
		}
		pos += len(entry)
	}
	return out
}

// checkRebuild builds the decoded records again in b's format and reads
// them back.
func checkRebuild(t *testing.T, b *Batch, recs []Record) {
	opts := []Option{WithMagic(b.Magic), WithBaseOffset(b.BaseOffset)}
	// The builder numbers offsets consecutively and, with LogAppendTime,
	// gives every record one timestamp: skip what it cannot reproduce.
	if b.Attributes.TimestampType() == LogAppendTime || !consecutive(b, recs) {
		return
	}
	data, err := Build(recs, opts...)
	if err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	batches, _, err := ReadBatches(data)
	if err != nil {
		t.Fatalf("reread: %v", err)
	}
	var again []Record
	for _, nb := range batches {
		rs, err := nb.Records()
		if err != nil {
			t.Fatalf("reread records: %v", err)
		}
		again = append(again, rs...)
	}
	assertRecords(t, again, recs, -1, true)
}

// consecutive reports whether recs have offsets BaseOffset, +1, ... as the
// builder would give them.
func consecutive(b *Batch, recs []Record) bool {
	for i := range recs {
		if recs[i].Offset != b.BaseOffset+int64(i) {
			return false
		}
	}
	return true
}

func mustBuild(t testing.TB, records []Record, opts ...Option) []byte {
	t.Helper()
	b, err := Build(records, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
