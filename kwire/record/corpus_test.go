package record

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The committed fuzz corpora (testdata/fuzz/...), which every go test
// replays, are written by
//
//	go test ./kwire/record -run TestFuzzCorpus -update-corpus
var updateCorpus = flag.Bool("update-corpus", false, "rewrite the seed files of testdata/fuzz")

// recordBatchSeed is one input of FuzzRecordBatch.
type recordBatchSeed struct {
	name                string
	codec, magic, flags uint8
	baseOffset          int64
	count               int32
	spec                []byte
}

// spec helpers: a record count, then records as specRecords reads them.
func specOf(count int, records ...[]byte) []byte {
	return append([]byte{byte(count >> 8), byte(count)}, bytes.Join(records, nil)...)
}

// specRecord: key (nil when key is nil), value length and its pattern,
// timestamp delta, headers as key/value pairs.
func specRecord(key []byte, valueLen int, pattern []byte, tsDelta int8, headers ...[]byte) []byte {
	var b []byte
	if key == nil {
		b = append(b, 255)
	} else {
		b = append(append(b, byte(len(key))), key...)
	}
	b = append(b, byte(valueLen>>8), byte(valueLen))
	b = append(b, pattern...)
	b = append(b, byte(tsDelta), byte(len(headers)/2))
	for i := 0; i+1 < len(headers); i += 2 {
		b = append(append(b, byte(len(headers[i]))), headers[i]...)
		if headers[i+1] == nil {
			b = append(b, 255)
		} else {
			b = append(append(b, byte(len(headers[i+1]))), headers[i+1]...)
		}
	}
	return b
}

func recordBatchSeeds() []recordBatchSeed {
	golden := specOf(2,
		specRecord([]byte("k1"), 5, []byte("hello"), 0),
		specRecord(nil, 5, []byte("world"), 5, []byte("trace"), []byte("abc"), []byte("empty"), []byte{}))
	withHeaders := specOf(40, specRecord([]byte("key"), 16, []byte("0123456789abcdef"), 1,
		[]byte("trace-id"), []byte("12345678"), []byte("null"), nil))
	large := specOf(2, specRecord([]byte("big"), 65534, []byte("compressible text, "), 0), specRecord(nil, 30000, []byte("more"), 1))
	var pairs [][]byte
	for range 15 {
		pairs = append(pairs, []byte("h"), []byte{})
	}
	manyHeaders := specOf(1, specRecord(nil, 65535, nil, 0, pairs...))
	var seeds []recordBatchSeed
	for magic := uint8(0); magic <= 2; magic++ {
		for codec := uint8(0); codec <= 4; codec++ {
			if magic < 2 && codec == 4 {
				continue
			}
			tag := fmt.Sprintf("magic%d-%v", magic, Codec(codec))
			seeds = append(seeds,
				recordBatchSeed{"empty-" + tag, codec, magic, 0, 0, 0, nil},
				recordBatchSeed{"golden-" + tag, codec, magic, 0, 40, 0, golden},
				recordBatchSeed{"tiny-records-" + tag, codec, magic, 0, 1 << 40, 0, specOf(1000)},
				recordBatchSeed{"large-value-" + tag, codec, magic, 0, 7, 0, large},
				recordBatchSeed{"log-append-time-" + tag, codec, magic, 2, 100, 0, golden},
			)
			if magic == 2 {
				seeds = append(seeds,
					recordBatchSeed{"headers-" + tag, codec, magic, 1, 0, 0, withHeaders},
					recordBatchSeed{"many-headers-" + tag, codec, magic, 0, 0, 0, manyHeaders},
					recordBatchSeed{"count-too-large-" + tag, codec, magic, 4, 0, 2_000_000_000, specOf(3)},
					recordBatchSeed{"count-negative-" + tag, codec, magic, 4, 0, -1, golden},
					recordBatchSeed{"count-one-short-" + tag, codec, magic, 4, 0, 39, withHeaders},
				)
			}
		}
	}
	return seeds
}

