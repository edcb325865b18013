package record

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"runtime"
	"testing"
)

// FuzzRecordBatch is the structured record-batch target: the fuzzer writes
// the records (count, keys, values, headers, timestamps) and the batch's
// settings, the harness builds and compresses them, and may overwrite the
// record count with the fuzzer's and fix the CRC. Reading back must give
// the records built, through Records and through the allocation-free
// iteration alike, for at most what the shapes of TestAmplification may
// cost; a tampered count must be a typed error. Run longer with:
//
//	go test ./kwire/record -run '^$' -fuzz FuzzRecordBatch -fuzztime 5m -parallel 1
func FuzzRecordBatch(f *testing.F) {
	// The seeds are testdata/fuzz/FuzzRecordBatch (see corpus_test.go).
	f.Fuzz(func(t *testing.T, codec, magic, flags uint8, baseOffset int64, count int32, spec []byte) {
		m := int8(magic % 3)
		c := Codec(codec % 5)
		if m < 2 && c == CodecZstd {
			c = CodecLZ4
		}
		records := specRecords(spec, m == 2)
		s := batchSettings{
			baseOffset: baseOffset & (1<<50 - 1), leaderEpoch: -1, producerID: -1, producerEpoch: -1, baseSequence: -1,
			transactional: flags&1 != 0, logAppendTime: -1,
		}
		if flags&2 != 0 {
			s.logAppendTime = 1_700_000_000_000
		}
		if m < 2 {
			s.transactional = false
		}
		data, err := Build(records, s.options(m, c)...)
		if err != nil {
			t.Fatalf("build: %v", err)
		}
		if flags&4 != 0 && m == 2 {
			// The fuzzer's record count, with the CRC made right again.
			binary.BigEndian.PutUint32(data[batchCountPos:], uint32(count))
			binary.BigEndian.PutUint32(data[batchCRCPos:], crc32.Checksum(data[batchAttrsPos:], castagnoli))
			if count != int32(len(records)) {
				if err := readAll(NewReader(data), true); err == nil {
					t.Fatalf("record count %d for %d records accepted", count, len(records))
				} else {
					expectTypedError(t, err)
				}
				return
			}
		}
		checkReadBack(t, data, m, c, records, s)
	})
}

// checkReadBack reads data, built from records with s, both ways and
// compares; it bounds what reading costs.
func checkReadBack(t *testing.T, data []byte, magic int8, codec Codec, records []Record, s batchSettings) {
	want := s.expected(magic, records)
	materialised := make([]Record, 0, len(records))
	var iterated []Record
	decompressed, headers, batches := 0, 0, 0
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := NewReader(data)
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		recs, err := b.Records()
		if err != nil {
			t.Fatalf("records: %v", err)
		}
		materialised = append(materialised, recs...)
		decompressed += len(b.records)
		batches++
	}
	runtime.ReadMemStats(&after)
	if r.Partial() || r.Offset() != len(data) {
		t.Fatalf("read %d of %d bytes, partial %v", r.Offset(), len(data), r.Partial())
	}
	assertRecords(t, materialised, want, 0, true)

	for _, rec := range records {
		headers += len(rec.Headers)
	}
	// The records built are the structs Records returns; everything else
	// is held to the amplification target. TotalAlloc counts the whole
	// process, and the fuzzing worker's own goroutines allocate too: 64 KiB
	// is left for them, and a decompressor the pool had to build (after a
	// collection emptied it) is allowed for once. A bomb costs megabytes.
	spent := int(after.TotalAlloc - before.TotalAlloc)
	bound := maxAmplification*(decompressed+len(data)) + len(records)*recordStructBytes + headers*(headerStructBytes+16) + maxBatchOverhead*batches + 64<<10
	if codec != CodecNone {
		bound += 2 << 20
	}
	if spent > bound {
		t.Fatalf("reading %d bytes (%d decompressed, %d records, %d headers) allocated %d bytes, bound %d", len(data), decompressed, len(records), headers, spent, bound)
	}

	r = NewReader(data)
	for {
		b, err := r.Next()
		if err != nil {
			break
		}
		it := b.Iter()
		for it.Next() {
			rec := *it.RecordWithoutHeaders()
			for h := it.Headers(); h.Next(); {
				rec.Headers = append(rec.Headers, Header{Key: string(h.Key()), Value: h.Value()})
			}
			iterated = append(iterated, rec)
		}
		if it.Err() != nil {
			t.Fatalf("iterate: %v", it.Err())
		}
	}
	assertRecords(t, iterated, want, 0, true)
}

// specRecords turns the fuzzer's bytes into records. Each record reads a
// key length (255: null) and key, a value length (two bytes, 65535: null)
// whose bytes repeat what the spec supplies, so that large values cost the
// fuzzer little, a timestamp delta and, with headers, a header count and
// headers. A spec ending early leaves empty records: the first two bytes
// are a record count, so that a few bytes ask for hundreds. Keys, values
// and headers share a budget of 96 KiB, past which they are empty: enough
// to cross snappy's 32 KiB and LZ4's 64 KiB blocks, small enough for
// thousands of runs a second (TestAmplification covers the large shapes).
func specRecords(spec []byte, headers bool) []Record {
	p := specReader{b: spec, budget: 96 << 10}
	n := int(p.u16() % 256)
	records := make([]Record, n)
	ts := int64(1_600_000_000_000)
	for i := range records {
		r := &records[i]
		r.Key = p.bytes(int(p.u8()), 255)
		r.Value = p.bytes(int(p.u16()), 65535)
		ts += int64(int8(p.u8()))
		r.Timestamp = ts
		if !headers {
			continue
		}
		for range p.u8() % 16 {
			r.Headers = append(r.Headers, Header{Key: string(p.bytes(int(p.u8()%64), -1)), Value: p.bytes(int(p.u8()), 255)})
		}
	}
	return records
}

type specReader struct {
	b      []byte
	pos    int
	budget int
}

func (p *specReader) u8() byte {
	if p.pos >= len(p.b) {
		return 0
	}
	p.pos++
	return p.b[p.pos-1]
}

func (p *specReader) u16() uint16 { return uint16(p.u8())<<8 | uint16(p.u8()) }

// bytes returns n bytes (nil when n is null), taken from the spec and
// repeated to length; with the spec spent, zeros.
func (p *specReader) bytes(n, null int) []byte {
	if n == null {
		return nil
	}
	n = min(n, p.budget)
	p.budget -= n
	out := make([]byte, n)
	src := p.b[min(p.pos, len(p.b)):min(p.pos+n, len(p.b), p.pos+32)]
	p.pos += len(src)
	for i := 0; len(src) > 0 && i < n; i += len(src) {
		copy(out[i:], src)
	}
	return out
}
