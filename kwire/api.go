package kwire

import "github.com/kwirelabs/kwire/kwire/internal/engine"

// Marshal encodes the body of msg (a struct or a pointer to one) at the
// given version.
func Marshal(msg any, version int16) ([]byte, error) { return engine.Marshal(msg, version) }

// Append appends the body of msg at the given version to dst. Encoding
// into a buffer with room allocates nothing when msg is a pointer.
func Append(dst []byte, msg any, version int16) ([]byte, error) {
	return engine.Append(dst, msg, version)
}

// Size is the number of bytes Marshal would produce.
func Size(msg any, version int16) (int, error) { return engine.Size(msg, version) }

// Unmarshal decodes a message body into msg, a pointer to a struct, which
// is reset first. Fields the version lacks, and tagged fields that are not
// sent, get their schema defaults. Bytes left over are an error. Strings
// do not alias data; records fields do. It is Decoder{}.Unmarshal.
func Unmarshal(data []byte, msg any, version int16) error {
	return engine.Unmarshal(engine.Options{}, data, msg, version)
}
