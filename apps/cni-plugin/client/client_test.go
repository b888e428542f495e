package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestEncodeRequest(t *testing.T) {
	got := encodeRequest([]string{"CNI_COMMAND=ADD", "A=b=c", "BAD", "=x", "A=again", "N=with\x00nul"}, []byte(`{"x":1}`))
	want := "CNI_COMMAND=ADD\x00A=b=c\x00\x00{\"x\":1}"
	if string(got) != want {
		t.Fatalf("encodeRequest = %q, want %q", got, want)
	}
}

func answer(stdout, stderr string, exit string) []byte {
	body := stdout + stderr
	return []byte(fmt.Sprintf("HTTP/1.0 200 OK\r\nx-cni-exit-code: %s\r\nx-cni-stdout-length: %d\r\ncontent-length: %d\r\n\r\n%s",
		exit, len(stdout), len(body), body))
}

func TestParseAnswer(t *testing.T) {
	ok := parseAnswer(answer(`{"ips":[]}`, "log line\n", "1"))
	if ok.kind != replyAnswer || string(ok.stdout) != `{"ips":[]}` || string(ok.stderr) != "log line\n" || ok.exitCode != 1 {
		t.Fatalf("answer: %+v", ok)
	}
	for name, raw := range map[string]string{
		"no answer":                            "",
		"an incomplete answer":                 "HTTP/1.0 200 OK\r\nx-cni",
		"the agent answered 421: another node": "HTTP/1.0 421 Misdirected\r\nx-netledger-fallback: another node\r\ncontent-length: 0\r\n\r\n",
		"the agent answered garbage":           "hello\r\n\r\n",
		"a malformed answer":                   "HTTP/1.0 200 OK\r\nx-cni-exit-code: 7\r\nx-cni-stdout-length: 0\r\ncontent-length: 0\r\n\r\n",
	} {
		r := parseAnswer([]byte(raw))
		if r.kind != replyFallback || r.reason != name {
			t.Errorf("%q: got %+v, want a fallback saying %q", raw, r, name)
		}
	}
	cut := answer("abc", "", "0")
	if r := parseAnswer(cut[:len(cut)-1]); r.kind != replyFallback || r.reason != "an incomplete answer" {
		t.Errorf("a body cut short: %+v", r)
	}
}

func TestReadClientConf(t *testing.T) {
	c := readClientConf([]byte(`{"cniVersion":"0.4.0","agent_socket":"/top.sock","agent_connect_timeout":5,"ipam":{"agent_socket":"/ipam.sock","agent_answer_timeout":15,"agent_connect_timeout":null}}`))
	if c.err != nil || c.agentSocket != "/ipam.sock" || c.answerTimeout != 15*time.Second ||
		c.connectTimeout != 5*time.Second || c.cniVersion != "0.4.0" {
		t.Fatalf("conf: %+v", c)
	}
	if c := readClientConf([]byte("not json")); c.err != nil || c.agentSocket != defaultAgentSocket {
		t.Fatalf("not JSON gets the defaults: %+v", c)
	}
	// The plugin's own codes and messages (packages/cni/src/net-conf.ts).
	for bad, want := range map[string]cniError{
		`{"ipam":{"agent_socket":"rel<&>.sock"}}`:   {code: 7, msg: `agent_socket "rel<&>.sock" is not an absolute path`},
		`{"ipam":{"agent_socket":7}}`:               {code: 6, msg: "failed to load netconf: agent_socket must be a JSON string, got number"},
		`{"ipam":{"agent_answer_timeout":0}}`:       {code: 7, msg: "agent_answer_timeout 0 is not a whole number of seconds from 1 to 600"},
		`{"agent_connect_timeout":1.5}`:             {code: 7, msg: "agent_connect_timeout 1.5 is not a whole number of seconds from 1 to 60"},
		`{"ipam":{"agent_connect_timeout":"2"}}`:    {code: 6, msg: "failed to load netconf: agent_connect_timeout must be a JSON number, got string"},
		`{"ipam":{"agent_answer_timeout":{"s":1}}}`: {code: 6, msg: "failed to load netconf: agent_answer_timeout must be a JSON number, got object"},
	} {
		if c := readClientConf([]byte(bad)); c.err == nil || *c.err != want {
			t.Errorf("%s: want %+v, got %+v", bad, want, c.err)
		}
	}
}

// fakeAgent listens on a socket in a temp dir and serves each connection with serve.
func fakeAgent(t *testing.T, serve func(request []byte, conn net.Conn)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "node.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				r := bufio.NewReader(conn)
				length := 0
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if strings.HasPrefix(strings.ToLower(line), "content-length:") {
						fmt.Sscan(strings.TrimSpace(line[len("content-length:"):]), &length)
					}
					if line == "\r\n" {
						break
					}
				}
				body := make([]byte, length)
				if _, err := io.ReadFull(r, body); err != nil {
					return
				}
				serve(body, conn)
			}()
		}
	}()
	return path
}

