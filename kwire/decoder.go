package kwire

import (
	"unsafe"

	"github.com/kwirelabs/kwire/kwire/internal/engine"
)

// Decoder decodes with options. Its zero value is what Unmarshal,
// ReadRequest and ReadResponse do; a Decoder is a plain value, safe to
// share and to copy.
//
//	dec := kwire.Decoder{MaxAlloc: 64 << 20}
//	hdr, body, err := dec.ReadRequest(frame, newBody)
//	if errors.Is(err, kwire.ErrTooLarge) { ... }
type Decoder struct {
	// MaxAlloc bounds the bytes one call may allocate for the decoded
	// value: strings, byte slices, arrays, structs behind pointers and
	// kept tagged fields, counted as requested (Go's size classes round
	// some up a little). A call that would need more fails with
	// ErrTooLarge before it allocates them. 0 or less: no bound beyond
	// the one every decode has (nothing is allocated for a length the
	// bytes left cannot hold).
	MaxAlloc int

	// Exact refuses the forms Kafka's Java reader accepts but encoding
	// would not write back byte for byte: a varint longer than it needs
	// to be (ErrBadVarint), a bool byte other than 0 and 1, and a
	// nullable struct's presence marker other than 1 and -1
	// (ErrValueOutOfRange, ErrInvalidLength). What an exact decode
	// accepts, encoding gives back unchanged.
	Exact bool
}

// Unmarshal decodes a message body into msg, a pointer to a struct, which
// is reset first. Fields the version lacks, and tagged fields that are not
// sent, get their schema defaults. Bytes left over are an error (msg
// holds what was read); after any other error in the body msg holds its
// zero value. Strings do not alias data; records fields do.
func (dc Decoder) Unmarshal(data []byte, msg any, version int16) error {
	return engine.Unmarshal(engine.Options(dc), data, msg, version)
}

// ReadRequest reads a request frame (size prefix included). newBody is
// given the API key and version from the header and returns a pointer to
// the struct to decode the body into; its tags decide the header version.
func (dc Decoder) ReadRequest(frame []byte, newBody func(apiKey, version int16) (any, error)) (RequestHeader, any, error) {
	h, body, err := engine.ReadRequest(engine.Options(dc), frame, newBody)
	return *(*RequestHeader)(unsafe.Pointer(&h)), body, err
}

// ReadResponse reads a response frame (size prefix included) into msg, a
// pointer to the response struct of the request's API at version.
func (dc Decoder) ReadResponse(frame []byte, msg any, version int16) (ResponseHeader, error) {
	h, err := engine.ReadResponse(engine.Options(dc), frame, msg, version)
	return *(*ResponseHeader)(unsafe.Pointer(&h)), err
}
