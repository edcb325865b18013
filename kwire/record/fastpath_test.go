package record

import (
	"testing"
)

// FuzzFastPathAgrees steps two iterators over the same records section:
// one through fastV2, one through checkedV2 alone, the reader that names
// its failures. Whatever fastV2 accepts, checkedV2 must accept with the
// same record, headers and position; fastV2 may decline a record (it then
// goes on through checkedV2, as Next does), never accept a bad one.
//
//	go test ./kwire/record -run '^$' -fuzz FuzzFastPathAgrees -fuzztime 2000000x
func FuzzFastPathAgrees(f *testing.F) {
	long := make([]byte, 9000)
	seeds := [][]Record{
		goldenRecords,
		{{Key: []byte("k"), Value: long, Timestamp: 1 << 40}, {Value: long[:10], Timestamp: 5}},
		{{Headers: []Header{{Key: "h", Value: nil}, {Key: "", Value: long}}}},
	}
	for _, recs := range seeds {
		b, err := NewReader(mustBuild(f, recs)).Next()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b.records, uint8(len(recs)), false, uint8(50))
		f.Add(b.records, uint8(len(recs)), true, uint8(1)) // past the header limit
	}
	f.Fuzz(func(t *testing.T, section []byte, n uint8, logAppend bool, maxHeaders uint8) {
		// maxHeaders 0 is the default limit; small ones reach the refusal
		// of a header count past what the batch has left.
		b := &Batch{Magic: 2, NumRecords: int32(n), BaseOffset: 100, BaseTimestamp: 1000, MaxTimestamp: 2000, records: section, maxHeaders: int(maxHeaders)}
		if logAppend {
			b.Attributes = attrLogAppendTime
		}
		fast, checked := b.Iter(), b.Iter()
		for i := 0; i < int(n); i++ {
			okFast, okChecked := fast.fastV2(&fast.rec), checked.checkedV2(&checked.rec)
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
		}
	})
}
