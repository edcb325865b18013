package record

import (
	"fmt"
	"hash/crc32"
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

// BenchmarkRecordFloor is the cost per record of walking an uncompressed
// batch's records (op=iter: RecordIter with RecordWithoutHeaders and every
// header walked; op=records: Batch.Records) against what no parser avoids
// over the same bytes: op=crc, CRC-32C of the records section, and
// op=memcpy, one copy of it. The batch is checked (CRC, count) once
// outside the loop, so op=iter is parsing alone.
func BenchmarkRecordFloor(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, shape := range []struct {
		name           string
		value, headers int
		tsStep         int64 // milliseconds between records
	}{{"value=100", 100, 0, 1}, {"value=10", 10, 0, 1}, {"value=100/headers=3", 100, 3, 1}, {"value=100/seconds-apart", 100, 0, 10_000}} {
		recs := make([]Record, 1000)
		for i := range recs {
			v := make([]byte, shape.value)
			for j := range v {
				v[j] = "abcdefgh"[rng.IntN(8)]
			}
			recs[i] = Record{Key: fmt.Appendf(nil, "%08d", i), Value: v, Timestamp: 1_700_000_000_000 + int64(i)*shape.tsStep}
			for h := range shape.headers {
				recs[i].Headers = append(recs[i].Headers, Header{Key: fmt.Sprintf("header-%03d", h), Value: fmt.Appendf(nil, "%016d", i)})
			}
		}
		data, err := Build(recs)
		if err != nil {
			b.Fatal(err)
		}
		batch, err := NewReader(data).Next()
		if err != nil {
			b.Fatal(err)
		}
		section := batch.records
		perRecord := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(recs)), "ns/record")
		}
		b.Run(shape.name+"/op=iter", func(b *testing.B) {
			b.SetBytes(int64(len(section)))
			b.ReportAllocs()
			for b.Loop() {
				it := batch.Iter()
				for it.Next() {
					_ = it.RecordWithoutHeaders()
					for h := it.Headers(); h.Next(); {
					}
				}
				if it.Err() != nil {
					b.Fatal(it.Err())
				}
			}
			perRecord(b)
		})
		b.Run(shape.name+"/op=records", func(b *testing.B) {
			b.SetBytes(int64(len(section)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := batch.Records(); err != nil {
					b.Fatal(err)
				}
			}
			perRecord(b)
		})
		b.Run(shape.name+"/op=crc", func(b *testing.B) {
			b.SetBytes(int64(len(section)))
			for b.Loop() {
				crcSink = crc32.Checksum(section, castagnoli)
			}
			perRecord(b)
		})
		b.Run(shape.name+"/op=memcpy", func(b *testing.B) {
			b.SetBytes(int64(len(section)))
			dst := make([]byte, len(section))
			for b.Loop() {
				copy(dst, section)
			}
			perRecord(b)
		})
	}
}

var crcSink uint32
