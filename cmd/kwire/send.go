package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/kwirelabs/kwire/app/saslclient"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
	"github.com/kwirelabs/kwire/messages/release"
)

const apiKeyApiVersions = 18

// runSend sends one request given as JSON to a broker and prints the
// response as a `kwire decode -json` line: `kwire send -b HOST:PORT -k KEY
// [-v V] < req.json`. Without -v (and without a version in the input
// line) it asks the broker's ApiVersions first and uses the highest
// version both sides speak.
func runSend(args []string, stdin io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("send", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var m messageFlags
	m.register(fs, false)
	m.corr = 1
	addr := fs.String("b", "", "the broker, HOST:PORT")
	timeout := fs.Duration("timeout", 30*time.Second, "give up after this long (dial, send and answer)")
	records := fs.Bool("records", false, "show records fields of the response in full")
	rawRecords := fs.Bool("raw-records", false, "show records fields of the response as base64")
	maxFrame := fs.Int("max-frame", kwire.DefaultMaxFrameSize, "the largest response accepted (size prefix)")
	var tlsFlags tlsClientFlags
	tlsFlags.register(fs, "tls", "tls-", "the broker")
	tlsFlags.registerInsecure(fs, "the broker")
	var sasl saslFlags
	sasl.register(fs)
	var schemas schemaFlags
	schemas.register(fs, "send")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	reg, err := schemas.registry(os.Stderr)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	opts, err := recordsOptions(*records, *rawRecords)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	creds, err := sasl.credentials(os.Stderr)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	tlsConfig, err := tlsFlags.config()
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if *addr == "" || fs.NArg() > 0 {
		return fmt.Errorf("send: usage: kwire send -b HOST:PORT -k KEY [-v V] < request.json")
	}
	if m.client.id == nil {
		id := "kwire"
		m.client.id = &id
	}
	input, err := readInput(stdin)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}

	conn, err := dialBroker(*addr, tlsConfig, *timeout)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	defer conn.Close()
	if creds != nil {
		if err := saslclient.Login(conn, *creds, *m.client.id, 1000); err != nil {
			return fmt.Errorf("send: %s: %w", *addr, err)
		}
	}
	m.negotiate = func(api messages.API) (int16, error) { return negotiateVersion(conn, *m.client.id, api) }
	msg, err := m.readMessage(fs, reg, input)
	if err != nil {
		return err
	}
	if m.response {
		return fmt.Errorf("send: the input is a response; send takes a request")
	}
	frame, err := m.frame(msg)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	tracker := kwire.NewTracker(1, reg.ResponseFor)
	expect, err := tracker.Request(frame)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if _, err := conn.Write(frame); err != nil {
		return fmt.Errorf("send: writing the request: %w", err)
	}
	if !expect {
		fmt.Fprintln(os.Stderr, "kwire send: sent; an acks=0 Produce has no response")
		return nil
	}
	answer, err := kwire.NewFrameReader(conn, *maxFrame).Next()
	if err != nil {
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("send: %s closed the connection in the middle of its %s v%d response", *addr, m.api.api.Name, m.version)
		case errors.Is(err, io.EOF):
			return fmt.Errorf("send: %s closed the connection without answering %s v%d", *addr, m.api.api.Name, m.version)
		}
		return fmt.Errorf("send: reading the response: %w", err)
	}
	version := int16(m.version)
	h, resp, err := reg.ReadResponse(answer, m.api.api.Key, version)
	if err != nil && m.api.api.Key == apiKeyApiVersions && version > 0 {
		// A broker answers an ApiVersions it cannot read at v0.
		if h0, resp0, err0 := reg.ReadResponse(answer, apiKeyApiVersions, 0); err0 == nil {
			h, resp, err, version = h0, resp0, nil, 0
		}
	}
	if err != nil {
		return fmt.Errorf("send: the %s v%d response: %w", m.api.api.Name, version, err)
	}
	if h.CorrelationID != int32(m.corr) {
		return fmt.Errorf("send: the response has correlation id %d, the request %d", h.CorrelationID, m.corr)
	}
	e := trafficlog.Event{Dir: trafficlog.Response, API: m.api.api.Name, Key: m.api.api.Key, Version: version, CorrelationID: h.CorrelationID, Msg: resp}
	return writeDecoded(out, e, false, opts)
}

