package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubcommandHelp: -h lists a subcommand's flags on standard output
// and is not a failure; an unknown flag is one, named by its subcommand.
func TestSubcommandHelp(t *testing.T) {
	for cmd, flags := range map[string][]string{
		"layout":  {"-html", "-k", "-response", "-v"},
		"decode":  {"-json", "-response", "-raw-records", "-show-secrets"},
		"encode":  {"-k", "-v", "-response", "-corr", "-client", "-raw", "-schemas"},
		"send":    {"-b", "-k", "-v", "-corr", "-client", "-timeout", "-records", "-raw-records", "-tls", "-tls-ca", "-tls-insecure", "-sasl-mechanism"},
		"proxy":   {"-listen", "-upstream", "-json", "-log", "-as-kafka"},
		"apis":    {"-kafka", "-since", "-releases", "-sizes"},
		"site":    {"-o", "-schemas"},
		"conform": {"-b", "-api", "-skip", "-seed", "-n", "-timeout", "-destructive", "-json", "-html", "-tls", "-tls-ca", "-tls-insecure", "-sasl-mechanism"},
		"probe":   {"-b", "-tls", "-tls-ca", "-tls-insecure", "-timeout", "-apis"},
	} {
		var out bytes.Buffer
		err := run([]string{cmd, "-h"}, &out)
		require.True(t, errors.Is(err, errHelp), "%s -h: %v", cmd, err)
		assert.Contains(t, out.String(), "usage: kwire "+cmd, cmd)
		for _, f := range flags {
			assert.Contains(t, out.String(), "  "+f, "%s -h lists %s", cmd, f)
		}
		err = run([]string{cmd, "-no-such-flag"}, &out)
		require.Error(t, err, cmd)
		assert.False(t, errors.Is(err, errHelp), cmd)
		assert.Contains(t, err.Error(), cmd+": flag provided but not defined", cmd)
	}
}

// TestErrorLinePrefix (issue 27, case 14): a library error under a
// subcommand's prefix is printed with "kwire: " once.
func TestErrorLinePrefix(t *testing.T) {
	err := runEncode([]string{"-k", "3", "-v", "12"}, strings.NewReader(`{"x":`), &bytes.Buffer{})
	require.Error(t, err)
	line := errorLine(err)
	assert.True(t, strings.HasPrefix(line, "kwire: encode: parse json"), line)
	assert.Equal(t, 1, strings.Count(line, "kwire:"), line)
	assert.Equal(t, "kwire: send: dial tcp: refused", errorLine(errors.New("send: dial tcp: refused")))
	assert.Equal(t, "kwire: bad", errorLine(errors.New("kwire: bad")))
}

// TestHelpNamesTheInput (issue 27, case 14): decode's help names its
// hex argument, encode's and send's the JSON on standard input.
func TestHelpNamesTheInput(t *testing.T) {
	for cmd, want := range map[string]string{"decode": "HEX", "encode": "standard input", "send": "standard input"} {
		var out bytes.Buffer
		err := run([]string{cmd, "-h"}, &out)
		require.ErrorIs(t, err, errHelp)
		assert.Contains(t, strings.SplitN(out.String(), "\n", 2)[0], want, cmd)
	}
}
