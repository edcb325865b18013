package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/proxy/filters"
)

// readmeProxyYAML is cmd/README.md's full -config example.
func readmeProxyYAML(t *testing.T) string {
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```yaml\n(# proxy.yaml:.*?)```").FindSubmatch(b)
	require.NotNil(t, m, "cmd/README.md has no proxy.yaml example")
	return string(m[1])
}

func proxyFlagSet() (*flag.FlagSet, *proxyFlags) {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f proxyFlags
	f.register(fs)
	return fs, &f
}

// TestProxyConfigREADME: the README's example sets every flag kwire proxy
// has, and each to the value written; a flag given on the command line
// wins over the file.
func TestProxyConfigREADME(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proxy.yaml")
	require.NoError(t, os.WriteFile(path, []byte(readmeProxyYAML(t)), 0o600))
	fs, f := proxyFlagSet()
	require.NoError(t, fs.Parse([]string{"-config", path, "-dial-timeout", "3s"}))
	require.NoError(t, applyConfigFile(fs, path))

	keys := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z-]+):`).FindAllStringSubmatch(readmeProxyYAML(t), -1) {
		keys[m[1]] = true
	}
	fs.VisitAll(func(fl *flag.Flag) {
		if fl.Name != "config" {
			assert.True(t, keys[fl.Name], "the README's example lacks %s", fl.Name)
		}
	})
	assert.Equal(t, "0.0.0.0:19092", f.Listen)
	assert.Equal(t, "broker-1.internal:9093", f.Upstream)
	assert.Equal(t, "19093-19120", f.BrokerPorts)
	assert.True(t, f.JSON)
	assert.Equal(t, 5000, f.MaxConns)
	assert.Equal(t, 3*time.Second, f.DialTimeout, "the command line wins")
	assert.Equal(t, 10*time.Minute, f.IdleTimeout)
	assert.Equal(t, listFlag{"payroll", "hr.reviews"}, f.DenyTopics)
	assert.Equal(t, listFlag{"CreateTopics", "DeleteTopics", "DeleteRecords"}, f.DenyAPIs)
	assert.True(t, f.RequireKeys)
	assert.Equal(t, "3.7", f.AsKafka)
	ports, err := parsePortRange(f.BrokerPorts)
	require.NoError(t, err)
	assert.Equal(t, 19093, ports.First)
}

func TestProxyConfigErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"upstream: b:9092\nlisten-addr: x\n", `proxy.yaml:2: unknown key "listen-addr"`},
		{"dial-timeout: soon\n", "proxy.yaml:1: dial-timeout: invalid value"},
		{"upstream: a\nupstream: b\n", "proxy.yaml:2: upstream given twice"},
		{"- upstream\n", "proxy.yaml:1: want a mapping"},
		{"tls-cert: {a: 1}\n", "proxy.yaml:1: tls-cert: want a value or a list"},
		{"config: other.yaml\n", `unknown key "config"`},
	} {
		path := filepath.Join(t.TempDir(), "proxy.yaml")
		require.NoError(t, os.WriteFile(path, []byte(tc.yaml), 0o600))
		fs, _ := proxyFlagSet()
		err := applyConfigFile(fs, path)
		require.Error(t, err, tc.yaml)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// TestProxyPolicyFlags: -audit, -deny-topic and -require-keys become the
// filters, audit first; the audit file is created 0600.
func TestProxyPolicyFlags(t *testing.T) {
	fs, f := proxyFlagSet()
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	require.NoError(t, fs.Parse([]string{"-audit", audit, "-deny-topic", "a", "-deny-topic", "b", "-require-keys"}))
	fl, closeAudit, err := f.filters(nil)
	require.NoError(t, err)
	defer closeAudit()
	require.Len(t, fl, 3)
	assert.IsType(t, &filters.Audit{}, fl[0])
	assert.IsType(t, &filters.DenyTopics{}, fl[1])
	assert.IsType(t, filters.RequireKeys{}, fl[2])
	st, err := os.Stat(audit)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	fs, f = proxyFlagSet()
	require.NoError(t, fs.Parse(nil))
	fl, _, err = f.filters(nil)
	require.NoError(t, err)
	assert.Empty(t, fl)
}

// TestProxyAPIPolicyFlags (issue 27, case 6): -deny-api and -allow-api
// take names or keys, comma-separated or repeated, and exclude each
// other; an unknown name or ApiVersions is an error.
func TestProxyAPIPolicyFlags(t *testing.T) {
	fs, f := proxyFlagSet()
	require.NoError(t, fs.Parse([]string{"-deny-api", "CreateTopics,deleterecords", "-deny-api", "20"}))
	fl, _, err := f.filters(nil)
	require.NoError(t, err)
	require.Len(t, fl, 1)
	pol := fl[0].(*filters.APIPolicy)
	assert.True(t, pol.Refuses(19) && pol.Refuses(21) && pol.Refuses(20))
	assert.False(t, pol.Refuses(0))

	fs, f = proxyFlagSet()
	require.NoError(t, fs.Parse([]string{"-allow-api", "Produce,Fetch,Metadata"}))
	fl, _, err = f.filters(nil)
	require.NoError(t, err)
	pol = fl[0].(*filters.APIPolicy)
	assert.True(t, pol.Refuses(19))
	assert.False(t, pol.Refuses(0) || pol.Refuses(18))

	for _, args := range [][]string{
		{"-deny-api", "Produce", "-allow-api", "Fetch"},
		{"-deny-api", "NoSuchAPI"},
		{"-deny-api", "ApiVersions"},
	} {
		fs, f = proxyFlagSet()
		require.NoError(t, fs.Parse(args))
		_, _, err = f.filters(nil)
		assert.Error(t, err, "%v", args)
	}
}
