package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// The extract is the merged schemas written back as schemas: one JSON file
// per message, in Kafka's own schema format but with only the keys the
// generator reads (names, types, versions, nullable, tagged and flexible
// versions, the header versions, stated or derived, tags, defaults,
// ignorable, map keys, common structs, the unstable marker) and none of the prose. A merged message is one schema
// whose every version is its defining source's (CheckVersions proves it
// before anything is written), so the extract is itself a schema
// directory, and Generate over it writes the same Go as over the sources.
// Keeping it in the repository lets the messages package be regenerated
// without Kafka's files.

// factsSchema is one extract file. The field order is the file's key
// order, so the output is deterministic.
type factsSchema struct {
	APIKey                *int            `json:"apiKey,omitempty"`
	Type                  string          `json:"type"`
	Name                  string          `json:"name"`
	ValidVersions         string          `json:"validVersions"`
	FlexibleVersions      string          `json:"flexibleVersions"`
	HeaderVersions        json.RawMessage `json:"headerVersions,omitempty"`
	LatestVersionUnstable bool            `json:"latestVersionUnstable,omitempty"`
	Fields                []*factsField   `json:"fields"`
	CommonStructs         []*factsCommon  `json:"commonStructs,omitempty"`
}

type factsCommon struct {
	Name   string        `json:"name"`
	Fields []*factsField `json:"fields"`
}

type factsField struct {
	Name             string        `json:"name"`
	Type             string        `json:"type"`
	Versions         string        `json:"versions"`
	NullableVersions string        `json:"nullableVersions,omitempty"`
	TaggedVersions   string        `json:"taggedVersions,omitempty"`
	Tag              *int64        `json:"tag,omitempty"`
	FlexibleVersions string        `json:"flexibleVersions,omitempty"`
	Default          *string       `json:"default,omitempty"`
	Ignorable        bool          `json:"ignorable,omitempty"`
	MapKey           bool          `json:"mapKey,omitempty"`
	Fields           []*factsField `json:"fields,omitempty"`
}

// Extract merges the schema directories (lowest precedence first) and
// returns the extract: file name (the message name + ".json") to
// contents.
func Extract(dirs []string) (map[string][]byte, []Warning, error) {
	msgs, warnings, err := MergeDirs(dirs)
	if err != nil {
		return nil, nil, err
	}
	files := map[string][]byte{}
	for _, m := range msgs {
		data, err := m.facts()
		if err != nil {
			return nil, nil, err
		}
		files[m.Name+".json"] = data
	}
	return files, warnings, nil
}

// facts renders the merged message as one extract file.
func (m *Message) facts() ([]byte, error) {
	s := &factsSchema{
		Type: m.Type, Name: m.Name,
		ValidVersions:         versionsText(m.Min, m.Max),
		FlexibleVersions:      m.Flexible.format(m.Max),
		LatestVersionUnstable: m.Unstable,
	}
	if m.APIKey >= 0 {
		key := m.APIKey
		s.APIKey = &key
	}
	if m.Type == "request" || m.Type == "response" {
		s.HeaderVersions = headerVersionsJSON(m.headerVersionsText())
	}
	var err error
	if s.Fields, err = m.factsFields(m.Fields, m.Name); err != nil {
		return nil, err
	}
	for _, c := range m.Commons {
		fs, err := m.factsFields(c.Fields, c.SchemaName)
		if err != nil {
			return nil, err
		}
		s.CommonStructs = append(s.CommonStructs, &factsCommon{Name: c.SchemaName, Fields: fs})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("%s: %v", m.Name, err)
	}
	return b.Bytes(), nil
}

func (m *Message) factsFields(fs []*MField, where string) ([]*factsField, error) {
	out := []*factsField{} // "fields": [] rather than null
	for _, f := range fs {
		if f.suffix != "" {
			// Two types under one name cannot be one schema.
			return nil, fmt.Errorf("%s.%s has different types in different versions; it cannot be extracted", where, f.Name)
		}
		ff := &factsField{
			Name: f.Name, Type: f.Type,
			Versions:  f.Present.format(m.Max),
			Default:   f.Default,
			Ignorable: f.Ignorable,
			MapKey:    f.MapKey,
		}
		if !f.Nullable.empty() {
			ff.NullableVersions = f.Nullable.format(m.Max)
		}
		if !f.Tagged.empty() {
			tag := f.Tag
			ff.TaggedVersions, ff.Tag = f.Tagged.format(m.Max), &tag
		}
		if f.HasCompact {
			ff.FlexibleVersions = f.Compact.format(m.Max)
		}
		if f.Struct != nil && !f.Struct.Common {
			var err error
			if ff.Fields, err = m.factsFields(f.Struct.Fields, where+"."+f.Name); err != nil {
				return nil, err
			}
		}
		out = append(out, ff)
	}
	return out, nil
}

// WriteExtract makes dir hold exactly the extract files: it writes them
// and removes any other *.json there (a message Kafka dropped).
func WriteExtract(dir string, files map[string][]byte) error {
	return syncDir(dir, "*.json", files, func(p string, ours bool) error {
		if ours {
			return nil
		}
		return os.Remove(p)
	})
}
