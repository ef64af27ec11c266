// Package packaging builds shim's release artifacts: static binaries (shim
// and its platform credential helper shim-platform beside it) packed as
// reproducible archives, their SHA256SUMS, the ACP registry entry
// (agent.json and icon.svg) and the npm packages (a launcher plus one package
// per platform carrying the two binaries). The command in packaging/cmd/release
// drives it; `make release VERSION=x.y.z` runs that command.
//
// Reproducible means: the same commit, the same Go toolchain and the same
// SOURCE_DATE_EPOCH give the same bytes. Archive entries have a fixed order,
// mode, owner and mtime (the commit time); gzip headers carry no name and no
// time; nothing reads the clock.
package packaging

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Module is the Go module path; MainPackage is shim's main package.
const (
	Module      = "github.com/shimdev/shim"
	MainPackage = Module + "/cmd/shim"
	Repository  = "https://github.com/shimdev/shim"
	// ReleaseURL is where the release archives are downloaded from.
	ReleaseURL = Repository + "/releases/download"
	// RegistryID is the id (and directory name) of shim's ACP registry entry.
	RegistryID = "shim"
	// NPMScope is the npm scope of the launcher and the platform packages.
	NPMScope = "@shimdev"
	// Description is shared by agent.json and the npm packages.
	Description = "Drive a remote A2A agent (JSON-RPC + SSE, A2A 1.0 and 0.3) from any ACP editor"
)

// Platform is one release target.
type Platform struct {
	GOOS, GOARCH string
	// Registry is the ACP registry's platform id (darwin-aarch64, …).
	Registry string
	// NodeOS and NodeCPU are Node's process.platform and process.arch.
	NodeOS, NodeCPU string
}

// Platforms are the six release targets, in release order.
var Platforms = []Platform{
	{"linux", "amd64", "linux-x86_64", "linux", "x64"},
	{"linux", "arm64", "linux-aarch64", "linux", "arm64"},
	{"darwin", "amd64", "darwin-x86_64", "darwin", "x64"},
	{"darwin", "arm64", "darwin-aarch64", "darwin", "arm64"},
	{"windows", "amd64", "windows-x86_64", "win32", "x64"},
	{"windows", "arm64", "windows-aarch64", "win32", "arm64"},
}

// Host returns the platform of the running process, if it is a release target.
func Host() (Platform, bool) { return Find(runtime.GOOS, runtime.GOARCH) }

// Find returns the release target for goos/goarch.
func Find(goos, goarch string) (Platform, bool) {
	for _, p := range Platforms {
		if p.GOOS == goos && p.GOARCH == goarch {
			return p, true
		}
	}
	return Platform{}, false
}

// Exe is the binary's file name on p.
func (p Platform) Exe() string {
	if p.GOOS == "windows" {
		return "shim.exe"
	}
	return "shim"
}

// HelperExe is the platform credential helper's file name on p: it sits
// beside shim in the archive and the npm package, where shim finds it.
func (p Platform) HelperExe() string {
	if p.GOOS == "windows" {
		return "shim-platform.exe"
	}
	return "shim-platform"
}

// Archive is the release archive's file name for version on p.
func (p Platform) Archive(version string) string {
	ext := ".tar.gz"
	if p.GOOS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("shim_%s_%s_%s%s", version, p.GOOS, p.GOARCH, ext)
}

// NPMName is the name of p's npm package (@shimdev/shim-linux-x64, …).
func (p Platform) NPMName() string {
	return fmt.Sprintf("%s/shim-%s-%s", NPMScope, p.NodeOS, p.NodeCPU)
}

// String is goos/goarch.
func (p Platform) String() string { return p.GOOS + "/" + p.GOARCH }

var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// CheckVersion accepts a release version: x.y.z, digits only (the ACP
// registry checks the first three dot parts are numbers; tags are v<version>).
func CheckVersion(v string) error {
	if !versionRE.MatchString(v) {
		return fmt.Errorf("version %q: want x.y.z (digits only, no leading v), e.g. make release VERSION=1.2.3", v)
	}
	return nil
}

// ArchiveURL is where the archive of version for p is downloaded from.
func ArchiveURL(version string, p Platform) string {
	return fmt.Sprintf("%s/v%s/%s", ReleaseURL, version, p.Archive(version))
}

// LDFlags are the linker flags of a release binary.
func LDFlags(version, commit string, epoch int64) string {
	return fmt.Sprintf("-s -w -X main.version=%s -X main.commit=%s -X main.date=%s",
		version, commit, Date(epoch))
}

