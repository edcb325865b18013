package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
	"github.com/kwirelabs/kwire/messages/release"
)

// roleTitle says what kind of node a release table is for.
func roleTitle(r release.Role) string {
	switch r {
	case release.ZooKeeper:
		return "broker in ZooKeeper mode"
	case release.KRaft:
		return "KRaft broker"
	case release.Controller:
		return "KRaft controller"
	}
	return r.String()
}

// printRelease writes a release's table (`kwire apis -kafka 3.7`) or,
// with since, what changed from that release to it.
func printRelease(out io.Writer, name, since string) error {
	r, err := release.ByName(name)
	if err != nil {
		return fmt.Errorf("apis -kafka: %w", err)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	if since != "" {
		old, err := release.ByName(since)
		if err != nil {
			return fmt.Errorf("apis -since: %w", err)
		}
		changes := release.Diff(old, r)
		fmt.Fprintf(w, "# Kafka %s → %s: %d APIs changed\n", old.Name(), r.Name(), len(changes))
		if len(changes) == 0 {
			return w.Flush()
		}
		fmt.Fprintln(w, "KEY\tNAME\t"+old.Name()+"\t"+r.Name())
		for _, c := range changes {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", c.Key, c.Name(), rangeOrNone(c.Old), rangeOrNone(c.New))
		}
		return w.Flush()
	}
	fmt.Fprintf(w, "# Kafka %s, %s: %d APIs\n", r.Name(), roleTitle(r.Role), len(r.APIs))
	fmt.Fprintln(w, "KEY\tNAME\tVERSIONS")
	for _, a := range r.APIs {
		name := fmt.Sprintf("key %d", a.APIKey)
		if api, ok := messages.Lookup(a.APIKey); ok {
			name = api.Name
		}
		fmt.Fprintf(w, "%d\t%s\t%s\n", a.APIKey, name, release.RangeString(a))
	}
	return w.Flush()
}

// printReleases lists every table (`kwire apis -releases`).
func printReleases(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tNODE\tAPIS")
	for _, r := range release.Releases() {
		fmt.Fprintf(w, "%s\t%s\t%d\n", r.Name(), roleTitle(r.Role), len(r.APIs))
	}
	return w.Flush()
}

// rangeOrNone is a side of a release.Change: its range, or "-" for an
// API that side does not offer.
func rangeOrNone(p *kwire.APIVersionRange) string {
	if p == nil {
		return "-"
	}
	return release.RangeString(*p)
}

// runProbe asks a broker for its ApiVersions and says which release it
// looks like (`kwire probe -b HOST:PORT`).
func runProbe(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("b", "", "the broker (or controller) to ask, HOST:PORT")
	timeout := fs.Duration("timeout", 10*time.Second, "give up after this long")
	clientID := fs.String("client-id", "kwire-probe", "the request's client id")
	all := fs.Bool("apis", false, "also print every API the node offers")
	var schemas schemaFlags
	schemas.register(fs, "name")
	var tlsFlags tlsClientFlags
	tlsFlags.register(fs, "tls", "tls-", "the node")
	tlsFlags.registerInsecure(fs, "the node")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	if *addr == "" || fs.NArg() > 0 {
		return fmt.Errorf("probe: usage: kwire probe -b HOST:PORT [-tls [-tls-ca FILE | -tls-insecure]] [-timeout D] [-apis] [-schemas DIR [-replace KEY]]")
	}
	reg, err := schemas.registry(os.Stderr)
	if err != nil {
		return fmt.Errorf("probe: %v", err)
	}
	tlsConfig, err := tlsFlags.config()
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	conn, err := dialBroker(*addr, tlsConfig, *timeout)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	defer conn.Close()
	resp, version, err := release.Ask(conn, *clientID)
	if err != nil {
		return fmt.Errorf("probe %s: %w", *addr, err)
	}
	m := release.GuessIgnoring(resp, vendorKeys(reg))
	fmt.Fprintf(out, "%s answered ApiVersions v%d: %d APIs", *addr, version, len(resp.ApiKeys))
	for _, f := range resp.SupportedFeatures {
		if f.Name == "metadata.version" {
			fmt.Fprintf(out, ", metadata.version %d-%d", f.MinVersion, f.MaxVersion)
		}
	}
	fmt.Fprintln(out)
	if m.Exact {
		fmt.Fprintf(out, "looks like Kafka %s (%s)", m.Release.Name(), roleTitle(m.Release.Role))
	} else {
		fmt.Fprintf(out, "nearest Kafka %s (%s), %d APIs differ", m.Release.Name(), roleTitle(m.Release.Role), len(m.Differences))
	}
	if len(m.Ties) > 0 {
		names := make([]string, len(m.Ties))
		for i, r := range m.Ties {
			names[i] = r.Name()
		}
		if m.Exact {
			fmt.Fprintf(out, "; the same table as %s", strings.Join(names, ", "))
		} else {
			fmt.Fprintf(out, "; as near: %s", strings.Join(names, ", "))
		}
	}
	if m.MetadataVersion != "" {
		fmt.Fprintf(out, "; metadata.version %s", m.MetadataVersion)
	}
	for _, k := range m.Ignored {
		now, _ := reg.Lookup(k)
		how := "-schemas"
		if _, replaced := reg.Replaced(k); replaced {
			how = "-replace"
		}
		fmt.Fprintf(out, "; key %d (%s, %s) left out", k, now.Name, how)
	}
	fmt.Fprintln(out)
	if len(m.Differences) > 0 {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "KEY\tNAME\t"+m.Release.Name()+"\tTHIS NODE")
		for _, c := range m.Differences {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", c.Key, c.Name(), rangeOrNone(c.Old), rangeOrNone(c.New))
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if *all {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "KEY\tNAME\tVERSIONS")
		for _, a := range resp.Versions() {
			name := fmt.Sprintf("key %d", a.APIKey)
			if api, ok := reg.Lookup(a.APIKey); ok {
				name = api.Name
			}
			fmt.Fprintf(w, "%d\t%s\t%s\n", a.APIKey, name, release.RangeString(a))
		}
		return w.Flush()
	}
	return nil
}

// vendorKeys are the keys of reg's APIs that -schemas added or gave to
// another API (-replace), ascending. Their versions say nothing of the
// Apache release underneath: compared, a vendor's key would read as the
// Apache API at that key, or as one Kafka has yet to add.
func vendorKeys(reg *messages.Registry) []int16 {
	var keys []int16
	for _, a := range reg.APIs() {
		_, replaced := reg.Replaced(a.Key)
		if _, apache := messages.Lookup(a.Key); replaced || !apache {
			keys = append(keys, a.Key)
		}
	}
	slices.Sort(keys)
	return keys
}

// applyAsKafka makes the proxy offer what a Kafka release offers
// (`kwire proxy -as-kafka 3.7`): ApiVersions answers are clamped to the
// release's table, and API keys Kafka does not have are dropped. It can
// only narrow: what the cluster itself lacks stays out. metadata.version
// is offered with the levels both the release and the cluster have, or
// not at all when they share none or the release lacks it (before 3.3,
// or in ZooKeeper mode).
func (f *proxyFlags) applyAsKafka(cfg *proxy.Config) error {
	if f.AsKafka == "" {
		return nil
	}
	if f.Unstable {
		return fmt.Errorf("-as-kafka and -unstable: a release offers no unstable versions")
	}
	r, err := release.ByName(f.AsKafka)
	if err != nil {
		return fmt.Errorf("-as-kafka: %w", err)
	}
	cfg.Versions, cfg.StripUnknown = r.APIs, true
	// A key the dialect gave to a vendor's API (-replace) is not the
	// release's API: its range there says nothing of the vendor's, so the
	// key is left out of the offer, as the vendor's other keys are.
	if reg := cfg.Registry; reg != nil && len(reg.ReplacedKeys()) > 0 {
		cfg.Versions = nil
		for _, a := range r.APIs {
			if was, replaced := reg.Replaced(a.APIKey); replaced {
				now, _ := reg.Lookup(a.APIKey)
				fmt.Fprintf(os.Stderr, "kwire proxy: -as-kafka %s: key %d is %s here (-replace), not %s: not offered\n", f.AsKafka, a.APIKey, now.Name, was.Name)
				continue
			}
			cfg.Versions = append(cfg.Versions, a)
		}
	}
	mv := release.Feature{Name: release.MetadataVersionFeature, Min: 0, Max: -1} // Max below Min: removed
	for _, f := range r.Features {
		if f.Name == mv.Name {
			mv = f
		}
	}
	cfg.Features = []messages.FeatureRange{mv}
	return nil
}
