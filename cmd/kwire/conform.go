package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/kwirelabs/kwire/app/conform"
	"github.com/kwirelabs/kwire/messages"
)

// exitError is an error with the exit status the command ends with.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// errNonconforming is conform's exit status 1: the report says why.
var errNonconforming = errors.New("conform: the broker departs from the protocol (see the report)")

// runConform checks a broker's protocol conformance: `kwire conform -b
// HOST:PORT [-api LIST] [-skip LIST] [-seed N] [-n N] [-timeout D]
// [-destructive] [-json] [-html FILE]`. It exits 1 when a check fails,
// 2 when the broker cannot be reached.
func runConform(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("b", "", "the broker, HOST:PORT")
	apis := fs.String("api", "", "only these APIs (names or keys, comma-separated)")
	skip := fs.String("skip", "", "not these APIs (names or keys) or robustness checks ("+strings.Join(conform.RobustnessChecks, ", ")+"), comma-separated")
	seed := fs.Int64("seed", 0, "the random requests' seed (0: from the clock; printed in the report)")
	n := fs.Int("n", 8, "random requests per API and version")
	timeout := fs.Duration("timeout", 5*time.Second, "how long an answer may take")
	destructive := fs.Bool("destructive", false, "also send requests that may change the cluster for others (configs, ACLs, quotas, ...)")
	prefix := fs.String("prefix", "kwire-conform-", "the checker's own topics and groups begin with this")
	jsonOut := fs.Bool("json", false, "one JSON line per check instead of the text table")
	htmlFile := fs.String("html", "", "also write the report as an HTML page to this file")
	var tlsFlags tlsClientFlags
	tlsFlags.register(fs, "tls", "tls-", "the broker")
	tlsFlags.registerInsecure(fs, "the broker")
	var sasl saslFlags
	sasl.register(fs)
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	if *addr == "" || fs.NArg() > 0 {
		return fmt.Errorf("conform: usage: kwire conform -b HOST:PORT [-api LIST] [-seed N] [-n N] [-json] [-html FILE]")
	}
	opts := conform.Options{Seed: *seed, N: *n, Timeout: *timeout, Destructive: *destructive, Prefix: *prefix}
	if *n == 0 {
		opts.N = -1
	}
	if opts.Seed == 0 {
		opts.Seed = time.Now().UnixNano() % 1e9
	}
	var err error
	if opts.APIs, err = apiKeys(*apis, "-api"); err != nil {
		return err
	}
	var skipAPIs []string
	for _, name := range strings.Split(*skip, ",") {
		if name = strings.TrimSpace(name); slices.Contains(conform.RobustnessChecks, name) {
			opts.SkipChecks = append(opts.SkipChecks, name)
		} else if name != "" {
			skipAPIs = append(skipAPIs, name)
		}
	}
	if opts.Skip, err = apiKeys(strings.Join(skipAPIs, ","), "-skip"); err != nil {
		return err
	}
	if opts.TLS, err = tlsFlags.config(); err != nil {
		return fmt.Errorf("conform: %w", err)
	}
	if opts.SASL, err = sasl.credentials(os.Stderr); err != nil {
		return fmt.Errorf("conform: %w", err)
	}
	rep, err := conform.Run(context.Background(), *addr, opts)
	if err != nil {
		code := 1
		if errors.Is(err, conform.ErrUnreachable) {
			code = 2
		}
		return &exitError{code, err}
	}
	if *jsonOut {
		err = rep.WriteJSON(out)
	} else {
		err = rep.WriteText(out)
	}
	if err != nil {
		return err
	}
	if *htmlFile != "" {
		f, err := os.OpenFile(*htmlFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600) // it holds the broker's answers
		if err != nil {
			return fmt.Errorf("conform: -html: %w", err)
		}
		if err := rep.WriteHTML(f); err != nil {
			f.Close()
			return fmt.Errorf("conform: -html: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("conform: -html: %w", err)
		}
	}
	if rep.Failed() {
		return &exitError{1, errNonconforming}
	}
	return nil
}

// apiKeys parses a comma-separated list of API names or keys.
func apiKeys(list, flagName string) ([]int16, error) {
	if list == "" {
		return nil, nil
	}
	var keys []int16
	for _, name := range strings.Split(list, ",") {
		key, ok := apiKeyByName(messages.Default, strings.TrimSpace(name))
		if !ok {
			return nil, fmt.Errorf("conform: %s: no API %q", flagName, name)
		}
		keys = append(keys, key)
	}
	return keys, nil
}
