package record

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// benchRecords are 1,000 records with 100-byte values of log-like text:
// compressible, but not trivially.
func benchRecords() []Record {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"GET", "POST", "/api/v1/users", "/orders", "200", "404", "latency_ms", "region=eu", "trace", "ok"}
	recs := make([]Record, 1000)
	for i := range recs {
		v := make([]byte, 0, 100)
		for len(v) < 100 {
			v = append(v, words[rng.IntN(len(words))]...)
			v = append(v, ' ', byte('a'+rng.IntN(26)))
		}
		recs[i] = Record{Key: fmt.Appendf(nil, "user-%04d", i), Value: v[:100], Timestamp: 1700000000000 + int64(i)}
	}
	return recs
}

var benchCodecs = []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd}

func BenchmarkBuild(b *testing.B) {
	recs := benchRecords()
	plain, _ := Build(recs)
	for _, codec := range benchCodecs {
		b.Run(codec.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(plain))) // uncompressed size: MB/s compare across codecs
			var buf []byte
			var err error
			for b.Loop() {
				if buf, err = AppendBatch(buf[:0], recs, WithCodec(codec)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(buf)), "batch-bytes")
		})
	}
}

func BenchmarkRead(b *testing.B) {
	recs := benchRecords()
	plain, _ := Build(recs)
	for _, codec := range benchCodecs {
		data, err := Build(recs, WithCodec(codec))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(codec.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(plain)))
			for b.Loop() {
				n := 0
				r := NewReader(data)
				for {
					batch, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					it := batch.Iter()
					for it.Next() {
						n += len(it.Record().Value)
					}
					if it.Err() != nil {
						b.Fatal(it.Err())
					}
				}
				if n != 100_000 {
					b.Fatalf("read %d value bytes", n)
				}
			}
		})
	}
}
