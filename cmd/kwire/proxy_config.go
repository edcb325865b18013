package main

import (
	"flag"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// applyConfigFile sets the flags a YAML file names, except those set on
// the command line, which win. Keys are the flags' names; a list sets a
// repeatable flag once per element:
//
//	upstream: broker-1:9092
//	dial-timeout: 15s
//	deny-topic: [payroll, hr.reviews]
func applyConfigFile(fs *flag.FlagSet, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if len(doc.Content) == 0 {
		return nil // an empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: want a mapping of flag names to values", path, root.Line)
	}
	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		name := k.Value
		if seen[name] {
			return fmt.Errorf("%s:%d: %s given twice", path, k.Line, name)
		}
		seen[name] = true
		if name == "config" || fs.Lookup(name) == nil {
			return fmt.Errorf("%s:%d: unknown key %q (the keys are kwire proxy's flag names)", path, k.Line, name)
		}
		if onCommandLine[name] {
			continue
		}
		var values []*yaml.Node
		switch v.Kind {
		case yaml.ScalarNode:
			values = []*yaml.Node{v}
		case yaml.SequenceNode:
			values = v.Content
		default:
			return fmt.Errorf("%s:%d: %s: want a value or a list of values", path, v.Line, name)
		}
		for _, e := range values {
			if e.Kind != yaml.ScalarNode {
				return fmt.Errorf("%s:%d: %s: want a value", path, e.Line, name)
			}
			if e.Tag == "!!null" {
				continue
			}
			if err := fs.Set(name, e.Value); err != nil {
				return fmt.Errorf("%s:%d: %s: invalid value %q: %v", path, e.Line, name, e.Value, err)
			}
		}
	}
	return nil
}
