package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/messages"
)

// schemaFlags are -schemas and -replace, which decode, encode, send,
// sniff and proxy share: the registry a command reads messages with.
type schemaFlags struct {
	dirs    string // DIR[,DIR]
	replace string // KEY[,KEY]
}

func (f *schemaFlags) register(fs *flag.FlagSet, what string) {
	fs.StringVar(&f.dirs, "schemas", "", "DIR[,DIR]: also "+what+" the APIs these Kafka-format JSON schemas define (a vendor's, a future Kafka's), as kwire gen would")
	fs.StringVar(&f.replace, "replace", "", "KEY[,KEY]: let the -schemas APIs at these keys replace Kafka's (a fork's dialect: Inkless's DisklessCommit is key 93); without it such a collision is an error")
}

// registry is messages.Default, or with -schemas a copy of it holding the
// schemas' APIs too, so that no command changes Default. Each key -replace
// gave to a schema's API is said on stderr.
func (f *schemaFlags) registry(stderr io.Writer) (*messages.Registry, error) {
	if f.dirs == "" {
		if f.replace != "" {
			return nil, fmt.Errorf("-replace: it replaces Kafka's APIs with those of -schemas, and there is no -schemas")
		}
		return messages.Default, nil
	}
	replace := map[int16]bool{}
	if f.replace != "" {
		for _, s := range strings.Split(f.replace, ",") {
			k, err := strconv.ParseInt(strings.TrimSpace(s), 10, 16)
			if err != nil || k < 0 {
				return nil, fmt.Errorf("-replace: %q is not an API key", s)
			}
			replace[int16(k)] = true
		}
	}
	r := messages.Default.Clone()
	apis, err := gen.LoadAPIs(strings.Split(f.dirs, ",")...)
	if err != nil {
		return nil, fmt.Errorf("-schemas: %v", err)
	}
	defined := map[int16]bool{}
	for _, a := range apis {
		defined[a.Key] = true
		if !replace[a.Key] {
			if err := r.Register(a); err != nil {
				return nil, fmt.Errorf("-schemas: %v", err)
			}
			continue
		}
		prev, err := r.Replace(a)
		if err != nil {
			return nil, fmt.Errorf("-replace %d: %v", a.Key, err)
		}
		fmt.Fprintf(stderr, "kwire: -replace: key %d is %s (from -schemas), not Kafka's %s\n", a.Key, a.Name, prev.Name)
	}
	var unused []string
	for k := range replace {
		if !defined[k] {
			unused = append(unused, strconv.Itoa(int(k)))
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return nil, fmt.Errorf("-replace %s: -schemas defines no API at that key", strings.Join(unused, ","))
	}
	return r, nil
}
