// Package redact keeps the secrets this process holds (bearer tokens, API
// keys, OAuth access and refresh tokens, client secrets) and replaces them
// with [redacted] in whatever the process writes: the ACP stream on stdout,
// the log on stderr, command output, the frame trace.
//
// A secret is replaced in its raw form and in the forms the encoders around
// it give it: encoding/json's (with and without HTML escaping, `\"`, `\\`,
// `\u003c`), JSON with every non-ASCII character as \uXXXX (as Python and
// Java servers write it, either hex case), `\/` for `/`, Go's %q (the
// quoting of slog's text handler), and each of those quoted once more (a
// JSON body inside an error message inside a JSON message).
//
// Anything that holds a secret adds it to [Default] as soon as it has it;
// every writer of the process redacts through [Default].
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Mask is what a secret is replaced with.
const Mask = "[redacted]"

// MinLen is the shortest secret that can be replaced without mangling
// other text; shorter ones are still replaced, and callers warn about them.
const MinLen = 8

// Registry is a set of secrets. Its methods may be called from any
// goroutine. The zero value is an empty registry.
type Registry struct {
	mu      sync.RWMutex
	secrets map[string]bool
	// cores are the longest runs of each secret that no encoder escapes:
	// every form of a secret holds its core, so text holding no core holds
	// no secret. anyCore is set when some secret has no such run.
	cores   [][]byte
	anyCore bool
	rep     *strings.Replacer // every form of every secret → Mask, longest first
}

// Default is the process's registry.
var Default = &Registry{}

// Add registers s in Default.
func Add(s string) { Default.Add(s) }

// Add registers a secret. Empty strings are ignored.
func (r *Registry) Add(s string) {
	if s == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.secrets[s] {
		return
	}
	if r.secrets == nil {
		r.secrets = map[string]bool{}
	}
	r.secrets[s] = true
	set := map[string]bool{}
	for sec := range r.secrets {
		for _, f := range Forms(sec) {
			set[f] = true
		}
	}
	all := make([]string, 0, len(set))
	for f := range set {
		all = append(all, f)
	}
	// Longest first: at one position the replacer takes the first pattern
	// in argument order that matches.
	slices.SortFunc(all, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	pairs := make([]string, 0, 2*len(all))
	for _, f := range all {
		pairs = append(pairs, f, Mask)
	}
	r.rep = strings.NewReplacer(pairs...)
	r.cores, r.anyCore = r.cores[:0], false
	for sec := range r.secrets {
		for _, f := range wireForms(sec) {
			c := core(f)
			if c == "" {
				r.anyCore = true
				continue
			}
			r.cores = append(r.cores, []byte(c))
		}
	}
}

// core returns the longest run of s made of characters every encoder
// leaves as they are.
func core(s string) string {
	best, start := "", -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && unescaped(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = s[start:i]
		}
		start = -1
	}
	return best
}

func unescaped(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		b == '.' || b == '_' || b == '~' || b == '+' || b == '=' || b == '-' || b == ':' || b == ','
}

// Forms returns the forms of s that are replaced: s itself and its escaped
// forms, without repeats.
func Forms(s string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	add(s)
	for _, f := range escapes(s) {
		add(f)
	}
	// A secret on the wire: percent-encoded in a URL (an API key in the
	// query, which Go's url.Error quotes), and base64 in a Basic
	// Authorization header (user:password).
	for _, f := range wireForms(s)[1:] {
		add(f)
	}
	first := append([]string(nil), out...)
	for _, f := range first[1:] {
		add(jsonString(f, true))
		add(jsonString(f, false))
		add(goQuote(f))
	}
	return out
}

// wireForms are s and the forms it takes on the wire: percent-encoded in a
// URL and base64 in a Basic Authorization header. Each is a form of its own
// for the fast check of mayHold, whose cores come from them.
func wireForms(s string) []string {
	return []string{s, url.QueryEscape(s), url.PathEscape(s), base64.StdEncoding.EncodeToString([]byte(s))}
}

// escapes returns the escaped forms of s inside a quoted string of each
// encoder.
func escapes(s string) []string {
	html := jsonString(s, true)
	plain := jsonString(s, false)
	out := []string{
		html, plain,
		asciiJSON(html, false), asciiJSON(html, true),
		asciiJSON(plain, false), asciiJSON(plain, true),
		goQuote(s), goQuoteASCII(s),
	}
	for _, f := range out[:6] {
		if strings.Contains(f, "/") {
			out = append(out, strings.ReplaceAll(f, "/", `\/`))
		}
	}
	return out
}

func jsonString(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s)
	q := strings.TrimSuffix(b.String(), "\n")
	return q[1 : len(q)-1]
}

