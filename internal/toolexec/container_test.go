package toolexec

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
)

func containerTool(network []string, perms manifest.Permissions) *manifest.Manifest {
	perms.Network = network
	return &manifest.Manifest{Name: "wc", Version: "1.0.0",
		Entrypoint:  manifest.Entrypoint{Container: &manifest.ContainerCall{Image: "busybox:1.36", Command: []string{"sh", "-c", "wc -c"}}},
		Parameters:  map[string]any{"type": "object"},
		Permissions: perms}
}

func TestRunArgs(t *testing.T) {
	args := strings.Join(RunArgs(containerTool(nil, manifest.Permissions{})), " ")
	want := "run --rm -i --network none --cpus 0.5 --memory 536870912 --memory-swap 536870912 --read-only --tmpfs /tmp:rw,noexec,nosuid,size=1073741824 " +
		"--pids-limit 128 --cap-drop ALL --security-opt no-new-privileges busybox:1.36 sh -c wc -c"
	if args != want {
		t.Errorf("args\n%s\nwant\n%s", args, want)
	}
	// A manifest may ask for less than the platform's limits, never more.
	args = strings.Join(RunArgs(containerTool([]string{"api.example.com"}, manifest.Permissions{CPU: "2", Memory: "64MiB", Storage: "10GiB"})), " ")
	for _, w := range []string{"--network bridge", "--cpus 0.5", "--memory 67108864 --memory-swap 67108864", "size=1073741824"} {
		if !strings.Contains(args, w) {
			t.Errorf("%s: missing %s", args, w)
		}
	}
}

// The container path is only as real as the machine: with docker or podman
// whose engine answers, a container runs; with a CLI but no engine (docker
// without its daemon) the runtime is refused, honestly, and the refusal is
// audited; with neither, the same.
func TestContainerRuntime(t *testing.T) {
	rt, findErr := FindRuntime(context.Background())
	if err := findErr; err != nil {
		var re *RuntimeError
		if !errors.As(err, &re) {
			t.Fatalf("error %T %v, want a RuntimeError", err, err)
		}
		_, dockerErr := exec.LookPath("docker")
		_, podmanErr := exec.LookPath("podman")
		if (dockerErr == nil || podmanErr == nil) != strings.Contains(err.Error(), "engine does not answer") {
			t.Errorf("error %q does not say why", err)
		}
		pool := pgtest.New(t)
		approveAll(t, pool, []manifest.Candidate{{Manifest: containerTool(nil, manifest.Permissions{}), Source: "t"}})
		res, err := run(t, pool, &Runner{ContainerErr: findErr}, "wc", `{}`)
		if !errors.As(err, &re) || res.Status != StatusError || res.ExecutionID == 0 || res.Error != findErr.Error() {
			t.Errorf("without a runtime: %+v %v", res, err)
		}
		t.Skipf("no container engine on this machine (%v): the refusal was tested, running a container was not", findErr)
	}
	out, err := exec.Command(rt.Runtime, "image", "inspect", "busybox:1.36").CombinedOutput()
	if err != nil {
		t.Skipf("%s answers but has no busybox:1.36 image (and tests do not pull): %s", rt.Runtime, out)
	}
	pool := pgtest.New(t)
	approveAll(t, pool, []manifest.Candidate{{Manifest: containerTool(nil, manifest.Permissions{}), Source: "t"}})
	res, err := run(t, pool, &Runner{Container: rt}, "wc", `{"a": 1}`)
	if err != nil || res.Status != StatusOK || !slices.Contains([]string{"8", `"8"`}, string(res.Output)) {
		t.Errorf("container run: %+v %v", res, err)
	}
}

// TestReadCgroup: a container's cost comes from its cgroup, v1 controllers
// or the v2 hierarchy, as the kernel writes them.
func TestReadCgroup(t *testing.T) {
	root := t.TempDir()
	write := func(path, content string) {
		t.Helper()
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v2 := parseProcCgroup([]byte("0::/system.slice/docker-abc.scope\n"))
	write("system.slice/docker-abc.scope/cpu.stat", "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\nnr_periods 0\n")
	write("system.slice/docker-abc.scope/memory.current", "10485760\n")
	write("system.slice/docker-abc.scope/memory.peak", "20971520\n")
	cpu, mem, peak, ok := readCgroup(root, v2)
	if !ok || cpu != 1234567*time.Microsecond || mem != 10<<20 || peak != 20<<20 {
		t.Errorf("v2: %v %d %d %v", cpu, mem, peak, ok)
	}
	v1 := parseProcCgroup([]byte("12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n0::/\n"))
	write("cpuacct/docker/abc/cpuacct.usage", "2500000000\n")
	write("memory/docker/abc/memory.usage_in_bytes", "1048576\n")
	write("memory/docker/abc/memory.max_usage_in_bytes", "3145728\n")
	cpu, mem, peak, ok = readCgroup(root, v1)
	if !ok || cpu != 2500*time.Millisecond || mem != 1<<20 || peak != 3<<20 {
		t.Errorf("v1: %v %d %d %v", cpu, mem, peak, ok)
	}
	if _, _, _, ok := readCgroup(root, parseProcCgroup([]byte("0::/../../etc\n"))); ok {
		t.Error("a path with .. was followed")
	}
}
