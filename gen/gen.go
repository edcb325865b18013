// Package gen generates kwire message structs from Apache Kafka's JSON
// message definitions.
//
// Several schema directories can be merged, lowest precedence first: a
// version is defined by the last directory whose schema lists it, and an
// API (matched by key, so a renamed API stays one message) takes its name
// from the last directory that has it; "validVersions": "none" defines no
// version. That lets Kafka's newest schemas be combined with older trees
// holding the versions Kafka removed. Each merged field is on the wire in
// exactly the versions where its defining schema has it; CheckVersions
// proves it.
//
// Extract writes the merged messages back as schemas holding only facts
// (the repository keeps them in messages/schemas); generating from them
// gives the same Go as generating from the sources.
//
// The output is one Go file per API (request and response together), one
// per header or data structure, and apis.go with the API table. Only
// facts go into it (names, types, versions, defaults), never the schemas'
// prose.
package gen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Config says what to generate.
type Config struct {
	SchemaDirs  []string // lowest precedence first
	Package     string   // Go package name of the output
	KwireImport string   // import path of package kwire
	Registry    bool     // also write apis.go (needs the hand-written API type)
	// MessagesImport, when set (and Registry is not), writes apis.go for
	// a package of one's own: APIs, a []messages.API of the package's
	// APIs, and Register, which adds them to a messages.Registry. It is
	// the import path of package messages.
	MessagesImport string
}

// DefaultMessagesImport is the import path of package messages.
const DefaultMessagesImport = "github.com/kwirelabs/kwire/messages"

// DefaultKwireImport is the import path of the codec package.
const DefaultKwireImport = "github.com/kwirelabs/kwire/kwire"

// Result is the generated package.
type Result struct {
	Files    map[string][]byte // file name -> contents
	Messages []*Message        // merged, sorted by name
	Warnings []Warning
}

type apiPair struct {
	key                int
	name               string // Kafka's name, e.g. ConsumerGroupHeartbeat
	min, max, flexFrom int
	req, resp          *Message
}

// MergeDirs loads the schema directories (lowest precedence first) and
// merges every schema name across them.
func MergeDirs(dirs []string) ([]*Message, []Warning, error) {
	if len(dirs) == 0 {
		return nil, nil, fmt.Errorf("no schema directories")
	}
	// An API's request (or response) is one message whatever each
	// directory calls it: Kafka renames APIs (key 74 was
	// ListClientMetricsResources, is ListConfigResources), and the newest
	// directory's name is the one kept. Headers and data match by name.
	byID := map[string][]*Schema{}
	for _, d := range dirs {
		schemas, err := LoadDir(d)
		if err != nil {
			return nil, nil, err
		}
		for _, s := range schemas {
			byID[messageID(s)] = append(byID[messageID(s)], s)
		}
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var msgs []*Message
	var warnings []Warning
	for _, id := range ids {
		m, w, err := Merge(byID[id])
		if err != nil {
			return nil, nil, err
		}
		if err := m.CheckVersions(); err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, m)
		warnings = append(warnings, w...)
	}
	sort.Slice(msgs, func(i, j int) bool { return msgs[i].Name < msgs[j].Name })
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Name == msgs[i-1].Name {
			return nil, nil, fmt.Errorf("two messages are named %s (API keys %d and %d)", msgs[i].Name, msgs[i-1].APIKey, msgs[i].APIKey)
		}
	}
	if err := checkHeaders(msgs); err != nil {
		return nil, nil, err
	}
	return msgs, warnings, nil
}

// messageID is what matches a schema across directories: the API key and
// side for requests and responses, the name for the others.
func messageID(s *Schema) string {
	if s.APIKey != nil && (s.Type == "request" || s.Type == "response") {
		return fmt.Sprintf("%s %d", s.Type, *s.APIKey)
	}
	return s.Type + " " + s.Name
}

