// Package saslclient logs a Kafka connection in with SASL, as a client:
// SaslHandshake v1 names the mechanism, then SaslAuthenticate v1 carries
// the exchange (KIP-152). Mechanisms: PLAIN (RFC 4616),
// SCRAM-SHA-256 / SCRAM-SHA-512 (RFC 5802, RFC 7677) and OAUTHBEARER
// (RFC 7628, KIP-255). Passwords, proofs and tokens never appear in its
// errors.
package saslclient

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// Credentials say how to log in.
type Credentials struct {
	Mechanism string // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER
	// User is the user of PLAIN and SCRAM; with OAUTHBEARER, if set, the
	// authorization id (a=), which the broker checks against the token's
	// subject.
	User     string
	Password string // PLAIN and SCRAM
	Token    string // OAUTHBEARER: the bearer token (a JWT, say)
}

// Mechanisms are the mechanisms Login speaks.
var Mechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"}

// Check reports whether c names a mechanism Login speaks and what it
// needs: a user for PLAIN and SCRAM, a token of bearer-token syntax
// (RFC 6750 b64token) for OAUTHBEARER.
func (c Credentials) Check() error {
	if !slices.Contains(Mechanisms, c.Mechanism) {
		return fmt.Errorf("SASL mechanism %q: want one of %s", c.Mechanism, strings.Join(Mechanisms, ", "))
	}
	if c.Mechanism == "OAUTHBEARER" {
		return checkToken(c.Token)
	}
	if c.User == "" {
		return errors.New("SASL needs a user")
	}
	return nil
}

// checkToken checks a bearer token's syntax, 1*(ALPHA / DIGIT / "-" /
// "." / "_" / "~" / "+" / "/") *"=", which keeps it from breaking out of
// the message it is sent in. The error does not quote the token.
func checkToken(token string) error {
	body := strings.TrimRight(token, "=")
	if body == "" {
		return errors.New("OAUTHBEARER needs a token")
	}
	for i, c := range []byte(body) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return fmt.Errorf("the OAUTHBEARER token has a byte a bearer token cannot have, at offset %d of %d", i, len(token))
		}
	}
	return nil
}

// Login authenticates conn, a fresh connection to a broker (deadlines are
// the caller's), with correlation ids from firstCorrelationID up.
func Login(conn io.ReadWriter, c Credentials, clientID string, firstCorrelationID int32) error {
	if err := c.Check(); err != nil {
		return err
	}
	ex := exchange{conn: conn, frames: kwire.NewFrameReader(conn, 1<<20), clientID: clientID, corr: firstCorrelationID}
	hs := &messages.SaslHandshakeResponse{}
	if err := ex.roundTrip(&messages.SaslHandshakeRequest{Mechanism: c.Mechanism}, hs, 1); err != nil {
		return err
	}
	if hs.ErrorCode != 0 {
		return fmt.Errorf("SASL handshake: %v (the broker offers %s)", kerr.Err(hs.ErrorCode), strings.Join(hs.Mechanisms, ", "))
	}
	switch c.Mechanism {
	case "PLAIN":
		_, err := ex.authenticate([]byte("\x00" + c.User + "\x00" + c.Password))
		return err
	case "OAUTHBEARER":
		return ex.oauthBearer(c.User, c.Token)
	}
	s, err := newSCRAM(c.Mechanism, c.User, c.Password, "")
	if err != nil {
		return err
	}
	serverFirst, err := ex.authenticate(s.clientFirst())
	if err != nil {
		return err
	}
	clientFinal, err := s.clientFinal(serverFirst)
	if err != nil {
		return err
	}
	serverFinal, err := ex.authenticate(clientFinal)
	if err != nil {
		return err
	}
	return s.verifyServer(serverFinal)
}

// exchange sends one request at a time and reads its response.
type exchange struct {
	conn     io.ReadWriter
	frames   *kwire.FrameReader
	clientID string
	corr     int32
}

func (ex *exchange) roundTrip(req, resp any, version int16) error {
	ex.corr++
	frame, err := kwire.AppendRequest(nil, req, version, ex.corr, &ex.clientID)
	if err != nil {
		return err
	}
	if _, err := ex.conn.Write(frame); err != nil {
		return fmt.Errorf("SASL: %w", err)
	}
	answer, err := ex.frames.Next()
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errors.New("SASL: the broker closed the connection (wrong credentials, or a listener without SASL)")
		}
		return fmt.Errorf("SASL: %w", err)
	}
	h, err := kwire.ReadResponse(answer, resp, version)
	if err != nil {
		return fmt.Errorf("SASL: %w", err)
	}
	if h.CorrelationID != ex.corr {
		return fmt.Errorf("SASL: answer to correlation id %d, not %d", h.CorrelationID, ex.corr)
	}
	return nil
}

// authenticate sends one SASL token and returns the broker's.
func (ex *exchange) authenticate(token []byte) ([]byte, error) {
	resp := &messages.SaslAuthenticateResponse{}
	if err := ex.roundTrip(&messages.SaslAuthenticateRequest{AuthBytes: token}, resp, 1); err != nil {
		return nil, err
	}
	if resp.ErrorCode != 0 {
		msg := ""
		if resp.ErrorMessage != nil {
			msg = ": " + *resp.ErrorMessage
		}
		return nil, fmt.Errorf("SASL authenticate: %v%s", kerr.Err(resp.ErrorCode), msg)
	}
	return resp.AuthBytes, nil
}

