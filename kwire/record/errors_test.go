package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"runtime"
	"testing"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
)

// readErr reads data to the end, materialising every batch, and returns
// the first error.
func readErr(data []byte, maxDecompressed int) error {
	r := NewReader(data)
	r.MaxDecompressedSize = maxDecompressed
	return readAll(r, true)
}

// wantErr checks the sentinel and the reported byte offset.
func wantErr(t *testing.T, err, sentinel error, offset int) *Error {
	t.Helper()
	var e *Error
	if !errors.Is(err, sentinel) || !errors.As(err, &e) {
		t.Fatalf("error %v, want %v", err, sentinel)
	}
	if offset >= 0 && e.Offset != offset {
		t.Fatalf("error %v at offset %d, want %d", err, e.Offset, offset)
	}
	return e
}

func golden(t testing.TB) []byte {
	return wiretest.Hex(t, "0000000000000000 00000046 ffffffff 02 0021f70e", goldenHeaderAfterCRC(CodecNone), goldenRecordBytes)
}

func TestCRCMismatch(t *testing.T) {
	b := golden(t)
	b[len(b)-2] ^= 1 // a byte of the last header key
	e := wantErr(t, readErr(b, 0), ErrCRCMismatch, batchCRCPos)
	t.Log(e)

	legacy, _ := Build([]Record{{Value: []byte("x")}}, WithMagic(1))
	legacy[len(legacy)-1] ^= 1
	wantErr(t, readErr(legacy, 0), ErrCRCMismatch, legacyCRCPos)
}

func TestTruncatedInsideBatch(t *testing.T) {
	// Claim three records where two are: the third's length is missing.
	b := golden(t)
	binary.BigEndian.PutUint32(b[57:], 3)
	fixBatchLengthAndCRC(b)
	e := wantErr(t, readErr(b, 0), ErrTruncated, len(b))
	t.Log(e)
	if !errors.Is(e, kwire.ErrTruncated) {
		t.Fatalf("%v is not kwire.ErrTruncated: a message cut short and a batch cut short should be one sentinel", e)
	}

	// A control key shorter than four bytes.
	_, err := ParseControlKey([]byte{0, 0, 0})
	wantErr(t, err, ErrTruncated, 3)
}

// A batch cut short at the end of a fetch is not an error: the complete
// batches come back and Partial says the tail was dropped.
func TestPartialTailIsNotAnError(t *testing.T) {
	one := golden(t)
	two, _ := Build(goldenRecords, WithBaseOffset(2), WithCodec(CodecLZ4))
	data := append(append([]byte{}, one...), two...)
	for cut := len(one); cut < len(data); cut++ {
		batches, partial, err := ReadBatches(data[:cut])
		wantPartial := cut > len(one)
		if err != nil || len(batches) != 1 || partial != wantPartial {
			t.Fatalf("cut at %d: %d batches, partial %v, err %v", cut, len(batches), partial, err)
		}
	}
	// Cut inside the first batch: nothing complete, still no error.
	batches, partial, err := ReadBatches(one[:30])
	if err != nil || len(batches) != 0 || !partial {
		t.Fatalf("%d batches, partial %v, err %v", len(batches), partial, err)
	}
}

func TestBadVarint(t *testing.T) {
	// The first record's length as six continuation-heavy bytes.
	b := wiretest.Hex(t, "0000000000000000 00000000 ffffffff 02 00000000", goldenHeaderAfterCRC(CodecNone),
		"ffffffffff01", goldenRecordBytes)
	fixBatchLengthAndCRC(b)
	e := wantErr(t, readErr(b, 0), ErrBadVarint, batchHeaderLen)
	t.Log(e)
	if _, p := varintAt([]byte{0x80, 0x80, 0x80, 0x80, 0x10}, 0); p >= 0 {
		t.Fatalf("varint past int32 accepted")
	}
	if _, p := varlongAt(bytes.Repeat([]byte{0xff}, 11), 0); p >= 0 {
		t.Fatalf("11-byte varlong accepted")
	}
}

func TestLengthLargerThanInput(t *testing.T) {
	// Key length 1,000,000 in a 21-byte records section.
	b := wiretest.Hex(t, "0000000000000000 00000000 ffffffff 02 00000000", goldenHeaderAfterCRC(CodecNone),
		"12 00 00 00 80897a 6b 04 7631 00", "14 00 0a 02 01 02 78 02 02 68 01")
	fixBatchLengthAndCRC(b)
	e := wantErr(t, readErr(b, 0), ErrInvalidLength, batchHeaderLen+4)
	t.Log(e)

	// A record count of two billion: refused before Records allocates.
	b = golden(t)
	binary.BigEndian.PutUint32(b[57:], 2_000_000_000)
	fixBatchLengthAndCRC(b)
	wantErr(t, readErr(b, 0), ErrInvalidLength, 57)

	// A legacy value length of two billion.
	legacy, _ := Build([]Record{{Value: []byte("x")}}, WithMagic(0))
	binary.BigEndian.PutUint32(legacy[len(legacy)-5:], 2_000_000_000)
	binary.BigEndian.PutUint32(legacy[12:], crc32.ChecksumIEEE(legacy[16:]))
	wantErr(t, readErr(legacy, 0), ErrInvalidLength, len(legacy)-5)

	// A header count larger than the bytes left for headers.
	b = wiretest.Hex(t, "0000000000000000 00000000 ffffffff 02 00000000", goldenHeaderAfterCRC(CodecNone),
		"12 00 00 00 02 6b 04 7631 0a", "14 00 0a 02 01 02 78 02 02 68 01")
	fixBatchLengthAndCRC(b)
	wantErr(t, readErr(b, 0), ErrInvalidLength, batchHeaderLen+9)

	// An entry length below the v2 header's size.
	b = golden(t)[:40]
	binary.BigEndian.PutUint32(b[8:], 28)
	wantErr(t, readErr(b, 0), ErrInvalidLength, 8)
}

