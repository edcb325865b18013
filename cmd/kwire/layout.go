package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/kwirelabs/kwire/app/site"
	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/messages"
)

func runLayout(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("layout", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	version := fs.Int("v", -1, "version (default: the highest)")
	key := fs.Int("k", -1, "API key, instead of a name")
	response := fs.Bool("response", false, "with -k: the response rather than the request")
	asHTML := fs.Bool("html", false, "write the API's reference page (request and response) as HTML")
	var schemaDirs gen.DirList
	fs.Var(&schemaDirs, "schemas", "with -html: Kafka JSON schema directories for the field descriptions")
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args, out); err != nil {
		return err
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
	if *asHTML {
		p, err := site.Build(api, v)
		if err != nil {
			return err
		}
		schemas, err := loadSchemas(schemaDirs)
		if err != nil {
			return err
		}
		return site.WritePage(out, p, site.RenderOptions{Standalone: true, Schemas: schemas})
	}
	msg := api.NewRequest()
	if isResponse {
		msg = api.NewResponse()
	}
	s, err := site.BuildSide(msg, v, isResponse)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s v%d: %d bytes on the wire\n\n", s.Message, v, len(s.Frame))
	fmt.Fprint(out, hexDump(s.Frame))
	fmt.Fprintln(out)
	fmt.Fprint(out, s.Tree.Format())
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

// hexDump prints 16 bytes a row under a column header, offsets on the left;
// the bytes in hidden show as "**".
func hexDump(b []byte, hidden ...byteSpan) string {
	var s strings.Builder
	s.WriteString("      ")
	for i := 0; i < 16; i++ {
		fmt.Fprintf(&s, " %X ", i)
	}
	s.WriteString("\n")
	for row := 0; row < len(b); row += 16 {
		fmt.Fprintf(&s, "%04x  ", row)
		for i := row; i < row+16 && i < len(b); i++ {
			if inSpans(i, hidden) {
				s.WriteString("** ")
			} else {
				fmt.Fprintf(&s, "%02x ", b[i])
			}
		}
		s.WriteString("\n")
	}
	return s.String()
}

func inSpans(i int, spans []byteSpan) bool {
	for _, sp := range spans {
		if i >= sp.start && i < sp.end {
			return true
		}
	}
	return false
}
