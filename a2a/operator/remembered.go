package operator

// What the agent did not serve, kept between launches (SPEC §19): the
// parts of the API an earlier process found absent are not asked again,
// and each part found absent now is told to whoever keeps them.

// perID are the parts whose paths carry a session or steer id: a 404 there
// may be about that id, so only a 405 (the route itself refused) is worth
// keeping beyond this process.
var perID = map[string]bool{"turns": true, "steer": true}

// Remember marks the parts of the API in absent as absent without asking
// them (what an earlier launch found), and has keep told of each part
// found absent from now on that is worth keeping (a 404 or 405 of a route
// without an id, a 405 of one with an id; the busy check of a server
// without the sessions list). keep may be nil; it is called with API.mu
// held and must not call back into the API.
func (o *API) Remember(absent []string, keep func(part string)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, part := range absent {
		o.absent[part] = true
	}
	o.keep = keep
}

// markAbsent marks a part of the API absent for the process (o.mu held),
// and has it kept when the answer (its HTTP status) says so of the route.
func (o *API) markAbsent(part string, status int) {
	o.absent[part] = true
	if o.keep != nil && (status == 405 || !perID[part]) {
		o.keep(part)
	}
}
