package kwire

// Marshal encodes the body of msg (a struct or a pointer to one) at the
// given version.
func Marshal(msg any, version int16) ([]byte, error) {
	pl, p, err := messagePlan(msg, version, "marshal", readValue)
	if err != nil {
		return nil, err
	}
	n, err := sizeStruct(pl, p) // fails where encodeStruct would: the same error
	if err != nil {
		return nil, marshalError(pl, err)
	}
	out, err := encodeStruct(make([]byte, 0, n), pl, p)
	if err != nil {
		return nil, marshalError(pl, err)
	}
	return out, nil
}

// Append appends the body of msg at the given version to dst. Encoding
// into a buffer with room allocates nothing when msg is a pointer.
func Append(dst []byte, msg any, version int16) ([]byte, error) {
	if pl, p := cachedRootPlan(msg, version); pl != nil {
		out, err := encodeStruct(dst, pl, p)
		if err != nil {
			return dst, marshalError(pl, err)
		}
		return out, nil
	}
	return appendSlow(dst, msg, version)
}

// Size is the number of bytes Marshal would produce.
func Size(msg any, version int16) (int, error) {
	pl, p, err := messagePlan(msg, version, "size", readValue)
	if err != nil {
		return 0, err
	}
	n, err := sizeStruct(pl, p)
	if err != nil {
		return 0, publicError("size", pl.typ.String(), err)
	}
	return n, nil
}

// Unmarshal decodes a message body into msg, a pointer to a struct, which
// is reset first. Fields the version lacks, and tagged fields that are not
// sent, get their schema defaults. Bytes left over are an error. Strings
// do not alias data; records fields do. It is Decoder{}.Unmarshal.
func Unmarshal(data []byte, msg any, version int16) error {
	return Decoder{}.Unmarshal(data, msg, version)
}
