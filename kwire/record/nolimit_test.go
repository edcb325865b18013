package record

import (
	"bytes"
	"math"
	"testing"
)

// TestNoLimit: math.MaxInt means no limit, for Decompress and for every
// Reader limit (limit+1 once overflowed and panicked).
func TestNoLimit(t *testing.T) {
	plain := bytes.Repeat([]byte("no limit "), 10_000)
	for _, codec := range []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		compressed, err := Compress(nil, codec, plain)
		if err != nil {
			t.Fatal(err)
		}
		for _, dst := range [][]byte{nil, []byte("prefix")} {
			out, err := Decompress(dst, codec, compressed, math.MaxInt)
			if err != nil || !bytes.Equal(out, append(dst, plain...)) {
				t.Fatalf("%v into %d bytes: %d bytes, %v", codec, len(dst), len(out), err)
			}
		}
		recs := []Record{{Timestamp: -1, Key: []byte("k"), Value: plain, Headers: []Header{{Key: "h", Value: []byte("v")}}}, {Timestamp: -1}}
		for _, magic := range []int8{0, 1, 2} {
			if magic < 2 && codec == CodecZstd {
				continue // zstd is magic 2 only
			}
			want := recs
			if magic < 2 {
				want = []Record{{Timestamp: -1, Key: recs[0].Key, Value: recs[0].Value}, {Timestamp: -1}}
			}
			data := mustBuild(t, want, WithCodec(codec), WithMagic(magic))
			r := NewReader(data)
			r.MaxDecompressedSize, r.MaxRecords, r.MaxHeaders = math.MaxInt, math.MaxInt, math.MaxInt
			var got []Record
			for {
				b, err := r.Next()
				if err != nil {
					break
				}
				rs, err := b.Records()
				if err != nil {
					t.Fatalf("%v magic %d: %v", codec, magic, err)
				}
				got = append(got, rs...)
			}
			if r.Offset() != len(data) {
				t.Fatalf("%v magic %d: read %d of %d bytes", codec, magic, r.Offset(), len(data))
			}
			assertRecords(t, got, want, 0, false)
		}
	}
}
