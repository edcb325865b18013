package sniff

import (
	"encoding/binary"
	"sync"

	"github.com/kwirelabs/kwire/kwire/wire"
	"github.com/kwirelabs/kwire/messages"
)

// verdict is what the first bytes of a would-be frame say.
type verdict uint8

const (
	no   verdict = iota // not a frame start
	yes                 // a plausible frame start
	more                // too few bytes to tell
)

const (
	// maxClientID bounds a plausible client id; real ones are a name and
	// perhaps an instance number.
	maxClientID = 1024
	// apiVersionsAhead is how many versions past kwire's newest an
	// ApiVersions request may claim: a client tries its newest first and
	// the broker answers v0 when it does not know it.
	apiVersionsAhead = 16
	// requestHeaderFixed is a request header's fixed part: key, version
	// and correlation id.
	requestHeaderFixed  = wire.RequestHeadLen
	apiKeySaslHandshake = 17
	apiKeyAPIVersions   = 18
)

type versionRange struct{ known, min, max int16 }

var (
	rangesOnce sync.Once
	ranges     []versionRange // by API key
)

// apiRange is the versions a plausible request of key may claim, to
// reg: Default's from a table built once, another registry's (a dialect,
// its own APIs) from its lookup.
func apiRange(reg *messages.Registry, key int16) (versionRange, bool) {
	if reg != messages.Default {
		a, ok := reg.Lookup(key)
		if !ok {
			return versionRange{}, false
		}
		hi := a.MaxVersion
		if a.Key == apiKeyAPIVersions {
			hi += apiVersionsAhead
		}
		return versionRange{known: 1, min: 0, max: hi}, true
	}
	rangesOnce.Do(func() {
		for _, a := range messages.APIs() {
			if a.Key < 0 || a.Key > 4096 {
				continue
			}
			for int(a.Key) >= len(ranges) {
				ranges = append(ranges, versionRange{})
			}
			hi := a.MaxVersion
			if a.Key == apiKeyAPIVersions {
				hi += apiVersionsAhead
			}
			// Versions below kwire's oldest still existed once: a client
			// that sends one is a Kafka client all the same.
			ranges[a.Key] = versionRange{known: 1, min: 0, max: hi}
		}
	})
	if key < 0 || int(key) >= len(ranges) || ranges[key].known == 0 {
		if a, ok := messages.Lookup(key); ok { // registered after the table was built
			return versionRange{known: 1, min: 0, max: a.MaxVersion}, true
		}
		return versionRange{}, false
	}
	return ranges[key], true
}

// plausibleRequest says whether b starts with a request frame a Kafka
// client would send: a size prefix no larger than maxFrame, a known API
// key at a version it has, a non-negative correlation id and a client id
// of printable text. It returns the size prefix.
func plausibleRequest(reg *messages.Registry, b []byte, maxFrame int) (int, verdict) {
	if len(b) < 4 {
		return 0, more
	}
	size := wire.Int32(b)
	if size < requestHeaderFixed || int64(size) > int64(maxFrame) {
		return 0, no
	}
	if len(b) < 4+requestHeaderFixed {
		return 0, more
	}
	head, _ := wire.ConsumeRequestHead(b[4:])
	key, version, corr := head.APIKey, head.APIVersion, head.CorrelationID
	r, ok := apiRange(reg, key)
	if !ok || version < r.min || version > r.max || corr < 0 {
		return 0, no
	}
	if h, _, _ := reg.HeaderVersions(key, version); h == 0 { // no client id (ControlledShutdown v0)
		return int(size), yes
	}
	if size < requestHeaderFixed+2 {
		return 0, no
	}
	if len(b) < 14 {
		return 0, more
	}
	n := int(wire.Int16(b[12:]))
	switch {
	case n == -1:
		return int(size), yes
	case n < 0 || n > maxClientID || n > int(size)-requestHeaderFixed-2:
		return 0, no
	case len(b) < 14+n:
		return 0, more
	}
	for _, c := range b[14 : 14+n] {
		if c < 0x20 || c == 0x7f {
			return 0, no
		}
	}
	return int(size), yes
}

// isTLSClientHello says whether b starts with a TLS handshake record
// holding a ClientHello.
func isTLSClientHello(b []byte) bool {
	return len(b) >= 6 && b[0] == 0x16 && b[1] == 3 && b[2] <= 4 && b[5] == 1
}

// isTLSRecord says whether b starts with any TLS record header (for a
// stream whose start the capture missed).
func isTLSRecord(b []byte) bool {
	if len(b) < 5 || b[1] != 3 || b[2] > 4 || b[0] < 0x14 || b[0] > 0x17 {
		return false
	}
	return binary.BigEndian.Uint16(b[3:]) <= 16384+2048
}
