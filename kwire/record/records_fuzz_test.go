package record

import (
	"fmt"
	"io"
	"testing"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// FuzzRecordsAgreeIter reads arbitrary bytes with Records and with an
// Iter walk through Record, and requires the same records, headers (null
// and empty values told apart), count and error. The headers Records
// returns must not share elements, and appending to one record's must
// leave the others alone. With raw, data is a v2 records section read as
// a batch of n records; else a record set read through a Reader, with
// the CRCs made right.
//
//	go test ./kwire/record -run '^$' -fuzz FuzzRecordsAgreeIter -fuzztime 1000000x
func FuzzRecordsAgreeIter(f *testing.F) {
	for _, recs := range parserSeeds() {
		data := mustBuild(f, recs)
		f.Add(data, uint8(0), uint8(0), false, false)
		b, err := NewReader(data).Next()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b.records, uint8(len(recs)), uint8(50), false, true)
		f.Add(b.records, uint8(len(recs)), uint8(3), true, true)
		f.Add(b.records, uint8(len(recs)+1), uint8(0), false, true)
		f.Add(append(append([]byte(nil), b.records...), 0), uint8(len(recs)), uint8(0), false, true)
	}
	f.Add(claimedHeadersRecord(8191), uint8(1), uint8(0), false, true)
	for _, s := range [][]byte{
		mustBuild(f, goldenRecords, WithCodec(CodecGzip)),
		mustBuild(f, []Record{{Key: []byte("k"), Value: []byte("v")}, {}}, WithMagic(0)),
		mustBuild(f, []Record{{Key: []byte("k"), Value: []byte("v")}, {}}, WithMagic(1), WithCodec(CodecSnappy)),
	} {
		f.Add(s, uint8(0), uint8(0), false, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, n, maxHeaders uint8, logAppend, raw bool) {
		if raw {
			b := &Batch{Magic: 2, NumRecords: int32(n), BaseOffset: 100, BaseTimestamp: 1000, MaxTimestamp: 2000, records: data, maxHeaders: int(maxHeaders)}
			if logAppend {
				b.Attributes = attrLogAppendTime
			}
			recordsAgreeIter(t, b)
			return
		}
		r := NewReader(withFixedCRCs(data))
		r.MaxDecompressedSize = 1 << 20
		r.MaxHeaders = int(maxHeaders)
		for {
			b, err := r.Next()
			if err == io.EOF || err != nil {
				return
			}
			recordsAgreeIter(t, b)
		}
	})
}

func recordsAgreeIter(t *testing.T, b *Batch) {
	recs, err := b.Records()
	var walked []Record
	it := b.Iter()
	for it.Next() {
		walked = append(walked, *it.Record())
	}
	if fmt.Sprint(err) != fmt.Sprint(it.Err()) {
		t.Fatalf("Records: error %v; Iter: %v", err, it.Err())
	}
	if len(recs) != len(walked) {
		t.Fatalf("Records: %d records; Iter: %d", len(recs), len(walked))
	}
	for i := range recs {
		g, w := &recs[i], &walked[i]
		if g.Offset != w.Offset || g.Timestamp != w.Timestamp || g.Attributes != w.Attributes || !sameBytes(g.Key, w.Key) || !sameBytes(g.Value, w.Value) {
			t.Fatalf("record %d: Records %+v; Iter %+v", i, g, w)
		}
		if len(g.Headers) != len(w.Headers) || (g.Headers == nil) != (w.Headers == nil) || cap(g.Headers) != len(g.Headers) {
			t.Fatalf("record %d: Records %d headers (cap %d, nil %v); Iter %d (nil %v)", i, len(g.Headers), cap(g.Headers), g.Headers == nil, len(w.Headers), w.Headers == nil)
		}
		for j := range w.Headers {
			gh, wh := g.Headers[j], w.Headers[j]
			if gh.Key != wh.Key || !sameBytes(gh.Value, wh.Value) || cap(gh.Value) != len(gh.Value) {
				t.Fatalf("record %d header %d: Records %q=%q; Iter %q=%q", i, j, gh.Key, gh.Value, wh.Key, wh.Value)
			}
		}
	}
	// No two records share a header, and appending to one touches no other.
	for i := range recs {
		_ = append(recs[i].Headers, Header{Key: "appended"})
		for j := range recs[i].Headers {
			recs[i].Headers[j].Key = fmt.Sprint("mark", i)
		}
	}
	for i := range recs {
		for j := range recs[i].Headers {
			if k := recs[i].Headers[j].Key; k != fmt.Sprint("mark", i) {
				t.Fatalf("record %d header %d is another record's (%q)", i, j, k)
			}
		}
	}
}

// claimedHeadersRecord is a records section of one record, null key and
// value, whose header count claims n headers that are not there.
func claimedHeadersRecord(n int32) []byte {
	rec := wire.AppendVarint(wire.AppendVarint([]byte{0, 0, 0}, -1), -1)
	rec = wire.AppendVarint(rec, n)
	return append(wire.AppendVarint(nil, int32(len(rec))), rec...)
}

// Records sizes a header array only from headers that have been checked:
// a record claiming 8,191 headers in 8 bytes costs it nothing (it cost
// 656 KB at 1d194fd), and a record whose 9,000-byte header key takes the
// checked path costs no array beyond the one Records keeps.
func TestRecordsAllocateOnlyForCheckedHeaders(t *testing.T) {
	bomb := &Batch{Magic: 2, NumRecords: 1, records: claimedHeadersRecord(8191)}
	alloc, _ := allocated(func() {
		for range 100 {
			if _, err := bomb.Records(); err == nil {
				t.Fatal("accepted")
			}
		}
	})
	if per := alloc / 100; per > 1<<10 {
		t.Errorf("Records allocates %d bytes for an 8-byte records section claiming 8,191 headers", per)
	}

	recs := []Record{{Headers: []Header{{Key: string(make([]byte, 9000))}}}}
	for range 2000 {
		recs = append(recs, Record{Headers: []Header{{Key: "a", Value: []byte("v")}}})
	}
	b, err := NewReader(mustBuild(t, recs)).Next()
	if err != nil {
		t.Fatal(err)
	}
	alloc, _ = allocated(func() {
		if _, err := b.Records(); err != nil {
			t.Fatal(err)
		}
	})
	// The records, one array of 2,001 headers, the long key and "a".
	want := uint64(len(recs)*recordStructBytes + len(recs)*headerStructBytes + 9000 + 16)
	t.Logf("Records: %d bytes allocated; the records, headers and keys are %d", alloc, want)
	if alloc > want+want/8 {
		t.Errorf("Records allocates %d bytes, more than its result's %d and an eighth", alloc, want)
	}
}
