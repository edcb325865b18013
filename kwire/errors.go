package kwire

import (
	"errors"
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
	// ErrKafkaLimit is a frame past the limits Kafka's own reader holds
	// to (Decoder.KafkaLimits): a broker refuses it. It is an
	// ErrTooLarge too (errors.Is says so).
	ErrKafkaLimit error = kafkaLimit{}

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

// kafkaLimit is ErrKafkaLimit: a limit of its own that is also one of the
// decoding limits ErrTooLarge stands for.
type kafkaLimit struct{}

func (kafkaLimit) Error() string        { return "past Kafka's reader limits" }
func (kafkaLimit) Is(target error) bool { return target == ErrTooLarge }
