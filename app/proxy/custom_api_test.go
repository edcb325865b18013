package proxy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/internal/customapi" // registers Ledger, key 1000, with messages.Default
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
)

// TestProxyCustomAPI: the proxy decodes and pairs a registered custom API.
func TestProxyCustomAPI(t *testing.T) {
	up, p, log, c := proxyThrough(t)
	client := "ledger"
	resp := frameOf(kwire.AppendResponse(nil, &customapi.LedgerResponse{ErrorCode: 3}, 3, 11))
	up.answers <- resp
	_, err := c.Write(frameOf(kwire.AppendRequest(nil, &customapi.LedgerRequest{Note: "x"}, 3, 11, &client)))
	require.NoError(t, err)
	assert.Equal(t, resp, readFrame(t, c))
	c.Close()
	require.NoError(t, p.close())
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	require.Len(t, lines, 3, log.String())
	lines = lines[1:] // the open line
	assert.Contains(t, lines[0], `request  Ledger v3 corr=11 client="ledger" | LedgerRequest v3`)
	assert.Contains(t, lines[1], `response Ledger v3 corr=11`)
	assert.NotContains(t, log.String(), "UNDECODABLE")
}

// TestAnswerErrorFromConfigRegistry: AnswerError builds the response of
// an API that only Config.Registry knows (one from JSON schemas, as
// kwire proxy -schemas registers), not only of messages.Default's.
func TestAnswerErrorFromConfigRegistry(t *testing.T) {
	reg, api := vendorPingRegistry(t)
	deny := funcFilter{req: func(c *Conn, r *Request) Action { return AnswerError(r, kerr.ClusterAuthorizationFailed) }}
	up := startUpstream(t)
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Registry: reg, Filters: []Filter{deny}}, &syncBuffer{}, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()

	_, err = c.Write(frameOf(kwire.AppendRequest(nil, api.NewRequest(), 1, 5, nil)))
	require.NoError(t, err)
	h, body, err := reg.ReadResponse(readFrame(t, c), api.Key, 1)
	require.NoError(t, err)
	assert.EqualValues(t, 5, h.CorrelationID)
	assert.EqualValues(t, kerr.ClusterAuthorizationFailed, reflect.ValueOf(body).Elem().FieldByName("ErrorCode").Int())
}
