package site

import (
	"strings"

	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/kwire"
)

// Schemas are Kafka's JSON message definitions the user points the site
// at: the pages then show each message's JSON and each field's "about"
// next to its node. They are read at the user's side and never shipped.
type Schemas struct {
	byMessage map[schemaKey][]*gen.Schema // lowest precedence first
}

type schemaKey struct {
	apiKey   int16
	response bool
}

// LoadSchemas reads the schema directories, lowest precedence first: a
// version listed by a later directory is defined by it, as in kwire gen.
func LoadSchemas(dirs []string) (*Schemas, error) {
	s := &Schemas{byMessage: map[schemaKey][]*gen.Schema{}}
	for _, d := range dirs {
		list, err := gen.LoadDir(d)
		if err != nil {
			return nil, err
		}
		for _, sc := range list {
			if sc.APIKey == nil || (sc.Type != "request" && sc.Type != "response") {
				continue
			}
			k := schemaKey{*sc.APIKey, sc.Type == "response"}
			s.byMessage[k] = append(s.byMessage[k], sc)
		}
	}
	return s, nil
}

// schemaSource is the schema defining one message at one version.
type schemaSource struct {
	path  string
	json  string
	about map[string]string // lower-case field path ("topicpartitions/topicid") -> about
}

func (s *Schemas) lookup(apiKey, version int16, response bool) *schemaSource {
	if s == nil {
		return nil
	}
	list := s.byMessage[schemaKey{apiKey, response}]
	for i := len(list) - 1; i >= 0; i-- {
		sc := list[i]
		if !rangeContains(sc.ValidVersions, version) {
			continue
		}
		src := &schemaSource{path: sc.Path, json: string(sc.Source), about: map[string]string{}}
		commons := map[string][]*gen.Field{}
		for _, c := range sc.CommonStructs {
			commons[c.Name] = c.Fields
		}
		collectAbout(src.about, "", sc.Fields, commons, version, 0)
		return src
	}
	return nil
}

// collectAbout maps each field path to its about text; of two same-named
// fields the one in the version wins.
func collectAbout(out map[string]string, prefix string, fields []*gen.Field, commons map[string][]*gen.Field, version int16, depth int) {
	if depth > 32 {
		return
	}
	for _, f := range fields {
		path := prefix + strings.ToLower(f.Name)
		if _, seen := out[path]; !seen || rangeContains(f.Versions, version) {
			out[path] = f.About
		}
		sub := f.Fields
		if len(sub) == 0 {
			sub = commons[strings.TrimPrefix(f.Type, "[]")]
		}
		collectAbout(out, path+"/", sub, commons, version, depth+1)
	}
}

func rangeContains(r string, v int16) bool {
	vr, err := kwire.ParseVersionRange(r)
	return err == nil && vr.Contains(v)
}