// Date is the build date stamped into the binary: the commit time, UTC.
func Date(epoch int64) string { return time.Unix(epoch, 0).UTC().Format(time.RFC3339) }

// File is one archive entry.
type File struct {
	Name string
	Mode int64 // 0755 or 0644
	Data []byte
}

// ArchiveFiles are the entries of p's archive: the binary, the platform
// credential helper beside it, then README.md and LICENSE (each left out
// when nil).
func ArchiveFiles(p Platform, binary, helper, readme, license []byte) []File {
	files := []File{{Name: p.Exe(), Mode: 0o755, Data: binary}, {Name: p.HelperExe(), Mode: 0o755, Data: helper}}
	if readme != nil {
		files = append(files, File{Name: "README.md", Mode: 0o644, Data: readme})
	}
	if license != nil {
		files = append(files, File{Name: "LICENSE", Mode: 0o644, Data: license})
	}
	return files
}

// WriteArchive packs files in the given order into w, as a zip when zipped
// is true, else as a tar.gz. Every entry gets mtime epoch, owner 0:0 and
// no user or group name.
func WriteArchive(w io.Writer, files []File, epoch int64, zipped bool) error {
	mtime := time.Unix(epoch, 0).UTC()
	if zipped {
		zw := zip.NewWriter(w)
		for _, f := range files {
			h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: mtime}
			h.SetMode(os.FileMode(f.Mode))
			fw, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			if _, err := fw.Write(f.Data); err != nil {
				return err
			}
		}
		return zw.Close()
	}
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	// gzip.Header zero value: no name, no comment, no mtime; OS is "unknown".
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     f.Name,
			Mode:     f.Mode,
			Size:     int64(len(f.Data)),
			ModTime:  mtime,
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// ReadArchive returns the entry called name from a release archive.
func ReadArchive(path, name string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, err
		}
		for _, f := range zr.File {
			if f.Name == name {
				rc, err := f.Open()
				if err != nil {
					return nil, err
				}
				defer rc.Close()
				return io.ReadAll(rc)
			}
		}
		return nil, fmt.Errorf("%s: no entry %s", path, name)
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: no entry %s", path, name)
		}
		if err != nil {
			return nil, err
		}
		if h.Name == name {
			return io.ReadAll(tr)
		}
	}
}

// SHA256File is the hex SHA-256 of a file.
func SHA256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FormatSums renders name → hex digest in the format of sha256sum, sorted by name.
func FormatSums(sums map[string]string) []byte {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return b.Bytes()
}

// ParseSums reads a SHA256SUMS file.
func ParseSums(data []byte) (map[string]string, error) {
	sums := map[string]string{}
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 || name == "" {
			return nil, fmt.Errorf("SHA256SUMS line %d: want \"<sha256>  <file>\", got %q", i+1, line)
		}
		sums[name] = sum
	}
	return sums, nil
}

// Agent is an ACP registry entry (agent.json). The fields and their order
// follow the registry's agent.schema.json and FORMAT.md
// (github.com/agentclientprotocol/registry).
type Agent struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	Version      string       `json:"version"`
	Description  string       `json:"description"`
	Repository   string       `json:"repository,omitempty"`
	Website      string       `json:"website,omitempty"`
	Authors      []string     `json:"authors,omitempty"`
	License      string       `json:"license,omitempty"`
	Distribution Distribution `json:"distribution"`
}

// Distribution holds the per-platform binaries.
type Distribution struct {
	Binary map[string]BinaryTarget `json:"binary"`
}

