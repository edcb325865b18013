package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// DefaultMaxDecompressedSize is the limit on one batch's decompressed
// records when the caller sets none. Brokers cap a batch at
// message.max.bytes (1 MiB by default, rarely above a few tens of MiB), and
// compression ratios of real data seldom pass 10:1, so 64 MiB leaves ample
// room while keeping a hostile 1 KiB batch from claiming gigabytes.
const DefaultMaxDecompressedSize = 64 << 20

// zstdMaxWindow bounds the history a zstd frame may ask the streaming
// decoder to keep; Kafka's producers use levels whose windows are a few
// MiB. The decoder allocates the window a frame declares, so it is also
// capped by the decompression limit: a 500-byte frame must not make us
// allocate 64 MiB.
const zstdMaxWindow = 64 << 20

// Decompress appends the decompressed form of src to dst. It fails with
// ErrTooLarge when more than limit bytes would come out (limit <= 0 means
// DefaultMaxDecompressedSize, math.MaxInt no limit): before decompressing
// when src declares its size (snappy, lz4, gzip's size trailer, zstd
// frames with a content size), otherwise as soon as the output passes the
// limit, memory staying within about twice the output produced. When dst
// has room for the size src declares, Decompress allocates nothing: it
// decompresses into the caller's buffer. Snappy input may be xerial-framed
// or raw. Errors are *Error with Offset 0: the position is the caller's to
// know.
func Decompress(dst []byte, codec Codec, src []byte, limit int) ([]byte, error) {
	limit = min(orDefault(limit, DefaultMaxDecompressedSize), noLimit)
	// An LZ4 batch is tried in the caller's room, if it has some, before
	// its exact size is walked for.
	var ratio int64
	if cap(dst) > len(dst) {
		ratio = 16
	}
	claim, sentinel, cause := claimSize(codec, src, limit, ratio)
	out := dst
	if sentinel == nil && claim.min > int64(limit) {
		sentinel = ErrTooLarge
	}
	if sentinel == nil {
		room := claim.start(limit)
		if codec == CodecLZ4 && !claim.exact() {
			room = 0 // the caller's buffer: a guess too short is redone exactly
		}
		out, sentinel, cause = decodeInto(slices.Grow(dst, room), codec, src, claim, limit, limit)
	}
	if sentinel != nil {
		return dst, decompressError(0, codec.String()+" data", sentinel, cause)
	}
	return out, nil
}

// sizeClaim is what compressed data declares of the size it decompresses
// to, read from its headers and checked against the bytes present: at
// least min bytes and at most max, likely guess. Equal, min and max are
// exact, and the decoder holds the data to them.
type sizeClaim struct{ min, max, guess int64 }

func exactClaim(n int64) sizeClaim { return sizeClaim{n, n, n} }

func (c sizeClaim) exact() bool { return c.min == c.max }

// start is the buffer to begin with: the declared size, or where the format
// bounds it only loosely, the guess, which grows. One byte over lets a
// stream decoder report its end without the buffer growing.
func (c sizeClaim) start(limit int) int {
	if c.exact() {
		return int(min(c.min, int64(limit)))
	}
	return int(min(c.guess, int64(limit)) + 1)
}

// deflateMaxRatio bounds how much a deflate stream expands (a 258-byte
// match takes as little as a quarter of a byte: about 1032:1).
const deflateMaxRatio = 1032

// claimSize reads what src declares of its decompressed size. An LZ4
// frame's exact size takes a walk of its sequences: given a ratio (in
// sixteenths, 0 for none) it gives lz4Guess's instead when all src can
// hold is within limit.
func claimSize(codec Codec, src []byte, limit int, lz4Ratio int64) (c sizeClaim, sentinel, cause error) {
	var err error
	switch codec {
	case CodecNone:
		return exactClaim(int64(len(src))), nil, nil
	case CodecGzip:
		// The trailer's ISIZE is the last member's size modulo 2^32,
		// which the reader checks at the end; more members may precede.
		bound := int64(len(src)) * deflateMaxRatio
		c = sizeClaim{0, bound, 4 * int64(len(src))}
		if len(src) >= 18 {
			isize := int64(binary.LittleEndian.Uint32(src[len(src)-4:]))
			c.min = min(isize, bound)
			c.guess = c.min
		}
		return c, nil, nil
	case CodecSnappy:
		c, err = snappyClaim(src)
	case CodecLZ4:
		if lz4Ratio > 0 {
			if c, err = lz4Guess(src, lz4Ratio); err == nil && c.max <= int64(limit) {
				return c, nil, nil
			}
		}
		c, err = lz4Claim(src)
	case CodecZstd:
		c, err = zstdClaim(src)
	default:
		return c, ErrUnknownCodec, nil
	}
	switch {
	case err == nil:
		return c, nil, nil
	case errors.Is(err, errSnappyTruncated), errors.Is(err, errFrameTruncated):
		return c, ErrTruncated, err
	}
	return c, ErrCorrupt, err
}

