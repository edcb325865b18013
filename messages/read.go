package messages

import "github.com/kwirelabs/kwire/kwire"

// ReadRequest reads a whole request frame (size prefix included) and
// decodes its body into the request struct of the API the header names.
func ReadRequest(frame []byte) (kwire.RequestHeader, any, error) {
	return kwire.ReadRequest(frame, RequestFor)
}

// ReadResponse reads a whole response frame for API key at version.
func ReadResponse(frame []byte, key, version int16) (kwire.ResponseHeader, any, error) {
	msg, err := ResponseFor(key, version)
	if err != nil {
		return kwire.ResponseHeader{}, nil, err
	}
	h, err := kwire.ReadResponse(frame, msg, version)
	return h, msg, err
}
