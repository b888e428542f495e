package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// The client's second role: the host lock's holder for the Node.js side (the node agent and the
// fallback), which has no flock(2). calico-ipam takes flock(2) on its ipam_lock_file and never
// removes the file; so does this, so a node running both plugins on one lock file serialises them.
//
// It is started as `netledger-ipam lock-helper` and reads one command per line on stdin:
//
//	lock PATH   opens PATH (created 0600 if missing, never through a symlink), waits for an
//	            exclusive flock on it, then answers "locked" (or "error MESSAGE")
//	unlock      releases it and closes the file, then answers "unlocked"
//
// The lock lives as long as this process: when its parent goes, stdin ends and it exits, which
// releases the lock. A parent that stops waiting for "locked" kills it.
const lockHelperVerb = "lock-helper"

func serveLocks(stdin io.Reader, stdout io.Writer) int {
	in := bufio.NewScanner(stdin)
	var held *os.File
	answer := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	for in.Scan() {
		line := in.Text()
		switch {
		case strings.HasPrefix(line, "lock "):
			if held != nil {
				answer("error a lock is already held")
				continue
			}
			f, err := lockFile(strings.TrimPrefix(line, "lock "))
			if err != nil {
				answer("error %s", strings.ReplaceAll(err.Error(), "\n", " "))
				continue
			}
			held = f
			answer("locked")
		case line == "unlock":
			if held != nil {
				_ = syscall.Flock(int(held.Fd()), syscall.LOCK_UN)
				held.Close()
				held = nil
			}
			answer("unlocked")
		default:
			answer("error unknown command %q", line)
		}
	}
	return 0
}

func lockFile(path string) (*os.File, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("%q is not an absolute path", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("flock %s: %w", path, err)
	}
	return f, nil
}
