package kwire

import (
	"errors"
	"fmt"
	"io"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// DefaultMaxFrameSize is the size-prefix limit a FrameReader uses when
// given none: Kafka's default socket.request.max.bytes, 100 MiB.
const DefaultMaxFrameSize = 100 << 20

// minReadBuffer is the first buffer a FrameReader reads into, and the
// least it grows by: small frames cost one read each.
const minReadBuffer = 4 << 10

// frameLen checks the size prefix at the front of buf and returns the
// whole frame's length, prefix included. Fewer than 4 bytes is
// ErrIncomplete; a prefix that is zero, negative or above maxSize is
// invalid, whatever follows it (zero is allowed with minSize 0).
func frameLen(buf []byte, maxSize int, minSize int32) (int, error) {
	if len(buf) < wire.FrameSizeLen {
		return 0, ErrIncomplete
	}
	n := wire.Int32(buf)
	if n < minSize || n < 0 {
		return 0, &Error{Op: "frame", Offset: 0, Err: ErrInvalidLength, Detail: fmt.Sprintf("size prefix %d", n)}
	}
	if int64(n) > int64(maxSize) {
		return 0, &Error{Op: "frame", Offset: 0, Err: ErrFrameTooLarge, Detail: fmt.Sprintf("size prefix %d, limit %d", n, maxSize)}
	}
	return 4 + int(n), nil
}

// SplitFrame cuts the first whole frame (size prefix included) off the
// front of buf, which may hold several frames back to back, and returns
// it with the number of bytes it used. The frame aliases buf. When buf
// holds only part of a frame the error is ErrIncomplete (read more and
// call again); any other error means the stream is invalid.
func SplitFrame(buf []byte, maxSize int) (frame []byte, used int, err error) {
	n, err := frameLen(buf, maxSize, 1)
	if err != nil {
		return nil, 0, err
	}
	if len(buf) < n {
		return nil, 0, ErrIncomplete
	}
	return buf[:n:n], n, nil
}

// FrameReader reads size-prefixed frames from a stream (a net.Conn, say)
// into one reused buffer. It reads ahead what the stream has, so a run
// of small frames costs one read, and it grows its buffer only as bytes
// arrive (at most doubling what it holds), never to the size a prefix
// claims: four bytes from a slow or hostile peer pin a few KiB, not the
// limit.
type FrameReader struct {
	// AllowEmpty lets the next frames have a zero size prefix, which
	// Kafka requests and responses never do but the raw SASL token
	// exchange after SaslHandshake v0 does (an accepted PLAIN token is
	// answered with an empty frame).
	AllowEmpty bool

	r          io.Reader
	maxSize    int
	buf        []byte // buf[start:end] is read but not yet returned
	start, end int
}

// NewFrameReader reads frames from r whose size prefix is at most
// maxSize (DefaultMaxFrameSize if maxSize <= 0).
func NewFrameReader(r io.Reader, maxSize int) *FrameReader {
	if maxSize <= 0 {
		maxSize = DefaultMaxFrameSize
	}
	return &FrameReader{r: r, maxSize: maxSize}
}

// Next returns the next whole frame, size prefix included. It stays
// valid until the next call to Next or Peek. At a clean end of stream
// (between frames) the error is io.EOF; in the middle of a frame,
// io.ErrUnexpectedEOF. A bad size prefix is an *Error wrapping
// ErrInvalidLength or ErrFrameTooLarge.
func (f *FrameReader) Next() ([]byte, error) {
	n, err := f.fill(-1)
	if err != nil {
		return nil, err
	}
	frame := f.buf[f.start : f.start+n : f.start+n]
	f.start += n
	return frame, nil
}

// ShrinkAbove is the buffer size Shrink lets go of.
const ShrinkAbove = 64 << 10

// Shrink lets go of a buffer that grew past ShrinkAbove for a large
// frame, when no bytes of the next frame are held, so a connection idle
// after one large frame holds nothing rather than the frame's size.
// Frames returned earlier stay valid (they keep the old buffer alive).
// Call it when the stream goes quiet, not after every frame: a stream of
// large frames would grow the buffer again for each.
func (f *FrameReader) Shrink() {
	if f.start == f.end && len(f.buf) > ShrinkAbove {
		f.buf, f.start, f.end = nil, 0, 0
	}
}

// BufferSize is the size of the buffer the reader holds.
func (f *FrameReader) BufferSize() int { return len(f.buf) }

// Peek returns the first n bytes of the next frame, size prefix included
// (the whole frame if it is shorter), without consuming it, so a broker
// can read the request header with PeekRequest and refuse an API before
// the body arrives. The bytes stay valid until the next Next or Peek.
func (f *FrameReader) Peek(n int) ([]byte, error) {
	if n < 4 {
		n = 4
	}
	whole, err := f.fill(n)
	if err != nil {
		return nil, err
	}
	return f.buf[f.start : f.start+min(n, whole)], nil
}

// fill reads until the buffer holds the next frame's first want bytes
// (the whole frame if want < 0 or the frame is shorter) and returns the
// frame's length.
func (f *FrameReader) fill(want int) (int, error) {
	for {
		held := f.buf[f.start:f.end]
		minSize := int32(1)
		if f.AllowEmpty {
			minSize = 0
		}
		n, err := frameLen(held, f.maxSize, minSize)
		switch {
		case err == nil:
			need := n
			if want >= 0 && want < n {
				need = want
			}
			if len(held) >= need {
				return n, nil
			}
			if err := f.read(need); err != nil {
				return 0, err
			}
		case errors.Is(err, ErrIncomplete):
			if err := f.read(4); err != nil {
				return 0, err
			}
		default:
			return 0, err
		}
	}
}

// read reads at least once more, with room for the held bytes to reach
// need. The buffer grows, only once it is full, to at most twice what is
// held (and at least minReadBuffer), so its size follows the bytes that
// arrived, and a frame that arrives in small reads (TLS records of 16 KiB)
// costs a few doublings, not a new buffer a read.
func (f *FrameReader) read(need int) error {
	held := f.end - f.start
	if f.start > 0 && (held == 0 || len(f.buf)-f.start < need) {
		copy(f.buf, f.buf[f.start:f.end]) // move the partial frame to the front
		f.start, f.end = 0, held
	}
	if len(f.buf)-f.start < need && f.end == len(f.buf) {
		size := max(2*held, minReadBuffer) // room for read-ahead, bounded by what arrived
		if need > minReadBuffer {
			size = min(size, need)
		}
		grown := make([]byte, size)
		copy(grown, f.buf[f.start:f.end])
		f.buf, f.start, f.end = grown, 0, held
	}
	for range 100 { // as bufio does, tolerate a few empty reads
		n, err := f.r.Read(f.buf[f.end:])
		f.end += n
		switch {
		case n > 0:
			return nil
		case err == io.EOF && held > 0:
			return io.ErrUnexpectedEOF
		case err != nil:
			return err
		}
	}
	return io.ErrNoProgress
}
