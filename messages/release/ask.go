package release

import (
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/wire"
	"github.com/kwirelabs/kwire/messages"
)

// ErrNoApiVersions is Ask's error when a node closes the connection on an
// ApiVersions request, as brokers before 0.10.0 (which have no such API)
// do; a broker that has it answers every version, if only with an error.
var ErrNoApiVersions = errors.New("the node closed the connection on ApiVersions: a broker older than 0.10.0, or not Kafka")

// maxAnswer bounds an ApiVersions answer: a broker's is well under 1 KiB,
// so a size prefix past 1 MiB is not one.
const maxAnswer = 1 << 20

// Ask sends ApiVersions on conn, a connection to a Kafka node (deadlines
// are the caller's), and returns the answer and the version it was read
// at. It asks first at the newest version kwire speaks; answered
// UNSUPPORTED_VERSION (with the node's own ApiVersions range, KIP-511, or
// without it before Kafka 2.4) it asks again at the newest the node
// names, or at v0. clientID is the request header's client id and the
// client software name from v3 on.
func Ask(conn io.ReadWriter, clientID string) (*messages.ApiVersionsResponse, int16, error) {
	api, ok := messages.Lookup(18)
	if !ok {
		return nil, 0, errors.New("release: package messages has no ApiVersions")
	}
	version := api.MaxStable()
	frames := kwire.NewFrameReader(conn, maxAnswer)
	for attempt := int32(1); ; attempt++ {
		req := messages.NewApiVersionsRequest()
		req.ClientSoftwareName = clientID
		req.ClientSoftwareVersion = "kwire"
		frame, err := kwire.AppendRequest(nil, req, version, attempt, &clientID)
		if err != nil {
			return nil, 0, err
		}
		if _, err := conn.Write(frame); err != nil {
			return nil, 0, fmt.Errorf("release: sending ApiVersions v%d: %w", version, err)
		}
		answer, err := frames.Next()
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, 0, fmt.Errorf("release: the node closed the connection in the middle of its ApiVersions v%d answer", version)
		case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
			// A broker that knows ApiVersions answers any version of it.
			return nil, 0, fmt.Errorf("release: ApiVersions v%d: %w", version, ErrNoApiVersions)
		case err != nil:
			return nil, 0, fmt.Errorf("release: reading the ApiVersions v%d answer: %w", version, err)
		}
		// Size, correlation id (header v0, always, for ApiVersions), then
		// the error code: UNSUPPORTED_VERSION comes as a v0 body whatever
		// version was asked.
		readAt := version
		if len(answer) >= 10 && kerr.Code(wire.Int16(answer[8:])) == kerr.UnsupportedVersion {
			readAt = 0
		}
		resp := messages.NewApiVersionsResponse()
		hdr, err := kwire.ReadResponse(answer, resp, readAt)
		if err != nil {
			return nil, 0, fmt.Errorf("release: the ApiVersions v%d answer: %w", readAt, err)
		}
		if hdr.CorrelationID != attempt {
			return nil, 0, fmt.Errorf("release: the ApiVersions answer has correlation id %d, want %d", hdr.CorrelationID, attempt)
		}
		if kerr.Code(resp.ErrorCode) != kerr.UnsupportedVersion {
			if resp.ErrorCode != 0 {
				return resp, readAt, fmt.Errorf("release: ApiVersions v%d answered error code %d", readAt, resp.ErrorCode)
			}
			return resp, readAt, nil
		}
		next := int16(0)
		for _, k := range resp.ApiKeys {
			if k.ApiKey == 18 {
				next = min(k.MaxVersion, version-1)
			}
		}
		if version == 0 {
			return nil, 0, fmt.Errorf("release: the node refuses ApiVersions v%d and names no version it reads", version)
		}
		version = next
	}
}
