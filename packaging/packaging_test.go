package packaging_test

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/shimdev/shim/internal/platformtest"
	"github.com/shimdev/shim/packaging"
)

const testEpoch = 1767225600 // 2026-01-01T00:00:00Z

func fakeSums(version string) map[string]string {
	sums := map[string]string{}
	for i, p := range packaging.Platforms {
		sums[p.Archive(version)] = strings.Repeat(fmt.Sprintf("%x", i+10), 64)
	}
	return sums
}

// agentJSON is the generated agent.json, decoded generically as the
// registry's Python CI sees it.
func agentJSON(t *testing.T, version string, sums map[string]string) (raw []byte, doc map[string]any) {
	t.Helper()
	a, err := packaging.NewAgent(version, packaging.License, sums)
	if err != nil {
		t.Fatal(err)
	}
	raw, err = packaging.MarshalIndent(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return raw, doc
}

// TestAgentJSONValidatesAgainstRegistrySchema checks agent.json against the
// registry's agent.schema.json (testdata, see SOURCE.md) with formats asserted.
func TestAgentJSONValidatesAgainstRegistrySchema(t *testing.T) {
	raw, _ := agentJSON(t, "1.2.3", fakeSums("1.2.3"))
	f, err := os.Open(filepath.Join("testdata", "agent.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("agent.schema.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("agent.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("agent.json does not validate against the registry schema:\n%v\n%s", err, raw)
	}
}

// TestAgentJSONPassesRegistryChecks applies what the registry's
// build_registry.py checks beyond the schema.
func TestAgentJSONPassesRegistryChecks(t *testing.T) {
	version := "1.2.3"
	_, doc := agentJSON(t, version, fakeSums(version))
	for _, k := range []string{"id", "name", "version", "description", "distribution"} {
		if s, ok := doc[k]; !ok || s == "" {
			t.Errorf("required field %q missing or empty", k)
		}
	}
	for _, k := range []string{"license", "repository"} {
		if s, _ := doc[k].(string); s == "" {
			t.Errorf("field %q missing (the issue wants it)", k)
		}
	}
	if doc["license"] != "Apache-2.0" {
		t.Errorf("license %v, want Apache-2.0", doc["license"])
	}
	id, _ := doc["id"].(string)
	if !regexp.MustCompile(`^[a-z][a-z0-9-]*$`).MatchString(id) || id != packaging.RegistryID {
		t.Errorf("id %q: want lowercase, hyphens, equal to the registry directory %q", id, packaging.RegistryID)
	}
	if v, _ := doc["version"].(string); v != version {
		t.Errorf("version %q, want %q", v, version)
	}
	dist, _ := doc["distribution"].(map[string]any)
	if len(dist) != 1 || dist["binary"] == nil {
		t.Fatalf("distribution = %v, want only binary", dist)
	}
	binary, _ := dist["binary"].(map[string]any)
	families := map[string]bool{}
	for plat, v := range binary {
		target, _ := v.(map[string]any)
		families[strings.SplitN(plat, "-", 2)[0]] = true
		checkRegistryTarget(t, plat, target, version)
	}
	if len(binary) != 6 || !families["linux"] || !families["darwin"] || !families["windows"] {
		t.Errorf("binary platforms = %d over %v, want 6 over linux, darwin, windows", len(binary), families)
	}
	if _, err := packaging.NewAgent(version, "", map[string]string{}); err == nil {
		t.Error("NewAgent without the archives' checksums succeeded")
	}
	if _, err := packaging.NewAgent("v1.2.3", "", fakeSums("v1.2.3")); err == nil {
		t.Error("NewAgent accepted version v1.2.3 (the registry wants digits)")
	}
}

// checkRegistryTarget applies the registry's checks to the binary
// target of one platform.
func checkRegistryTarget(t *testing.T, plat string, target map[string]any, version string) {
	t.Helper()
	urlVersion := regexp.MustCompile(`/(?:download|releases)/v?([\d.]+)/`)
	url, _ := target["archive"].(string)
	if strings.Contains(url, "/latest/") {
		t.Errorf("%s: archive URL uses /latest/", plat)
	}
	if m := urlVersion.FindStringSubmatch(url); m == nil || m[1] != version {
		t.Errorf("%s: archive URL %s does not carry version %s", plat, url, version)
	}
	if !strings.HasSuffix(url, ".tar.gz") && !strings.HasSuffix(url, ".zip") {
		t.Errorf("%s: archive %s is neither .tar.gz nor .zip", plat, url)
	}
	if !strings.HasPrefix(url, packaging.ReleaseURL+"/v"+version+"/") {
		t.Errorf("%s: archive %s is not under %s/v%s/", plat, url, packaging.ReleaseURL, version)
	}
	cmd, _ := target["cmd"].(string)
	wantCmd := "./shim"
	if strings.HasPrefix(plat, "windows-") {
		wantCmd = "./shim.exe"
	}
	if cmd != wantCmd {
		t.Errorf("%s: cmd %q, want %q", plat, cmd, wantCmd)
	}
	if fmt.Sprint(target["args"]) != fmt.Sprint([]any{"acp"}) {
		t.Errorf("%s: args %v, want [acp]", plat, target["args"])
	}
}

// TestIconFollowsRegistryRules applies build_registry.py's icon checks.
func TestIconFollowsRegistryRules(t *testing.T) {
	icon := packaging.Icon()
	if bytes.Contains(icon, []byte("<!--")) {
		t.Error("icon has an XML comment (the registry rejects them)")
	}
	dec := xml.NewDecoder(bytes.NewReader(icon))
	root := true
	usesCurrentColor := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("icon is not XML: %v", err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range el.Attr {
			attr[a.Name.Local] = a.Value
		}
		if root {
			root = false
			if el.Name.Local != "svg" {
				t.Fatalf("root element <%s>, want <svg>", el.Name.Local)
			}
			if attr["width"] != "16" || attr["height"] != "16" || attr["viewBox"] != "0 0 16 16" {
				t.Errorf("icon size: width=%q height=%q viewBox=%q, want 16×16", attr["width"], attr["height"], attr["viewBox"])
			}
		}
		if el.Name.Local == "style" || attr["style"] != "" {
			t.Errorf("<%s> has styles; keep colours in fill/stroke attributes", el.Name.Local)
		}
		for _, k := range []string{"fill", "stroke"} {
			v, ok := attr[k]
			if !ok {
				continue
			}
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "currentcolor":
				usesCurrentColor = true
			case "none", "inherit":
			default:
				t.Errorf("<%s %s=%q>: only currentColor, none or inherit", el.Name.Local, k, v)
			}
		}
	}
	if !usesCurrentColor {
		t.Error("icon does not use currentColor")
	}
}

// TestArchivesAreReproducible packs the same files twice in each format and
// checks the bytes, and that entries carry the fixed order, mode, owner and mtime.
func TestArchivesAreReproducible(t *testing.T) {
	for _, goos := range []string{"linux", "windows"} {
		p, _ := packaging.Find(goos, "amd64")
		files := packaging.ArchiveFiles(p, []byte("binary\x00bytes"), []byte("helper\x00bytes"), []byte("# readme\n"), []byte("Apache License\n"))
		var a, b bytes.Buffer
		if err := packaging.WriteArchive(&a, files, testEpoch, goos == "windows"); err != nil {
			t.Fatal(err)
		}
		if err := packaging.WriteArchive(&b, files, testEpoch, goos == "windows"); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two packings of the same files differ", goos)
		}
		path := filepath.Join(t.TempDir(), p.Archive("1.2.3"))
		if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := packaging.ReadArchive(path, p.Exe())
		if err != nil || string(got) != "binary\x00bytes" {
			t.Errorf("%s: ReadArchive(%s) = %q, %v", goos, p.Exe(), got, err)
		}
		if got, err := packaging.ReadArchive(path, p.HelperExe()); err != nil || string(got) != "helper\x00bytes" {
			t.Errorf("%s: ReadArchive(%s) = %q, %v", goos, p.HelperExe(), got, err)
		}
		for _, e := range listArchive(t, path) {
			if e.mtime.Unix() != testEpoch {
				t.Errorf("%s: %s mtime %v, want %v", goos, e.name, e.mtime.UTC(), time.Unix(testEpoch, 0).UTC())
			}
			if e.owner != "0:0::" && goos != "windows" {
				t.Errorf("%s: %s owner %s, want 0:0 with no names", goos, e.name, e.owner)
			}
			want := os.FileMode(0o644)
			if e.name == p.Exe() || e.name == p.HelperExe() {
				want = 0o755
			}
			if e.mode != want {
				t.Errorf("%s: %s mode %v, want %v", goos, e.name, e.mode, want)
			}
		}
		// The helper beside shim, where shim finds it.
		if names := entryNames(listArchive(t, path)); names != p.Exe()+","+p.HelperExe()+",README.md,LICENSE" {
			t.Errorf("%s: entries %s, want %s,%s,README.md,LICENSE", goos, names, p.Exe(), p.HelperExe())
		}
	}
	if got := string(packaging.FormatSums(map[string]string{"b": strings.Repeat("1", 64), "a": strings.Repeat("2", 64)})); got != strings.Repeat("2", 64)+"  a\n"+strings.Repeat("1", 64)+"  b\n" {
		t.Errorf("SHA256SUMS = %q, want sha256sum's format sorted by name", got)
	}
}

// TestReleaseBinaryAnswersInitializeLikeRegistryCI builds this platform's
// release binary, packs it, extracts it the way the registry's CI does, runs
// agent.json's cmd and args in a sandbox HOME, sends the CI's initialize and
// reads the first stdout line: it must be the initialize response listing an
// auth method of type agent (no type = agent, the schema's default).
func TestReleaseBinaryAnswersInitializeLikeRegistryCI(t *testing.T) {
	p, ok := packaging.Host()
	if !ok {
		t.Skipf("%s/%s is not a release platform", runtime.GOOS, runtime.GOARCH)
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the binary")
	}
	const version, commit = "9.8.7", "0123456789ab"
	dir := t.TempDir()
	archivePath, sum := buildReleaseArchive(t, p, dir, version, commit)
	sums := fakeSums(version)
	sums[p.Archive(version)] = sum
	_, doc := agentJSON(t, version, sums)
	target := doc["distribution"].(map[string]any)["binary"].(map[string]any)[p.Registry].(map[string]any)
	if target["sha256"] != sum {
		t.Errorf("agent.json sha256 %v, want the archive's %s", target["sha256"], sum)
	}

	exePath, cmdName, extract, env := extractLikeCI(t, dir, archivePath, target)

	out, err := exec.Command(exePath, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", cmdName, err)
	}
	for _, want := range []string{version, commit, packaging.Date(testEpoch)} {
		if !strings.Contains(string(out), want) {
			t.Errorf("--version = %q, want it to name %s", out, want)
		}
	}

	var args []string
	for _, a := range target["args"].([]any) {
		args = append(args, a.(string))
	}
	first := firstInitializeLine(t, exePath, extract, env, args)
	var resp struct {
		ID     json.RawMessage `json:"id"`
		Error  json.RawMessage `json:"error"`
		Result struct {
			ProtocolVersion int              `json:"protocolVersion"`
			AuthMethods     []map[string]any `json:"authMethods"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(first), &resp); err != nil {
		t.Fatalf("first stdout line is not JSON (the registry CI fails this): %q", first)
	}
	if string(resp.ID) != "1" || resp.Error != nil {
		t.Fatalf("first stdout line is not the initialize response: %s", first)
	}
	var agentIDs []string
	for _, m := range resp.Result.AuthMethods {
		if authType(m) == "agent" {
			agentIDs = append(agentIDs, fmt.Sprint(m["id"]))
		}
	}
	if len(agentIDs) == 0 {
		t.Fatalf("initialize lists no auth method of type agent: %s", first)
	}
	t.Logf("auth methods of type agent: %v", agentIDs)
	t.Run("helper beside shim", func(t *testing.T) { releaseHelperRuns(t, p, extract) })
}

// buildReleaseArchive builds this platform's release binary and its
// credential helper, checks that the helper is there, and packs both into
// dir: the archive's path and SHA-256.
func buildReleaseArchive(t *testing.T, p packaging.Platform, dir, version, commit string) (archivePath, sum string) {
	t.Helper()
	build := filepath.Join(dir, "build")
	if err := packaging.BuildBinary("go", p, packaging.LDFlags(version, commit, testEpoch), build); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(build, p.Exe()))
	if err != nil {
		t.Fatal(err)
	}
	helper, err := os.ReadFile(filepath.Join(build, p.HelperExe()))
	if err != nil {
		t.Fatalf("the release build has no platform credential helper beside shim: %v", err)
	}
	var archive bytes.Buffer
	if err := packaging.WriteArchive(&archive, packaging.ArchiveFiles(p, data, helper, []byte("readme\n"), nil), testEpoch, p.GOOS == "windows"); err != nil {
		t.Fatal(err)
	}
	archivePath = filepath.Join(dir, p.Archive(version))
	if err := os.WriteFile(archivePath, archive.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err = packaging.SHA256File(archivePath)
	if err != nil {
		t.Fatal(err)
	}
	return archivePath, sum
}

// extractLikeCI extracts the archive as verify_agents.py does (every
// entry, with its mode) and finds agent.json's cmd in the extraction: the
// executable's path, cmd's name, the folder of the extraction, and the
// CI's environment.
func extractLikeCI(t *testing.T, dir, archivePath string, target map[string]any) (exePath, cmdName, extract string, env []string) {
	t.Helper()
	// Extract as verify_agents.py does (every entry, with its mode), and
	// find cmd in the extraction.
	extract = filepath.Join(dir, "extracted")
	for _, e := range listArchive(t, archivePath) {
		b, err := packaging.ReadArchive(archivePath, e.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := packaging.WriteFile(filepath.Join(extract, e.name), b, e.mode); err != nil {
			t.Fatal(err)
		}
	}
	cmdName = strings.TrimPrefix(target["cmd"].(string), "./")
	exePath = filepath.Join(extract, cmdName)
	if _, err := os.Stat(exePath); err != nil {
		t.Fatalf("agent.json cmd %q is not in the archive: %v", target["cmd"], err)
	}
	home := filepath.Join(dir, "auth-home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	// The CI's environment: a passthrough list plus a sandbox HOME and TERM=dumb.
	env = []string{"HOME=" + home, "TERM=dumb", "USERPROFILE=" + home}
	for _, k := range []string{"PATH", "TMPDIR", "TMP", "TEMP", "SystemRoot", "WINDIR", "COMSPEC", "PATHEXT"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}

	return exePath, cmdName, extract, env
}

// firstInitializeLine runs the executable with args in extract under
// env, sends the registry CI's initialize and returns the first line it
// writes on stdout.
func firstInitializeLine(t *testing.T, exePath, extract string, env, args []string) string {
	t.Helper()
	cmd := exec.Command(exePath, args...)
	cmd.Dir, cmd.Env = extract, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	// The request client.py sends, byte for byte in shape.
	req := `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1, ` +
		`"clientInfo": {"name": "ACP Registry Validator", "version": "1.0.0"}, "clientCapabilities": ` +
		`{"terminal": true, "fs": {"readTextFile": true, "writeTextFile": true}, ` +
		`"_meta": {"terminal_output": true, "terminal-auth": true}}}}` + "\n"
	if _, err := io.WriteString(stdin, req); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	var first string
	select {
	case first = <-line:
	case <-time.After(30 * time.Second):
		t.Fatalf("no stdout line within 30s; stderr:\n%s", stderr.String())
	}
	return first
}

// releaseHelperRuns: the released shim, unpacked, reads an AgentCore
// runtime's credential through the shim-platform unpacked beside it
// (doctor's credential row; every request to the runtime signed): nothing
// is written to the cache directory, and a shim-platform planted there
// is never run (it would leave a mark). SPEC §15: no executable written
// at run time; a signed archive covers the helper that runs.
func releaseHelperRuns(t *testing.T, p packaging.Platform, dir string) {
	if p.GOOS == "windows" {
		t.Skip("a shell script is planted")
	}
	if fi, err := os.Stat(filepath.Join(dir, p.HelperExe())); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("the helper beside shim: %v %v", fi, err)
	}
	const key, secret = "AKIASHIMRELEASE00001", "shim+release/secret/0123456789ABCDEFGHIJ"
	ac := platformtest.StartAgentCore(t, platformtest.AgentCoreOptions{Keys: map[string]platformtest.SigV4Key{key: {Secret: secret}}})
	cache, work := t.TempDir(), t.TempDir()
	mark := filepath.Join(work, "ran")
	planted := filepath.Join(cache, "shim", "shim-platform")
	if err := os.MkdirAll(filepath.Dir(planted), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planted, []byte("#!/bin/sh\ntouch "+mark+"\nexit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + filepath.Join(work, "home"), "XDG_CACHE_HOME=" + cache, "PATH=" + filepath.Join(work, "path"),
		"AWS_CONFIG_FILE=" + filepath.Join(work, "aws-config"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(work, "aws-credentials"),
		"AWS_EC2_METADATA_DISABLED=true", "AWS_ACCESS_KEY_ID=" + key, "AWS_SECRET_ACCESS_KEY=" + secret}
	cmd := exec.Command(filepath.Join(dir, p.Exe()), "doctor", "--url", ac.InvocationsURL(), "--platform", "agentcore",
		"--config-dir", filepath.Join(work, "config"), "--state-dir", filepath.Join(work, "state"), "--keyring", "off")
	cmd.Env = env
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "AWS environment variables (AWS_ACCESS_KEY_ID), region us-west-2") {
		t.Errorf("doctor did not read the credential through the helper beside shim:\n%s", out)
	}
	seen := ac.Requests()
	if len(seen) == 0 {
		t.Error("doctor sent nothing to the runtime")
	}
	for _, s := range seen {
		if s.Refused != "" {
			t.Errorf("the runtime refused %s %s: %s", s.Method, s.Path, s.Refused)
		}
	}
	var files []string
	_ = filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if len(files) != 1 || files[0] != planted {
		t.Errorf("the cache directory holds %v, want only the planted %s", files, planted)
	}
	if b, _ := os.ReadFile(planted); !strings.Contains(string(b), "touch "+mark) {
		t.Errorf("the planted file was changed: %q", b)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the shim-platform planted in the cache directory was run")
	}
}

// authType is the type client.py infers: the type field, else a _meta key
// (terminal-auth → terminal, agent-auth → agent), else agent.
func authType(m map[string]any) string {
	if s, _ := m["type"].(string); s != "" {
		return s
	}
	if meta, ok := m["_meta"].(map[string]any); ok {
		if _, ok := meta["terminal-auth"]; ok {
			return "terminal"
		}
		if _, ok := meta["agent-auth"]; ok {
			return "agent"
		}
	}
	return "agent"
}

// TestNPMPackagesCoverEveryPlatform checks the launcher's optional
// dependencies, the platform packages' os/cpu and the launcher's table agree.
func TestNPMPackagesCoverEveryPlatform(t *testing.T) {
	const version = "1.2.3"
	l := packaging.LauncherPackage(version, packaging.License)
	if l.Bin["shim"] != "bin/shim.js" || l.License != "Apache-2.0" || !slices.Contains(l.Files, "LICENSE") {
		t.Errorf("launcher bin %v license %q", l.Bin, l.License)
	}
	js := string(packaging.Launcher())
	if !strings.HasPrefix(js, "#!/usr/bin/env node\n") {
		t.Error("launcher has no node shebang")
	}
	for _, p := range packaging.Platforms {
		if l.OptionalDependencies[p.NPMName()] != version {
			t.Errorf("launcher optionalDependencies[%s] = %q, want %s", p.NPMName(), l.OptionalDependencies[p.NPMName()], version)
		}
		pp := packaging.PlatformPackage(version, packaging.License, p)
		if len(pp.OS) != 1 || pp.OS[0] != p.NodeOS || len(pp.CPU) != 1 || pp.CPU[0] != p.NodeCPU || pp.Bin != nil {
			t.Errorf("%s: os %v cpu %v bin %v", pp.Name, pp.OS, pp.CPU, pp.Bin)
		}
		if pp.Files[0] != "bin/"+p.Exe() || pp.Files[1] != "bin/"+p.HelperExe() || pp.License != "Apache-2.0" || !slices.Contains(pp.Files, "LICENSE") {
			t.Errorf("%s: files %v license %q (want shim and its helper beside it under bin/)", pp.Name, pp.Files, pp.License)
		}
		if want := fmt.Sprintf("%q: %q", p.NodeOS+"-"+p.NodeCPU, p.NPMName()); !strings.Contains(js, want) {
			t.Errorf("launcher does not map %s", want)
		}
	}
	if len(l.OptionalDependencies) != len(packaging.Platforms) {
		t.Errorf("launcher has %d optional dependencies, want %d", len(l.OptionalDependencies), len(packaging.Platforms))
	}
}

type entry struct {
	name, owner string
	mtime       time.Time
	mode        os.FileMode
}

func entryNames(es []entry) string {
	var names []string
	for _, e := range es {
		names = append(names, e.name)
	}
	return strings.Join(names, ",")
}

// listArchive lists a release archive's entries in order.
func listArchive(t *testing.T, path string) []entry {
	t.Helper()
	var out []entry
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			out = append(out, entry{name: f.Name, mtime: f.Modified, mode: f.Mode().Perm()})
		}
		return out
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header has name %q, mtime %v; want neither", gz.Name, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{name: h.Name, mtime: h.ModTime, owner: fmt.Sprintf("%d:%d:%s:%s", h.Uid, h.Gid, h.Uname, h.Gname),
			mode: os.FileMode(h.Mode).Perm()})
	}
}

// TestLicenseFile: the repository's LICENSE is the Apache License 2.0 that
// the release and the packages name.
func TestLicenseFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{"Apache License Version 2.0, January 2004", "http://www.apache.org/licenses/",
		"END OF TERMS AND CONDITIONS", "APPENDIX: How to apply the Apache License to your work."} {
		if !strings.Contains(text, want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}
	if packaging.License != "Apache-2.0" {
		t.Errorf("License = %q", packaging.License)
	}
}
