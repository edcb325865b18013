package realclient

import (
	"bytes"
	"fmt"

	"github.com/kwirelabs/kwire/messages"
)

// SASL/PLAIN, for brokers given users with SetSASLPlain. A client
// authenticates with SaslHandshake v1 then SaslAuthenticate (librdkafka),
// or with SaslHandshake v0 then a raw token, a size-prefixed frame that is
// no Kafka request, answered by an empty frame (kafka-python). Until then
// the connection may send ApiVersions and the SASL requests only.

const (
	errIllegalSASLState          int16 = 34
	errUnsupportedSASLMechanism  int16 = 33
	errSASLAuthenticationFailure int16 = 58
)

// connState is what the broker knows about one connection.
type connState struct {
	authenticated bool
	rawToken      bool // the next frame is a raw SASL token (after SaslHandshake v0)
	handshaken    bool
	user          string
}

// SetSASLPlain makes the broker require SASL/PLAIN with these users and
// passwords on connections accepted from now on; nil turns SASL off.
func (b *Broker) SetSASLPlain(users map[string]string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.saslUsers = users
}

func (b *Broker) saslRequired() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.saslUsers != nil
}

// checkPlain checks a PLAIN token: [authzid] NUL authcid NUL passwd.
func (b *Broker) checkPlain(token []byte) (string, error) {
	parts := bytes.Split(token, []byte{0})
	if len(parts) != 3 {
		return "", fmt.Errorf("PLAIN token of %d parts", len(parts))
	}
	user, pass := string(parts[1]), string(parts[2])
	b.mu.Lock()
	want, ok := b.saslUsers[user]
	b.mu.Unlock()
	if !ok || want != pass {
		return "", fmt.Errorf("bad user or password for %q", user)
	}
	return user, nil
}

func (b *Broker) saslHandshake(req *messages.SaslHandshakeRequest, version int16, st *connState) *messages.SaslHandshakeResponse {
	resp := messages.NewSaslHandshakeResponse()
	if !b.saslRequired() {
		resp.ErrorCode, resp.Mechanisms = errUnsupportedSASLMechanism, []string{}
		return resp
	}
	resp.Mechanisms = []string{"PLAIN"}
	switch {
	case st.authenticated || st.handshaken:
		resp.ErrorCode = errIllegalSASLState
	case req.Mechanism != "PLAIN":
		resp.ErrorCode = errUnsupportedSASLMechanism
	default:
		st.handshaken = true
		st.rawToken = version == 0
	}
	return resp
}

// saslAuthenticate answers; a failure also ends the connection, after the
// answer, as Kafka does.
func (b *Broker) saslAuthenticate(req *messages.SaslAuthenticateRequest, st *connState) (*messages.SaslAuthenticateResponse, error) {
	resp := messages.NewSaslAuthenticateResponse()
	resp.AuthBytes = []byte{}
	if !st.handshaken || st.authenticated || st.rawToken {
		resp.ErrorCode = errIllegalSASLState
		msg := "SaslAuthenticate out of turn"
		resp.ErrorMessage = &msg
		return resp, fmt.Errorf("%s", msg)
	}
	user, err := b.checkPlain(req.AuthBytes)
	if err != nil {
		resp.ErrorCode = errSASLAuthenticationFailure
		msg := "authentication failed"
		resp.ErrorMessage = &msg
		return resp, err
	}
	st.authenticated, st.user = true, user
	return resp, nil
}
