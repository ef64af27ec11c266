package flags

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestFlagsKnowTheirNames: every flag, the library's --help and --version
// included, knows its names without urfave/cli's regular expression, and
// they are the names the library gives.
func TestFlagsKnowTheirNames(t *testing.T) {
	NameLibraryFlags()
	for _, f := range append(Common(), cli.HelpFlag, cli.VersionFlag) {
		var lib []string
		switch f := f.(type) {
		case stringFlag:
			lib = f.StringFlag.Names()
		case stringSliceFlag:
			lib = f.StringSliceFlag.Names()
		case int64Flag:
			lib = f.Int64Flag.Names()
		case *boolFlag:
			lib = f.BoolFlag.Names()
		default:
			t.Fatalf("flag %v is a %T: its names go through a regexp at each lookup", f.Names(), f)
		}
		if !slices.Equal(f.Names(), lib) {
			t.Errorf("names %v, the library's %v", f.Names(), lib)
		}
	}
}