// Generate merges the schemas and produces the Go files.
func Generate(cfg Config) (*Result, error) {
	if cfg.Package == "" {
		return nil, fmt.Errorf("no package name")
	}
	if cfg.KwireImport == "" {
		cfg.KwireImport = DefaultKwireImport
	}
	msgs, warnings, err := MergeDirs(cfg.SchemaDirs)
	if err != nil {
		return nil, err
	}
	res := &Result{Files: map[string][]byte{}, Messages: msgs, Warnings: warnings}

	// Group into files: an API's request and response together.
	type group struct {
		base string
		msgs []*Message
	}
	var groups []*group
	for _, m := range msgs {
		if m.Type != "request" && m.Type != "response" {
			groups = append(groups, &group{base: fileBase(m.Name), msgs: []*Message{m}})
		}
	}
	apis, lones, err := pairAPIs(msgs)
	if err != nil {
		return nil, err
	}
	for _, lone := range lones {
		// A lone request or response (a user's half-written API, a
		// one-way message) is a file of its own, but no API.
		if cfg.Registry || cfg.MessagesImport != "" {
			res.Warnings = append(res.Warnings, Warning(fmt.Sprintf("API key %d has a %s and no %s: left out of the API table",
				lone.APIKey, lone.Type, map[string]string{"request": "response", "response": "request"}[lone.Type])))
		}
		groups = append(groups, &group{base: fileBase(lone.Name), msgs: []*Message{lone}})
	}
	for _, a := range apis {
		groups = append(groups, &group{base: fileBase(a.name), msgs: []*Message{a.req, a.resp}})
	}
	reserved := map[string]string{}
	typeNames := map[string]string{}
	switch {
	case cfg.Registry:
		reserved["apis"] = "the API table"
		reserved["registry"] = "the hand-written registry"
		reserved["generate"] = "the go:generate file"
		for _, n := range []string{"API", "APIs", "Lookup", "Register", "Registry", "NewRegistry", "NewAPI", "Default"} {
			typeNames[n] = "registry.go"
		}
	case cfg.MessagesImport != "":
		reserved["apis"] = "the API table"
		for _, n := range []string{"APIs", "Register"} {
			typeNames[n] = "apis.go"
		}
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].base < groups[j].base })
	for _, g := range groups {
		if what, ok := reserved[g.base]; ok {
			return nil, fmt.Errorf("%s.go for %s would clash with %s", g.base, g.msgs[0].Name, what)
		}
		reserved[g.base] = g.msgs[0].Name
		e := newEmitter(cfg.KwireImport)
		for _, m := range g.msgs {
			n, err := nameMessage(m)
			if err != nil {
				return nil, err
			}
			for _, s := range n.structs {
				for _, name := range []string{s.name, "New" + s.name} {
					if prev, dup := typeNames[name]; dup {
						return nil, fmt.Errorf("the Go name %s of %s is already used by %s", name, m.Name, prev)
					}
					typeNames[name] = m.Name
				}
			}
			if err := e.message(n); err != nil {
				return nil, err
			}
		}
		out, err := e.file(cfg.Package, cfg.KwireImport)
		if err != nil {
			return nil, fmt.Errorf("%s.go: %v", g.base, err)
		}
		res.Files[g.base+".go"] = out
	}
	if cfg.Registry || cfg.MessagesImport != "" {
		out, err := registry(cfg, apis)
		if err != nil {
			return nil, err
		}
		res.Files["apis.go"] = out
	}
	return res, nil
}

// IsGenerated reports whether file contents start with Header.
func IsGenerated(data []byte) bool {
	return bytes.HasPrefix(data, []byte(Header+"\n"))
}

