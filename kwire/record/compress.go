package record

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// DefaultMaxDecompressedSize is the limit on one batch's decompressed
// records when the caller sets none. Brokers cap a batch at
// message.max.bytes (1 MiB by default, rarely above a few tens of MiB), and
// compression ratios of real data seldom pass 10:1, so 64 MiB leaves ample
// room while keeping a hostile 1 KiB batch from claiming gigabytes.
const DefaultMaxDecompressedSize = 64 << 20

// zstdMaxWindow bounds the history a zstd frame may ask the decoder to keep;
// Kafka's producers use levels whose windows are a few MiB. The decoder
// allocates the window a frame declares, so it is also capped by the
// decompression limit: a 500-byte frame must not make us allocate 64 MiB.
const zstdMaxWindow = 64 << 20

// Compress appends src compressed with codec to dst, in the form Kafka's Java
// producer writes: gzip, xerial-framed snappy, an LZ4 frame with 64 KiB
// independent blocks, or a zstd frame.
func Compress(dst []byte, codec Codec, src []byte) ([]byte, error) {
	switch codec {
	case CodecNone:
		return append(dst, src...), nil
	case CodecGzip:
		return compressGzip(dst, src)
	case CodecSnappy:
		return appendXerialSnappy(dst, src), nil
	case CodecLZ4:
		return compressLZ4(dst, src)
	case CodecZstd:
		return zstdEncoder().EncodeAll(src, dst), nil
	}
	return dst, errAt(0, ErrUnknownCodec, "compress codec %d", codec)
}

// Decompress appends the decompressed form of src to dst. It fails with
// ErrTooLarge as soon as more than limit bytes come out (limit <= 0 means
// DefaultMaxDecompressedSize, math.MaxInt no limit); memory use stays within about twice the
// output actually produced. Snappy input may be xerial-framed or raw.
// Errors are *Error with Offset 0: the position is the caller's to know.
func Decompress(dst []byte, codec Codec, src []byte, limit int) ([]byte, error) {
	out, sentinel, cause := decompress(dst, codec, src, limit)
	if sentinel != nil {
		return dst, decompressError(0, codec.String()+" data", sentinel, cause)
	}
	return out, nil
}

// decompress returns the sentinel and cause separately so that callers can
// place the error at their own offset.
func decompress(dst []byte, codec Codec, src []byte, limit int) (out []byte, sentinel, cause error) {
	limit = min(orDefault(limit, DefaultMaxDecompressedSize), noLimit)
	var err error
	switch codec {
	case CodecNone:
		if len(src) > limit {
			return dst, ErrTooLarge, nil
		}
		return append(dst, src...), nil, nil
	case CodecGzip:
		out, err = decompressGzip(dst, src, limit)
	case CodecSnappy:
		out, err = decodeSnappy(dst, src, limit)
	case CodecLZ4:
		out, err = decompressLZ4(dst, src, limit)
	case CodecZstd:
		out, err = decompressZstd(dst, src, limit)
	default:
		return dst, ErrUnknownCodec, nil
	}
	switch {
	case err == nil:
		return out, nil, nil
	case errors.Is(err, errLimit), errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return dst, ErrTooLarge, nil
	case errors.Is(err, errSnappyTruncated):
		return dst, ErrTruncated, err
	}
	return dst, ErrCorrupt, err
}

// errLimit is readLimited's internal signal; decompress maps it to
// ErrTooLarge.
var errLimit = errors.New("limit reached")

