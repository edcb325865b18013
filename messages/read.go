package messages

import "github.com/kwirelabs/kwire/kwire"

// ReadRequest reads a whole request frame (size prefix included) and
// decodes its body into the request struct of the API the header names,
// from the Default registry.
func ReadRequest(frame []byte) (kwire.RequestHeader, any, error) { return Default.ReadRequest(frame) }

// ReadResponse reads a whole response frame for API key at version, from
// the Default registry.
func ReadResponse(frame []byte, key, version int16) (kwire.ResponseHeader, any, error) {
	return Default.ReadResponse(frame, key, version)
}

// TraceRequest returns the layout tree of a request frame of any API in
// the Default registry.
func TraceRequest(frame []byte) (*kwire.LayoutNode, error) { return Default.TraceRequest(frame) }

// ReadRequest reads a whole request frame (size prefix included) and
// decodes its body into the request struct of the API the header names.
// An API key the registry lacks is kwire.ErrUnknownAPI.
func (r *Registry) ReadRequest(frame []byte) (kwire.RequestHeader, any, error) {
	return kwire.ReadRequest(frame, r.RequestFor)
}

// ReadRequestWith is ReadRequest decoding with dec's options (its
// KafkaLimits, say).
func (r *Registry) ReadRequestWith(dec kwire.Decoder, frame []byte) (kwire.RequestHeader, any, error) {
	return dec.ReadRequest(frame, r.RequestFor)
}

// TraceRequest returns the layout tree of a request frame (see
// kwire.TraceRequest) of any API in the registry.
func (r *Registry) TraceRequest(frame []byte) (*kwire.LayoutNode, error) {
	return kwire.TraceRequest(frame, r.RequestFor)
}

// ReadResponse reads a whole response frame for API key at version.
func (r *Registry) ReadResponse(frame []byte, key, version int16) (kwire.ResponseHeader, any, error) {
	msg, err := r.ResponseFor(key, version)
	if err != nil {
		return kwire.ResponseHeader{}, nil, err
	}
	h, err := kwire.ReadResponse(frame, msg, version)
	return h, msg, err
}

// ReadResponseWith is ReadResponse decoding with dec's options.
func (r *Registry) ReadResponseWith(dec kwire.Decoder, frame []byte, key, version int16) (kwire.ResponseHeader, any, error) {
	msg, err := r.ResponseFor(key, version)
	if err != nil {
		return kwire.ResponseHeader{}, nil, err
	}
	h, err := dec.ReadResponse(frame, msg, version)
	return h, msg, err
}
