package saslclient

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/testbroker"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// pipe is net.Pipe with both ends' reads and writes bounded, so that a
// side that stops answering fails the test instead of hanging it.
func pipe() (client, server net.Conn) {
	client, server = net.Pipe()
	deadline := time.Now().Add(30 * time.Second)
	client.SetDeadline(deadline)
	server.SetDeadline(deadline)
	return client, server
}

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

// fakeSASLBroker serves conn as a broker offering the one mechanism:
// SaslHandshake names it, and authenticate answers each SaslAuthenticate.
func fakeSASLBroker(conn net.Conn, mechanism string, authenticate func(auth []byte) *messages.SaslAuthenticateResponse) {
	testbroker.ServeConn(conn, func(_ kwire.RequestHeader, msg any) any {
		switch req := msg.(type) {
		case *messages.SaslHandshakeRequest:
			r := &messages.SaslHandshakeResponse{Mechanisms: []string{mechanism}}
			if req.Mechanism != mechanism {
				r.ErrorCode = 33 // UNSUPPORTED_SASL_MECHANISM
			}
			return r
		case *messages.SaslAuthenticateRequest:
			return authenticate(req.AuthBytes)
		}
		return nil
	})
}

// plainAuthenticate accepts the token want, as a PLAIN broker does.
func plainAuthenticate(want string) func(auth []byte) *messages.SaslAuthenticateResponse {
	return func(auth []byte) *messages.SaslAuthenticateResponse {
		r := &messages.SaslAuthenticateResponse{}
		if string(auth) != want {
			r.ErrorCode = 58 // SASL_AUTHENTICATION_FAILED
			msg := "Authentication failed: Invalid username or password"
			r.ErrorMessage = &msg
		}
		return r
	}
}

func TestLoginPlain(t *testing.T) {
	for _, c := range []struct {
		creds Credentials
		err   string
	}{
		{Credentials{Mechanism: "PLAIN", User: "alice", Password: "s3cret"}, ""},
		{Credentials{Mechanism: "PLAIN", User: "alice", Password: "wrong"}, "SASL_AUTHENTICATION_FAILED"},
		{Credentials{Mechanism: "SCRAM-SHA-512", User: "alice", Password: "s3cret"}, "the broker offers PLAIN"},
		{Credentials{Mechanism: "GSSAPI", User: "alice", Password: "s3cret"}, `mechanism "GSSAPI"`},
		{Credentials{Mechanism: "PLAIN", Password: "s3cret"}, "needs a user"},
	} {
		client, server := pipe()
		go fakeSASLBroker(server, "PLAIN", plainAuthenticate("\x00alice\x00s3cret"))
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

// oauthAuthenticate answers as Kafka's OAUTHBEARER server does: the
// initial response want logs in; any other gets the error JSON as a
// challenge, and the client's 0x01 after it SASL_AUTHENTICATION_FAILED
// carrying the JSON. Every token it reads goes to got.
func oauthAuthenticate(want string, got chan<- []byte) func(auth []byte) *messages.SaslAuthenticateResponse {
	const refusal = `{"status":"invalid_token"}`
	return func(auth []byte) *messages.SaslAuthenticateResponse {
		got <- auth
		r := &messages.SaslAuthenticateResponse{}
		switch string(auth) {
		case want:
		case "\x01":
			r.ErrorCode = 58 // SASL_AUTHENTICATION_FAILED
			msg := refusal
			r.ErrorMessage = &msg
		default:
			r.AuthBytes = []byte(refusal)
		}
		return r
	}
}

// TestLoginOAuthBearer: the initial response is RFC 7628's, with the
// authorization id when a user is given; a refused token gets the
// broker's reason after the 0x01 acknowledgement; a token that is not a
// bearer token is refused before anything is sent. No error holds the
// token.
func TestLoginOAuthBearer(t *testing.T) {
	const token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMtb3JkZXJzIn0.c2lnbmF0dXJl"
	good := "n,,\x01auth=Bearer " + token + "\x01\x01"
	for _, c := range []struct {
		creds Credentials
		sent  []string // the tokens the broker reads
		err   string
	}{
		{Credentials{Mechanism: "OAUTHBEARER", Token: token}, []string{good}, ""},
		{Credentials{Mechanism: "OAUTHBEARER", User: "svc=orders,eu", Token: token},
			[]string{"n,a=svc=3Dorders=2Ceu,\x01auth=Bearer " + token + "\x01\x01", "\x01"}, `SASL_AUTHENTICATION_FAILED (58): SASL authentication failed: {"status":"invalid_token"}`},
		{Credentials{Mechanism: "OAUTHBEARER", Token: token + "x"},
			[]string{"n,,\x01auth=Bearer " + token + "x\x01\x01", "\x01"}, `SASL_AUTHENTICATION_FAILED (58): SASL authentication failed: {"status":"invalid_token"}`},
		{Credentials{Mechanism: "OAUTHBEARER", Token: token + "\x01auth=Bearer x"}, nil, "at offset 61 of 75"},
		{Credentials{Mechanism: "OAUTHBEARER", Token: "=="}, nil, "needs a token"},
		{Credentials{Mechanism: "OAUTHBEARER"}, nil, "needs a token"},
	} {
		client, server := pipe()
		got := make(chan []byte, 4)
		go fakeSASLBroker(server, "OAUTHBEARER", oauthAuthenticate(good, got))
		err := Login(client, c.creds, "kwire-test", 100)
		client.Close()
		var sent []string
		for len(got) > 0 {
			sent = append(sent, string(<-got))
		}
		assert.Equal(t, c.sent, sent, c.creds.User)
		if c.err == "" {
			assert.NoError(t, err)
			continue
		}
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), c.err)
			assert.NotContains(t, err.Error(), "c2lnbmF0dXJl", "the token is in the error")
		}
	}
}
