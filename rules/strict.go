package rules

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// decodeStrict decodes n into r, refusing unknown keys (a typo in a rule
// must not silently disable a part of it), with the error yaml's
// KnownFields gives. It checks the keys on the parsed node and decodes the
// node directly: encoding each rule back to YAML to decode it strictly
// was two fifths of loading the pack, which every replay waits for.
func decodeStrict(n *yaml.Node, r *Rule) error {
	var unknown []string
	unknownKeys(n, reflect.TypeFor[Rule](), &unknown)
	if len(unknown) > 0 {
		return fmt.Errorf("yaml: unmarshal errors:\n  %s", strings.Join(unknown, "\n  "))
	}
	return n.Decode(r)
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

// unknownKeys adds to out the keys of n that decoding it into a t would
// ignore, at any depth.
func unknownKeys(n *yaml.Node, t reflect.Type, out *[]string) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if reflect.PointerTo(t).Implements(unmarshaler) || t.Implements(unmarshaler) {
		return // decodes itself
	}
	switch t.Kind() {
	case reflect.Pointer:
		unknownKeys(n, t.Elem(), out)
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.SequenceNode {
			for _, item := range n.Content {
				unknownKeys(item, t.Elem(), out)
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return // a type error, which Decode reports
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				*out = append(*out, fmt.Sprintf("line %d: field %s not found in type %s", k.Line, k.Value, t))
				continue
			}
			unknownKeys(v, ft, out)
		}
	}
}

var fieldCache sync.Map // reflect.Type → map[string]reflect.Type

// yamlFields returns the keys yaml decodes into fields of struct t, as
// yaml.v3 names them (the tag's name, else the field's name in lower
// case; "-" and unexported fields are not decoded; ",inline" structs add
// their own).
func yamlFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",inline,") && f.Type.Kind() == reflect.Struct {
			for k, v := range yamlFields(f.Type) {
				m[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		m[name] = f.Type
	}
	fieldCache.Store(t, m)
	return m
}
