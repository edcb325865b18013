package record

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// genBytes yields nil, empty, short, and now and then large byte slices
// (past snappy's 32 KiB xerial block and LZ4's 64 KiB block), random so that
// they do not compress away.
func genBytes(large int) gopter.Gen {
	return gopter.CombineGens(gen.IntRange(0, 19), gen.IntRange(0, large), gen.UInt64()).Map(func(v []any) []byte {
		kind, n, seed := v[0].(int), v[1].(int), v[2].(uint64)
		switch {
		case kind == 0:
			return nil
		case kind == 1:
			return []byte{}
		case kind < 19:
			n %= 48
		}
		b := make([]byte, n)
		var key [32]byte
		key[0], key[1] = byte(seed), byte(seed>>8)
		rand.NewChaCha8(key).Read(b)
		return b
	})
}

func genHeader() gopter.Gen {
	return gopter.CombineGens(gen.AnyString(), genBytes(64)).Map(func(v []any) Header {
		return Header{Key: v[0].(string), Value: v[1].([]byte)}
	})
}

func genRecord(withHeaders bool) gopter.Gen {
	headers := gen.SliceOfN(0, genHeader(), reflect.TypeOf(Header{}))
	if withHeaders {
		headers = gen.IntRange(0, 40).FlatMap(func(n any) gopter.Gen {
			return gen.SliceOfN(n.(int), genHeader(), reflect.TypeOf(Header{}))
		}, reflect.TypeOf([]Header{}))
	}
	return gopter.CombineGens(genBytes(256), genBytes(80_000), headers, gen.Int64Range(-1, 1<<42)).Map(func(v []any) Record {
		return Record{Key: v[0].([]byte), Value: v[1].([]byte), Headers: v[2].([]Header), Timestamp: v[3].(int64)}
	})
}

func genRecords(withHeaders bool) gopter.Gen {
	return gen.IntRange(0, 25).FlatMap(func(n any) gopter.Gen {
		return gen.SliceOfN(n.(int), genRecord(withHeaders), reflect.TypeOf(Record{}))
	}, reflect.TypeOf([]Record{}))
}

// batchSettings are the builder options a property run varies.
type batchSettings struct {
	baseOffset    int64
	leaderEpoch   int32
	producerID    int64
	producerEpoch int16
	baseSequence  int32
	transactional bool
	logAppendTime int64 // -1: CreateTime
}

func genSettings() gopter.Gen {
	return gopter.CombineGens(
		gen.Int64Range(0, 1<<50), gen.Int32Range(-1, 1000), gen.Int64Range(-1, 1<<40),
		gen.Int16Range(-1, 500), gen.Int32Range(-1, 1<<30), gen.Bool(), gen.Int64Range(-2, 1<<42),
	).Map(func(v []any) batchSettings {
		s := batchSettings{v[0].(int64), v[1].(int32), v[2].(int64), v[3].(int16), v[4].(int32), v[5].(bool), v[6].(int64)}
		if s.logAppendTime < 0 || s.logAppendTime%2 == 0 {
			s.logAppendTime = -1 // CreateTime more often than not
		}
		return s
	})
}

func (s batchSettings) options(magic int8, codec Codec) []Option {
	opts := []Option{WithMagic(magic), WithCodec(codec), WithBaseOffset(s.baseOffset)}
	if magic == 2 {
		opts = append(opts, WithPartitionLeaderEpoch(s.leaderEpoch), WithProducer(s.producerID, s.producerEpoch, s.baseSequence))
		if s.transactional {
			opts = append(opts, WithTransactional())
		}
	}
	if s.logAppendTime >= 0 {
		opts = append(opts, WithLogAppendTime(s.logAppendTime))
	}
	return opts
}

// expected is what reading gives back for records built with s.
func (s batchSettings) expected(magic int8, records []Record) []Record {
	out := make([]Record, len(records))
	for i, r := range records {
		r.Offset = s.baseOffset + int64(i)
		switch {
		case magic == 0:
			r.Timestamp = -1
		case s.logAppendTime >= 0:
			r.Timestamp = s.logAppendTime
		}
		out[i] = r
	}
	return out
}

func TestRoundTripProperties(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 25
	params.Rng.Seed(1) // reproducible CI runs; fuzzing explores further
	for _, magic := range []int8{0, 1, 2} {
		for codec := CodecNone; codec <= CodecZstd; codec++ {
			if magic < 2 && codec == CodecZstd {
				continue
			}
			t.Run(fmt.Sprintf("magic%d/%v", magic, codec), func(t *testing.T) {
				t.Parallel()
				props := gopter.NewProperties(params)
				props.Property("read(build(records)) == records", prop.ForAll(
					func(records []Record, s batchSettings) string {
						return checkRoundTrip(magic, codec, records, s)
					},
					genRecords(magic == 2), genSettings()))
				props.TestingRun(t)
			})
		}
	}
}

// checkRoundTrip returns "" on success, else what went wrong (gopter's
// string-result convention, which shows the message with the shrunk input).
func checkRoundTrip(magic int8, codec Codec, records []Record, s batchSettings) (failure string) {
	defer func() {
		switch p := recover().(type) {
		case nil:
		case *recordingT:
			failure = p.msg
		default:
			failure = fmt.Sprint("panic: ", p)
		}
	}()
	data, err := Build(records, s.options(magic, codec)...)
	if err != nil {
		return "build: " + err.Error()
	}
	batches, partial, err := ReadBatches(data)
	if err != nil || partial {
		return fmt.Sprintf("read: partial %v, err %v", partial, err)
	}
	var got []Record
	for _, b := range batches {
		if b.Magic != magic {
			return fmt.Sprintf("magic %d", b.Magic)
		}
		if magic == 2 {
			if msg := checkHeader(b, records, s, codec); msg != "" {
				return msg
			}
		}
		recs, err := b.Records()
		if err != nil {
			return "records: " + err.Error()
		}
		got = append(got, recs...)
	}
	if magic == 2 && len(batches) != 1 {
		return fmt.Sprintf("%d batches", len(batches))
	}
	rt := &recordingT{}
	assertRecords(rt, got, s.expected(magic, records), 0, true)
	return rt.msg
}

func checkHeader(b *Batch, records []Record, s batchSettings, codec Codec) string {
	a := b.Attributes
	wantTS := CreateTime
	if s.logAppendTime >= 0 {
		wantTS = LogAppendTime
	}
	switch {
	case b.BaseOffset != s.baseOffset, b.LastOffsetDelta != int32(len(records))-1, b.NumRecords != int32(len(records)):
		return fmt.Sprintf("offsets/count: %+v", b)
	case b.PartitionLeaderEpoch != s.leaderEpoch, b.ProducerID != s.producerID, b.ProducerEpoch != s.producerEpoch, b.BaseSequence != s.baseSequence:
		return fmt.Sprintf("leader/producer fields: %+v", b)
	case a.Codec() != codec, a.Transactional() != s.transactional, a.TimestampType() != wantTS, a.Control(), a.HasDeleteHorizon():
		return fmt.Sprintf("attributes %#x", a)
	}
	return ""
}

// recordingT lets assertRecords report into a property's result.
type recordingT struct {
	testing.TB
	msg string
}

func (r *recordingT) Helper() {}
func (r *recordingT) Fatalf(format string, args ...any) {
	if r.msg == "" {
		r.msg = fmt.Sprintf(format, args...)
	}
	panic(r) // stop like t.Fatalf; recovered in checkRoundTrip
}
