package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/pierrec/lz4/v4"
)

// goldenRecords are the two records of the golden batches.
var goldenRecords = []Record{
	{Key: []byte("k"), Value: []byte("v1"), Timestamp: 1700000000000},
	{Key: nil, Value: []byte("x"), Timestamp: 1700000000005, Headers: []Header{{Key: "h", Value: nil}}},
}

// goldenRecordBytes is the records section of the golden batches, by hand.
const goldenRecordBytes = "" +
	// record 0: length 9, attributes 0, timestamp delta 0, offset delta 0,
	// key len 1 "k", value len 2 "v1", 0 headers (varints are zig-zag: n -> 2n)
	"12 00 00 00 02 6b 04 7631 00" +
	// record 1: length 10, attributes 0, timestamp delta 5, offset delta 1,
	// key null (-1 -> 01), value len 1 "x", 1 header: key len 1 "h", value null
	"14 00 0a 02 01 02 78 02 02 68 01"

// goldenHeaderAfterCRC is the header from attributes to the record count;
// the codec goes in the last byte of attributes (the first two bytes here).
func goldenHeaderAfterCRC(codec Codec) string {
	return "000" + string("01234"[codec]) + // attributes: codec bits only
		"00000001" + // last offset delta
		"0000018bcfe56800" + // base timestamp 1700000000000
		"0000018bcfe56805" + // max timestamp 1700000000005
		"ffffffffffffffff" + // producer id -1
		"ffff" + // producer epoch -1
		"ffffffff" + // base sequence -1
		"00000002" // record count
}

func TestGoldenUncompressedBatch(t *testing.T) {
	want := wiretest.Hex(t,
		"0000000000000000", // base offset 0
		"00000046",         // batch length 70 = 82 - 12
		"ffffffff",         // partition leader epoch -1
		"02",               // magic
		// CRC-32C (Castagnoli) of bytes 21..81, computed with a separate
		// bit-by-bit implementation of the polynomial 0x82F63B78.
		"0021f70e",
		goldenHeaderAfterCRC(CodecNone),
		goldenRecordBytes)
	got, err := Build(goldenRecords)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("built batch\n got %x\nwant %x", got, want)
	}

	batches, partial, err := ReadBatches(want)
	if err != nil || partial || len(batches) != 1 {
		t.Fatalf("read: %d batches, partial %v, err %v", len(batches), partial, err)
	}
	b := batches[0]
	if b.BaseOffset != 0 || b.Length != 70 || b.PartitionLeaderEpoch != -1 || b.Magic != 2 || b.CRC != 0x0021f70e ||
		b.Attributes != 0 || b.LastOffsetDelta != 1 || b.BaseTimestamp != 1700000000000 || b.MaxTimestamp != 1700000000005 ||
		b.ProducerID != -1 || b.ProducerEpoch != -1 || b.BaseSequence != -1 || b.NumRecords != 2 {
		t.Fatalf("header fields: %+v", b)
	}
	recs, err := b.Records()
	if err != nil {
		t.Fatal(err)
	}
	assertRecords(t, recs, goldenRecords, 0, false)
}

