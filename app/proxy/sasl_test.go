package proxy

import (
	"encoding/base64"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/app/testbroker"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// TestOAuthBearerPassThrough: an OAUTHBEARER login passes through; the
// text and JSON logs name the token's subject and hold no byte of the
// token in any form. (kfake, the interop broker, has no OAUTHBEARER.)
func TestOAuthBearerPassThrough(t *testing.T) {
	payload := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"svc-billing","exp":4102444800,"scope":"kafka"}`))
	token := "eyJhbGciOiJSUzI1NiJ9." + payload + ".ZmFrZS1zaWduYXR1cmUtb2YtdGhlLWlzc3Vlcg"
	auth := []byte("n,,\x01auth=Bearer " + token + "\x01\x01")
	for _, asJSON := range []bool{false, true} {
		up := startUpstream(t)
		log := &syncBuffer{}
		p := startProxy(t, Config{Upstream: up.ln.Addr().String()}, log, trafficlog.Options{JSON: asJSON})
		c, err := dialT(t, p.Addr().String())
		require.NoError(t, err)
		hs := messages.NewSaslHandshakeRequest()
		hs.Mechanism = "OAUTHBEARER"
		hsResp := messages.NewSaslHandshakeResponse()
		hsResp.Mechanisms = []string{"OAUTHBEARER"}
		sa := messages.NewSaslAuthenticateRequest()
		sa.AuthBytes = auth
		for _, step := range []struct{ req, resp []byte }{
			{frameOf(kwire.AppendRequest(nil, hs, 1, 1, nil)), frameOf(kwire.AppendResponse(nil, hsResp, 1, 1))},
			{frameOf(kwire.AppendRequest(nil, sa, 2, 2, nil)), frameOf(kwire.AppendResponse(nil, messages.NewSaslAuthenticateResponse(), 2, 2))},
			{frameOf(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 12, 3, nil)), frameOf(kwire.AppendResponse(nil, messages.NewMetadataResponse(), 12, 3))},
		} {
			up.answers <- step.resp
			_, err := c.Write(step.req)
			require.NoError(t, err)
			assert.Equal(t, step.resp, readFrame(t, c))
		}
		c.Close()
		require.NoError(t, p.close())
		out := []byte(log.String())
		for _, secret := range [][]byte{auth, []byte(token), []byte("ZmFrZS1zaWduYXR1cmUtb2YtdGhlLWlzc3Vlcg")} {
			form, found := secrettest.Find(out, secret)
			assert.False(t, found, "a secret in the log (%s):\n%s", form, out)
		}
		if asJSON {
			assert.Contains(t, string(out), `"principal":"svc-billing"`)
		} else {
			assert.Contains(t, string(out), `user="svc-billing"`)
		}
	}
}

// saslBroker answers SaslHandshake with PLAIN and SaslAuthenticate with
// an error for any user but alice.
func saslBroker(h kwire.RequestHeader, msg any) any {
	switch m := msg.(type) {
	case *messages.SaslHandshakeRequest:
		r := messages.NewSaslHandshakeResponse()
		r.Mechanisms = []string{"PLAIN"}
		if m.Mechanism != "PLAIN" {
			r.ErrorCode = int16(kerr.UnsupportedSaslMechanism)
		}
		return r
	case *messages.SaslAuthenticateRequest:
		r := messages.NewSaslAuthenticateResponse()
		if !strings.HasPrefix(string(m.AuthBytes), "\x00alice\x00") {
			r.ErrorCode = int16(kerr.SaslAuthenticationFailed)
			why := "Authentication failed: Invalid username or password"
			r.ErrorMessage = &why
		}
		return r
	}
	return testbroker.Empty(h, msg)
}

// login sends SaslHandshake (PLAIN) and SaslAuthenticate for user, and
// reads both answers.
func login(t *testing.T, c net.Conn, user, password string) {
	t.Helper()
	hs := messages.NewSaslHandshakeRequest()
	hs.Mechanism = "PLAIN"
	sa := messages.NewSaslAuthenticateRequest()
	sa.AuthBytes = []byte("\x00" + user + "\x00" + password)
	for i, req := range []any{hs, sa} {
		_, err := c.Write(frameOf(kwire.AppendRequest(nil, req, 1, int32(i+1), nil)))
		require.NoError(t, err)
		readFrame(t, c)
	}
}

// TestLoginFailedCounted (issue 27, case 8): a login the broker refuses
// leaves a line and is counted by mechanism; the audit says whether its
// principal was vouched for (before, it named the claimed user alone).
func TestLoginFailedCounted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	testbroker.Serve(t, ln, saslBroker)
	log := &syncBuffer{}
	trouble := &troubleCounts{}
	var audit syncBuffer
	p := startProxy(t, Config{Upstream: ln.Addr().String(), Metrics: trouble, Filters: []Filter{auditPrincipal{&audit}}}, log, trafficlog.Options{})

	bad, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer bad.Close()
	login(t, bad, "mallory", "guess")
	good, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer good.Close()
	login(t, good, "alice", "secret")
	require.NoError(t, roundTrip(good, 9))
	require.NoError(t, p.close())

	out := log.String()
	assert.Contains(t, out, `login failed (mechanism "PLAIN"): SaslAuthenticate answered SASL_AUTHENTICATION_FAILED: Authentication failed`)
	assert.NotContains(t, out, "guess")
	assert.Equal(t, 1, trouble.get("login/PLAIN"))
	assert.Contains(t, audit.String(), "SaslAuthenticate alice verified=false\n", "before the broker's answer")
	assert.Contains(t, audit.String(), "Heartbeat alice verified=true\n", "after the broker accepted the login")
	assert.NotContains(t, audit.String(), "mallory verified=true")
}

// auditPrincipal writes each request's API, principal and whether it was
// verified.
type auditPrincipal struct{ out *syncBuffer }

func (a auditPrincipal) Request(c *Conn, r *Request) Action {
	fmt.Fprintf(a.out, "%s %s verified=%v\n", trafficlog.APIName(r.Header.APIKey), c.Principal(), c.PrincipalVerified())
	return Pass
}

func (a auditPrincipal) Response(*Conn, *Response) Action { return Pass }
