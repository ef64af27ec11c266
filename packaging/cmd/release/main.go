// Command release builds shim's release into a directory (dist/):
//
//	shim_<version>_<os>_<arch>.tar.gz|.zip   static binaries (shim, shim-platform), six platforms
//	SHA256SUMS                               of the archives
//	registry/shim/agent.json, icon.svg       the ACP registry entry
//	npm/shim/, npm/shim-<os>-<cpu>/          npm packages, ready for npm pack
//
// Usage (make release VERSION=x.y.z runs the first):
//
//	go run ./packaging/cmd/release all -version 1.2.3 -commit abc -epoch 1700000000 -out dist
//	go run ./packaging/cmd/release all ... -platforms host     (this platform only; npm test)
//	go run ./packaging/cmd/release registry -version 1.2.3 -out dist   (from dist/SHA256SUMS)
//	go run ./packaging/cmd/release npm -version 1.2.3 -out dist        (from the archives in dist/)
//
// Nothing reads the clock: the build date and every archive mtime is -epoch
// (make passes SOURCE_DATE_EPOCH, else the commit time).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shimdev/shim/packaging"
)

type options struct {
	version, commit, license, licenseFile, out, readme, platforms, gobin string
	epoch                                                                int64
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	step := "all"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		step, args = args[0], args[1:]
	}
	var o options
	fs := flag.NewFlagSet("release "+step, flag.ContinueOnError)
	fs.StringVar(&o.version, "version", "", "release version x.y.z (required)")
	fs.StringVar(&o.commit, "commit", "unknown", "commit stamped into the binaries")
	fs.Int64Var(&o.epoch, "epoch", -1, "commit time, Unix seconds: the build date and archive mtimes (required for all)")
	fs.StringVar(&o.license, "license", packaging.License, "SPDX license id for agent.json and package.json")
	fs.StringVar(&o.licenseFile, "license-file", "LICENSE", "licence text packed beside the binary and into the npm packages (empty: none)")
	fs.StringVar(&o.out, "out", "dist", "output directory")
	fs.StringVar(&o.readme, "readme", "README.md", "file packed beside the binary (empty: none)")
	fs.StringVar(&o.platforms, "platforms", "all", "all, host, or a list like linux/amd64,darwin/arm64")
	fs.StringVar(&o.gobin, "go", "go", "the go command")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o.version = strings.TrimPrefix(o.version, "v")
	if err := packaging.CheckVersion(o.version); err != nil {
		return err
	}
	platforms, err := selectPlatforms(o.platforms)
	if err != nil {
		return err
	}
	switch step {
	case "all":
		if o.epoch < 0 {
			return errors.New("-epoch is required: the commit time (git log -1 --format=%ct) or SOURCE_DATE_EPOCH")
		}
		if err := buildArchives(o, platforms); err != nil {
			return err
		}
		if len(platforms) == len(packaging.Platforms) {
			if err := writeRegistry(o); err != nil {
				return err
			}
		} else {
			fmt.Println("registry entry skipped: it needs every platform's archive")
		}
		return writeNPM(o, platforms)
	case "registry":
		return writeRegistry(o)
	case "npm":
		return writeNPM(o, platforms)
	}
	return fmt.Errorf("unknown step %q: want all, registry or npm", step)
}

func selectPlatforms(spec string) ([]packaging.Platform, error) {
	switch spec {
	case "all", "":
		return packaging.Platforms, nil
	case "host":
		p, ok := packaging.Host()
		if !ok {
			return nil, errors.New("this host is not a release platform")
		}
		return []packaging.Platform{p}, nil
	}
	var out []packaging.Platform
	for _, s := range strings.Split(spec, ",") {
		goos, goarch, _ := strings.Cut(strings.TrimSpace(s), "/")
		p, ok := packaging.Find(goos, goarch)
		if !ok {
			return nil, fmt.Errorf("unknown platform %q", s)
		}
		out = append(out, p)
	}
	return out, nil
}

