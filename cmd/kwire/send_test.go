package main

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/app/testcerts"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// fakeBroker answers on a loopback listener, with kwire: ApiVersions
// (Metadata capped at v9; ApiVersions past v3 is refused as Kafka refuses
// a version it cannot read), Metadata (one broker, the topics asked for),
// and nothing to an acks=0 Produce; any other request closes the
// connection unanswered. It keeps every request frame it read.
type fakeBroker struct {
	ln     net.Listener
	mu     sync.Mutex
	frames [][]byte
	seen   chan []byte // every frame too, for a test that has no answer to wait for
	wg     sync.WaitGroup
	// plain, when set, is the SASL PLAIN token a connection must log in
	// with before any request but ApiVersions is answered.
	plain string
	// oauth, when set, is the OAUTHBEARER initial response a connection
	// must log in with instead; the broker refuses another as Kafka's
	// OAUTHBEARER server does (a JSON challenge, then the failure).
	oauth string
}

func startFakeBroker(t *testing.T) *fakeBroker {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return serveFakeBroker(t, ln)
}

func serveFakeBroker(t *testing.T, ln net.Listener) *fakeBroker {
	b := &fakeBroker{ln: ln, seen: make(chan []byte, 64)}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				defer conn.Close()
				b.serve(conn)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); b.wg.Wait() })
	return b
}

func (b *fakeBroker) serve(conn net.Conn) {
	frames := kwire.NewFrameReader(conn, 0)
	loggedIn := b.plain == "" && b.oauth == ""
	for {
		frame, err := frames.Next()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.frames = append(b.frames, append([]byte(nil), frame...))
		b.mu.Unlock()
		b.seen <- b.frames[len(b.frames)-1]
		key, version, corr, err := kwire.PeekRequest(frame)
		if err != nil {
			return
		}
		var answer []byte
		if !loggedIn && key != 18 && key != 17 && key != 36 {
			return
		}
		switch key {
		case 17:
			mechanism := "PLAIN"
			if b.oauth != "" {
				mechanism = "OAUTHBEARER"
			}
			answer, err = kwire.AppendResponse(nil, &messages.SaslHandshakeResponse{Mechanisms: []string{mechanism}}, version, corr)
		case 36:
			_, body, rerr := messages.ReadRequest(frame)
			if rerr != nil {
				return
			}
			auth := string(body.(*messages.SaslAuthenticateRequest).AuthBytes)
			resp := &messages.SaslAuthenticateResponse{}
			const refusal = `{"status":"invalid_token"}`
			switch {
			case b.oauth == "":
				if loggedIn = auth == b.plain; !loggedIn {
					resp.ErrorCode = 58 // SASL_AUTHENTICATION_FAILED
				}
			case auth == b.oauth:
				loggedIn = true
			case auth == "\x01":
				resp.ErrorCode = 58
				resp.ErrorMessage = new(refusal)
			default:
				resp.AuthBytes = []byte(refusal)
			}
			answer, err = kwire.AppendResponse(nil, resp, version, corr)
		case 18:
			if version > 3 {
				answer = kwire.AppendUnsupportedAPIVersions(nil, corr, kwire.APIVersionRange{APIKey: 18, MinVersion: 0, MaxVersion: 3})
				break
			}
			resp := messages.NewApiVersionsResponse()
			for _, api := range messages.APIs() {
				hi := api.MaxVersion
				if api.Key == 3 {
					hi = 9
				}
				resp.ApiKeys = append(resp.ApiKeys, messages.ApiVersionsResponseApiVersion{ApiKey: api.Key, MinVersion: api.MinVersion, MaxVersion: hi})
			}
			answer, err = kwire.AppendResponse(nil, resp, version, corr)
		case 3:
			_, body, rerr := messages.ReadRequest(frame)
			if rerr != nil {
				return
			}
			req := body.(*messages.MetadataRequest)
			resp := messages.NewMetadataResponse()
			resp.Brokers = []messages.MetadataResponseBroker{{NodeID: 1, Host: "127.0.0.1", Port: 9092}}
			resp.ControllerID = 1
			for _, tp := range req.Topics {
				resp.Topics = append(resp.Topics, messages.MetadataResponseTopic{Name: tp.Name, ErrorCode: 3})
			}
			answer, err = kwire.AppendResponse(nil, resp, version, corr)
		case 0:
			continue // an acks=0 Produce: no answer
		default:
			return
		}
		if err != nil {
			return
		}
		if _, err := conn.Write(answer); err != nil {
			return
		}
	}
}

func (b *fakeBroker) requests() [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([][]byte(nil), b.frames...)
}

