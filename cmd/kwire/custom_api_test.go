package main

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/customapi" // registers Ledger, key 1000, with messages.Default
	"github.com/kwirelabs/kwire/kwire"
)

// TestDecodeCustomAPI: a user's API registered with messages.Default is
// decoded, laid out and listed like Kafka's own.
func TestDecodeCustomAPI(t *testing.T) {
	memo := "rent"
	req := &customapi.LedgerRequest{
		LedgerID: kwire.UUID{0xab},
		Accounts: []customapi.Account{{Name: "cash", Delta: -3, Entries: []customapi.Entry{{Amount: 9, Memo: &memo, Parts: [][]int32{{4}}}}}},
		Note:     "month end",
		TraceID:  &memo,
	}
	client := "cli"
	frame, err := kwire.AppendRequest(nil, req, 3, 9, &client)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, run([]string{"decode", hex.EncodeToString(frame)}, &out))
	for _, want := range []string{
		"LedgerRequest message v3",
		"+-- request_api_key int16 = 1000",
		`+-- Name string = "cash"`,
		"+-- Delta varlong = -3",
		"+-- Parts[0] []int32 = 1 element",
		`Memo nullable_string = "rent"`,
		`Note string = "month end"`,
	} {
		assert.Contains(t, out.String(), want)
	}

	resp, err := kwire.AppendResponse(nil, &customapi.LedgerResponse{Balances: []customapi.Balance{{Name: "cash", Pending: 300}}}, 2, 9)
	require.NoError(t, err)
	out.Reset()
	require.NoError(t, runDecode([]string{"-response", "-k", "1000", "-v", "2"}, strings.NewReader(hex.EncodeToString(resp)), &out))
	assert.Contains(t, out.String(), "+-- Pending uvarint = 300")

	out.Reset()
	require.NoError(t, run([]string{"layout", "LedgerRequest", "-v", "1"}, &out))
	assert.Contains(t, out.String(), "LedgerRequest v1:")
	out.Reset()
	require.NoError(t, run([]string{"apis"}, &out))
	assert.Regexp(t, `1000\s+Ledger\s+0-3\s+2`, out.String())

	// An unregistered key is its own error.
	frame[5], frame[6] = 0x03, 0xe9 // key 1001
	err = run([]string{"decode", hex.EncodeToString(frame)}, &out)
	assert.ErrorIs(t, err, kwire.ErrUnknownAPI)
}