// decodeInto appends the decompressed src to dst, which has room for
// claim.min more bytes, producing at most limit; a streamed zstd frame may
// ask for a window of at most window bytes.
func decodeInto(dst []byte, codec Codec, src []byte, claim sizeClaim, limit, window int) (out []byte, sentinel, cause error) {
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
		out, err = decodeSnappy(dst, src)
	case CodecLZ4:
		out, err = decodeLZ4(dst, src)
		if errors.Is(err, errLZ4Room) && !claim.exact() {
			// The guess was short: decode again into the exact size.
			if claim, sentinel, cause = claimSize(codec, src, limit, 0); sentinel != nil {
				return dst, sentinel, cause
			}
			if claim.min > int64(limit) {
				return dst, ErrTooLarge, nil
			}
			out, err = decodeLZ4(slices.Grow(dst, int(claim.min)), src)
		}
	case CodecZstd:
		if claim.exact() {
			out, err = decodeZstd(dst, src)
		} else {
			out, err = streamZstd(dst, src, limit, window)
		}
	default:
		return dst, ErrUnknownCodec, nil
	}
	switch {
	case err == nil && claim.exact() && int64(len(out)-len(dst)) != claim.min:
		return dst, ErrCorrupt, fmt.Errorf("decoded %d bytes where the data declares %d", len(out)-len(dst), claim.min)
	case err == nil:
		return out, nil, nil
	case errors.Is(err, errLimit), errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return dst, ErrTooLarge, nil
	case errors.Is(err, errSnappyTruncated), errors.Is(err, errFrameTruncated):
		return dst, ErrTruncated, err
	}
	return dst, ErrCorrupt, err
}

// errLimit is readLimited's internal signal; decodeInto maps it to
// ErrTooLarge.
var errLimit = errors.New("limit reached")

// errFrameTruncated: an lz4 or zstd frame declares more bytes than remain.
var errFrameTruncated = errors.New("frame extends past the end")

// readLimited appends everything r yields to dst, but never more than
// limit bytes: the guard against decompression bombs. Past dst's capacity
// the buffer grows by doubling what has been produced, so its size follows
// the real output.
func readLimited(dst []byte, r io.Reader, limit int) ([]byte, error) {
	start := len(dst)
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

// Decoders carry large tables; pools let batches reuse them, each with
// the bytes.Reader it reads from, so that a batch allocates neither.
type gzipDecoder struct {
	src bytes.Reader
	r   gzip.Reader
}

type zstdStream struct {
	src bytes.Reader
	d   *zstd.Decoder
}

var (
	gzipDecoders = sync.Pool{New: func() any { return new(gzipDecoder) }}
	zstdDecoders = sync.Pool{New: func() any {
		// Concurrency 1 decodes synchronously: no goroutines outlive a
		// pooled decoder. DecodeAll writes no further than its
		// destination's capacity, which the frames' content sizes set.
		return newZstdDecoder(zstd.WithDecodeAllCapLimit(true))
	}}
	zstdStreams = sync.Pool{New: func() any { return &zstdStream{d: newZstdDecoder()} }}
)

func newZstdDecoder(opts ...zstd.DOption) *zstd.Decoder {
	dec, err := zstd.NewReader(nil, append(opts, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))...)
	if err != nil {
		panic("record: zstd decoder: " + err.Error()) // only on bad options
	}
	return dec
}

func decompressGzip(dst, src []byte, limit int) ([]byte, error) {
	g := gzipDecoders.Get().(*gzipDecoder)
	defer gzipDecoders.Put(g)
	g.src.Reset(src)
	if err := g.r.Reset(&g.src); err != nil {
		return dst, err
	}
	dst, err := readLimited(dst, &g.r, limit)
	g.src.Reset(nil)
	return dst, err
}

// decodeZstd decodes frames that all declare their content size, which
// zstdClaim summed and dst has room for.
func decodeZstd(dst, src []byte) ([]byte, error) {
	d := zstdDecoders.Get().(*zstd.Decoder)
	defer zstdDecoders.Put(d)
	return d.DecodeAll(src, dst)
}

// streamZstd decodes frames of unknown size (Java's producer writes its
// frames as a stream), growing dst as the output comes.
func streamZstd(dst, src []byte, limit, window int) ([]byte, error) {
	z := zstdStreams.Get().(*zstdStream)
	defer zstdStreams.Put(z)
	z.src.Reset(src)
	// A bytes.Reader, unlike a bytes.Buffer, keeps the decoder on its
	// streaming path, where readLimited's guard applies; given a Buffer
	// it would decode the whole frame in one go.
	maxWindow := uint64(min(max(window, zstd.MinWindowSize), zstdMaxWindow))
	if err := z.d.ResetWithOptions(&z.src, zstd.WithDecoderMaxWindow(maxWindow)); err != nil {
		return dst, err
	}
	dst, err := readLimited(dst, z.d, limit)
	_ = z.d.Reset(nil)
	z.src.Reset(nil)
	return dst, err
}