// oauthBearerFirst is the client's initial response of RFC 7628 (section
// 3.1) with no extensions: a GS2 header naming authzid if set, then
// auth=Bearer TOKEN, each key=value pair ended by 0x01, and a final 0x01.
func oauthBearerFirst(authzid, token string) []byte {
	header := "n,,"
	if authzid != "" {
		header = "n,a=" + saslName(authzid) + ","
	}
	return []byte(header + "\x01auth=Bearer " + token + "\x01\x01")
}

// oauthBearer sends the token. A broker that refuses it answers with an
// error JSON ({"status":"invalid_token"}); the client acknowledges with a
// lone 0x01, to which the broker answers the failure (RFC 7628 3.2.3).
func (ex *exchange) oauthBearer(authzid, token string) error {
	serverFirst, err := ex.authenticate(oauthBearerFirst(authzid, token))
	if err != nil || len(serverFirst) == 0 {
		return err
	}
	if _, err := ex.authenticate([]byte{0x01}); err != nil {
		return err // Kafka's error message is the JSON
	}
	return fmt.Errorf("SASL authenticate: the broker refused the token: %s", strings.ToValidUTF8(string(serverFirst), "?"))
}

// scram is the client side of one SCRAM conversation (RFC 5802, without
// channel binding, as Kafka speaks it).
type scram struct {
	hash            func() hash.Hash
	user, password  string
	nonce           string
	clientFirstBare string
	authMessage     string
	saltedPassword  []byte
}

// maxIterations bounds the PBKDF2 work a broker can ask for (Kafka
// allows at most 16,384).
const maxIterations = 1 << 20

func newSCRAM(mechanism, user, password, nonce string) (*scram, error) {
	s := &scram{user: user, password: password, nonce: nonce}
	switch mechanism {
	case "SCRAM-SHA-256":
		s.hash = sha256.New
	case "SCRAM-SHA-512":
		s.hash = sha512.New
	default:
		return nil, fmt.Errorf("SASL mechanism %q is not SCRAM", mechanism)
	}
	if s.nonce == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		s.nonce = base64.RawStdEncoding.EncodeToString(b)
	}
	return s, nil
}

// saslName escapes a user name for SCRAM: "=" and "," (RFC 5802 5.1).
func saslName(s string) string {
	return strings.NewReplacer("=", "=3D", ",", "=2C").Replace(s)
}

func (s *scram) clientFirst() []byte {
	s.clientFirstBare = "n=" + saslName(s.user) + ",r=" + s.nonce
	return []byte("n,," + s.clientFirstBare)
}

func (s *scram) clientFinal(serverFirst []byte) ([]byte, error) {
	attrs := map[byte]string{}
	for _, a := range strings.Split(string(serverFirst), ",") {
		if len(a) >= 2 && a[1] == '=' {
			attrs[a[0]] = a[2:]
		}
	}
	if e, ok := attrs['e']; ok {
		return nil, fmt.Errorf("SCRAM: the broker refused: %s", e)
	}
	nonce, salt64, iter := attrs['r'], attrs['s'], attrs['i']
	if !strings.HasPrefix(nonce, s.nonce) || len(nonce) == len(s.nonce) {
		return nil, errors.New("SCRAM: the broker's nonce does not extend ours")
	}
	salt, err := base64.StdEncoding.DecodeString(salt64)
	if err != nil || len(salt) == 0 {
		return nil, errors.New("SCRAM: the broker's salt is not base64")
	}
	n, err := strconv.Atoi(iter)
	if err != nil || n < 1 || n > maxIterations {
		return nil, fmt.Errorf("SCRAM: iteration count %q (want 1-%d)", iter, maxIterations)
	}
	s.saltedPassword, err = pbkdf2.Key(s.hash, s.password, salt, n, s.hash().Size())
	if err != nil {
		return nil, err
	}
	withoutProof := "c=biws,r=" + nonce // biws: base64 of "n,,", no channel binding
	s.authMessage = s.clientFirstBare + "," + string(serverFirst) + "," + withoutProof
	clientKey := s.mac(s.saltedPassword, "Client Key")
	h := s.hash()
	h.Write(clientKey)
	signature := s.mac(h.Sum(nil), s.authMessage)
	proof := make([]byte, len(clientKey))
	for i := range proof {
		proof[i] = clientKey[i] ^ signature[i]
	}
	return []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof)), nil
}

func (s *scram) verifyServer(serverFinal []byte) error {
	text := string(serverFinal)
	if e, ok := strings.CutPrefix(text, "e="); ok {
		return fmt.Errorf("SCRAM: the broker refused: %s", e)
	}
	v, ok := strings.CutPrefix(text, "v=")
	if !ok {
		return errors.New("SCRAM: the broker's final message has no signature")
	}
	want := s.mac(s.mac(s.saltedPassword, "Server Key"), s.authMessage)
	got, err := base64.StdEncoding.DecodeString(strings.SplitN(v, ",", 2)[0])
	if err != nil || !hmac.Equal(got, want) {
		return errors.New("SCRAM: the broker's signature is wrong: it does not know the password")
	}
	return nil
}

func (s *scram) mac(key []byte, msg string) []byte {
	m := hmac.New(s.hash, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}