// asciiJSON rewrites every non-ASCII character of a JSON string body as
// \uXXXX (a surrogate pair beyond the BMP).
func asciiJSON(s string, upper bool) string {
	format := "\\u%04x"
	if upper {
		format = "\\u%04X"
	}
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			fmt.Fprintf(&b, format+format, r1, r2)
			continue
		}
		fmt.Fprintf(&b, format, r)
	}
	return b.String()
}

func goQuote(s string) string      { q := strconv.Quote(s); return q[1 : len(q)-1] }
func goQuoteASCII(s string) string { q := strconv.QuoteToASCII(s); return q[1 : len(q)-1] }

// mayHold reports whether p may hold a secret, and the replacer.
func (r *Registry) mayHold(p []byte) (bool, *strings.Replacer) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.rep == nil {
		return false, nil
	}
	if r.anyCore {
		return true, r.rep
	}
	for _, c := range r.cores {
		if bytes.Contains(p, c) {
			return true, r.rep
		}
	}
	return false, nil
}

func (r *Registry) empty() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.rep == nil
}

// Bytes returns p with every form of every secret replaced. It returns p
// itself when there is nothing to replace.
func (r *Registry) Bytes(p []byte) []byte {
	may, rep := r.mayHold(p)
	if !may {
		return p
	}
	if out := rep.Replace(string(p)); len(out) != len(p) || out != string(p) {
		return []byte(out)
	}
	return p
}

// String is Bytes for a string.
func (r *Registry) String(s string) string {
	may, rep := r.mayHold([]byte(s))
	if !may {
		return s
	}
	return rep.Replace(s)
}

// JSON redacts one JSON text, however its writer escaped the secret. The
// replaced forms cover what common encoders write; when the text still
// holds a secret once decoded (an escape no encoder uses, such as \u0061
// for "a"), or the replacement broke the text (a match that began inside
// an escape), the text is decoded, its strings and names redacted, and
// encoded again (names then in sorted order). Text that is not JSON gets
// Bytes.
func (r *Registry) JSON(p []byte) []byte {
	if r.empty() {
		return p
	}
	fast := r.Bytes(p)
	if !json.Valid(p) {
		return fast
	}
	if json.Valid(fast) && !r.holdsSecret(fast) {
		return fast
	}
	return r.structural(p)
}

// holdsSecret decodes a JSON text and reports whether a string or name in
// it holds a secret.
func (r *Registry) holdsSecret(p []byte) bool {
	v, err := decode(p)
	if err != nil {
		return false
	}
	found := false
	walk(v, func(s string) string {
		if !found && r.String(s) != s {
			found = true
		}
		return s
	})
	return found
}

func (r *Registry) structural(p []byte) []byte {
	v, err := decode(p)
	if err != nil {
		return r.Bytes(p)
	}
	v = walk(v, r.String)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return r.Bytes(p)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func decode(p []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// walk applies f to every string and object member name of v.
func walk(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walk(x[i], f)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[f(k)] = walk(e, f)
		}
		return out
	}
	return v
}

// Writer redacts each write as a whole. For writers that get whole
// records (slog's handlers write one record a call; command output a line
// or a prompt a call).
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	reg *Registry
}

// NewWriter wraps w with Default.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, reg: Default} }

func (w *Writer) Write(p []byte) (int, error) {
	out := w.reg.Bytes(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// LineWriter redacts a stream of JSON lines line by line, whatever the
// writes' boundaries: the end of a write that is not a whole line waits
// for the rest. Each line comes out as valid JSON if it went in as such.
type LineWriter struct {
	mu   sync.Mutex
	w    io.Writer
	reg  *Registry
	tail []byte
}

// NewLineWriter wraps w with Default.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w, reg: Default} }

func (w *LineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	data := p
	if len(w.tail) > 0 {
		data = append(w.tail, p...)
		w.tail = nil
	}
	end := bytes.LastIndexByte(data, '\n') + 1
	if end < len(data) {
		w.tail = append([]byte(nil), data[end:]...)
	}
	if end == 0 {
		return len(p), nil
	}
	if _, err := w.w.Write(w.lines(data[:end])); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what waits for its end of line.
func (w *LineWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.tail) == 0 {
		return nil
	}
	t := w.tail
	w.tail = nil
	_, err := w.w.Write(w.reg.JSON(t))
	return err
}

// lines redacts whole lines, each ending in '\n'.
func (w *LineWriter) lines(data []byte) []byte {
	if may, _ := w.reg.mayHold(data); !may {
		return data
	}
	var out bytes.Buffer
	out.Grow(len(data))
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data[:i]
		data = data[i+1:]
		red := w.reg.Bytes(line)
		if len(red) != len(line) || !bytes.Equal(red, line) {
			if json.Valid(line) && !json.Valid(red) {
				red = w.reg.structural(line)
			}
		}
		out.Write(red)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
