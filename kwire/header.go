package kwire

// RequestHeader is the header in front of every request body.
type RequestHeader struct {
	Version       int16 // header version: 0 to 3
	APIKey        int16
	APIVersion    int16
	CorrelationID int32
	ClientID      *string // header v1+; never compact, even in v2
	// ClientInstanceID is header v3's tagged ClientInstanceId (KIP-1313):
	// a client sends it on the first request of a connection and then
	// leaves it out. Zero when not sent; a v3 header without it is
	// byte for byte a v2 header.
	ClientInstanceID UUID
	UnknownTags      UnknownTags // header v2+: the tagged fields kwire does not read
}

// ClientInstanceIDTag is the tag kwire reads request header v3's
// ClientInstanceId at. KIP-1313's RequestHeader.json was not published
// when kwire was written: 0 is the tag of kwire's fixture of it
// (gen/testdata/kip1313), and gen.LoadAPIs refuses a schema set whose
// RequestHeader defines v3 otherwise.
const ClientInstanceIDTag = 0

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
