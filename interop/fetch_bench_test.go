package interop

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
	kafkaprotocol "github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkFetch decodes a FetchResponse v16 body to records, the work a
// consumer does per fetch, for each shape of fetchShapes and each codec:
//
//   - lib=kgo: kmsg's ReadFrom, then kgo.ProcessFetchPartition per
//     partition with one DefaultDecompressor, as a franz-go client runs it.
//   - lib=kwire: kwire.Unmarshal, then a record.Reader (reused through
//     Reset) and Batch.Records per batch; the batches are released at the
//     end of the fetch, as a consumer done with them does.
//   - lib=kwire-keep: the same without Release: every decompressed buffer
//     is new and left to the collector.
//   - lib=kwire-iter: the batches' RecordIter with RecordWithoutHeaders,
//     walking each header, no Record built; released at the end.
//   - lib=kafka-go: protocol.RecordSet's ReadFrom per partition and
//     ReadRecord to the end, each value read into a reused buffer. kafka-go
//     speaks Fetch up to v11 only, so it reads the partitions' record sets
//     alone, not the body.
//
// Each pass touches every record's value (its length, or for kafka-go its
// bytes), and TestFetchBenchAgrees checks that every lib reads the same
// records. `benchstat -col /lib` puts the libs side by side, kgo first.
func BenchmarkFetch(b *testing.B) {
	for _, s := range fetchShapes {
		for _, codec := range recordCodecs {
			for _, lib := range fetchLibs {
				b.Run(fmt.Sprintf("shape=%s/codec=%v/lib=%s", s.name, codec, lib.name), func(b *testing.B) {
					f := fetchFixtureFor(b, s, codec)
					run := lib.prepare(f)
					b.ReportAllocs()
					b.SetBytes(int64(f.plainBytes))
					for b.Loop() {
						if n, err := run(); err != nil || n != f.want {
							b.Fatalf("read %+v, %v; want %+v", n, err, f.want)
						}
					}
				})
			}
		}
	}
}

// BenchmarkFetchFloor measures, for the same fetches, what no reader can
// avoid: op=crc is CRC-32C over every batch's checked bytes; op=decompress
// is record.Decompress of every batch's records into one reused buffer;
// op=crc+decompress is both, the floor kwire-iter is read against.
func BenchmarkFetchFloor(b *testing.B) {
	for _, s := range fetchShapes {
		for _, codec := range recordCodecs {
			for _, op := range []struct {
				name     string
				crc, dec bool
			}{{"crc", true, false}, {"decompress", false, true}, {"crc+decompress", true, true}} {
				if codec == record.CodecNone && op.dec {
					continue
				}
				b.Run(fmt.Sprintf("shape=%s/codec=%v/op=%s", s.name, codec, op.name), func(b *testing.B) {
					f := fetchFixtureFor(b, s, codec)
					var buf []byte
					b.ReportAllocs()
					b.SetBytes(int64(f.plainBytes))
					for b.Loop() {
						var sum uint32
						for _, bt := range f.batches {
							if op.crc {
								sum += crc32.Checksum(bt[21:], castagnoliTable)
							}
							if op.dec {
								var err error
								if buf, err = record.Decompress(buf[:0], codec, bt[61:], 0); err != nil {
									b.Fatal(err)
								}
							}
						}
						sink32 = sum
					}
				})
			}
		}
	}
}

var (
	sink32          uint32
	castagnoliTable = crc32.MakeTable(crc32.Castagnoli)
)

// fetchShape is one fetch: partitions × batches × records, each record a
// key of keyLen bytes, a value of valueLen letters drawn from eight, and
// headers headers of a 10-byte key and a 16-byte value.
type fetchShape struct {
	name                         string
	partitions, batches, records int
	keyLen, valueLen, headers    int
}