func sendLine(t *testing.T, args []string, input string) (decodeLine, string) {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, runSend(args, strings.NewReader(input), &out))
	var line decodeLine
	require.NoError(t, json.Unmarshal(out.Bytes(), &line), out.String())
	return line, out.String()
}

func TestSendToAFakeBroker(t *testing.T) {
	b := startFakeBroker(t)
	addr := b.ln.Addr().String()
	request := `{"Topics":[{"Name":"orders","TopicID":"00000000-0000-0000-0000-000000000000"}],"AllowAutoTopicCreation":false,` +
		`"IncludeTopicAuthorizedOperations":false}`

	// With -v: the request on the wire is the frame kwire encode makes.
	line, out := sendLine(t, []string{"-b", addr, "-k", "Metadata", "-v", "12", "-corr", "5", "-client", "me"}, request)
	assert.Equal(t, "response", line.Dir)
	assert.Equal(t, int16(3), line.Key)
	assert.Equal(t, int16(12), line.Version)
	assert.Equal(t, int32(5), line.CorrelationID)
	assert.Contains(t, out, `"errors":["Topics[0].ErrorCode = UNKNOWN_TOPIC_OR_PARTITION"]`)
	assert.Contains(t, string(line.Body), `"Brokers":[{"NodeID":1,"Host":"127.0.0.1","Port":9092,"Rack":null}]`)
	var enc bytes.Buffer
	require.NoError(t, runEncode([]string{"-k", "3", "-v", "12", "-corr", "5", "-client", "me"}, strings.NewReader(request), &enc))
	sent := b.requests()
	require.Len(t, sent, 1)
	assert.Equal(t, strings.TrimSpace(enc.String()), hex.EncodeToString(sent[0]))

	// Without -v: ApiVersions first (asked at kwire's newest, refused, then
	// at v3), then Metadata at v9, the broker's highest.
	line, _ = sendLine(t, []string{"-b", addr, "-k", "3"}, `{"Topics":[{"Name":"orders"}]}`)
	assert.Equal(t, int16(9), line.Version)
	sent = b.requests()[1:]
	require.Len(t, sent, 3)
	apiVersions, _ := messages.Lookup(18)
	for i, want := range [][2]int16{{18, apiVersions.MaxStable()}, {18, 3}, {3, 9}} {
		key, version, _, err := kwire.PeekRequest(sent[i])
		require.NoError(t, err)
		assert.Equal(t, want, [2]int16{key, version}, "request %d", i)
	}

	// The v0 answer to a too-new ApiVersions is shown at v0.
	line, out = sendLine(t, []string{"-b", addr, "-k", "ApiVersions", "-v", "4"}, `{"ClientSoftwareName":"x","ClientSoftwareVersion":"1"}`)
	assert.Equal(t, int16(0), line.Version)
	assert.Contains(t, out, `"ErrorCode":35`)

	// An acks=0 Produce is sent and not waited for.
	var none bytes.Buffer
	require.NoError(t, runSend([]string{"-b", addr, "-k", "0", "-v", "9"}, strings.NewReader(`{"Acks":0,"TimeoutMs":100,"TopicData":[]}`), &none))
	assert.Empty(t, none.String())
	for frame := range b.seen { // the frames before it, then the Produce
		if key, _, _, _ := kwire.PeekRequest(frame); key == 0 {
			break
		}
	}

	// A request the broker does not answer, closing the connection, is an error.
	err := runSend([]string{"-b", addr, "-k", "Heartbeat", "-v", "4"}, strings.NewReader(`{"GroupID":"g"}`), &none)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "closed the connection without answering Heartbeat v4")

	// Bad JSON is refused before anything is sent.
	before := len(b.requests())
	err = runSend([]string{"-b", addr, "-k", "3", "-v", "12"}, strings.NewReader(`{"Topic":[]}`), &none)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "MetadataRequest.Topic at offset 1: unknown field")
	assert.Len(t, b.requests(), before)
}

