package proxy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/customapi" // registers Ledger, key 1000, with messages.Default
	"github.com/kwirelabs/kwire/kwire"
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