func TestAskAgent(t *testing.T) {
	var seen []byte
	socket := fakeAgent(t, func(req []byte, conn net.Conn) {
		seen = req
		conn.Write(answer(`{"cniVersion":"1.0.0"}`, "", "0"))
	})
	body := encodeRequest([]string{"CNI_COMMAND=ADD"}, []byte("{}"))
	r := askAgent(agentCall{socket: socket, connectTimeout: time.Second, answerTimeout: 5 * time.Second, body: body})
	if r.kind != replyAnswer || string(r.stdout) != `{"cniVersion":"1.0.0"}` || !bytes.Equal(seen, body) {
		t.Fatalf("answer: %+v, agent saw %q", r, seen)
	}

	missing := filepath.Join(t.TempDir(), "none.sock")
	if r := askAgent(agentCall{socket: missing, connectTimeout: time.Second, answerTimeout: time.Second, body: body}); r.kind != replyFallback || r.reason != missing+": ENOENT" {
		t.Fatalf("no socket: %+v", r)
	}

	silent := fakeAgent(t, func([]byte, net.Conn) { time.Sleep(time.Hour) })
	r = askAgent(agentCall{socket: silent, connectTimeout: time.Second, answerTimeout: 200 * time.Millisecond, body: body})
	if r.kind != replyTimedOut {
		t.Fatalf("a silent agent: %+v", r)
	}
}

// install lays out a client with a fake Node.js fallback (a shell script) and returns its path.
func install(t *testing.T, nodeScript string) string {
	t.Helper()
	dir := t.TempDir()
	self := filepath.Join(dir, "netledger-ipam")
	if err := os.WriteFile(self, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if nodeScript == "" {
		return self
	}
	lib := filepath.Join(dir, fallbackDirName)
	os.Mkdir(lib, 0o755)
	os.WriteFile(filepath.Join(lib, fallbackEntry), []byte("// bundle\n"), 0o644)
	os.WriteFile(filepath.Join(lib, fallbackNode), []byte("#!/bin/sh\n"+nodeScript), 0o755)
	return self
}

func runFallbackFor(t *testing.T, self string, input string) (int, string, string) {
	var out, errOut bytes.Buffer
	status := runFallback(fallbackRun{self: self, environ: []string{"CNI_COMMAND=ADD", "PATH=/usr/bin:/bin"},
		input: []byte(input), stdout: &out, stderr: &errOut, reason: "no agent", socket: "/run/x.sock", cniVersion: "1.0.0"})
	return status, out.String(), errOut.String()
}

func TestRunFallback(t *testing.T) {
	// The fallback gets the request on stdin, the client's path and the reason in its environment.
	self := install(t, `cat; echo; echo "$NETLEDGER_CLIENT|$NETLEDGER_FALLBACK_REASON|$1" >&2; exit 101`)
	status, out, errOut := runFallbackFor(t, self, `{"req":1}`)
	if status != 1 || out != "{\"req\":1}\n" || !strings.Contains(errOut, self+"|no agent|") || !strings.HasSuffix(strings.TrimSpace(errOut), fallbackEntry) {
		t.Fatalf("status %d, stdout %q, stderr %q", status, out, errOut)
	}
	// Node.js failing before the plugin answered is CNI error JSON, not a bare status.
	status, out, _ = runFallbackFor(t, install(t, "echo partial; exit 3"), "{}")
	var e struct {
		Code int
		Msg  string
	}
	if status != 1 || json.Unmarshal([]byte(out), &e) != nil || e.Code != codeInternal || !strings.Contains(e.Msg, "exited with status 3 before the plugin answered") {
		t.Fatalf("status %d, stdout %q", status, out)
	}
	// No fallback installed: code 11 naming the socket.
	status, out, _ = runFallbackFor(t, install(t, ""), "{}")
	if status != 1 || json.Unmarshal([]byte(out), &e) != nil || e.Code != codeTryAgainLater || !strings.Contains(e.Msg, "no netledger-node answers at /run/x.sock (no agent)") {
		t.Fatalf("status %d, stdout %q", status, out)
	}
}

// TestLockHelper runs two helpers (this test binary in the helper's role) on one file: the second
// is answered "locked" only after the first unlocks, and the file stays.
func TestLockHelper(t *testing.T) {
	if os.Getenv("NETLEDGER_TEST_LOCK_HELPER") == "1" {
		os.Exit(serveLocks(os.Stdin, os.Stdout))
	}
	path := filepath.Join(t.TempDir(), "ipam.lock")
	start := func() (io.WriteCloser, *bufio.Reader, *exec.Cmd) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelper$")
		cmd.Env = append(os.Environ(), "NETLEDGER_TEST_LOCK_HELPER=1")
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { in.Close(); cmd.Wait() })
		return in, bufio.NewReader(out), cmd
	}
	in1, out1, _ := start()
	in2, out2, _ := start()
	fmt.Fprintf(in1, "lock %s\n", path)
	if line, _ := out1.ReadString('\n'); line != "locked\n" {
		t.Fatalf("first: %q", line)
	}
	// What calico-ipam does (flock on the same file) would wait too.
	probe, _ := os.Open(path)
	defer probe.Close()
	if err := syscall.Flock(int(probe.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != syscall.EWOULDBLOCK {
		t.Fatalf("flock by another process while the helper holds the lock: %v", err)
	}
	fmt.Fprintf(in2, "lock %s\n", path)
	second := make(chan string, 1)
	go func() { line, _ := out2.ReadString('\n'); second <- line }()
	select {
	case line := <-second:
		t.Fatalf("the second got %q while the first held the lock", line)
	default:
	}
	fmt.Fprintln(in1, "unlock")
	if line, _ := out1.ReadString('\n'); line != "unlocked\n" {
		t.Fatalf("unlock: %q", line)
	}
	if line := <-second; line != "locked\n" {
		t.Fatalf("second: %q", line)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the lock file is gone: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link.lock")
	os.Symlink(path, link)
	fmt.Fprintf(in1, "lock %s\n", link)
	if line, _ := out1.ReadString('\n'); !strings.HasPrefix(line, "error ") {
		t.Fatalf("a symlink: %q", line)
	}
}
