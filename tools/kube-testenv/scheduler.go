package main

// kube-scheduler (k8s.io/kubernetes/cmd/kube-scheduler/app) in a child process
// of this same binary (`kube-testenv scheduler …`), with its default profile:
// pods are bound by the real scheduler, so resource fit, topology spread,
// affinity and taints mean what they mean on a real cluster.

import (
	"fmt"
	"os"

	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func schedulerArgs(kubeconfig string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		// no HTTPS endpoint: nothing scrapes it, and it would need a free port
		"--secure-port=0",
	}
}

func runScheduler(args []string) {
	exitOnStdinClose()
	cmd := scheduler.NewSchedulerCommand()
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "scheduler: %v\n", err)
		os.Exit(1)
	}
}
