package main

// Child processes of this same binary (controller-manager, scheduler, kwok).
// Each runs a component that installs process-global state (signal handlers,
// feature gates, metrics registries, flag sets), so each gets its own process.
// A child exits when its stdin closes, so nothing outlives the parent.

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

type child struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
}

// startChild runs `<self> <sub> args...`, logging to <dir>/<sub>.log.
func startChild(dir, sub string, args ...string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(filepath.Join(dir, sub+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	c := exec.Command(self, append([]string{sub}, args...)...)
	c.Stdout = logFile
	c.Stderr = logFile
	stdin, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	ch := &child{name: sub, cmd: c, stdin: stdin, done: make(chan struct{})}
	go func() { _ = c.Wait(); _ = logFile.Close(); close(ch.done) }()
	return ch, nil
}

// kill ends the child at once (used on SIGTERM, before the apiserver's own
// graceful shutdown, which would otherwise wait on the child's open watches).
func (c *child) kill() {
	_ = c.stdin.Close()
	_ = c.cmd.Process.Kill()
}

// stop closes stdin (the child exits by itself) and kills it after grace.
func (c *child) stop(grace time.Duration) {
	_ = c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(grace):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// exitOnStdinClose is what every child runs first: the parent holds our
// stdin open; when it goes away, so do we.
func exitOnStdinClose() {
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
}
