package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// runDecode prints the tree of a frame given in hex (as an argument or on
// standard input; spaces, newlines and an optional 0x are ignored). A
// request names its API and version in its header; a response needs them
// given: -response -k KEY -v VERSION.
func runDecode(args []string, stdin io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("decode", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	response := fs.Bool("response", false, "the frame is a response (needs -k and -v)")
	key := fs.Int("k", -1, "API key of a response")
	version := fs.Int("v", -1, "version of a response")
	if err := fs.Parse(args); err != nil {
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
		return fmt.Errorf("decode: the frame is not hex: %v", err)
	}
	var tree *kwire.Node
	if *response {
		api, ok := messages.Lookup(int16(*key))
		if !ok || *key > 0x7fff {
			return fmt.Errorf("decode: a response needs -k with a known API key")
		}
		if *version < int(api.MinVersion) || *version > int(api.MaxVersion) {
			return fmt.Errorf("decode: %s has versions %d-%d; give one with -v", api.Name, api.MinVersion, api.MaxVersion)
		}
		tree, err = kwire.TraceResponse(frame, api.NewResponse(), int16(*version))
	} else {
		tree, err = kwire.TraceRequest(frame, func(key, _ int16) (any, error) {
			api, ok := messages.Lookup(key)
			if !ok {
				return nil, fmt.Errorf("decode: no API with key %d", key)
			}
			return api.NewRequest(), nil
		})
	}
	if err != nil {
		return err
	}
	fmt.Fprint(out, hexDump(frame))
	fmt.Fprintln(out)
	fmt.Fprint(out, tree.Format())
	return nil
}