// BinaryTarget is one platform's archive and how to run what it holds.
type BinaryTarget struct {
	Archive string            `json:"archive"`
	SHA256  string            `json:"sha256,omitempty"`
	Cmd     string            `json:"cmd"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// AgentArgs are the arguments the registry launches shim with: serve ACP.
// The agent URL comes from the last `shim login` (or SHIM_URL), since a
// registry entry cannot carry a per-user URL.
var AgentArgs = []string{"acp"}

// NewAgent is the registry entry for version; sums maps archive file names
// to their SHA-256 and must hold every platform's archive.
func NewAgent(version, license string, sums map[string]string) (*Agent, error) {
	if err := CheckVersion(version); err != nil {
		return nil, err
	}
	a := &Agent{
		ID:           RegistryID,
		Name:         "shim",
		Version:      version,
		Description:  Description,
		Repository:   Repository,
		License:      license,
		Distribution: Distribution{Binary: map[string]BinaryTarget{}},
	}
	for _, p := range Platforms {
		sum, ok := sums[p.Archive(version)]
		if !ok {
			return nil, fmt.Errorf("no SHA-256 for %s: build every platform (make release) before the registry entry", p.Archive(version))
		}
		a.Distribution.Binary[p.Registry] = BinaryTarget{
			Archive: ArchiveURL(version, p),
			SHA256:  sum,
			Cmd:     "./" + p.Exe(),
			Args:    AgentArgs,
		}
	}
	return a, nil
}

// MarshalIndent is JSON with two-space indent, no HTML escaping and a final
// newline (map keys sorted).
func MarshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

//go:embed icon.svg npm/shim.js
var assets embed.FS

// Icon is the registry icon: 16×16, monochrome in currentColor.
func Icon() []byte { return mustAsset("icon.svg") }

// Launcher is the npm launcher script (bin of @shimdev/shim).
func Launcher() []byte { return mustAsset("npm/shim.js") }

func mustAsset(name string) []byte {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

// License is the SPDX id of shim's licence (the LICENSE file), the
// release's default.
const License = "Apache-2.0"

// NPMLicense is the npm spelling of an SPDX license id ("proprietary" is "UNLICENSED").
func NPMLicense(license string) string {
	if license == "" || strings.EqualFold(license, "proprietary") {
		return "UNLICENSED"
	}
	return license
}

// NPMPackage is the package.json of a generated npm package.
type NPMPackage struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license"`
	Repository           map[string]string `json:"repository"`
	Bin                  map[string]string `json:"bin,omitempty"`
	Files                []string          `json:"files"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
}

// LauncherPackage is the package.json of @shimdev/shim: a bin that runs the
// binary of the platform package npm installed among its optional dependencies.
func LauncherPackage(version, license string) NPMPackage {
	deps := map[string]string{}
	for _, p := range Platforms {
		deps[p.NPMName()] = version
	}
	return NPMPackage{
		Name:                 NPMScope + "/shim",
		Version:              version,
		Description:          Description,
		License:              NPMLicense(license),
		Repository:           map[string]string{"type": "git", "url": "git+" + Repository + ".git"},
		Bin:                  map[string]string{"shim": "bin/shim.js"},
		Files:                []string{"bin/shim.js", "README.md", "LICENSE"},
		Engines:              map[string]string{"node": ">=16"},
		OptionalDependencies: deps,
	}
}

// PlatformPackage is the package.json of p's package: the binary under bin/
// with the platform credential helper beside it, installable only on p
// (os, cpu). It declares no bin of its own, so it
// never shadows the launcher's.
func PlatformPackage(version, license string, p Platform) NPMPackage {
	return NPMPackage{
		Name:            p.NPMName(),
		Version:         version,
		Description:     fmt.Sprintf("The %s binary of shim; installed by %s/shim", p, NPMScope),
		License:         NPMLicense(license),
		Repository:      map[string]string{"type": "git", "url": "git+" + Repository + ".git"},
		Files:           []string{"bin/" + p.Exe(), "bin/" + p.HelperExe(), "README.md", "LICENSE"},
		OS:              []string{p.NodeOS},
		CPU:             []string{p.NodeCPU},
		PreferUnplugged: true,
	}
}

// WriteFile writes data to path, creating its directory.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		return err
	}
	return os.Chmod(path, mode) // WriteFile keeps the mode of an existing file
}

// HelperPackage is the platform credential helper's main package, built
// beside shim for every platform.
const HelperPackage = Module + "/cmd/shim-platform"

// BuildBinary builds shim and its platform credential helper for p into
// dir (dir/p.Exe() and dir/p.HelperExe()), as `make build` does on the
// host. Each build is reproducible: trimmed paths, no VCS stamp.
func BuildBinary(gobin string, p Platform, ldflags, dir string) error {
	env := append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.GOOS, "GOARCH="+p.GOARCH)
	run := func(args ...string) error {
		cmd := exec.Command(gobin, args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go %s for %s: %w\n%s", args[0], p, err, stderr.Bytes())
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := run("build", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w", "-o", filepath.Join(dir, p.HelperExe()), HelperPackage); err != nil {
		return err
	}
	return run("build", "-trimpath", "-buildvcs=false", "-tags", "urfave_cli_no_docs",
		"-ldflags", ldflags, "-o", filepath.Join(dir, p.Exe()), MainPackage)
}
