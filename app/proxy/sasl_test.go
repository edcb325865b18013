package proxy

import (
	"encoding/base64"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
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
		c, err := net.Dial("tcp", p.Addr().String())
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
