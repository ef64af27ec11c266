package sse

// recordSeparator: VoltAgent (@voltagent/a2a-server 2.0.3) starts the data
// of every event with U+001E, the record separator of RFC 7464 JSON text
// sequences, before the JSON-RPC response A2A says the data is. One
// leading U+001E is dropped from an event's data (SPEC §16), and the event
// says so (Event.RecordSeparated); nothing else is touched.
func recordSeparator(ev *Event) {
	if len(ev.Data) > 0 && ev.Data[0] == 0x1e {
		ev.Data = ev.Data[1:]
		ev.RecordSeparated = true
	}
}