// readRecordsSeeds are whole record sets for FuzzReadRecords: every codec
// and magic, control and empty batches, mixed sets, cut tails, refusals.
func readRecordsSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	tiny := make([]Record, 50)
	withValues := []Record{{Key: []byte("k"), Value: bytes.Repeat([]byte("v"), 2000), Timestamp: 5}, {Value: []byte{}, Timestamp: 7}, {Key: []byte{}, Timestamp: 6}}
	var mixed []byte
	for magic := int8(0); magic <= 2; magic++ {
		for codec := CodecNone; codec <= CodecZstd; codec++ {
			if magic < 2 && codec == CodecZstd {
				continue
			}
			tag := fmt.Sprintf("magic%d-%v", magic, codec)
			recs := goldenRecords
			if magic < 2 {
				recs = withValues
			}
			seeds["records-"+tag] = mustBuild(t, recs, WithCodec(codec), WithMagic(magic), WithBaseOffset(100))
			seeds["tiny-records-"+tag] = mustBuild(t, tiny, WithCodec(codec), WithMagic(magic))
			seeds["log-append-time-"+tag] = mustBuild(t, withValues, WithCodec(codec), WithMagic(magic), WithLogAppendTime(1_700_000_000_000))
			mixed = append(mixed, seeds["records-"+tag]...)
			if magic == 2 {
				seeds["empty-"+tag] = mustBuild(t, nil, WithCodec(codec))
				commit, err := AppendEndTxnBatch(nil, ControlCommit, 3, 1, WithCodec(codec), WithProducer(9, 1, -1))
				if err != nil {
					t.Fatal(err)
				}
				abort, _ := AppendEndTxnBatch(nil, ControlAbort, 3, 2, WithCodec(codec), WithProducer(9, 1, -1))
				data := mustBuild(t, withValues, WithCodec(codec), WithTransactional(), WithProducer(9, 1, 0))
				seeds["transaction-"+tag] = append(append(data, commit...), abort...)
				seeds["many-headers-"+tag] = mustBuild(t, []Record{{Headers: make([]Header, 300)}}, WithCodec(codec))
				count := v2BatchOf(t, codec, bytes.Repeat(minimalRecordV2, 1000), 2_000_000)
				seeds["count-past-limit-"+tag] = count
			}
			if magic < 2 && codec != CodecNone {
				inner := mustBuild(t, withValues, WithCodec(codec), WithMagic(magic))
				value, err := Compress(nil, codec, inner)
				if err != nil {
					t.Fatal(err)
				}
				seeds["nested-wrapper-"+tag] = appendLegacyMessage(nil, magic, 2, int8(codec), 1, nil, value)
			}
		}
	}
	seeds["mixed-magics"] = mixed
	seeds["cut-tail"] = mixed[:len(mixed)-10]
	return seeds
}

// TestFuzzCorpus checks that the committed seed files are what the seeds
// above make, and rewrites them with -update-corpus.
func TestFuzzCorpus(t *testing.T) {
	check := func(target, name string, vals ...any) {
		var b bytes.Buffer
		b.WriteString("go test fuzz v1\n")
		for _, v := range vals {
			switch v := v.(type) {
			case uint8:
				fmt.Fprintf(&b, "byte(%q)\n", v)
			case []byte:
				fmt.Fprintf(&b, "[]byte(%q)\n", v)
			default:
				fmt.Fprintf(&b, "%T(%v)\n", v, v)
			}
		}
		path := filepath.Join("testdata", "fuzz", target, "seed-"+name)
		if runtime.GOARCH != "amd64" && target == "FuzzReadRecords" &&
			(strings.Contains(name, "snappy") || name == "mixed-magics" || name == "cut-tail") {
			// klauspost/compress's snappy encoder writes other bytes
			// (as valid) without its amd64 assembly: the seeds holding
			// snappy blocks are made and compared on amd64, as CI does.
			return
		}
		if *updateCorpus {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, b.Bytes()) {
			t.Errorf("%s is missing or stale (%v): run go test ./kwire/record -run TestFuzzCorpus -update-corpus", path, err)
		}
	}
	for name, data := range readRecordsSeeds(t) {
		check("FuzzReadRecords", name, data)
	}
	for _, s := range recordBatchSeeds() {
		check("FuzzRecordBatch", s.name, s.codec, s.magic, s.flags, s.baseOffset, s.count, s.spec)
	}
}
