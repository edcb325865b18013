package customapi_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/customapi"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kwiretest"
	"github.com/kwirelabs/kwire/messages"
)

func TestLedgerIsRegistered(t *testing.T) {
	api, ok := messages.Lookup(1000)
	require.True(t, ok)
	assert.Equal(t, "Ledger", api.Name)
	assert.Equal(t, []int16{0, 3, 2}, []int16{api.MinVersion, api.MaxVersion, api.FlexibleFrom})
	all := messages.APIs()
	assert.Equal(t, int16(1000), all[len(all)-1].Key, "sorted by key, after Kafka's")
}

// TestLedgerFramesThroughTheRegistry writes random request frames at every
// version and reads them back with messages.ReadRequest, and likewise
// response frames with ReadResponse; the layout trace covers each frame.
func TestLedgerFramesThroughTheRegistry(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(1000)
	ps := gopter.NewProperties(params)
	client := "ledger-client"
	for v := int16(0); v <= 3; v++ {
		ps.Property(fmt.Sprintf("request v%d", v), prop.ForAll(func(m *customapi.LedgerRequest) (bool, error) {
			frame, err := kwire.AppendRequest(nil, m, v, 77, &client)
			if err != nil {
				return false, err
			}
			hdr, body, err := messages.ReadRequest(frame)
			if err != nil {
				return false, err
			}
			if hdr.APIKey != 1000 || hdr.APIVersion != v || hdr.CorrelationID != 77 || *hdr.ClientID != client {
				return false, fmt.Errorf("header %+v", hdr)
			}
			if !reflect.DeepEqual(body, m) {
				return false, fmt.Errorf("body differs:\n in %+v\nout %+v", m, body)
			}
			tree, err := messages.TraceRequest(frame)
			if err != nil || tree.Size != len(frame) {
				return false, fmt.Errorf("trace: %v", err)
			}
			return true, nil
		}, kwiretest.Gen(&customapi.LedgerRequest{}, v)))
		ps.Property(fmt.Sprintf("response v%d", v), prop.ForAll(func(m *customapi.LedgerResponse) (bool, error) {
			frame, err := kwire.AppendResponse(nil, m, v, 78)
			if err != nil {
				return false, err
			}
			hdr, body, err := messages.ReadResponse(frame, 1000, v)
			if err != nil {
				return false, err
			}
			if hdr.CorrelationID != 78 || !reflect.DeepEqual(body, m) {
				return false, fmt.Errorf("header %+v or body differs", hdr)
			}
			return true, nil
		}, kwiretest.Gen(&customapi.LedgerResponse{}, v)))
	}
	ps.TestingRun(t)
}

func TestLedgerRoundTrip(t *testing.T) {
	kwiretest.RoundTrip(t, &customapi.LedgerRequest{Accounts: []customapi.Account{{Name: "a", Delta: -1}}})
	kwiretest.RoundTrip(t, &customapi.LedgerResponse{})
}

// TestOwnRegistry uses a registry the program owns: the Default one is not
// touched, and a key is unknown until registered.
func TestOwnRegistry(t *testing.T) {
	reg := messages.NewRegistry()
	frame, err := kwire.AppendRequest(nil, &customapi.LedgerRequest{}, 1, 5, nil)
	require.NoError(t, err)

	empty := &messages.Registry{}
	_, _, err = empty.ReadRequest(frame)
	assert.ErrorIs(t, err, kwire.ErrUnknownAPI)
	assert.Empty(t, empty.APIs())

	_, _, err = reg.ReadRequest(frame)
	assert.ErrorIs(t, err, kwire.ErrUnknownAPI, "NewRegistry holds Kafka's APIs, not what Default gained since")
	_, ok := reg.Lookup(3)
	assert.True(t, ok)
	require.NoError(t, reg.Register(customapi.API))
	_, _, err = reg.ReadRequest(frame)
	require.NoError(t, err)

	require.NoError(t, empty.Register(customapi.API))
	_, body, err := empty.ReadRequest(frame)
	require.NoError(t, err)
	assert.IsType(t, &customapi.LedgerRequest{}, body)
	assert.EqualError(t, empty.Register(customapi.API), "messages: register Ledger: key 1000 is Ledger already (Replace puts a vendor's API in its place)")
	_, _, err = empty.ReadResponse([]byte{0, 0, 0, 4, 0, 0, 0, 1}, 3, 0)
	assert.ErrorIs(t, err, kwire.ErrUnknownAPI)
}

