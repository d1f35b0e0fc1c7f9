package main

// The garbage-collector, namespace and clusterrole-aggregation controllers
// (the last fills in the built-in admin/edit/view roles) run in a child process of
// this same binary: kube-controller-manager and kube-apiserver each install
// process-global state (signal handlers, feature gates, metrics) that is not
// meant to be shared in one process.

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func startControllerManager(kubeconfig, dir string) (*exec.Cmd, io.WriteCloser, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	logFile, err := os.OpenFile(filepath.Join(dir, "controller-manager.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	c := exec.Command(self, "controller-manager",
		"--kubeconfig="+kubeconfig,
		"--controllers=garbagecollector,namespace,clusterrole-aggregation",
		"--leader-elect=false",
		"--secure-port=0",
		"--concurrent-gc-syncs=5",
		"--concurrent-namespace-syncs=5",
	)
	c.Stdout = logFile
	c.Stderr = logFile
	stdin, err := c.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := c.Start(); err != nil {
		return nil, nil, err
	}
	return c, stdin, nil
}

func runControllerManager(args []string) {
	// The parent holds our stdin open; when it goes away, so do we.
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	cmd := kcm.NewControllerManagerCommand()
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "controller-manager: %v\n", err)
		os.Exit(1)
	}
}
