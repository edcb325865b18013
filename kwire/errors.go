package kwire

import public "github.com/kwirelabs/kwire/kwire/internal/public"

// Sentinels for errors.Is. Every error that Marshal, Unmarshal and the
// frame functions return wraps one of them in an *Error.
var (
	ErrTruncated          = public.ErrTruncated
	ErrInvalidLength      = public.ErrInvalidLength
	ErrUnsupportedVersion = public.ErrUnsupportedVersion
	ErrNullNotAllowed     = public.ErrNullNotAllowed
	ErrBadTag             = public.ErrBadTag
	ErrFieldNotInVersion  = public.ErrFieldNotInVersion
	ErrTrailingBytes      = public.ErrTrailingBytes
	ErrBadVarint          = public.ErrBadVarint
	ErrValueOutOfRange    = public.ErrValueOutOfRange
	ErrInvalidSpec        = public.ErrInvalidSpec
	ErrNotAMessage        = public.ErrNotAMessage
	ErrUnknownAPI         = public.ErrUnknownAPI
	ErrTooLarge           = public.ErrTooLarge

	// Stream framing (stream.go): ErrIncomplete means "read more bytes",
	// never "invalid"; ErrFrameTooLarge is a size prefix above the limit.
	ErrIncomplete    = public.ErrIncomplete
	ErrFrameTooLarge = public.ErrFrameTooLarge

	// Pairing responses with requests (pair.go).
	ErrUnknownCorrelation = public.ErrUnknownCorrelation
	ErrOutOfOrder         = public.ErrOutOfOrder
	ErrTooManyInFlight    = public.ErrTooManyInFlight
)

// Error says where encoding or decoding failed: the field path inside the
// message (TopicPartitions[0].Partitions[2]) and, when decoding, the byte
// offset in the input.
//
// Its fields and methods are documented where it is defined:
// go doc github.com/kwirelabs/kwire/kwire/internal/public.Error
type Error = public.Error