func TestRegisterChecksTheAPI(t *testing.T) {
	reg := &messages.Registry{}
	wrong := customapi.API
	wrong.Key = 1001
	assert.EqualError(t, reg.Register(wrong), "messages: register Ledger (key 1001): *customapi.LedgerRequest says api=1000")
	wrong = customapi.API
	wrong.FlexibleFrom = 3
	assert.EqualError(t, reg.Register(wrong), "messages: register Ledger (key 1000): *customapi.LedgerRequest has flexible=2+, but FlexibleFrom is 3")
	wrong = customapi.API
	wrong.MaxVersion = 4
	assert.EqualError(t, reg.Register(wrong), "messages: register Ledger (key 1000): *customapi.LedgerRequest has versions=0-3, not all of 0-4")
	wrong = customapi.API
	wrong.NewResponse = nil
	assert.EqualError(t, reg.Register(wrong), "messages: register Ledger (key 1000): an API needs a Name, NewRequest and NewResponse")
	type badResponse struct {
		_ struct{} `kafka:"api=1000,versions=0-3,flexible=2+"`
		N string   `kafka:"v=0+,nullable=0+"`
	}
	wrong = customapi.API
	wrong.NewResponse = func() any { return new(badResponse) }
	assert.ErrorIs(t, reg.Register(wrong), kwire.ErrInvalidSpec)
	assert.Empty(t, reg.APIs())
	assert.ErrorContains(t, messages.Register(messages.API{Key: 3, Name: "Mine", NewRequest: customapi.API.NewRequest, NewResponse: customapi.API.NewResponse, MaxVersion: 3, FlexibleFrom: 2}), "api=1000")
}

// TestConcurrentReadsWhileRegistering reads frames while another goroutine
// registers APIs (run with -race).
func TestConcurrentReadsWhileRegistering(t *testing.T) {
	reg := messages.NewRegistry()
	require.NoError(t, reg.Register(customapi.API))
	frame, err := kwire.AppendRequest(nil, &customapi.LedgerRequest{}, 2, 5, nil)
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		type keyless struct {
			_ struct{} `kafka:"versions=0"`
		}
		newKeyless := func() any { return new(keyless) }
		for i := 0; i < 200; i++ {
			if err := reg.Register(messages.API{Key: int16(2000 + i), Name: "Keyless", NewRequest: newKeyless, NewResponse: newKeyless, FlexibleFrom: -1}); err != nil {
				panic(err)
			}
		}
	}()
	for i := 0; i < 200; i++ {
		_, _, err := reg.ReadRequest(frame)
		require.NoError(t, err)
	}
	<-done
	_, ok := reg.Lookup(2199)
	assert.True(t, ok)
}

// TestTrackerPairsLedger: the correlation tracker of the Default registry
// pairs a Ledger response with its request and decodes it.
func TestTrackerPairsLedger(t *testing.T) {
	tr := messages.NewTracker(8)
	req, err := kwire.AppendRequest(nil, &customapi.LedgerRequest{}, 2, 41, nil)
	require.NoError(t, err)
	expect, err := tr.Request(req)
	require.NoError(t, err)
	require.True(t, expect)
	want := &customapi.LedgerResponse{Balances: []customapi.Balance{{Name: "cash", Pending: 1}}}
	resp, err := kwire.AppendResponse(nil, want, 2, 41)
	require.NoError(t, err)
	_, hdr, body, err := tr.ReadResponse(resp)
	require.NoError(t, err)
	assert.Equal(t, int32(41), hdr.CorrelationID)
	assert.Equal(t, want, body)
}
