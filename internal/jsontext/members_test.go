package jsontext

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// members is what Members yields for b, as "key=value" strings.
func members(b string) []string {
	var out []string
	Members([]byte(b), func(key []byte, start, end int) bool {
		out = append(out, string(key)+"="+b[start:end])
		return true
	})
	return out
}

// TestMembers: the top-level members of an object, in order, each value
// whole (strings holding braces and escaped quotes, nested values); a
// member cut by the end of the input, or possibly cut, and what follows
// it are not given; anything but an object gives nothing.
func TestMembers(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"b":"x}\"y","c":{"d":[1,{"e":"]"}]},"a":null}`: `"a"=1|"b"="x}\"y"|"c"={"d":[1,{"e":"]"}]}|"a"=null`,
		" \n{ \"k\" :\t[ 1 , 2 ] , \"z\" : true }":             `"k"=[ 1 , 2 ]|"z"=true`,
		`{}`:                              ``,
		`{"a":1,"b":{"c":2`:               `"a"=1`,
		`{"a":1,"b":12`:                   `"a"=1`,
		`{"a":1,"b`:                       `"a"=1`,
		`{"a":1,"b" 2}`:                   `"a"=1`,
		`[{"a":1}]`:                       ``,
		`"a"`:                             ``,
		``:                                ``,
		`{"a":"\\","b":"\\\"}"}`:          `"a"="\\"|"b"="\\\"}"`,
		`{"id":7,"method":"x","params":{`: `"id"=7|"method"="x"`,
	} {
		if got := strings.Join(members(in), "|"); got != want {
			t.Errorf("%q:\n got %s\nwant %s", in, got, want)
		}
	}
	var n int
	Members([]byte(`{"a":1,"b":2,"c":3}`), func([]byte, int, int) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("fn returned false at the second member, and was called %d times", n)
	}
}

// TestMembersOfValidObjects: on objects encoding/json writes (random keys
// and nested values), Members gives each member, its key and its value
// as written, in order.
func TestMembersOfValidObjects(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pool := []string{"a", "{", "}", "[", "]", "\"", "\\", ",", ":", " ", "é", "\x01"}
	text := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pool[rng.IntN(len(pool))])
		}
		return b.String()
	}
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.IntN(6); {
		case k == 0 || depth > 2:
			return text()
		case k == 1:
			return rng.Float64() * 100
		case k == 2:
			return nil
		case k == 3:
			return []any{value(depth + 1), value(depth + 1)}
		default:
			return map[string]any{text(): value(depth + 1)}
		}
	}
	for range 2000 {
		obj := map[string]any{}
		for range rng.IntN(5) {
			obj[text()] = value(0)
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		Members(b, func(key []byte, start, end int) bool {
			var k string
			if err := json.Unmarshal(key, &k); err != nil {
				t.Fatalf("%s: key %s: %v", b, key, err)
			}
			got[k] = string(b[start:end])
			return true
		})
		if len(got) != len(obj) {
			t.Fatalf("%s: %d members, want %d", b, len(got), len(obj))
		}
		for k, v := range obj {
			want, _ := json.Marshal(v)
			if got[k] != string(want) {
				t.Fatalf("%s: member %q is %s, want %s", b, k, got[k], want)
			}
		}
	}
}
