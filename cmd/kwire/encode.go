package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

// maxJSONInput bounds what encode and send read from standard input.
const maxJSONInput = 64 << 20

// apiFlag is -k: an API key, or an API's name in any case (Produce,
// consumergroupheartbeat). It is looked up by resolve, once -schemas has
// added its APIs, so the flags may come in any order.
type apiFlag struct {
	text string
	api  messages.API
	set  bool
}

func (f *apiFlag) String() string { return f.text }

func (f *apiFlag) Set(s string) error {
	f.text, f.api, f.set = s, messages.API{}, true
	return nil
}

// resolve looks the API up in reg.
func (f *apiFlag) resolve(reg *messages.Registry) error {
	if n, err := strconv.ParseInt(f.text, 10, 16); err == nil {
		api, ok := reg.Lookup(int16(n))
		if !ok {
			return fmt.Errorf("no API with key %d", n)
		}
		f.api = api
		return nil
	}
	for _, a := range reg.APIs() {
		if strings.EqualFold(a.Name, f.text) {
			f.api = a
			return nil
		}
	}
	return fmt.Errorf("no API named %q (see kwire apis)", f.text)
}

// clientIDFlag is -client: a string, or null when not given.
type clientIDFlag struct{ id *string }

func (f *clientIDFlag) String() string {
	if f.id == nil {
		return ""
	}
	return *f.id
}

func (f *clientIDFlag) Set(s string) error { f.id = &s; return nil }

// instanceFlag is -client-instance-id: a request header v3's
// ClientInstanceId (KIP-1313), zero when not given.
type instanceFlag struct{ id kwire.UUID }

func (f *instanceFlag) String() string {
	if f.id == (kwire.UUID{}) {
		return ""
	}
	return f.id.String()
}

func (f *instanceFlag) Set(s string) error {
	id, err := kwire.ParseUUID(s)
	f.id = id
	return err
}

// messageFlags are what encode and send share: which message, at which
// version, in which frame.
type messageFlags struct {
	api      apiFlag
	version  int
	response bool
	corr     int
	client   clientIDFlag
	instance instanceFlag
	// negotiate, when set, picks the version when neither -v nor the
	// input gives one.
	negotiate func(api messages.API) (int16, error)
}

func (m *messageFlags) register(fs *flag.FlagSet, responses bool) {
	fs.Var(&m.api, "k", "API key or name (Produce, 0)")
	fs.IntVar(&m.version, "v", -1, "the message's version")
	fs.IntVar(&m.corr, "corr", 0, "the frame's correlation id")
	fs.Var(&m.client, "client", "the request header's client id (default: null)")
	fs.Var(&m.instance, "client-instance-id", "UUID: the request header's ClientInstanceId (KIP-1313: header v3 and up, as the API's header table says)")
	if responses {
		fs.BoolVar(&m.response, "response", false, "the message is a response")
	}
}

