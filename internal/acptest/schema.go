// Package acptest holds test helpers for the ACP side: a validator of
// every message against the official ACP v1 JSON schema, by the
// definition its method and side name, and a scripted ACP client.
package acptest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed testdata/schema.v1.json
var schemaJSON []byte

// extensionJSON defines the methods shim speaks that the v1 schema does
// not: the steering extension's response (SPEC §11.4; the shape editors
// and claude-agent-acp / codex-acp share) and session/set_model's, which
// older clients still send (SPEC §14; the schema's earlier
// SetSessionModelResponse: an object with only _meta), written here in
// the schema's own terms.
const extensionJSON = `{"$defs": {
  "SteeringResponse": {"type": "object", "required": ["outcome"],
    "properties": {"outcome": {"enum": ["injected", "promptRequired", "failed"]},
      "reason": {"type": "string"}, "_meta": {"type": ["object", "null"]}}},
  "SetSessionModelResponse": {"type": "object", "additionalProperties": false,
    "properties": {"_meta": {"type": ["object", "null"]}}}}}`

// extensionDefs names the definitions of extensionJSON by "side method kind".
var extensionDefs = map[string]string{
	"agent _session/steering Response": "ext.json#/$defs/SteeringResponse",
	"agent session/set_model Response": "ext.json#/$defs/SetSessionModelResponse",
}

// Validator checks messages against the ACP v1 schema definitions.
type Validator struct {
	compiler *jsonschema.Compiler
	// defs maps "side method kind" (kind: Request, Response, Notification)
	// to a definition name.
	defs  map[string]string
	mu    sync.Mutex
	cache map[string]*jsonschema.Schema
}

var (
	validatorOnce sync.Once
	validator     *Validator
	validatorErr  error
)

// Schema returns the shared validator.
func Schema() (*Validator, error) {
	validatorOnce.Do(func() { validator, validatorErr = newValidator() })
	return validator, validatorErr
}

func newValidator() (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("acp.json", doc); err != nil {
		return nil, err
	}
	ext, err := jsonschema.UnmarshalJSON(strings.NewReader(extensionJSON))
	if err != nil {
		return nil, err
	}
	if err := c.AddResource("ext.json", ext); err != nil {
		return nil, err
	}
	var raw struct {
		Defs map[string]struct {
			Side   string `json:"x-side"`
			Method string `json:"x-method"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schemaJSON, &raw); err != nil {
		return nil, err
	}
	v := &Validator{compiler: c, defs: map[string]string{}, cache: map[string]*jsonschema.Schema{}}
	for name, d := range raw.Defs {
		if d.Method == "" {
			continue
		}
		for _, kind := range []string{"Request", "Response", "Notification"} {
			if strings.HasSuffix(name, kind) {
				v.defs[d.Side+" "+d.Method+" "+kind] = name
			}
		}
	}
	for k, name := range extensionDefs {
		v.defs[k] = name
	}
	return v, nil
}

// Def returns the definition for a method on a side ("agent" handles the
// method, "client" handles it) and a kind.
func (v *Validator) Def(side, method, kind string) (string, bool) {
	name, ok := v.defs[side+" "+method+" "+kind]
	return name, ok
}

// ValidateDef validates a JSON value against one $defs entry.
func (v *Validator) ValidateDef(def string, value []byte) error {
	v.mu.Lock()
	sch := v.cache[def]
	if sch == nil {
		var err error
		ref := def
		if !strings.Contains(ref, "#") {
			ref = "acp.json#/$defs/" + def
		}
		sch, err = v.compiler.Compile(ref)
		if err != nil {
			v.mu.Unlock()
			return err
		}
		v.cache[def] = sch
	}
	v.mu.Unlock()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("%s: %v", def, err)
	}
	return nil
}

// AgentLine validates one line an agent wrote. methodOf returns the method
// of the client request a response answers.
func (v *Validator) AgentLine(line []byte, methodOf func(id string) string) error {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	if m.JSONRPC != "2.0" {
		return fmt.Errorf("jsonrpc is %q, want 2.0", m.JSONRPC)
	}
	switch {
	case m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null":
		def, ok := v.Def("client", m.Method, "Request")
		if !ok {
			return fmt.Errorf("agent sent request %q that the schema does not define", m.Method)
		}
		return v.ValidateDef(def, orNull(m.Params))
	case m.Method != "":
		def, ok := v.Def("client", m.Method, "Notification")
		if !ok {
			// $/cancel_request is either side's ("protocol").
			def, ok = v.Def("protocol", m.Method, "Notification")
		}
		if !ok {
			return fmt.Errorf("agent sent notification %q that the schema does not define", m.Method)
		}
		return v.ValidateDef(def, orNull(m.Params))
	case m.Error != nil:
		return v.ValidateDef("Error", m.Error)
	case m.Result != nil:
		method := methodOf(string(m.ID))
		if method == "" {
			return fmt.Errorf("response to unknown request id %s", m.ID)
		}
		def, ok := v.Def("agent", method, "Response")
		if _, notif := v.Def("agent", method, "Notification"); !ok && notif {
			// A notification sent by mistake as a request (session/cancel
			// with an id) is answered with a null result.
			if string(m.Result) != "null" {
				return fmt.Errorf("the answer to %s sent as a request must be null: %s", method, m.Result)
			}
			return nil
		}
		if !ok {
			return fmt.Errorf("no schema definition for the %s response", method)
		}
		return v.ValidateDef(def, m.Result)
	}
	return fmt.Errorf("neither request, notification nor response: %s", line)
}

// ClientAnswer validates the result a client gives to a request the agent
// made (session/request_permission, elicitation/create), by the
// client-side response definition of its method.
func (v *Validator) ClientAnswer(method string, result []byte) error {
	def, ok := v.Def("client", method, "Response")
	if !ok {
		return fmt.Errorf("no schema definition for the client's %s response", method)
	}
	return v.ValidateDef(def, result)
}

func orNull(b json.RawMessage) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}