// negotiateVersion asks the broker's ApiVersions and returns the highest
// version of api both it and kwire speak (kwire's stable versions).
func negotiateVersion(conn net.Conn, clientID string, api messages.API) (int16, error) {
	resp, _, err := release.Ask(conn, clientID)
	if err != nil {
		return 0, fmt.Errorf("send: asking the broker's versions: %w", err)
	}
	for _, k := range resp.ApiKeys {
		if k.ApiKey != api.Key {
			continue
		}
		lo, hi := max(k.MinVersion, api.MinVersion), min(k.MaxVersion, api.MaxStable())
		if lo > hi {
			return 0, fmt.Errorf("send: the broker speaks %s v%d-%d, kwire v%d-%d: none in common; give -v",
				api.Name, k.MinVersion, k.MaxVersion, api.MinVersion, api.MaxStable())
		}
		return hi, nil
	}
	return 0, fmt.Errorf("send: the broker does not offer %s (key %d)", api.Name, api.Key)
}

// saslFlags are a client's SASL login. The password or token never
// comes on the command line, where ps and shell histories show it: from a
// file, or from $KWIRE_SASL_PASSWORD or $KWIRE_SASL_TOKEN.
type saslFlags struct {
	mechanism, user, passwordFile, tokenFile string
}

func (f *saslFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.mechanism, "sasl-mechanism", "", "log in with SASL: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER")
	fs.StringVar(&f.user, "sasl-user", "", "the SASL user (OAUTHBEARER: optional, sent as the authorization id)")
	fs.StringVar(&f.passwordFile, "sasl-password-file", "", "read the SASL password from this file (default: $KWIRE_SASL_PASSWORD)")
	fs.StringVar(&f.tokenFile, "sasl-token-file", "", "OAUTHBEARER: read the bearer token from this file (default: $KWIRE_SASL_TOKEN)")
}

// credentials are the login the flags ask for, or nil for none. A
// password or token file that group or others may open gets a warning on
// warn, as ssh gives for a private key.
func (f *saslFlags) credentials(warn io.Writer) (*saslclient.Credentials, error) {
	if f.mechanism == "" {
		if f.user != "" || f.passwordFile != "" || f.tokenFile != "" {
			return nil, fmt.Errorf("-sasl-user, -sasl-password-file and -sasl-token-file need -sasl-mechanism")
		}
		return nil, nil
	}
	c := saslclient.Credentials{Mechanism: strings.ToUpper(f.mechanism), User: f.user}
	var err error
	if c.Mechanism == "OAUTHBEARER" {
		if f.passwordFile != "" {
			return nil, fmt.Errorf("OAUTHBEARER takes -sasl-token-file, not -sasl-password-file")
		}
		c.Token, err = readSecret(f.tokenFile, "-sasl-token-file", "KWIRE_SASL_TOKEN", "OAUTHBEARER needs a token", warn)
	} else {
		if f.tokenFile != "" {
			return nil, fmt.Errorf("-sasl-token-file goes with -sasl-mechanism OAUTHBEARER")
		}
		c.Password, err = readSecret(f.passwordFile, "-sasl-password-file", "KWIRE_SASL_PASSWORD", "SASL needs a password", warn)
	}
	if err != nil {
		return nil, err
	}
	return &c, c.Check()
}

// readSecret reads a secret from file (given as flagName), or else from
// the environment variable env; missing says what is needed when neither
// is there.
func readSecret(file, flagName, env, missing string, warn io.Writer) (string, error) {
	if file == "" {
		if v, ok := os.LookupEnv(env); ok {
			return v, nil
		}
		return "", fmt.Errorf("%s: %s FILE or $%s", missing, flagName, env)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flagName, err)
	}
	if st, err := os.Stat(file); err == nil && runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(warn, "kwire: warning: %s %s is open to group or others (mode %04o): chmod 600 %s\n",
			flagName, file, st.Mode().Perm(), file)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}
