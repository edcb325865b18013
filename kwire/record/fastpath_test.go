package record

import (
	"testing"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// FuzzFastPathAgrees steps two iterators over the same records section:
// one through fastV2, one through checkedV2 alone, the reader that names
// its failures. Whatever fastV2 accepts, checkedV2 must accept with the
// same record, headers and position (and, as Records has it build them,
// the headers HeaderIter reads); fastV2 may decline a record (it then
// goes on through checkedV2, as Next does), never accept a bad one.
//
//	go test ./kwire/record -run '^$' -fuzz FuzzFastPathAgrees -fuzztime 2000000x
func FuzzFastPathAgrees(f *testing.F) {
	for _, recs := range parserSeeds() {
		b, err := NewReader(mustBuild(f, recs)).Next()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b.records, uint8(len(recs)), false, uint8(50), false)
		f.Add(b.records, uint8(len(recs)), false, uint8(50), true)
		f.Add(b.records, uint8(len(recs)), true, uint8(1), true) // past the header limit
	}
	// A record with a byte after its headers: they check, the record does
	// not, and the fast path must keep none of them.
	b, err := NewReader(mustBuild(f, []Record{{Key: []byte("k"), Headers: []Header{{Key: "h", Value: []byte("v")}}}})).Next()
	if err != nil {
		f.Fatal(err)
	}
	length, n := wire.ConsumeVarint(b.records)
	f.Add(append(append(wire.AppendVarint(nil, length+1), b.records[n:]...), 0), uint8(1), false, uint8(50), true)
	f.Fuzz(func(t *testing.T, section []byte, n uint8, logAppend bool, maxHeaders uint8, collect bool) {
		// maxHeaders 0 is the default limit; small ones reach the refusal
		// of a header count past what the batch has left.
		b := &Batch{Magic: 2, NumRecords: int32(n), BaseOffset: 100, BaseTimestamp: 1000, MaxTimestamp: 2000, records: section, maxHeaders: int(maxHeaders)}
		if logAppend {
			b.Attributes = attrLogAppendTime
		}
		fast, checked := b.Iter(), b.Iter()
		fast.collect = collect // as Records reads: the headers built as they are checked
		for i := 0; i < int(n); i++ {
			slabBefore, lastBefore := fast.slab, fast.lastHeaders
			okFast, okChecked := fast.fastV2(&fast.rec), checked.checkedV2(&checked.rec)
			if !okFast && (!sameHeaders(fast.slab, slabBefore) || !sameHeaders(fast.lastHeaders, lastBefore)) {
				t.Fatalf("record %d: fastV2 failed but kept headers (slab %d -> %d)", i, len(slabBefore), len(fast.slab))
			}
			if okFast && !okChecked {
				t.Fatalf("record %d: fastV2 accepts what checkedV2 refuses (%s at %d)", i, checked.dec.failWhat, checked.dec.failPos)
			}
			if !okChecked {
				return
			}
			if !okFast && !fast.checkedV2(&fast.rec) {
				t.Fatalf("record %d: checkedV2 refuses at the fast iterator's position", i)
			}
			fr, cr := fast.rec, checked.rec
			if fr.Offset != cr.Offset || fr.Timestamp != cr.Timestamp || fr.Attributes != cr.Attributes ||
				!sameBytes(fr.Key, cr.Key) || !sameBytes(fr.Value, cr.Value) || cap(fr.Key) != len(fr.Key) || cap(fr.Value) != len(fr.Value) ||
				fast.stored != checked.stored || fast.dec.pos != checked.dec.pos || fast.headerCount != checked.headerCount ||
				fast.headersAt != checked.headersAt || fast.headersEnd != checked.headersEnd || fast.headersLeft != checked.headersLeft {
				t.Fatalf("record %d (fast path %v): fast %+v at %d, headers %d [%d:%d] left %d; checked %+v at %d, headers %d [%d:%d] left %d", i, okFast,
					fr, fast.dec.pos, fast.headerCount, fast.headersAt, fast.headersEnd, fast.headersLeft,
					cr, checked.dec.pos, checked.headerCount, checked.headersAt, checked.headersEnd, checked.headersLeft)
			}
			if h := fast.headerCount; okFast && collect && h > 0 {
				got, want := fast.slab[len(fast.slab)-h:], checked.appendHeaders(nil)
				if !fast.collected || len(got) != len(want) {
					t.Fatalf("record %d: collected %v, %d headers; HeaderIter reads %d", i, fast.collected, len(got), len(want))
				}
				for j := range want {
					if got[j].Key != want[j].Key || !sameBytes(got[j].Value, want[j].Value) || cap(got[j].Value) != len(got[j].Value) {
						t.Fatalf("record %d header %d: collected %q=%q, HeaderIter %q=%q", i, j, got[j].Key, got[j].Value, want[j].Key, want[j].Value)
					}
				}
			}
		}
	})
}

// sameHeaders reports whether a and b are the same slice: array, length
// and capacity.
func sameHeaders(a, b []Header) bool {
	return len(a) == len(b) && cap(a) == cap(b) && (cap(a) == 0 || &a[:1][0] == &b[:1][0])
}

// parserSeeds are record sets that take both of the parser's paths: long
// fields, null and empty headers, and records that fastV2 reads between
// ones it leaves to checkedV2 (an 8 KiB header key).
func parserSeeds() [][]Record {
	long := make([]byte, 9000)
	return [][]Record{
		goldenRecords,
		{{Key: []byte("k"), Value: long, Timestamp: 1 << 40}, {Value: long[:10], Timestamp: 5}},
		{{Headers: []Header{{Key: "h", Value: nil}, {Key: "", Value: long}}}},
		{
			{Headers: []Header{{Key: "a", Value: []byte("1")}, {Key: "b", Value: []byte{}}}},
			{Headers: []Header{{Key: string(long), Value: []byte("2")}}},
			{Headers: []Header{{Key: "a", Value: nil}, {Key: "b", Value: []byte("3")}, {Key: "c"}}},
			{Key: []byte("k")},
			{Headers: []Header{{Key: "a", Value: long}}},
			{Headers: []Header{{Key: "a", Value: []byte("x")}}},
		},
	}
}
