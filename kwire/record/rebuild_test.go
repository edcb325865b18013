package record

import (
	"bytes"
	"testing"
)

// A batch read and written back with its own header is the same bytes,
// records not consecutive and LogAppendTime included; a compressed one
// this package made is too.
func TestAppendBatchLikeRebuildsWhatWasRead(t *testing.T) {
	recs := []Record{
		{Timestamp: 1000, Key: []byte("a"), Value: []byte("1"), Headers: []Header{{Key: "h", Value: nil}}},
		{Timestamp: 990, Key: nil, Value: []byte("2")},
	}
	for _, opts := range [][]Option{
		{WithProducer(7, 2, 100), WithBaseOffset(1 << 40)},
		{WithCodec(CodecZstd), WithTransactional()},
		{WithCodec(CodecGzip), WithLogAppendTime(5000)},
		{WithMagic(1), WithCodec(CodecSnappy), WithBaseOffset(9)},
		{WithMagic(0)},
	} {
		in := recs
		if isLegacy(opts) {
			in = []Record{{Timestamp: 1000, Key: []byte("a"), Value: []byte("1")}, {Timestamp: 990, Value: []byte("2")}}
		}
		built, err := Build(in, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var again []byte
		r := NewReader(built)
		for {
			b, err := r.Next()
			if err != nil {
				break
			}
			var read []Record
			it := b.Iter()
			for it.Next() {
				rec := *it.Record()
				if b.Magic == 2 {
					rec.Timestamp = it.StoredTimestamp()
				}
				read = append(read, rec)
			}
			if it.Err() != nil {
				t.Fatal(it.Err())
			}
			if again, err = AppendBatchLike(again, b, read); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(again, built) {
			t.Errorf("%d options: rebuilt\n%x\nwant\n%x", len(opts), again, built)
		}
	}
	h := Batch{Magic: 2, BaseOffset: 0}
	if _, err := AppendBatchLike(nil, &h, []Record{{Offset: 1 << 31}}); err == nil {
		t.Error("an offset delta past int32 was accepted")
	}
	h.Magic = 3
	if _, err := AppendBatchLike(nil, &h, nil); err == nil {
		t.Error("magic 3 was accepted")
	}
}

func isLegacy(opts []Option) bool {
	o := collectOptions(opts)
	return o.magic < 2
}
