package messages

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

// ReadRequest reads a whole request frame (size prefix included) and
// decodes its body into the request struct of the API the header names.
func ReadRequest(frame []byte) (kwire.RequestHeader, any, error) {
	return kwire.ReadRequest(frame, func(key, version int16) (any, error) {
		api, ok := Lookup(key)
		if !ok {
			return nil, &kwire.Error{Op: "frame", Type: "RequestHeader", Offset: 4, Err: kwire.ErrUnknownAPI,
				Detail: fmt.Sprintf("key %d", key)}
		}
		return api.NewRequest(), nil
	})
}

// ReadResponse reads a whole response frame for API key at version.
func ReadResponse(frame []byte, key, version int16) (kwire.ResponseHeader, any, error) {
	api, ok := Lookup(key)
	if !ok {
		return kwire.ResponseHeader{}, nil, &kwire.Error{Op: "frame", Type: "ResponseHeader", Offset: -1,
			Err: kwire.ErrUnknownAPI, Detail: fmt.Sprintf("key %d", key)}
	}
	msg := api.NewResponse()
	h, err := kwire.ReadResponse(frame, msg, version)
	return h, msg, err
}
