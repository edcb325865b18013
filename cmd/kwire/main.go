// Command kwire is kwire's command-line tool: it shows the byte layout of
// any Kafka message, lists the APIs, relays a cluster logging every
// message, and generates tagged structs from Kafka's JSON schemas.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const usage = `usage: kwire <command> [arguments]

commands:
  layout NAME [-v VERSION]          the smallest legal frame of a request or
  layout -k KEY [-response] [-v N]  response: hex dump and object tree
  layout NAME [-v N] -html          ... the API's reference page as HTML
  site -o DIR [-schemas DIR,...]    the reference pages of every API and version
  decode HEX | decode < FILE        the tree of a captured request frame (hex)
  decode -response -k KEY -v N HEX  ... or of a response frame
  decode -json [-records] ...       ... as JSON (records in full with -records,
                                    as base64 with -raw-records)
  decode -show-secrets ...          ... with SASL bytes, token HMACs and password
                                    configs shown (blanked by default, hex too)
  encode -k KEY -v N [-response] [-corr N] [-client ID] [-raw] < MSG.json
                                    the frame of a message given as JSON (the
                                    body of decode -json, or its whole line), hex
  send -b HOST:PORT -k KEY [-v N] [-tls [-tls-ca F]] [-sasl-mechanism M -sasl-user U] < REQ.json
                                    send one request given as JSON, print the
                                    response as JSON (-v: default negotiated)
  apis [-sizes [-o FILE]]           every API: key, name, versions, flexible from;
                                    -sizes: smallest request/response frame of every version (TSV)
  apis -kafka 3.7 [-since 3.6]      what a Kafka release offers (or changed); -releases lists them
  probe -b HOST:PORT [-tls]         which Kafka release a broker looks like, from its ApiVersions
  conform -b HOST:PORT [-api LIST] [-skip LIST] [-seed N] [-n N] [-destructive] [-json] [-html FILE]
                                    check a broker's protocol conformance: every
                                    API and version it offers, minimal and random
                                    requests, malformed input; exit 1 on a failure
  proxy -listen HOST:PORT -upstream HOST:PORT [-json] [-log FILE]
                                    relay a Kafka cluster, logging every message
  sniff -r FILE|- [-port LIST] [-json] [-api LIST] [-errors] [-client ID]
                                    every Kafka request and response in a
                                    packet capture (pcap, pcapng), paired
  gen -schemas DIR[,DIR] -out DIR -package NAME
                                    tagged structs from Kafka JSON schemas
                                    (-registry=false -register for a package
                                    of one's own; -check in CI: fail if stale)
  gen -schemas DIR[,DIR] -extract DIR
                                    the schemas' facts (no prose), merged,
                                    one JSON file per message`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil && !errors.Is(err, errHelp) {
		fmt.Fprintln(os.Stderr, errorLine(err))
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}

// errorLine is the line an error is printed as: "kwire: " once, though
// a subcommand's prefix may wrap a library error that has its own
// ("encode: kwire: parse json ..." reads "kwire: encode: parse json ...").
func errorLine(err error) string {
	msg := strings.TrimPrefix(err.Error(), "kwire: ")
	if cmd, rest, ok := strings.Cut(msg, ": kwire: "); ok && !strings.Contains(cmd, " ") {
		msg = cmd + ": " + rest
	}
	return "kwire: " + msg
}

// usageLines are the subcommands' first help lines where "[flags]" alone
// would hide what the command reads.
var usageLines = map[string]string{
	"decode": "usage: kwire decode [flags] HEX   (the frame in hex, size prefix included; or the hex on standard input)",
	"encode": "usage: kwire encode -k KEY -v V [flags] < message.json   (a message body in JSON, or a line of kwire decode/sniff/proxy -json, on standard input)",
	"send":   "usage: kwire send -b HOST:PORT -k KEY [-v V] [flags] < request.json   (the request body in JSON, or a -json line, on standard input)",
}

func run(args []string, out io.Writer) error {
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	switch args[0] {
	case "layout":
		return runLayout(args[1:], out)
	case "decode":
		return runDecode(args[1:], os.Stdin, out)
	case "encode":
		return runEncode(args[1:], os.Stdin, out)
	case "send":
		return runSend(args[1:], os.Stdin, out)
	case "site":
		return runSite(args[1:], out)
	case "apis":
		return runAPIs(args[1:], out)
	case "proxy":
		return runProxy(args[1:], out)
	case "probe":
		return runProbe(args[1:], out)
	case "sniff":
		return runSniff(args[1:], os.Stdin, out, os.Stderr)
	case "gen":
		return runGen(args[1:])
	case "conform":
		return runConform(args[1:], out)
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(out, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q (try kwire help)", args[0])
}

// errHelp says a subcommand printed its flags for -h: the command succeeds.
var errHelp = errors.New("help shown")

// parseFlags parses a subcommand's flags; -h prints them to out and
// returns errHelp. Other errors name the subcommand.
func parseFlags(fs *flag.FlagSet, args []string, out io.Writer) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		if u, ok := usageLines[fs.Name()]; ok {
			fmt.Fprintln(out, u)
		} else {
			fmt.Fprintf(out, "usage: kwire %s [flags]\n", fs.Name())
		}
		fs.SetOutput(out)
		fs.PrintDefaults()
		return errHelp
	}
	if err != nil {
		return fmt.Errorf("%s: %v", fs.Name(), err)
	}
	return nil
}
