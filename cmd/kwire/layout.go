package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

func runLayout(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("layout", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	version := fs.Int("v", -1, "version (default: the highest)")
	key := fs.Int("k", -1, "API key, instead of a name")
	response := fs.Bool("response", false, "with -k: the response rather than the request")
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("layout: %v", err)
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	}
	api, isResponse, err := findMessage(name, *key, *response)
	if err != nil {
		return err
	}
	v := int16(*version)
	if *version < 0 {
		v = api.MaxVersion
	}
	if *version > 0x7fff || v < api.MinVersion || v > api.MaxVersion {
		return fmt.Errorf("layout: %s has versions %d-%d, not %d", api.Name, api.MinVersion, api.MaxVersion, *version)
	}
	msg := api.NewRequest()
	if isResponse {
		msg = api.NewResponse()
	}
	if err := kwire.FillMinimal(msg, v); err != nil {
		return err
	}
	var frame []byte
	var tree *kwire.Node
	if isResponse {
		frame, tree, err = kwire.LayoutResponse(msg, v, 0)
	} else {
		empty := ""
		frame, tree, err = kwire.LayoutRequest(msg, v, 0, &empty)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s v%d: %d bytes on the wire\n\n", reflect.TypeOf(msg).Elem().Name(), v, len(frame))
	fmt.Fprint(out, hexDump(frame))
	fmt.Fprintln(out)
	fmt.Fprint(out, tree.Format())
	return nil
}

// findMessage resolves a message name (ProduceRequest, produce-response,
// the Go or the Kafka spelling, any case) or an API key.
func findMessage(name string, key int, response bool) (messages.API, bool, error) {
	if name == "" {
		if key < 0 {
			return messages.API{}, false, fmt.Errorf("layout: give a message name or -k KEY")
		}
		api, ok := messages.Lookup(int16(key))
		if !ok || key > 0x7fff {
			return api, false, fmt.Errorf("layout: no API with key %d", key)
		}
		return api, response, nil
	}
	want := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))
	for _, a := range messages.APIs() {
		for _, side := range []struct {
			isResp bool
			msg    any
		}{{false, a.NewRequest()}, {true, a.NewResponse()}} {
			suffix := "request"
			if side.isResp {
				suffix = "response"
			}
			goName := strings.ToLower(reflect.TypeOf(side.msg).Elem().Name())
			if want == goName || want == strings.ToLower(a.Name)+suffix {
				return a, side.isResp, nil
			}
		}
	}
	return messages.API{}, false, fmt.Errorf("layout: no request or response named %q (see kwire apis)", name)
}

// hexDump prints 16 bytes a row under a column header, offsets on the left.
func hexDump(b []byte) string {
	var s strings.Builder
	s.WriteString("      ")
	for i := 0; i < 16; i++ {
		fmt.Fprintf(&s, " %X ", i)
	}
	s.WriteString("\n")
	for row := 0; row < len(b); row += 16 {
		fmt.Fprintf(&s, "%04x  ", row)
		for i := row; i < row+16 && i < len(b); i++ {
			fmt.Fprintf(&s, "%02x ", b[i])
		}
		s.WriteString("\n")
	}
	return s.String()
}
