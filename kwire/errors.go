package kwire

import public "github.com/kwirelabs/kwire/kwire/internal/public"

// Sentinels for errors.Is. Every error that Marshal, Unmarshal and the
// frame functions return wraps one of them in an *Error. Each comment
// gives the sentinel's text.
var (
	ErrTruncated          = public.ErrTruncated          // "truncated input"
	ErrInvalidLength      = public.ErrInvalidLength      // "invalid length"
	ErrUnsupportedVersion = public.ErrUnsupportedVersion // "unsupported version"
	ErrNullNotAllowed     = public.ErrNullNotAllowed     // "null not allowed in this version"
	ErrBadTag             = public.ErrBadTag             // "bad tagged field"
	ErrFieldNotInVersion  = public.ErrFieldNotInVersion  // "non-default value in a field this version lacks"
	ErrTrailingBytes      = public.ErrTrailingBytes      // "trailing bytes after message"
	ErrBadVarint          = public.ErrBadVarint          // "malformed varint"
	ErrValueOutOfRange    = public.ErrValueOutOfRange    // "value out of range"
	ErrInvalidSpec        = public.ErrInvalidSpec        // "invalid kafka struct tag"
	ErrNotAMessage        = public.ErrNotAMessage        // "not a message struct"
	ErrUnknownAPI         = public.ErrUnknownAPI         // "unknown API key"
	ErrTooLarge           = public.ErrTooLarge           // "past a decoding limit"

	// Stream framing (stream.go): ErrIncomplete means "read more bytes",
	// never "invalid"; ErrFrameTooLarge is a size prefix above the limit.
	ErrIncomplete    = public.ErrIncomplete    // "incomplete frame: more bytes needed"
	ErrFrameTooLarge = public.ErrFrameTooLarge // "frame larger than the limit"

	// Pairing responses with requests (pair.go).
	ErrUnknownCorrelation = public.ErrUnknownCorrelation // "response to no request in flight"
	ErrOutOfOrder         = public.ErrOutOfOrder         // "response out of order"
	ErrTooManyInFlight    = public.ErrTooManyInFlight    // "too many requests in flight"
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

func (e *Error) Error() string { return (*public.Error)(e).Error() }

func (e *Error) Unwrap() error { return e.Err }

// The engine builds its errors as its own Error type, which has the same
// fields as Error: these give them this package's type on the way out,
// so that errors.As and type switches on *Error find them, and recognise
// an *Error a caller's callback returns.
func init() {
	public.Publish = func(e *public.Error) error { return (*Error)(e) }
	public.ErrorOf = func(err error) (*public.Error, bool) {
		switch e := err.(type) {
		case *Error:
			return (*public.Error)(e), true
		case *public.Error:
			return e, true
		}
		return nil, false
	}
}
