package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
)

// The secrets of the contract's hard cases: JSON's and HTML's special
// characters, non-ASCII characters, and a short one.
var hard = []string{`a&b<c>d"e\f`, "tökén-ünï-çødé", "short9ch", "tok/with/slashes+and=more"}

// encodings are what each encoder around shim makes of a string.
func encodings(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	b, _ := json.Marshal(map[string]string{"m": s})
	out["json"] = string(b)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"m": s})
	out["json-nohtml"] = buf.String()
	out["json-ascii"] = `{"m":"` + asciiJSON(jsonString(s, true), false) + `"}`
	out["json-ascii-upper"] = `{"m":"` + asciiJSON(jsonString(s, false), true) + `"}`
	out["json-slash"] = `{"m":"` + strings.ReplaceAll(jsonString(s, true), "/", `\/`) + `"}`
	inner, _ := json.Marshal(map[string]string{"m": "body: " + out["json"]})
	out["json-in-json"] = string(inner)
	out["go-q"] = fmt.Sprintf("err=%q", "quoting "+s)
	out["go-q-of-json"] = fmt.Sprintf("err=%q", out["json"])
	buf.Reset()
	slog.New(slog.NewTextHandler(&buf, nil)).Info("m", "detail", "server said "+s, "body", out["json"])
	out["slog-text"] = buf.String()
	buf.Reset()
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("m", "detail", "server said "+s, "body", out["json"])
	out["slog-json"] = buf.String()
	out["raw"] = "Bearer " + s
	return out
}

func leaks(out, s string) bool {
	for _, f := range []string{s, jsonString(s, true), jsonString(s, false), asciiJSON(jsonString(s, true), false), goQuote(s)} {
		if strings.Contains(out, f) {
			return true
		}
	}
	return false
}

func TestEveryFormRedacted(t *testing.T) {
	for _, s := range hard {
		var r Registry
		r.Add(s)
		for name, text := range encodings(t, s) {
			got := string(r.Bytes([]byte(text)))
			if leaks(got, s) || !strings.Contains(got, Mask) {
				t.Errorf("%q in %s: %s → %s", s, name, text, got)
			}
			if json.Valid([]byte(text)) && !json.Valid([]byte(got)) {
				t.Errorf("%q in %s: the JSON broke: %s", s, name, got)
			}
			if got := r.String(text); leaks(got, s) {
				t.Errorf("String: %q in %s: %s", s, name, got)
			}
		}
	}
}

func TestTextWithoutSecretsIsLeftAlone(t *testing.T) {
	var r Registry
	in := []byte(`{"m":"hello"}`)
	if got := r.Bytes(in); &got[0] != &in[0] {
		t.Error("an empty registry copied the text")
	}
	r.Add("tok-0123456789")
	if got := r.Bytes(in); &got[0] != &in[0] {
		t.Error("text without the secret was copied")
	}
	r.Add("")
	if got := string(r.Bytes([]byte("tok-0123456789 tok-0123456789x"))); got != Mask+" "+Mask+"x" {
		t.Errorf("got %q", got)
	}
}

// A longer secret holding a shorter one is replaced whole.
func TestLongestFirst(t *testing.T) {
	var r Registry
	r.Add("abcdefgh")
	r.Add("abcdefgh-refresh-token")
	if got := string(r.Bytes([]byte("x abcdefgh-refresh-token y abcdefgh"))); got != "x "+Mask+" y "+Mask {
		t.Errorf("got %q", got)
	}
}

// An escape no common encoder writes (\u0061 for "a") still decodes to
// the secret: the JSON form is decoded and encoded again.
func TestJSONOddEscapes(t *testing.T) {
	var r Registry
	r.Add("short9ch")
	in := []byte(`{"jsonrpc":"2.0","error":{"message":"\u0073hort9ch leaked","data":["short\u0039ch"]}}`)
	got := r.JSON(in)
	if !json.Valid(got) || bytes.Contains(got, []byte("short9ch")) || bytes.Contains(got, []byte(`\u0073hort9ch`)) ||
		!bytes.Contains(got, []byte(Mask+" leaked")) {
		t.Errorf("got %s", got)
	}
	plain := []byte(`{"m":"nothing here"}`)
	if got := r.JSON(plain); !bytes.Equal(got, plain) {
		t.Errorf("a frame without the secret changed: %s", got)
	}
	if got := r.JSON([]byte("not json short9ch")); string(got) != "not json "+Mask {
		t.Errorf("got %s", got)
	}
}