// readLimited appends everything r yields to dst, but never more than
// limit bytes: the guard against decompression bombs. The buffer grows by
// doubling what has been produced, so its size follows the real output.
func readLimited(dst []byte, r io.Reader, limit int, sizeHint int) ([]byte, error) {
	start := len(dst)
	// A small start: an empty batch compresses to a few bytes, and a
	// Fetch response may hold thousands of them.
	dst = slices.Grow(dst, min(max(sizeHint, 64), limit+1))
	idle := 0
	for {
		if len(dst)-start > limit {
			return dst, errLimit
		}
		if len(dst) == cap(dst) {
			grow := max(len(dst)-start, 4096)
			// One byte past the limit is enough to tell a bomb.
			grow = min(grow, limit-(len(dst)-start)+1)
			dst = slices.Grow(dst, grow)
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			if len(dst)-start > limit {
				return dst, errLimit
			}
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
		// A reader that keeps returning nothing must not spin forever.
		if n > 0 {
			idle = 0
		} else if idle++; idle > 100 {
			return dst, io.ErrNoProgress
		}
	}
}

// sliceWriter lets stream compressors append to a byte slice.
type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// Compressors and decompressors carry large tables; pools let batches reuse
// them instead of allocating hundreds of KiB per batch.
var (
	gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}
	gzipReaders sync.Pool // *gzip.Reader; New cannot be used, it needs a header
	lz4Writers  = sync.Pool{New: func() any {
		w := lz4.NewWriter(nil)
		// Kafka's Java producer writes 64 KiB independent blocks without
		// checksums beyond the header's; some readers insist on that.
		_ = w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false), lz4.ConcurrencyOption(1))
		return w
	}}
	lz4Readers   = sync.Pool{New: func() any { return lz4.NewReader(nil) }}
	zstdReaders  = sync.Pool{New: newZstdReader}
	zstdEncoder  = sync.OnceValue(newZstdEncoder)
	compressSink = sync.Pool{New: func() any { return new(sliceWriter) }}
)

func newZstdEncoder() *zstd.Encoder {
	// EncodeAll is safe for concurrent use, so one encoder serves all.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic("record: zstd encoder: " + err.Error()) // only on bad options
	}
	return enc
}

func newZstdReader() any {
	// Concurrency 1 decodes synchronously: no goroutines outlive a pooled
	// decoder.
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		panic("record: zstd decoder: " + err.Error()) // only on bad options
	}
	return dec
}

func compressGzip(dst, src []byte) ([]byte, error) {
	sink := compressSink.Get().(*sliceWriter)
	sink.b = dst
	w := gzipWriters.Get().(*gzip.Writer)
	w.Reset(sink)
	_, err := w.Write(src)
	if err == nil {
		err = w.Close()
	}
	gzipWriters.Put(w)
	dst, sink.b = sink.b, nil
	compressSink.Put(sink)
	return dst, err
}

func decompressGzip(dst, src []byte, limit int) ([]byte, error) {
	r, _ := gzipReaders.Get().(*gzip.Reader)
	var err error
	if r == nil {
		r, err = gzip.NewReader(bytes.NewReader(src))
	} else {
		err = r.Reset(bytes.NewReader(src))
	}
	if err != nil {
		return dst, err
	}
	dst, err = readLimited(dst, r, limit, 4*len(src))
	gzipReaders.Put(r)
	return dst, err
}

func compressLZ4(dst, src []byte) ([]byte, error) {
	sink := compressSink.Get().(*sliceWriter)
	sink.b = dst
	w := lz4Writers.Get().(*lz4.Writer)
	w.Reset(sink)
	_, err := w.Write(src)
	if err == nil {
		err = w.Close()
	}
	w.Reset(nil)
	lz4Writers.Put(w)
	dst, sink.b = sink.b, nil
	compressSink.Put(sink)
	return dst, err
}

func decompressLZ4(dst, src []byte, limit int) ([]byte, error) {
	r := lz4Readers.Get().(*lz4.Reader)
	r.Reset(bytes.NewReader(src))
	dst, err := readLimited(dst, r, limit, 4*len(src))
	r.Reset(nil)
	lz4Readers.Put(r)
	return dst, err
}

func decompressZstd(dst, src []byte, limit int) ([]byte, error) {
	d := zstdReaders.Get().(*zstd.Decoder)
	// A bytes.Reader, unlike a bytes.Buffer, keeps the decoder on its
	// streaming path, where readLimited's guard applies; given a Buffer
	// it would decode the whole frame in one go.
	window := uint64(min(max(limit, zstd.MinWindowSize), zstdMaxWindow))
	if err := d.ResetWithOptions(bytes.NewReader(src), zstd.WithDecoderMaxWindow(window)); err != nil {
		zstdReaders.Put(d)
		return dst, err
	}
	dst, err := readLimited(dst, d, limit, 4*len(src))
	_ = d.Reset(nil)
	zstdReaders.Put(d)
	return dst, err
}
