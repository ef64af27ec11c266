// Package remote is the connection to the remote agent as bridge uses
// it: the A2A client, built lazily from the configuration and credentials
// and probed once (authenticate probes again), its card and the agent's
// name, the ACP error of a failed call, and the project roots the operator
// API gives. It learns nothing of the editor: that the card may have
// changed is told to the function given to OnCard.
//
// # Files
//
//	agent.go  Agent
//
// # Goroutines and locks
//
// It starts no goroutine. Agent.connectMu is held around building the A2A
// client (it may read the OS keyring) and takes Agent.mu inside it;
// Agent.mu guards the client and whether it was probed, and is taken
// alone otherwise. Neither is held while the agent is called.
package remote
