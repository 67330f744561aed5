package tune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Setting is the value of one parameter in a configuration.
type Setting struct {
	// Name is the name of the parameter.
	Name string
	// Value is its value, in canonical form for values of a Space.
	Value string
}

// Config is a configuration: a value for each parameter, in the order of
// the space's parameters. The zero Config sets nothing.
type Config []Setting

// Get returns the value of the parameter named name.
func (c Config) Get(name string) (string, bool) {
	for _, s := range c {
		if s.Name == name {
			return s.Value, true
		}
	}
	return "", false
}

// Clone returns a copy of c.
func (c Config) Clone() Config { return slices.Clone(c) }

// needsQuote reports whether a value must be quoted in String.
func needsQuote(v string) bool {
	if v == "" {
		return true
	}
	for _, r := range v {
		if unicode.IsSpace(r) || r == '"' || r == '=' || r == '\\' || !unicode.IsPrint(r) {
			return true
		}
	}
	return false
}

// String returns the configuration as space-separated name=value pairs,
// such as "cb_nodes=2 romio_ds_write=disable"; values that are empty or
// hold spaces, quotes or '=' are quoted as Go strings. ParseConfig reads
// it back.
func (c Config) String() string {
	var b strings.Builder
	for i, s := range c {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s.Name)
		b.WriteByte('=')
		if needsQuote(s.Value) {
			b.WriteString(strconv.Quote(s.Value))
		} else {
			b.WriteString(s.Value)
		}
	}
	return b.String()
}

// Key returns a text that identifies the configuration whatever the order
// of its settings: the String of its settings sorted by name.
func (c Config) Key() string {
	s := slices.Clone(c)
	slices.SortStableFunc(s, func(a, b Setting) int { return strings.Compare(a.Name, b.Name) })
	return s.String()
}

// ParseConfig parses the text Config.String returns: name=value pairs
// separated by spaces, values optionally quoted as Go strings.
func ParseConfig(text string) (Config, error) {
	var c Config
	rest := strings.TrimSpace(text)
	for rest != "" {
		name, after, ok := strings.Cut(rest, "=")
		if !ok || name == "" || strings.ContainsFunc(name, unicode.IsSpace) {
			return nil, fmt.Errorf("configuration %q: want name=value at %q", text, rest)
		}
		var v string
		if strings.HasPrefix(after, `"`) {
			q, err := strconv.QuotedPrefix(after)
			if err != nil {
				return nil, fmt.Errorf("configuration %q: value of %s: %w", text, name, err)
			}
			v, _ = strconv.Unquote(q)
			after = after[len(q):]
			if after != "" && !unicode.IsSpace(rune(after[0])) {
				return nil, fmt.Errorf("configuration %q: value of %s: text after the closing quote", text, name)
			}
		} else {
			end := strings.IndexFunc(after, unicode.IsSpace)
			if end < 0 {
				end = len(after)
			}
			v, after = after[:end], after[end:]
		}
		if _, dup := c.Get(name); dup {
			return nil, fmt.Errorf("configuration %q: %s is given twice", text, name)
		}
		c = append(c, Setting{Name: name, Value: v})
		rest = strings.TrimSpace(after)
	}
	return c, nil
}

// MarshalJSON encodes the configuration as a JSON object whose members are
// in the configuration's order.
func (c Config) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, s := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(s.Name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(s.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON decodes a JSON object of string members, keeping their
// order.
func (c *Config) UnmarshalJSON(data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	t, err := d.Token()
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	if t == nil {
		*c = nil
		return nil
	}
	if t != json.Delim('{') {
		return errors.New("configuration: not a JSON object")
	}
	out := Config{}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return fmt.Errorf("configuration: %w", err)
		}
		var v string
		if err := d.Decode(&v); err != nil {
			return fmt.Errorf("configuration: value of %v: %w", k, err)
		}
		out = append(out, Setting{Name: k.(string), Value: v})
	}
	if _, err := d.Token(); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	*c = out
	return nil
}