// CheckFiles reports how dir differs from files, as WriteFiles would
// change it: files that differ or are missing, and files an earlier run
// generated that this one would remove. It returns nil when dir is up to
// date; for -check in a user's CI.
func CheckFiles(dir string, files map[string][]byte) error {
	var stale []string
	for _, n := range sortedNames(files) {
		old, err := os.ReadFile(filepath.Join(dir, n))
		switch {
		case os.IsNotExist(err):
			stale = append(stale, n+" is missing")
		case err != nil:
			return err
		case !bytes.Equal(old, files[n]):
			stale = append(stale, n+" differs")
		}
	}
	existing, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	for _, p := range existing {
		if _, ours := files[filepath.Base(p)]; ours {
			continue
		}
		if data, err := os.ReadFile(p); err == nil && IsGenerated(data) {
			stale = append(stale, filepath.Base(p)+" was generated but is no longer")
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("%s is not what kwire gen writes (%s); run it without -check", dir, strings.Join(stale, ", "))
	}
	return nil
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// WriteFiles writes the files into dir and removes the files there that
// an earlier run generated but this one did not. It refuses to overwrite
// a file it did not generate.
func WriteFiles(dir string, files map[string][]byte) error {
	return syncDir(dir, "*.go", files, func(p string, ours bool) error {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case ours && !IsGenerated(data):
			return fmt.Errorf("%s exists and was not generated by kwire gen; not overwriting it", p)
		case !ours && IsGenerated(data):
			return os.Remove(p)
		}
		return nil
	})
}

// syncDir creates dir, hands each file there matching glob to prune
// (ours says whether files holds its name) to remove or refuse, then
// writes the files whose bytes changed.
func syncDir(dir, glob string, files map[string][]byte, prune func(p string, ours bool) error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	existing, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil {
		return err
	}
	for _, p := range existing {
		_, ours := files[filepath.Base(p)]
		if err := prune(p, ours); err != nil {
			return err
		}
	}
	for _, n := range sortedNames(files) {
		p := filepath.Join(dir, n)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, files[n]) {
			continue
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// pairAPIs pairs the requests and responses of msgs by API key, sorted by
// key, checking that each pair agrees on name, versions and flexible
// versions. A request or response without its other half is returned in
// lones.
func pairAPIs(msgs []*Message) (apis []apiPair, lones []*Message, err error) {
	byKey := map[int]*apiPair{}
	for _, m := range msgs {
		if m.Type != "request" && m.Type != "response" {
			continue
		}
		a := byKey[m.APIKey]
		if a == nil {
			a = &apiPair{key: m.APIKey}
			byKey[m.APIKey] = a
		}
		suffix := "Request"
		slot := &a.req
		if m.Type == "response" {
			suffix, slot = "Response", &a.resp
		}
		if *slot != nil {
			return nil, nil, fmt.Errorf("API key %d has two %ss: %s and %s", m.APIKey, m.Type, (*slot).Name, m.Name)
		}
		if !strings.HasSuffix(m.Name, suffix) || len(m.Name) == len(suffix) {
			return nil, nil, fmt.Errorf("%s %s: the name must end in %s", m.Type, m.Name, suffix)
		}
		*slot = m
	}
	keys := make([]int, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		a := byKey[k]
		if a.req == nil || a.resp == nil {
			lone := a.req
			if lone == nil {
				lone = a.resp
			}
			lones = append(lones, lone)
			continue
		}
		a.name = strings.TrimSuffix(a.req.Name, "Request")
		if rn := strings.TrimSuffix(a.resp.Name, "Response"); rn != a.name {
			return nil, nil, fmt.Errorf("API key %d: request %s and response %s do not match", a.key, a.req.Name, a.resp.Name)
		}
		rq, rs := a.req, a.resp
		if rq.Min != rs.Min || rq.Max != rs.Max || !rq.Flexible.equal(rs.Flexible) {
			return nil, nil, fmt.Errorf("API %s: request (versions %d-%d, flexible %s) and response (versions %d-%d, flexible %s) disagree",
				a.name, rq.Min, rq.Max, rq.Flexible.format(rq.Max), rs.Min, rs.Max, rs.Flexible.format(rs.Max))
		}
		a.min, a.max, a.flexFrom = rq.Min, rq.Max, -1
		if lo, hi, _ := rq.Flexible.bounds(); lo >= 0 {
			if hi != rq.Max {
				return nil, nil, fmt.Errorf("API %s: flexible versions %s do not run to the last version", a.name, rq.Flexible.format(rq.Max))
			}
			a.flexFrom = lo
		}
		apis = append(apis, *a)
	}
	return apis, lones, nil
}
