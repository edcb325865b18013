package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

// runDecode prints the tree of a frame given in hex (as an argument or on
// standard input; spaces, newlines and an optional 0x are ignored). A
// request names its API and version in its header; a response needs them
// given: -response -k KEY -v VERSION. With -json it prints the decoded
// frame as one JSON object instead (-records: records in full;
// -raw-records: in base64, which kwire encode turns back into the frame).
// Secrets (SASL exchanges, delegation-token HMACs, password configs: the
// fields trafficlog keeps out of logs) are blanked in every view, hex dump
// included, unless -show-secrets asks for them.
func runDecode(args []string, stdin io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("decode", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	response := fs.Bool("response", false, "the frame is a response (needs -k and -v)")
	key := fs.Int("k", -1, "API key of a response")
	version := fs.Int("v", -1, "version of a response")
	asJSON := fs.Bool("json", false, "print the frame as JSON: header facts, summary, error codes, body")
	records := fs.Bool("records", false, "with -json, show records fields in full rather than summed up")
	rawRecords := fs.Bool("raw-records", false, "with -json, show records fields as their bytes in base64 (what kwire encode reads back byte for byte)")
	showSecrets := fs.Bool("show-secrets", false, "show SASL exchanges, delegation-token HMACs and password configs rather than blanking them (for your own bytes; keep the output out of logs and tickets)")
	var schemas schemaFlags
	schemas.register(fs, "decode")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	reg, err := schemas.registry(os.Stderr)
	if err != nil {
		return fmt.Errorf("decode: %v", err)
	}
	text := strings.Join(fs.Args(), "")
	if text == "" {
		b, err := io.ReadAll(io.LimitReader(stdin, 64<<20))
		if err != nil {
			return fmt.Errorf("decode: %v", err)
		}
		text = string(b)
	}
	frame, err := hex.DecodeString(strings.Join(strings.Fields(strings.ReplaceAll(text, "0x", "")), ""))
	if err != nil {
		if fs.NArg() == 1 {
			if st, statErr := os.Stat(fs.Arg(0)); statErr == nil && st.Mode().IsRegular() {
				return fmt.Errorf("decode: %s is a file: give it on standard input (kwire decode < %s)", fs.Arg(0), fs.Arg(0))
			}
		}
		return fmt.Errorf("decode: the frame is not hex: %v", err)
	}
	if !*asJSON && (*records || *rawRecords) {
		return fmt.Errorf("decode: -records and -raw-records go with -json")
	}
	if *response && *key == 18 && *version > 0 && kwire.IsUnsupportedAPIVersions(frame) {
		fmt.Fprintf(os.Stderr, "kwire decode: an ApiVersions answer with UNSUPPORTED_VERSION is written at v0 whatever the request's version (KIP-511): decoded at v0, not v%d\n", *version)
		*version = 0
	}
	if *asJSON {
		opts, err := recordsOptions(*records, *rawRecords)
		if err != nil {
			return fmt.Errorf("decode: %w", err)
		}
		return decodeJSON(reg, frame, *response, *key, *version, opts, *showSecrets, out)
	}
	var tree *kwire.LayoutNode
	var readBody func() (any, error)
	if *response {
		api, aerr := responseAPI(reg, *key)
		if aerr != nil {
			return aerr
		}
		if verr := checkResponseVersion(api, *version); verr != nil {
			return verr
		}
		tree, err = kwire.TraceResponse(frame, api.NewResponse(), int16(*version))
		nameRunTimeMessage(tree, api.Name+"Response")
		readBody = func() (any, error) {
			_, msg, err := reg.ReadResponse(frame, api.Key, int16(*version))
			return msg, err
		}
	} else {
		tree, err = reg.TraceRequest(frame)
		if key, _, _, perr := kwire.PeekRequest(frame); perr == nil {
			if api, ok := reg.Lookup(key); ok {
				nameRunTimeMessage(tree, api.Name+"Request")
			}
		}
		readBody = func() (any, error) {
			_, msg, err := reg.ReadRequest(frame)
			return msg, err
		}
	}
	if err != nil {
		return err
	}
	var hidden []byteSpan
	if !*showSecrets {
		// The trace shows values, not the struct; the decoded body says
		// which of them are secret.
		msg, err := readBody()
		if err != nil {
			return err
		}
		if hidden, err = blankSecrets(tree, msg); err != nil {
			return err
		}
	}
	fmt.Fprint(out, hexDump(frame, hidden...))
	fmt.Fprintln(out)
	fmt.Fprint(out, tree.Format())
	return nil
}

// responseAPI is the API a response's -k names, if reg knows it.
func responseAPI(reg *messages.Registry, key int) (messages.API, error) {
	api, ok := reg.Lookup(int16(key))
	if !ok || key > 0x7fff {
		return api, fmt.Errorf("decode: a response needs -k with a known API key")
	}
	return api, nil
}

func checkResponseVersion(api messages.API, version int) error {
	if version < int(api.MinVersion) || version > int(api.MaxVersion) {
		return fmt.Errorf("decode: %s has versions %d-%d; give one with -v", api.Name, api.MinVersion, api.MaxVersion)
	}
	return nil
}

// recordsOptions are the JSON options of -records (records in full) and
// -raw-records (their bytes in base64), which exclude each other.
func recordsOptions(records, rawRecords bool) ([]pretty.Option, error) {
	switch {
	case records && rawRecords:
		return nil, fmt.Errorf("-records and -raw-records: give one (in full, or as base64)")
	case records:
		return []pretty.Option{pretty.WithRecords()}, nil
	case rawRecords:
		return []pretty.Option{pretty.WithRawRecords()}, nil
	}
	return nil, nil
}

func decodeJSON(reg *messages.Registry, frame []byte, response bool, key, version int, opts []pretty.Option, showSecrets bool, out io.Writer) error {
	var e trafficlog.Event
	if response {
		api, err := responseAPI(reg, key)
		if err != nil {
			return err
		}
		if err := checkResponseVersion(api, version); err != nil {
			return err
		}
		h, msg, err := reg.ReadResponse(frame, api.Key, int16(version))
		if err != nil {
			return err
		}
		e = trafficlog.Event{Dir: trafficlog.Response, API: api.Name, Key: api.Key, Version: int16(version), CorrelationID: h.CorrelationID, Msg: msg}
	} else {
		h, msg, err := reg.ReadRequest(frame)
		if err != nil {
			return err
		}
		e = trafficlog.Event{Dir: trafficlog.Request, Key: h.APIKey, Version: h.APIVersion, CorrelationID: h.CorrelationID, ClientID: h.ClientID, ClientInstanceID: h.ClientInstanceID, Msg: msg}
		if api, ok := reg.Lookup(h.APIKey); ok {
			e.API = api.Name // the log would look the name up in messages.Default
		}
	}
	return writeDecoded(out, e, showSecrets, opts)
}

// writeDecoded prints e's message as one JSON line, in the traffic log's
// JSON form without the keys of a connection.
func writeDecoded(out io.Writer, e trafficlog.Event, showSecrets bool, opts []pretty.Option) error {
	line, err := trafficlog.AppendMessageJSON(nil, e, showSecrets, opts...)
	if err != nil {
		return err
	}
	_, err = out.Write(line)
	return err
}

// nameRunTimeMessage names the message and body nodes of tree after the
// API when its struct has no name of its own (built at run time from
// -schemas), where the tree would name them "".
func nameRunTimeMessage(tree *kwire.LayoutNode, name string) {
	if tree == nil || tree.Name != "" {
		return
	}
	tree.Name = name
	for _, c := range tree.Children {
		if c.Name == "" {
			c.Name = name
		}
	}
}