var fetchShapes = []fetchShape{
	{name: "base", partitions: 4, batches: 10, records: 100, keyLen: 8, valueLen: 100},
	{name: "small", partitions: 4, batches: 10, records: 100, keyLen: 8, valueLen: 10},
	{name: "large", partitions: 4, batches: 10, records: 10, keyLen: 8, valueLen: 4096},
	{name: "headers", partitions: 4, batches: 10, records: 100, keyLen: 8, valueLen: 100, headers: 3},
	{name: "manybatches", partitions: 4, batches: 200, records: 5, keyLen: 8, valueLen: 100},
	{name: "onebatch", partitions: 1, batches: 1, records: 4000, keyLen: 8, valueLen: 100},
}

// fetchResult is what a pass reads: the records and their value bytes.
type fetchResult struct{ records, valueBytes, headers int }

type fetchFixture struct {
	body       []byte   // the FetchResponse v16 body
	sets       [][]byte // each partition's records, for kafka-go: int32 size then the set
	batches    [][]byte // every batch, for the floor
	plainBytes int      // the batches' uncompressed size
	want       fetchResult
}

// fetchFixtures holds the fixtures built so far: the benchmarks that a
// -bench pattern leaves out build none.
var fetchFixtures = map[string]*fetchFixture{}

func fetchFixtureFor(tb testing.TB, s fetchShape, codec record.Codec) *fetchFixture {
	key := s.name + "/" + codec.String()
	if f := fetchFixtures[key]; f != nil {
		return f
	}
	f := newFetchFixture(tb, s, codec)
	fetchFixtures[key] = f
	return f
}

func newFetchFixture(tb testing.TB, s fetchShape, codec record.Codec) *fetchFixture {
	rng := rand.New(rand.NewPCG(uint64(len(s.name)), uint64(codec)))
	f := &fetchFixture{}
	tp := messages.FetchResponseFetchableTopicResponse{TopicID: fetchTopicID}
	for p := range s.partitions {
		var set []byte
		for bi := range s.batches {
			recs := make([]record.Record, s.records)
			for i := range recs {
				v := make([]byte, s.valueLen)
				for j := range v {
					v[j] = "abcdefgh"[rng.IntN(8)]
				}
				r := &recs[i]
				r.Key = fmt.Appendf(nil, "%0*d", s.keyLen, i)
				r.Value, r.Timestamp = v, 1_700_000_000_000+int64(i)
				for h := range s.headers {
					r.Headers = append(r.Headers, record.Header{Key: fmt.Sprintf("header-%03d", h), Value: fmt.Appendf(nil, "%016d", rng.Int64N(1e15))})
				}
				f.want.valueBytes += len(v)
				f.want.headers += len(r.Headers)
			}
			f.want.records += len(recs)
			base := int64(bi * s.records)
			plain, err := record.Build(recs, record.WithBaseOffset(base))
			if err != nil {
				tb.Fatal(err)
			}
			f.plainBytes += len(plain)
			batch, err := record.Build(recs, record.WithCodec(codec), record.WithBaseOffset(base))
			if err != nil {
				tb.Fatal(err)
			}
			f.batches = append(f.batches, batch)
			set = append(set, batch...)
		}
		pd := messages.FetchResponsePartitionData{}
		pd.Default()
		pd.PartitionIndex, pd.HighWatermark, pd.LastStableOffset = int32(p), int64(s.batches*s.records), int64(s.batches*s.records)
		pd.Records = set
		tp.Partitions = append(tp.Partitions, pd)
		f.sets = append(f.sets, append(binary.BigEndian.AppendUint32(nil, uint32(len(set))), set...))
	}
	m := messages.NewFetchResponse()
	m.Responses = []messages.FetchResponseFetchableTopicResponse{tp}
	body, err := kwire.Marshal(m, 16)
	if err != nil {
		tb.Fatal(err)
	}
	f.body = body
	return f
}

// fetchLib reads a fixture; prepare returns one pass.
type fetchLib struct {
	name    string
	prepare func(f *fetchFixture) func() (fetchResult, error)
}

