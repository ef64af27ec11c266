//go:build (dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd

package credentials

import (
	"errors"
	"os"
	"strconv"
)

// errNoSessionBus is returned by SystemKeyring where go-keyring would use
// the Secret Service and no D-Bus session bus is known.
var errNoSessionBus = errors.New("credentials: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset), so no Secret Service")

// sessionBusError returns errNoSessionBus unless a session bus can be found
// the way godbus finds one without launching one: DBUS_SESSION_BUS_ADDRESS,
// or /run/user/<uid>/bus or /run/user/<uid>/dbus-session. Left to itself,
// godbus would run dbus-launch, start a private bus (and through it a locked
// gnome-keyring) that no user can unlock, and leave both running.
func sessionBusError() error {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return nil
	}
	run := "/run/user/" + strconv.Itoa(os.Getuid())
	for _, name := range []string{"bus", "dbus-session"} {
		if _, err := os.Stat(run + "/" + name); err == nil {
			return nil
		}
	}
	return errNoSessionBus
}