// readMessage reads the JSON on input: a message body as pretty.JSON
// writes it, or a whole line of `kwire decode -json` (or of the proxy's
// -json log), whose dir, key, version, correlation_id, client_id and
// client_instance_id stand in for flags not given; the API is looked up in reg. It returns the
// message, ready to encode. A line
// whose secrets decode left out ("redacted") is refused: its body is no
// longer the frame it came from.
func (m *messageFlags) readMessage(fs *flag.FlagSet, reg *messages.Registry, input []byte) (any, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	body := input
	var line struct {
		Dir           string          `json:"dir"`
		Key           *int16          `json:"key"`
		Version       *int16          `json:"version"`
		CorrelationID *int32          `json:"correlation_id"`
		ClientID      *string         `json:"client_id"`
		Instance      *string         `json:"client_instance_id"`
		Redacted      []string        `json:"redacted"`
		Body          json.RawMessage `json:"body"`
	}
	if json.Unmarshal(input, &line) == nil && line.Body != nil && line.Dir != "" {
		if len(line.Redacted) > 0 {
			return nil, fmt.Errorf("%s: the line's %s were left out as secrets, so its body is not the frame it came from; "+
				"put the values back in the body and delete \"redacted\" to %s it", fs.Name(), strings.Join(line.Redacted, ", "), fs.Name())
		}
		body = line.Body
		if !given["k"] && line.Key != nil {
			_ = m.api.Set(strconv.Itoa(int(*line.Key)))
		}
		if !given["v"] && line.Version != nil {
			m.version = int(*line.Version)
		}
		if !given["response"] {
			m.response = line.Dir == "response"
		}
		if !given["corr"] && line.CorrelationID != nil {
			m.corr = int(*line.CorrelationID)
		}
		if !given["client"] && line.ClientID != nil {
			m.client.id = line.ClientID
		}
		if !given["client-instance-id"] && line.Instance != nil {
			if err := m.instance.Set(*line.Instance); err != nil {
				return nil, fmt.Errorf("%s: the line's client_instance_id: %v", fs.Name(), err)
			}
		}
	}
	if !m.api.set {
		return nil, fmt.Errorf("%s: give the API with -k KEY", fs.Name())
	}
	if err := m.api.resolve(reg); err != nil {
		return nil, fmt.Errorf("%s: %v", fs.Name(), err)
	}
	api := m.api.api
	if m.version < 0 && m.negotiate != nil {
		v, err := m.negotiate(api)
		if err != nil {
			return nil, err
		}
		m.version = int(v)
	}
	if m.version < int(api.MinVersion) || m.version > int(api.MaxVersion) {
		return nil, fmt.Errorf("%s: %s has versions %d-%d; give one with -v", fs.Name(), api.Name, api.MinVersion, api.MaxVersion)
	}
	if m.corr < -1<<31 || m.corr > 1<<31-1 {
		return nil, fmt.Errorf("%s: -corr %d is not an int32", fs.Name(), m.corr)
	}
	msg := api.NewRequest()
	if m.response {
		msg = api.NewResponse()
	}
	if err := pretty.ParseJSON(body, msg, int16(m.version)); err != nil {
		return nil, fmt.Errorf("%s: %w", fs.Name(), err)
	}
	// An id the header has no place for is refused rather than left out.
	if m.instance.id != (kwire.UUID{}) || (given["client"] && !m.response) {
		info, err := kwire.MessageInfoOf(msg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fs.Name(), err)
		}
		h, rh := info.RequestHeaders.At(int16(m.version)), info.ResponseHeaders.At(int16(m.version))
		if m.instance.id != (kwire.UUID{}) && (m.response || h < 3) {
			return nil, fmt.Errorf("%s: -client-instance-id: %s v%d travels with %s; only request header v3 and up carry a ClientInstanceId",
				fs.Name(), api.Name, m.version, headerName(m.response, h, rh))
		}
		if given["client"] && !m.response && h == 0 {
			return nil, fmt.Errorf("%s: -client: %s v%d travels with request header v0, which has no client id", fs.Name(), api.Name, m.version)
		}
	}
	return msg, nil
}

// headerName names the header a message travels with.
func headerName(response bool, request, resp int16) string {
	if response {
		return fmt.Sprintf("response header v%d", resp)
	}
	return fmt.Sprintf("request header v%d", request)
}

// frame is msg in a frame: size prefix, header, body.
func (m *messageFlags) frame(msg any) ([]byte, error) {
	if m.response {
		return kwire.AppendResponse(nil, msg, int16(m.version), int32(m.corr))
	}
	return kwire.AppendRequestWithHeader(nil, kwire.RequestHeader{APIVersion: int16(m.version), CorrelationID: int32(m.corr),
		ClientID: m.client.id, ClientInstanceID: m.instance.id}, msg)
}

// runEncode turns JSON into a frame: `kwire encode -k KEY -v V [-response]
// [-corr N] [-client ID] [-raw] [-schemas DIR] < msg.json` prints it in
// hex (or, with -raw, as bytes).
func runEncode(args []string, stdin io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("encode", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var m messageFlags
	m.register(fs, true)
	raw := fs.Bool("raw", false, "write the frame's bytes rather than hex")
	var schemas schemaFlags
	schemas.register(fs, "encode")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	reg, err := schemas.registry(os.Stderr)
	if err != nil {
		return fmt.Errorf("encode: %v", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("encode: the JSON comes on standard input, not as %q", fs.Arg(0))
	}
	input, err := readInput(stdin)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	msg, err := m.readMessage(fs, reg, input)
	if err != nil {
		return err
	}
	frame, err := m.frame(msg)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if *raw {
		_, err = out.Write(frame)
		return err
	}
	_, err = fmt.Fprintln(out, hex.EncodeToString(frame))
	return err
}

// readInput reads standard input, up to maxJSONInput.
func readInput(stdin io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(stdin, maxJSONInput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxJSONInput {
		return nil, fmt.Errorf("more than %d bytes of JSON", maxJSONInput)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("no JSON on standard input")
	}
	return b, nil
}
