package kwire

// RequestHeader is the header in front of every request body.
type RequestHeader struct {
	Version       int16 // header version: 0, 1 or 2
	APIKey        int16
	APIVersion    int16
	CorrelationID int32
	ClientID      *string     // header v1+; never compact, even in v2
	UnknownTags   UnknownTags // header v2
}

// ResponseHeader is the header in front of every response body.
type ResponseHeader struct {
	Version       int16 // header version: 0 or 1
	CorrelationID int32
	UnknownTags   UnknownTags // header v1
}

// RequestHeaderVersion is the request header version Kafka uses for a
// request: 2 for flexible versions, 1 otherwise, 0 for ControlledShutdown v0.
func RequestHeaderVersion(apiKey, version int16, flexible bool) int16 {
	switch {
	case flexible:
		return 2
	case apiKey == apiKeyControlledShutdown && version == 0:
		return 0
	default:
		return 1
	}
}

// ResponseHeaderVersion is the response header version: 1 for flexible
// versions, 0 otherwise, and always 0 for ApiVersions, whose response a
// client must read before it knows what the broker speaks.
func ResponseHeaderVersion(apiKey int16, flexible bool) int16 {
	if flexible && apiKey != apiKeyAPIVersions {
		return 1
	}
	return 0
}

// The API keys whose header or handling differs from the rest.
const (
	apiKeyProduce            = 0
	apiKeyControlledShutdown = 7
	apiKeyAPIVersions        = 18
)