// A match that begins inside an escape ("\n" then a secret starting with
// "n") would break the line: the line is then redacted value by value.
func TestLineWriterKeepsJSONValid(t *testing.T) {
	var r Registry
	r.Add("nsecret1")
	var out bytes.Buffer
	w := &LineWriter{w: &out, reg: &r}
	line, _ := json.Marshal(map[string]string{"m": "\nsecret1 and nsecret1"})
	fmt.Fprintf(w, "%s\n", line)
	got := bytes.TrimSuffix(out.Bytes(), []byte("\n"))
	if !json.Valid(got) {
		t.Fatalf("invalid JSON: %s", got)
	}
	var m map[string]string
	_ = json.Unmarshal(got, &m)
	if strings.Contains(m["m"], "nsecret1") {
		t.Errorf("got %q", m["m"])
	}
}

// The stream's writes are not lines: a secret split across two writes is
// still found, and nothing is written before its line ends.
func TestLineWriterSplitWrites(t *testing.T) {
	var r Registry
	s := `a&b<c>d"e\f`
	r.Add(s)
	var out bytes.Buffer
	w := &LineWriter{w: &out, reg: &r}
	b1, _ := json.Marshal(map[string]string{"m": "one " + s})
	b2, _ := json.Marshal(map[string]string{"m": "two " + s})
	stream := string(b1) + "\n" + string(b2) + "\n"
	for i := 0; i < len(stream); i += 3 {
		end := min(i+3, len(stream))
		if _, err := w.Write([]byte(stream[i:end])); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(out.Bytes(), []byte("\n")) && out.Len() > 0 {
			t.Fatalf("a partial line was written: %q", out.String())
		}
	}
	if leaks(out.String(), s) || strings.Count(out.String(), Mask) != 2 {
		t.Errorf("got %s", out.String())
	}
	_, _ = w.Write([]byte(`{"m":"tail"}`))
	if strings.Contains(out.String(), "tail") {
		t.Error("a line without its end was written")
	}
	if err := w.Flush(); err != nil || !strings.HasSuffix(out.String(), `{"m":"tail"}`) {
		t.Errorf("flush: %v %q", err, out.String())
	}
}

func TestWriter(t *testing.T) {
	var r Registry
	r.Add("tökén-ünï-çødé")
	var out bytes.Buffer
	w := &Writer{w: &out, reg: &r}
	log := slog.New(slog.NewTextHandler(w, nil))
	log.Warn("refused", "err", fmt.Errorf("server said %q", "tökén-ünï-çødé"))
	if leaks(out.String(), "tökén-ünï-çødé") || !strings.Contains(out.String(), Mask) {
		t.Errorf("got %s", out.String())
	}
}

// The ACP stream's cost: a 64 KiB line without the secret, with a
// bearer-shaped token and with one of special characters registered.
func BenchmarkLineWriter(b *testing.B) {
	line := append(bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"text":"hello world "}}`), 840), '\n')
	for _, s := range []string{"tok-0123456789abcdef", `a&b<c>d"e\f`} {
		b.Run(s, func(b *testing.B) {
			var r Registry
			r.Add(s)
			w := &LineWriter{w: io.Discard, reg: &r}
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				_, _ = w.Write(line)
			}
		})
	}
}

// TestWireForms: a secret is also replaced percent-encoded (an API key in
// a URL's query, quoted by Go's url.Error) and in base64 (a Basic
// Authorization header's user:password).
func TestWireForms(t *testing.T) {
	var r Registry
	const secret = "us er:p&ss/wörd"
	r.Add(secret)
	for _, form := range []string{url.QueryEscape(secret), url.PathEscape(secret), base64.StdEncoding.EncodeToString([]byte(secret))} {
		in := `Get "https://agent.example/a2a?k=` + form + `": dial tcp: refused`
		if out := r.String(in); strings.Contains(out, form) || !strings.Contains(out, "[redacted]") {
			t.Errorf("%q → %q", in, out)
		}
	}
}