// buildArchives builds each platform's binary and packs it; SHA256SUMS lists
// every archive in the output directory.
func buildArchives(o options, platforms []packaging.Platform) error {
	readme, err := readOptional(o.readme)
	if err != nil {
		return err
	}
	license, err := readOptional(o.licenseFile)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "shim-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	ldflags := packaging.LDFlags(o.version, o.commit, o.epoch)
	for _, p := range platforms {
		work := filepath.Join(tmp, p.GOOS+"_"+p.GOARCH)
		fmt.Printf("build %s\n", p)
		if err := packaging.BuildBinary(o.gobin, p, ldflags, work); err != nil {
			return err
		}
		data, err := os.ReadFile(filepath.Join(work, p.Exe()))
		if err != nil {
			return err
		}
		helper, err := os.ReadFile(filepath.Join(work, p.HelperExe()))
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := packaging.WriteArchive(&buf, packaging.ArchiveFiles(p, data, helper, readme, license), o.epoch, p.GOOS == "windows"); err != nil {
			return err
		}
		if err := packaging.WriteFile(filepath.Join(o.out, p.Archive(o.version)), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	sums := map[string]string{}
	for _, p := range packaging.Platforms {
		path := filepath.Join(o.out, p.Archive(o.version))
		if _, err := os.Stat(path); err != nil {
			continue
		}
		sum, err := packaging.SHA256File(path)
		if err != nil {
			return err
		}
		sums[p.Archive(o.version)] = sum
	}
	if err := packaging.WriteFile(filepath.Join(o.out, "SHA256SUMS"), packaging.FormatSums(sums), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %d archives and SHA256SUMS to %s\n", len(sums), o.out)
	return nil
}

// writeRegistry writes registry/shim/agent.json and icon.svg from SHA256SUMS.
func writeRegistry(o options) error {
	data, err := os.ReadFile(filepath.Join(o.out, "SHA256SUMS"))
	if err != nil {
		return err
	}
	sums, err := packaging.ParseSums(data)
	if err != nil {
		return err
	}
	agent, err := packaging.NewAgent(o.version, o.license, sums)
	if err != nil {
		return err
	}
	js, err := packaging.MarshalIndent(agent)
	if err != nil {
		return err
	}
	dir := filepath.Join(o.out, "registry", packaging.RegistryID)
	if err := packaging.WriteFile(filepath.Join(dir, "agent.json"), js, 0o644); err != nil {
		return err
	}
	if err := packaging.WriteFile(filepath.Join(dir, "icon.svg"), packaging.Icon(), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s/{agent.json,icon.svg}\n", dir)
	return nil
}

// writeNPM writes npm/shim (the launcher) and npm/shim-<os>-<cpu> for each
// platform, taking each binary out of its archive in the output directory.
func writeNPM(o options, platforms []packaging.Platform) error {
	root := filepath.Join(o.out, "npm")
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	readme := func(title string) []byte {
		return []byte("# " + title + "\n\n" + packaging.Description + ".\n\n" +
			"    npx -y @shimdev/shim --url https://your-agent\n\n" +
			"See " + packaging.Repository + " for the editor settings.\n")
	}
	license, err := readOptional(o.licenseFile)
	if err != nil {
		return err
	}
	launcher := filepath.Join(root, "shim")
	pj, err := packaging.MarshalIndent(packaging.LauncherPackage(o.version, o.license))
	if err != nil {
		return err
	}
	for name, f := range map[string]struct {
		data []byte
		mode os.FileMode
	}{
		"package.json": {pj, 0o644},
		"bin/shim.js":  {packaging.Launcher(), 0o755},
		"README.md":    {readme(packaging.NPMScope + "/shim"), 0o644},
		"LICENSE":      {license, 0o644},
	} {
		if f.data == nil {
			continue
		}
		if err := packaging.WriteFile(filepath.Join(launcher, name), f.data, f.mode); err != nil {
			return err
		}
	}
	for _, p := range platforms {
		bin, err := packaging.ReadArchive(filepath.Join(o.out, p.Archive(o.version)), p.Exe())
		if err != nil {
			return fmt.Errorf("npm package for %s: %w (build the archives first)", p, err)
		}
		helper, err := packaging.ReadArchive(filepath.Join(o.out, p.Archive(o.version)), p.HelperExe())
		if err != nil {
			return fmt.Errorf("npm package for %s: %w (build the archives again: each carries the platform credential helper beside shim)", p, err)
		}
		dir := filepath.Join(root, strings.TrimPrefix(p.NPMName(), packaging.NPMScope+"/"))
		pj, err := packaging.MarshalIndent(packaging.PlatformPackage(o.version, o.license, p))
		if err != nil {
			return err
		}
		if err := packaging.WriteFile(filepath.Join(dir, "package.json"), pj, 0o644); err != nil {
			return err
		}
		if err := packaging.WriteFile(filepath.Join(dir, "README.md"), readme(p.NPMName()), 0o644); err != nil {
			return err
		}
		if license != nil {
			if err := packaging.WriteFile(filepath.Join(dir, "LICENSE"), license, 0o644); err != nil {
				return err
			}
		}
		// The helper beside the binary, where shim finds it.
		for name, data := range map[string][]byte{p.Exe(): bin, p.HelperExe(): helper} {
			if err := packaging.WriteFile(filepath.Join(dir, "bin", name), data, 0o755); err != nil {
				return err
			}
		}
	}
	fmt.Printf("wrote npm packages to %s (launcher + %d platform)\n", root, len(platforms))
	return nil
}

// readOptional reads path; an empty path is no file (nil).
func readOptional(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	return os.ReadFile(path)
}
