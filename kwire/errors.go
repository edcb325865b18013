package kwire

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinels for errors.Is. Every error that Marshal, Unmarshal and the
// frame functions return wraps one of them in an *Error.
var (
	ErrTruncated          = errors.New("truncated input")
	ErrInvalidLength      = errors.New("invalid length")
	ErrUnsupportedVersion = errors.New("unsupported version")
	ErrNullNotAllowed     = errors.New("null not allowed in this version")
	ErrBadTag             = errors.New("bad tagged field")
	ErrFieldNotInVersion  = errors.New("non-default value in a field this version lacks")
	ErrTrailingBytes      = errors.New("trailing bytes after message")
	ErrBadVarint          = errors.New("malformed varint")
	ErrValueOutOfRange    = errors.New("value out of range")
	ErrInvalidSpec        = errors.New("invalid kafka struct tag")
	ErrNotAMessage        = errors.New("not a message struct")
	ErrUnknownAPI         = errors.New("unknown API key")
	ErrTooLarge           = errors.New("past a decoding limit")

	// Stream framing (stream.go): ErrIncomplete means "read more bytes",
	// never "invalid"; ErrFrameTooLarge is a size prefix above the limit.
	ErrIncomplete    = errors.New("incomplete frame: more bytes needed")
	ErrFrameTooLarge = errors.New("frame larger than the limit")

	// Pairing responses with requests (pair.go).
	ErrUnknownCorrelation = errors.New("response to no request in flight")
	ErrOutOfOrder         = errors.New("response out of order")
	ErrTooManyInFlight    = errors.New("too many requests in flight")
)

// Error says where encoding or decoding failed: the field path inside the
// message (TopicPartitions[0].Partitions[2]) and, when decoding, the byte
// offset in the input.
type Error struct {
	Op     string // "marshal", "unmarshal", "size", "plan", "frame"
	Type   string // Go type of the top-level message
	Path   string // field path, empty for the message itself
	Offset int    // byte offset in the input (unmarshal) or -1
	Detail string // extra words, may be empty
	Err    error  // one of the sentinels
}

func (e *Error) Error() string {
	s := "kwire: " + e.Op
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Path != "" {
		s += "." + e.Path
	}
	if e.Offset >= 0 {
		s += " at offset " + strconv.Itoa(e.Offset)
	}
	s += ": " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// fieldError is the error the codec loops return while unwinding: the path
// is built on the way out, so the success path never formats anything.
type fieldError struct {
	path   []string // innermost first
	offset int
	detail string
	err    error
}

func (e *fieldError) Error() string { return e.err.Error() }

func newFieldError(sentinel error, offset int, format string, args ...any) *fieldError {
	d := format
	if len(args) > 0 {
		d = fmt.Sprintf(format, args...)
	}
	return &fieldError{offset: offset, err: sentinel, detail: d}
}

// within adds a path element (a field name) to err.
func within(err error, name string) error {
	if fe, ok := err.(*fieldError); ok {
		fe.path = append(fe.path, name)
	}
	return err
}

// withinIndex adds an array index to err's path.
func withinIndex(err error, i int) error {
	if fe, ok := err.(*fieldError); ok {
		fe.path = append(fe.path, "["+strconv.Itoa(i)+"]")
	}
	return err
}

// publicError turns an internal error into the *Error callers see.
func publicError(op, typ string, err error) error {
	if err == nil {
		return nil
	}
	if pe, ok := err.(*Error); ok {
		return pe
	}
	fe, ok := err.(*fieldError)
	if !ok {
		return &Error{Op: op, Type: typ, Offset: -1, Err: err}
	}
	path := ""
	for i := len(fe.path) - 1; i >= 0; i-- {
		seg := fe.path[i]
		if seg[0] != '[' && path != "" {
			path += "."
		}
		path += seg
	}
	return &Error{Op: op, Type: typ, Path: path, Offset: fe.offset, Detail: fe.detail, Err: fe.err}
}

func shiftOffset(err error, by int) error {
	if fe, ok := err.(*fieldError); ok && fe.offset >= 0 {
		fe.offset += by
	}
	return err
}