var fetchLibs = []fetchLib{
	{"kgo", kgoFetchPass},
	{"kwire", func(f *fetchFixture) func() (fetchResult, error) { return kwireFetchPass(f, kwireRecords, true) }},
	{"kwire-keep", func(f *fetchFixture) func() (fetchResult, error) { return kwireFetchPass(f, kwireRecords, false) }},
	{"kwire-iter", func(f *fetchFixture) func() (fetchResult, error) { return kwireFetchPass(f, kwireIter, true) }},
	{"kafka-go", kafkagoFetchPass},
}

func kgoFetchPass(f *fetchFixture) func() (fetchResult, error) {
	dec := kgo.DefaultDecompressor()
	return func() (fetchResult, error) {
		var n fetchResult
		resp := kmsg.NewFetchResponse()
		resp.Version = 16
		if err := resp.ReadFrom(f.body); err != nil {
			return n, err
		}
		for ti := range resp.Topics {
			t := &resp.Topics[ti]
			for pi := range t.Partitions {
				fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Topic: "t", Partition: t.Partitions[pi].Partition}, &t.Partitions[pi], dec, nil)
				if fp.Err != nil {
					return n, fp.Err
				}
				for _, r := range fp.Records {
					n.records++
					n.valueBytes += len(r.Value)
					n.headers += len(r.Headers)
				}
			}
		}
		return n, nil
	}
}

// kwireRecords and kwireIter read one batch the two ways kwire offers.
func kwireRecords(b *record.Batch, n *fetchResult) error {
	recs, err := b.Records()
	for i := range recs {
		n.records++
		n.valueBytes += len(recs[i].Value)
		n.headers += len(recs[i].Headers)
	}
	return err
}

func kwireIter(b *record.Batch, n *fetchResult) error {
	it := b.Iter()
	for it.Next() {
		r := it.RecordWithoutHeaders()
		n.records++
		n.valueBytes += len(r.Value)
		for h := it.Headers(); h.Next(); {
			n.headers++
		}
	}
	return it.Err()
}

func kwireFetchPass(f *fetchFixture, read func(*record.Batch, *fetchResult) error, release bool) func() (fetchResult, error) {
	var r record.Reader
	var held []*record.Batch
	return func() (fetchResult, error) {
		var n fetchResult
		var resp messages.FetchResponse
		if err := kwire.Unmarshal(f.body, &resp, 16); err != nil {
			return n, err
		}
		for ti := range resp.Responses {
			t := &resp.Responses[ti]
			for pi := range t.Partitions {
				r.Reset(t.Partitions[pi].Records)
				for {
					b, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						return n, err
					}
					if err := read(b, &n); err != nil {
						return n, err
					}
					if release {
						held = append(held, b)
					}
				}
			}
		}
		for _, b := range held {
			b.Release()
		}
		held = held[:0]
		return n, nil
	}
}

func kafkagoFetchPass(f *fetchFixture) func() (fetchResult, error) {
	var br bytes.Reader
	buf := make([]byte, 64<<10)
	return func() (fetchResult, error) {
		var n fetchResult
		for _, set := range f.sets {
			br.Reset(set)
			var rs kafkaprotocol.RecordSet
			if _, err := rs.ReadFrom(&br); err != nil {
				return n, err
			}
			for {
				rec, err := rs.Records.ReadRecord()
				if err == io.EOF {
					break
				}
				if err != nil {
					return n, err
				}
				n.records++
				n.headers += len(rec.Headers)
				if rec.Value != nil {
					m, err := io.ReadFull(rec.Value, buf[:rec.Value.Len()])
					if err != nil {
						return n, err
					}
					n.valueBytes += m
				}
			}
		}
		return n, nil
	}
}

// Every lib of BenchmarkFetch reads every record of every shape and codec.
func TestFetchBenchAgrees(t *testing.T) {
	for _, s := range fetchShapes {
		for _, codec := range recordCodecs {
			f := newFetchFixture(t, s, codec)
			for _, lib := range fetchLibs {
				run := lib.prepare(f)
				for pass := range 2 {
					if n, err := run(); err != nil || n != f.want {
						t.Fatalf("%s/%v/%s pass %d: read %+v, %v; want %+v", s.name, codec, lib.name, pass, n, err, f.want)
					}
				}
			}
		}
	}
}