func TestSendWithSASL(t *testing.T) {
	b := startFakeBroker(t)
	b.plain = "\x00alice\x00s3cret"
	addr := b.ln.Addr().String()
	metadata := `{"Topics":[{"Name":"orders"}]}`

	t.Setenv("KWIRE_SASL_PASSWORD", "s3cret")
	line, _ := sendLine(t, []string{"-b", addr, "-k", "3", "-sasl-mechanism", "plain", "-sasl-user", "alice"}, metadata)
	assert.Equal(t, int16(9), line.Version, "ApiVersions after the login")

	file := filepath.Join(t.TempDir(), "password")
	require.NoError(t, os.WriteFile(file, []byte("wrong\n"), 0o600))
	var out bytes.Buffer
	err := runSend([]string{"-b", addr, "-k", "3", "-v", "9", "-sasl-mechanism", "PLAIN", "-sasl-user", "alice", "-sasl-password-file", file},
		strings.NewReader(metadata), &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SASL_AUTHENTICATION_FAILED")
	assert.NotContains(t, err.Error(), "wrong")

	err = runSend([]string{"-b", addr, "-k", "3", "-v", "9"}, strings.NewReader(metadata), &out)
	require.Error(t, err, "no login")
	assert.Contains(t, err.Error(), "closed the connection")

	t.Setenv("KWIRE_SASL_PASSWORD", "")
	os.Unsetenv("KWIRE_SASL_PASSWORD")
	err = runSend([]string{"-b", addr, "-k", "3", "-sasl-mechanism", "PLAIN", "-sasl-user", "alice"}, strings.NewReader(metadata), &out)
	assert.ErrorContains(t, err, "SASL needs a password")
	err = runSend([]string{"-b", addr, "-k", "3", "-sasl-user", "alice"}, strings.NewReader(metadata), &out)
	assert.ErrorContains(t, err, "need -sasl-mechanism")
}

// TestSendWithOAuthBearer: send logs in with OAUTHBEARER, the token read
// from a file or $KWIRE_SASL_TOKEN (never an argument), and no byte of it
// reaches standard output, standard error or an error, in any encoding,
// whether the broker takes it or refuses it.
func TestSendWithOAuthBearer(t *testing.T) {
	payload := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"svc-orders","exp":4102444800}`))
	token := "eyJhbGciOiJSUzI1NiJ9." + payload + ".c2lnbmF0dXJlLW9mLXRoZS1pc3N1ZXI"
	b := startFakeBroker(t)
	b.oauth = "n,,\x01auth=Bearer " + token + "\x01\x01"
	addr := b.ln.Addr().String()
	metadata := `{"Topics":[{"Name":"orders"}]}`
	stderr := captureStderr(t)
	var printed bytes.Buffer
	noSecret := func(secret string) {
		t.Helper()
		for _, out := range [][]byte{printed.Bytes(), stderr()} {
			form, found := secrettest.Find(out, []byte(secret))
			assert.False(t, found, "the token in the output (%s):\n%s", form, out)
		}
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(file, []byte(token+"\n"), 0o600))
	line, out := sendLine(t, []string{"-b", addr, "-k", "3", "-sasl-mechanism", "oauthbearer", "-sasl-token-file", file}, metadata)
	assert.Equal(t, int16(9), line.Version, "ApiVersions after the login")
	printed.WriteString(out)

	t.Setenv("KWIRE_SASL_TOKEN", token)
	_, out = sendLine(t, []string{"-b", addr, "-k", "3", "-sasl-mechanism", "OAUTHBEARER"}, metadata)
	printed.WriteString(out)
	noSecret(token)

	// A token the broker refuses: its reason, not the token. The file is
	// open to others: a warning naming the file, not its content.
	wrong := strings.Replace(token, ".c2ln", ".d2ln", 1)
	require.NoError(t, os.WriteFile(file, []byte(wrong), 0o600))
	require.NoError(t, os.Chmod(file, 0o644))
	err := runSend([]string{"-b", addr, "-k", "3", "-v", "9", "-sasl-mechanism", "OAUTHBEARER", "-sasl-token-file", file},
		strings.NewReader(metadata), &printed)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `SASL_AUTHENTICATION_FAILED (58): SASL authentication failed: {"status":"invalid_token"}`)
	assert.Contains(t, string(stderr()), "-sasl-token-file "+file+" is open to group or others")
	printed.WriteString(err.Error())
	noSecret(wrong)
	noSecret(token)

	// A token that is not a bearer token is refused before anything is
	// sent, without being quoted.
	t.Setenv("KWIRE_SASL_TOKEN", token+"\x01auth=Bearer x")
	before := len(b.requests())
	err = runSend([]string{"-b", addr, "-k", "3", "-sasl-mechanism", "OAUTHBEARER"}, strings.NewReader(metadata), &printed)
	assert.ErrorContains(t, err, "a byte a bearer token cannot have")
	assert.Len(t, b.requests(), before)
	printed.WriteString(err.Error())
	noSecret(token)

	// No flag takes the token itself; the password's flag is not the token's.
	assert.ErrorContains(t, runSend([]string{"-b", addr, "-k", "3", "-sasl-mechanism", "OAUTHBEARER", "-sasl-token", token}, strings.NewReader(metadata), &printed),
		"-sasl-token")
	assert.ErrorContains(t, runSend([]string{"-b", addr, "-k", "3", "-sasl-mechanism", "OAUTHBEARER", "-sasl-password-file", file}, strings.NewReader(metadata), &printed),
		"OAUTHBEARER takes -sasl-token-file")
	os.Unsetenv("KWIRE_SASL_TOKEN")
	assert.ErrorContains(t, runSend([]string{"-b", addr, "-k", "3", "-sasl-mechanism", "OAUTHBEARER"}, strings.NewReader(metadata), &printed),
		"OAUTHBEARER needs a token: -sasl-token-file FILE or $KWIRE_SASL_TOKEN")
}

// captureStderr sends os.Stderr to a file for the rest of the test and
// returns a function reading what was written so far.
func captureStderr(t *testing.T) func() []byte {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	old := os.Stderr
	os.Stderr = f
	t.Cleanup(func() { os.Stderr = old; f.Close() })
	return func() []byte {
		b, err := os.ReadFile(f.Name())
		require.NoError(t, err)
		return b
	}
}

// TLS as the proxy's upstream side speaks it: a CA file, a client
// certificate where the broker asks for one, the certificate checked.
func TestSendWithTLS(t *testing.T) {
	ca, err := testcerts.NewCA("kwire test CA")
	require.NoError(t, err)
	server, err := ca.Server("broker", "127.0.0.1")
	require.NoError(t, err)
	client, err := ca.Client("send", "kwire")
	require.NoError(t, err)
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(caFile, ca.PEM, 0o600))
	certFile, keyFile, err := client.Write(dir, "client")
	require.NoError(t, err)
	serverCert, err := server.TLS()
	require.NoError(t, err)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{serverCert},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: ca.Pool(), MinVersion: tls.VersionTLS12})
	require.NoError(t, err)
	b := serveFakeBroker(t, ln)
	addr := b.ln.Addr().String()
	metadata := `{"Topics":[{"Name":"orders"}]}`

	line, _ := sendLine(t, []string{"-b", addr, "-k", "3", "-v", "9", "-tls-ca", caFile, "-tls-cert", certFile, "-tls-key", keyFile}, metadata)
	assert.Equal(t, int16(9), line.Version)

	var out bytes.Buffer
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-tls", "-tls-cert", certFile, "-tls-key", keyFile}, "certificate signed by unknown authority"},
		{[]string{"-tls-ca", caFile, "-tls-cert", certFile, "-tls-key", keyFile, "-tls-server-name", "other"}, "wanted to match other"},
		{[]string{"-tls-cert", certFile}, "-tls-cert and -tls-key go together"},
	} {
		err := runSend(append([]string{"-b", addr, "-k", "3", "-v", "9", "-timeout", "10s"}, c.args...), strings.NewReader(metadata), &out)
		assert.ErrorContains(t, err, c.want, "%v", c.args)
	}
	// Without a client certificate the broker ends the handshake; with
	// TLS 1.3 the client learns it on its first read.
	err = runSend([]string{"-b", addr, "-k", "3", "-v", "9", "-tls-ca", caFile}, strings.NewReader(metadata), &out)
	assert.Error(t, err)
}

// A broker's answer that is not a response of the request's API and
// correlation id is an error saying what came, whatever the bytes.
func TestSendHostileResponses(t *testing.T) {
	request := `{"Topics":[{"Name":"orders"}]}`
	goodBody, err := kwire.AppendResponse(nil, messages.NewMetadataResponse(), 1, 99)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		answer []byte
		want   string
	}{
		{"cut mid-frame", []byte{0, 0, 3, 232, 0, 0, 0, 1, 0, 0}, "closed the connection in the middle of its Metadata v1 response"},
		{"size past -max-frame", []byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1}, "frame larger than the limit: size prefix 2147483647, limit 65536"},
		{"negative size", []byte{0xff, 0xff, 0xff, 0xfb}, "invalid length"},
		{"array longer than the frame", []byte{0, 0, 0, 12, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0}, "MetadataResponse.Brokers at offset 8: invalid length"},
		{"another correlation id", goodBody, "the response has correlation id 99, the request 1"},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		go func() {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
			if _, err := kwire.NewFrameReader(conn, 0).Next(); err == nil {
				_, _ = conn.Write(tc.answer)
			}
		}()
		var out bytes.Buffer
		err = runSend([]string{"-b", ln.Addr().String(), "-k", "Metadata", "-v", "1", "-max-frame", "65536"}, strings.NewReader(request), &out)
		ln.Close()
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), tc.want, tc.name)
		}
		assert.Empty(t, out.String(), tc.name)
	}
}
