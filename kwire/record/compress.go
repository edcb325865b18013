package record

import (
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

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

// sliceWriter lets stream compressors append to a byte slice.
type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// Compressors carry large tables; pools let batches reuse them instead of
// allocating hundreds of KiB per batch.
var (
	gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}
	lz4Writers  = sync.Pool{New: func() any {
		w := lz4.NewWriter(nil)
		// Kafka's Java producer writes 64 KiB independent blocks without
		// checksums beyond the header's; some readers insist on that.
		_ = w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false), lz4.ConcurrencyOption(1))
		return w
	}}
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
