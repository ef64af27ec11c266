package a2a

// What a park says in data parts beside its text (SPEC §12.8): agent
// frameworks put the tool call a park is about, and a JSON Schema of the
// answer they want, in plain data parts of the input-required status
// message.

import (
	"encoding/json"
)

// ParkData is what the data parts of a park's status message (those of no
// extension shim knows) carry.
type ParkData struct {
	// Fields are their content as keys and values: an object's members
	// under dotted keys ("args.path"), a string as is, any other value as
	// JSON text, in the order the data gave them; a schema taken as
	// Schema is not among them.
	Fields []ParkField
	// More is set when Fields stop short of the content (ParkFieldsMax).
	More bool
	// Tool is the tool call the park is about (in PhasePending), when a
	// data part names one.
	Tool *ToolCall
	// Schema is the JSON Schema (of type object) of the answer, when a
	// data part gives one.
	Schema json.RawMessage
}

// ParkField is one value of a park's data.
type ParkField struct {
	Key   string
	Value string
}

// ParkFieldsMax is how many bytes of keys and values ParkData keeps (a
// byte more for each value).
const ParkFieldsMax = 4096
