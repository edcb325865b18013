package interop

import (
	"context"
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sasl/oauth"

	"github.com/kwirelabs/kwire/app/saslclient"
	"github.com/kwirelabs/kwire/app/testbroker"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// TestOAuthBearerAsKgo: kwire send's OAUTHBEARER client (saslclient)
// sends what franz-go's sasl/oauth sends, token for token: the initial
// response, with and without an authorization id, and the lone 0x01 that
// answers a broker's error JSON.
func TestOAuthBearerAsKgo(t *testing.T) {
	const token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMtb3JkZXJzIn0.c2lnbmF0dXJl"
	const refusal = `{"status":"invalid_token"}`
	for _, c := range []struct {
		zid    string
		refuse bool
	}{{"", false}, {"svc-orders", false}, {"", true}} {
		// kwire's, as a broker that records each token reads them.
		var mu sync.Mutex
		var ours [][]byte
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		testbroker.Serve(t, ln, func(_ kwire.RequestHeader, msg any) any {
			switch m := msg.(type) {
			case *messages.SaslHandshakeRequest:
				return &messages.SaslHandshakeResponse{Mechanisms: []string{"OAUTHBEARER"}}
			case *messages.SaslAuthenticateRequest:
				mu.Lock()
				defer mu.Unlock()
				ours = append(ours, m.AuthBytes)
				resp := &messages.SaslAuthenticateResponse{}
				if c.refuse && len(ours) == 1 {
					resp.AuthBytes = []byte(refusal)
				} else if c.refuse {
					resp.ErrorCode = 58 // SASL_AUTHENTICATION_FAILED
				}
				return resp
			}
			return nil
		})
		conn, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		err = saslclient.Login(conn, saslclient.Credentials{Mechanism: "OAUTHBEARER", User: c.zid, Token: token}, "kwire", 0)
		conn.Close()
		assert.Equal(t, c.refuse, err != nil, "%v", err)

		// franz-go's, from its mechanism directly.
		session, first, err := oauth.Auth{Token: token, Zid: c.zid}.AsMechanism().Authenticate(context.Background(), "broker:9092")
		require.NoError(t, err)
		theirs := [][]byte{first}
		if c.refuse {
			done, next, err := session.Challenge([]byte(refusal))
			require.NoError(t, err)
			require.False(t, done)
			theirs = append(theirs, next)
		}
		mu.Lock()
		assert.Equal(t, theirs, ours, "zid %q, refused %v", c.zid, c.refuse)
		mu.Unlock()
	}
}
