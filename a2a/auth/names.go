package auth

// The former names of Stored and Credential, which package auth/platform
// still uses: they go once it says the new ones.
type (
	// State is Stored.
	State = Stored
	// Source is Credential.
	Source = Credential
)
