package record

import (
	"errors"
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

// Sentinels for errors.Is. Every error the package returns for bad input is
// an *Error wrapping one of these. The four a message body can fail with
// too are kwire's own, so errors.Is(err, kwire.ErrTooLarge) holds whether
// a Fetch response or a batch inside it went past a limit.
var (
	// ErrTruncated: the input ends inside a structure whose length it
	// declared (inside a complete batch; a batch cut short at the end of a
	// Fetch response is not an error, see Reader.Partial).
	ErrTruncated = kwire.ErrTruncated
	// ErrBadVarint: a varint is longer than its type allows.
	ErrBadVarint = kwire.ErrBadVarint
	// ErrInvalidLength: a length or count is negative, below the minimum,
	// larger than the bytes that remain, or disagrees with what was read.
	ErrInvalidLength = kwire.ErrInvalidLength
	// ErrTooLarge: a batch exceeds one of the Reader's limits: its
	// decompressed size, its record count or its header count (a bomb, or
	// a limit set too low).
	ErrTooLarge = kwire.ErrTooLarge
	// ErrCRCMismatch: the stored checksum does not match the bytes.
	ErrCRCMismatch = errors.New("crc mismatch")
	// ErrUnknownCodec: the compression codec bits name no known codec.
	ErrUnknownCodec = errors.New("unknown compression codec")
	// ErrUnknownMagic: the magic byte is not 0, 1 or 2.
	ErrUnknownMagic = errors.New("unknown magic")
	// ErrCorrupt: compressed data that does not decompress, or a structure
	// Kafka would reject (nested compression, a null header key ...).
	ErrCorrupt = errors.New("corrupt data")
	// ErrReleased: a batch's records were read after Batch.Release.
	ErrReleased = errors.New("batch released")
	// ErrUnsupported: a write the chosen format cannot express (zstd or
	// headers in a legacy message set, a bad option value).
	ErrUnsupported = errors.New("unsupported")
)

// Error says where decoding or encoding failed.
type Error struct {
	// Offset is the byte offset in the input given to the Reader (or to
	// the function called) of the structure that failed: for an error
	// inside compressed data, the offset of its batch.
	Offset int
	// InnerOffset is the byte offset inside the decompressed records of
	// that batch, or -1 when the error is not inside decompressed data.
	InnerOffset int
	// What names the structure or field: "batch length", "record 3 key".
	What string
	// Err is one of the package's sentinels.
	Err error
	// Cause is the underlying error (from a decompressor), or nil.
	Cause error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("record: %s at byte %d", e.What, e.Offset)
	if e.InnerOffset >= 0 {
		msg += fmt.Sprintf(" (byte %d of decompressed records)", e.InnerOffset)
	}
	msg += ": " + e.Err.Error()
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap lets errors.Is find both the sentinel and the cause.
func (e *Error) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

// errAt builds an *Error for bytes of the outer input.
func errAt(offset int, sentinel error, format string, args ...any) *Error {
	return &Error{Offset: offset, InnerOffset: -1, What: fmt.Sprintf(format, args...), Err: sentinel}
}

// decompressError places a decompression failure of what (say "zstd
// records") at offset.
func decompressError(offset int, what string, sentinel, cause error) *Error {
	if sentinel == ErrTooLarge {
		what = "decompressed size of " + what
	}
	return &Error{Offset: offset, InnerOffset: -1, What: what, Err: sentinel, Cause: cause}
}
