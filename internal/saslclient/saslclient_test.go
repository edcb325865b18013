package saslclient

import (
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// RFC 7677 section 3: the SCRAM-SHA-256 exchange of user "user" with
// password "pencil".
func TestSCRAMSHA256RFC7677(t *testing.T) {
	s, err := newSCRAM("SCRAM-SHA-256", "user", "pencil", "rOprNGfwEbeRWgbNEkqO")
	require.NoError(t, err)
	assert.Equal(t, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO", string(s.clientFirst()))
	final, err := s.clientFinal([]byte("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
	require.NoError(t, err)
	assert.Equal(t, "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", string(final))
	require.NoError(t, s.verifyServer([]byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")))
	assert.ErrorContains(t, s.verifyServer([]byte("v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")), "signature is wrong")
	assert.ErrorContains(t, s.verifyServer([]byte("e=invalid-proof")), "refused: invalid-proof")

	for _, bad := range []string{
		"r=someoneelse,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",                // not our nonce
		"r=rOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",       // not extended
		"r=rOprNGfwEbeRWgbNEkqOx,s=***,i=4096",                           // salt
		"r=rOprNGfwEbeRWgbNEkqOx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=999999999", // work
		"e=unknown-user",
	} {
		_, err := s.clientFinal([]byte(bad))
		assert.Error(t, err, bad)
	}
	assert.Equal(t, "a=3Db=2Cc", saslName("a=b,c"))
}

// fakeSASLBroker answers SaslHandshake (offering PLAIN) and one
// SaslAuthenticate, accepting the token want.
func fakeSASLBroker(t *testing.T, conn net.Conn, want string) {
	defer conn.Close()
	frames := kwire.NewFrameReader(conn, 0)
	for {
		frame, err := frames.Next()
		if err != nil {
			return
		}
		h, body, err := messages.ReadRequest(frame)
		if err != nil {
			t.Error(err)
			return
		}
		var resp any
		switch req := body.(type) {
		case *messages.SaslHandshakeRequest:
			r := &messages.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}}
			if req.Mechanism != "PLAIN" {
				r.ErrorCode = 33 // UNSUPPORTED_SASL_MECHANISM
			}
			resp = r
		case *messages.SaslAuthenticateRequest:
			r := &messages.SaslAuthenticateResponse{}
			if string(req.AuthBytes) != want {
				r.ErrorCode = 58 // SASL_AUTHENTICATION_FAILED
				msg := "Authentication failed: Invalid username or password"
				r.ErrorMessage = &msg
			}
			resp = r
		}
		out, err := kwire.AppendResponse(nil, resp, h.APIVersion, h.CorrelationID)
		if err != nil {
			t.Error(err)
			return
		}
		if _, err := conn.Write(out); err != nil {
			return
		}
	}
}

func TestLoginPlain(t *testing.T) {
	for _, c := range []struct {
		creds Credentials
		err   string
	}{
		{Credentials{"PLAIN", "alice", "s3cret"}, ""},
		{Credentials{"PLAIN", "alice", "wrong"}, "SASL_AUTHENTICATION_FAILED"},
		{Credentials{"SCRAM-SHA-512", "alice", "s3cret"}, "the broker offers PLAIN"},
		{Credentials{"GSSAPI", "alice", "s3cret"}, `mechanism "GSSAPI"`},
		{Credentials{"PLAIN", "", "s3cret"}, "needs a user"},
	} {
		client, server := net.Pipe()
		go fakeSASLBroker(t, server, "\x00alice\x00s3cret")
		err := Login(client, c.creds, "kwire-test", 100)
		client.Close()
		if c.err == "" {
			assert.NoError(t, err)
			continue
		}
		if assert.Error(t, err, c.creds) {
			assert.Contains(t, err.Error(), c.err)
			assert.False(t, strings.Contains(err.Error(), c.creds.Password), "the password is in the error")
		}
	}
}