func TestUnknownCodecAndMagic(t *testing.T) {
	b := golden(t)
	b[22] = 5
	fixBatchLengthAndCRC(b)
	wantErr(t, readErr(b, 0), ErrUnknownCodec, batchAttrsPos)

	b = golden(t)
	b[magicPos] = 3
	wantErr(t, readErr(b, 0), ErrUnknownMagic, magicPos)

	if _, err := Build(goldenRecords, WithCodec(7)); !errors.Is(err, ErrUnknownCodec) {
		t.Fatalf("build with codec 7: %v", err)
	}
	if _, err := Build(goldenRecords, WithMagic(1), WithCodec(CodecZstd)); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("zstd in magic 1: %v", err)
	}
	if _, err := Build(goldenRecords, WithMagic(1)); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("headers in magic 1: %v", err)
	}
}

// A batch whose 4 MiB of zeros compress to a few KiB must stop at the
// limit, with memory in proportion to the limit, not to the claim.
func TestDecompressionBomb(t *testing.T) {
	zeros := make([]byte, 4<<20)
	const limit = 256 << 10
	for codec := CodecGzip; codec <= CodecZstd; codec++ {
		t.Run(codec.String(), func(t *testing.T) {
			bomb, err := Build([]Record{{Value: zeros}}, WithCodec(codec))
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err = readErr(bomb, limit)
			runtime.ReadMemStats(&after)
			e := wantErr(t, err, kwire.ErrTooLarge, batchHeaderLen) // one sentinel for every decoding limit
			t.Logf("%d-byte batch: %v; allocated %d KiB", len(bomb), e, (after.TotalAlloc-before.TotalAlloc)>>10)
			// Pooled decoders may allocate their own state the first
			// time; the output buffer is what must stay bounded.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 3<<20 {
				t.Fatalf("allocated %d bytes for a %d-byte limit", grew, limit)
			}
			if err := readErr(bomb, 8<<20); err != nil {
				t.Fatalf("with a limit above the size: %v", err)
			}
		})
	}
	// Legacy wrappers go through the same guard.
	bomb, _ := Build([]Record{{Value: zeros}}, WithMagic(1), WithCodec(CodecGzip))
	wantErr(t, readErr(bomb, limit), ErrTooLarge, 0)
	// And so does the exported Decompress.
	compressed, _ := Compress(nil, CodecSnappy, zeros)
	if _, err := Decompress(nil, CodecSnappy, compressed, limit); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Decompress: %v", err)
	}
}

func TestCorruptCompressedData(t *testing.T) {
	for codec := CodecGzip; codec <= CodecZstd; codec++ {
		b, _ := Build(goldenRecords, WithCodec(codec))
		for i := batchHeaderLen; i < len(b); i += 3 {
			b[i] ^= 0x5a
		}
		fixBatchLengthAndCRC(b)
		err := readErr(b, 0)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%v: error %v is not an *Error", codec, err)
		}
		t.Logf("%v: %v", codec, err)
	}
}

func TestControlBatch(t *testing.T) {
	data, err := AppendEndTxnBatch(nil, ControlCommit, 7, 1700000000000, WithProducer(42, 3, -1), WithBaseOffset(100))
	if err != nil {
		t.Fatal(err)
	}
	batches, _, err := ReadBatches(data)
	if err != nil {
		t.Fatal(err)
	}
	b := batches[0]
	if !b.Attributes.Control() || !b.Attributes.Transactional() || b.ProducerID != 42 || b.ProducerEpoch != 3 || b.NumRecords != 1 {
		t.Fatalf("control batch header: %+v", b)
	}
	recs, _ := b.Records()
	// Key: version 0, type 1 (commit); value: version 0, coordinator epoch 7.
	if !bytes.Equal(recs[0].Key, wiretest.Hex(t, "0000 0001")) || !bytes.Equal(recs[0].Value, wiretest.Hex(t, "0000 00000007")) {
		t.Fatalf("control record key %x value %x", recs[0].Key, recs[0].Value)
	}
	key, err := recs[0].ControlKey()
	if err != nil || key != (ControlKey{Version: 0, Type: ControlCommit}) {
		t.Fatalf("control key %+v %v", key, err)
	}
	marker, err := ParseEndTxnMarker(recs[0].Value)
	if err != nil || marker != (EndTxnMarker{CoordinatorEpoch: 7}) {
		t.Fatalf("marker %+v %v", marker, err)
	}
	if _, err := AppendEndTxnBatch(nil, ControlLeaderChange, 0, 0); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("leader change as txn marker: %v", err)
	}
	if got := ControlType(9).String(); got != "control(9)" {
		t.Fatal(got)
	}
	if _, err := ParseEndTxnMarker([]byte{0, 0, 0, 0, 1}); !errors.Is(err, ErrTruncated) {
		t.Fatalf("short marker: %v", err)
	}
}

func TestAttributes(t *testing.T) {
	a := MakeAttributes(CodecZstd, LogAppendTime, true, true, true)
	if a != 0x7c || a.Codec() != CodecZstd || a.TimestampType() != LogAppendTime || !a.Transactional() || !a.Control() || !a.HasDeleteHorizon() {
		t.Fatalf("attributes %#x", a)
	}
	if MakeAttributes(CodecSnappy, CreateTime, false, false, false) != 2 {
		t.Fatal("snappy alone")
	}
}