func TestEmptyBatchIs61Bytes(t *testing.T) {
	got, err := Build(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := wiretest.Hex(t,
		"0000000000000000", "00000031", "ffffffff", "02",
		"2ce64e55", // CRC-32C of the 40 bytes below, computed separately
		"0000", "ffffffff", "ffffffffffffffff", "ffffffffffffffff",
		"ffffffffffffffff", "ffff", "ffffffff", "00000000")
	if len(got) != 61 || !bytes.Equal(got, want) {
		t.Fatalf("empty batch (%d bytes)\n got %x\nwant %x", len(got), got, want)
	}
	bs, _, err := ReadBatches(got)
	if err != nil || len(bs) != 1 || bs[0].NumRecords != 0 {
		t.Fatalf("read back: %v %v", bs, err)
	}
}

// The codec's smallest-instance batch (every field zero) reads as an empty
// batch too.
func TestReadsCodecEmptyBatch(t *testing.T) {
	data := kwire.EmptyRecordBatch()
	r := NewReader(data)
	b, err := r.Next()
	if err != nil || b.NumRecords != 0 || b.ProducerID != 0 || r.Offset() != 61 {
		t.Fatalf("batch %+v, err %v, offset %d", b, err, r.Offset())
	}
	if _, err := r.Next(); err != io.EOF || r.Partial() {
		t.Fatalf("after the batch: %v, partial %v", err, r.Partial())
	}
}

// TestGoldenCompressedBatches checks every header byte of a compressed
// batch, and that the codec's own library (not this package's Decompress)
// turns the records section back into the hand-built record bytes.
func TestGoldenCompressedBatches(t *testing.T) {
	records := wiretest.Hex(t, goldenRecordBytes)
	decoders := map[Codec]func(t *testing.T, section []byte) []byte{
		CodecGzip: func(t *testing.T, s []byte) []byte {
			expectPrefix(t, s, "1f8b") // gzip member magic
			r, err := gzip.NewReader(bytes.NewReader(s))
			if err != nil {
				t.Fatal(err)
			}
			return readAllOrFail(t, r)
		},
		CodecSnappy: func(t *testing.T, s []byte) []byte {
			// xerial: magic, version 1, compatible 1, then one block.
			expectPrefix(t, s, "82534e4150505900 00000001 00000001")
			block := s[16:]
			n := int(block[0])<<24 | int(block[1])<<16 | int(block[2])<<8 | int(block[3])
			if n != len(block)-4 {
				t.Fatalf("xerial block length %d, %d bytes follow", n, len(block)-4)
			}
			out, err := snappy.Decode(nil, block[4:])
			if err != nil {
				t.Fatal(err)
			}
			return out
		},
		CodecLZ4: func(t *testing.T, s []byte) []byte {
			expectPrefix(t, s, "04224d18") // LZ4 frame magic
			return readAllOrFail(t, lz4.NewReader(bytes.NewReader(s)))
		},
		CodecZstd: func(t *testing.T, s []byte) []byte {
			expectPrefix(t, s, "28b52ffd") // zstd frame magic
			d, err := zstd.NewReader(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			out, err := d.DecodeAll(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			return out
		},
	}
	for codec, decode := range decoders {
		t.Run(codec.String(), func(t *testing.T) {
			got, err := Build(goldenRecords, WithCodec(codec))
			if err != nil {
				t.Fatal(err)
			}
			expectPrefix(t, got, "0000000000000000")
			wantLen := wiretest.Hex(t, "00000000")
			wantLen[3] = byte(len(got) - 12)
			if len(got)-12 > 255 || !bytes.Equal(got[8:12], wantLen) {
				t.Fatalf("batch length field %x for %d bytes", got[8:12], len(got))
			}
			if !bytes.Equal(got[12:17], wiretest.Hex(t, "ffffffff 02")) {
				t.Fatalf("leader epoch and magic %x", got[12:17])
			}
			if !bytes.Equal(got[21:61], wiretest.Hex(t, goldenHeaderAfterCRC(codec))) {
				t.Fatalf("header after crc\n got %x\nwant %s", got[21:61], goldenHeaderAfterCRC(codec))
			}
			if out := decode(t, got[61:]); !bytes.Equal(out, records) {
				t.Fatalf("decompressed records\n got %x\nwant %x", out, records)
			}
			bs, _, err := ReadBatches(got)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := bs[0].Records()
			if err != nil {
				t.Fatal(err)
			}
			assertRecords(t, recs, goldenRecords, 0, false)
		})
	}
}

// Other clients write one raw snappy block instead of xerial framing.
func TestReadRawSnappyBatch(t *testing.T) {
	batch := wiretest.Hex(t, "0000000000000000 00000000 ffffffff 02 00000000", goldenHeaderAfterCRC(CodecSnappy))
	batch = append(batch, snappy.Encode(nil, wiretest.Hex(t, goldenRecordBytes))...)
	fixBatchLengthAndCRC(batch)
	bs, _, err := ReadBatches(batch)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := bs[0].Records()
	if err != nil {
		t.Fatal(err)
	}
	assertRecords(t, recs, goldenRecords, 0, false)
}

func TestGoldenLegacyMessages(t *testing.T) {
	v0 := wiretest.Hex(t,
		"0000000000000005", // offset 5
		"00000011",         // message size 17
		"61505427",         // CRC-32 (IEEE) of magic..end, computed separately
		"00 00",            // magic 0, attributes 0
		"00000001 6b",      // key "k"
		"00000002 7631")    // value "v1"
	v1 := wiretest.Hex(t,
		"0000000000000006", // offset 6
		"00000017",         // message size 23
		"26df07c2",         // CRC-32 (IEEE) of magic..end, computed separately
		"01 00",            // magic 1, attributes 0 (CreateTime, no codec)
		"0000018bcfe56800", // timestamp 1700000000000
		"ffffffff",         // key null
		"00000001 78")      // value "x"
	got0, err := Build([]Record{{Key: []byte("k"), Value: []byte("v1")}}, WithMagic(0), WithBaseOffset(5))
	if err != nil || !bytes.Equal(got0, v0) {
		t.Fatalf("magic 0: %v\n got %x\nwant %x", err, got0, v0)
	}
	got1, err := Build([]Record{{Value: []byte("x"), Timestamp: 1700000000000}}, WithMagic(1), WithBaseOffset(6))
	if err != nil || !bytes.Equal(got1, v1) {
		t.Fatalf("magic 1: %v\n got %x\nwant %x", err, got1, v1)
	}

	// A fetch may mix magic values: legacy messages, then a v2 batch.
	v2, _ := Build(goldenRecords, WithBaseOffset(7))
	mixed := append(append(append([]byte{}, v0...), v1...), v2...)
	var all []Record
	r := NewReader(mixed)
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := b.Records()
		all = append(all, recs...)
	}
	want := []Record{
		{Offset: 5, Timestamp: -1, Key: []byte("k"), Value: []byte("v1")},
		{Offset: 6, Timestamp: 1700000000000, Value: []byte("x")},
		{Offset: 7, Timestamp: 1700000000000, Key: []byte("k"), Value: []byte("v1")},
		{Offset: 8, Timestamp: 1700000000005, Value: []byte("x"), Headers: []Header{{Key: "h"}}},
	}
	assertRecords(t, all, want, -1, true)
}

// A compressed legacy wrapper: offset of the last inner message, codec in
// the attributes, null key, and as value the inner set with relative
// offsets (magic 1), compressed.
func TestGoldenLegacyWrapper(t *testing.T) {
	recs := []Record{
		{Key: []byte("a"), Value: []byte("1"), Timestamp: 1000},
		{Key: []byte("b"), Value: nil, Timestamp: 3000},
		{Key: nil, Value: []byte("3"), Timestamp: 2000},
	}
	got, err := Build(recs, WithMagic(1), WithCodec(CodecGzip), WithBaseOffset(10))
	if err != nil {
		t.Fatal(err)
	}
	// The inner set is exactly the uncompressed set written from offset 0.
	inner, _ := Build(recs, WithMagic(1))
	expectPrefix(t, got, "000000000000000c") // offset 12 = last inner
	expectPrefix(t, got[16:], "01 01 0000000000000bb8 ffffffff")
	value := got[16+2+8+4+4:]
	r, err := gzip.NewReader(bytes.NewReader(value))
	if err != nil {
		t.Fatal(err)
	}
	if out := readAllOrFail(t, r); !bytes.Equal(out, inner) {
		t.Fatalf("inner set\n got %x\nwant %x", out, inner)
	}
	bs, _, err := ReadBatches(got)
	if err != nil || len(bs) != 1 {
		t.Fatal(len(bs), err)
	}
	read, _ := bs[0].Records()
	assertRecords(t, read, recs, 10, false)
	if bs[0].BaseOffset != 10 || bs[0].LastOffset() != 12 || bs[0].NumRecords != 3 {
		t.Fatalf("wrapper as batch: %+v", bs[0])
	}
}

func expectPrefix(t *testing.T, b []byte, hexPrefix string) {
	t.Helper()
	want := wiretest.Hex(t, hexPrefix)
	if !bytes.HasPrefix(b, want) {
		t.Fatalf("bytes start %x, want %x", b[:min(len(b), len(want))], want)
	}
}

func readAllOrFail(t *testing.T, r io.Reader) []byte {
	t.Helper()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestXXH32Short(t *testing.T) {
	// Reference values of XXH32 with seed 0.
	for in, want := range map[string]uint32{"": 0x02cc5d05, "a": 0x550d7456, "abc": 0x32d153ff} {
		if got := xxh32([]byte(in)); got != want {
			t.Fatalf("xxh32(%q) = %#08x, want %#08x", in, got, want)
		}
	}
	// The LZ4 library's own frames carry checksums it computed itself.
	frame, _ := Compress(nil, CodecLZ4, []byte("hello"))
	if got := withCorrectLZ4HeaderChecksum(frame); &got[0] != &frame[0] {
		t.Fatalf("a correct lz4 frame header was rewritten")
	}
}

// A magic 0 LZ4 wrapper as Java writes it: the descriptor checksum taken
// over the frame magic too. It reads; in magic 1 the same damage is an error.
func TestLegacyLZ4BrokenHeaderChecksum(t *testing.T) {
	recs := []Record{{Key: []byte("k"), Value: []byte("v")}}
	for _, magic := range []int8{0, 1} {
		data, _ := Build(recs, WithMagic(magic), WithCodec(CodecLZ4))
		valueAt := 12 + 4 + 2 + 4 + 4 // offset, size, crc, magic+attributes, null key, value length
		if magic == 1 {
			valueAt += 8
		}
		frame := data[valueAt:]
		broken := byte(xxh32(frame[:6]) >> 8) // KAFKA-3160: magic + FLG + BD
		if broken == frame[6] {
			t.Fatal("test frame's broken and correct checksums coincide")
		}
		frame[6] = broken
		binary.BigEndian.PutUint32(data[12:], crc32.ChecksumIEEE(data[16:]))
		err := readErr(data, 0)
		if magic == 0 && err != nil {
			t.Fatalf("magic 0: %v", err)
		}
		if magic == 1 && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("magic 1: %v, want ErrCorrupt", err)
		}
	}
}
