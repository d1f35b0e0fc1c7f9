package main

// kube-controller-manager in a child process of this same binary
// (`kube-testenv controller-manager …`): kube-controller-manager and
// kube-apiserver each install process-global state (signal handlers, feature
// gates, metrics) that is not meant to be shared in one process.
//
// --with-controllers runs the garbage-collector, namespace and
// clusterrole-aggregation controllers (the last fills in the built-in
// admin/edit/view roles). --with-workloads adds the controllers that turn
// workload objects into pods and report their status, and the service-account
// controllers, which sign legacy token Secrets with the key the apiserver
// verifies (pki.SAKey is both the apiserver's --service-account-key-file and our
// --service-account-private-key-file).

import (
	"fmt"
	"os"
	"strings"

	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

var baseControllers = []string{
	"garbage-collector-controller",
	"namespace-controller",
	"clusterrole-aggregation-controller",
}

var workloadControllers = []string{
	"deployment-controller",
	"replicaset-controller",
	"replicationcontroller-controller",
	"statefulset-controller",
	"daemonset-controller",
	"job-controller",
	"cronjob-controller",
	"ttl-after-finished-controller",
	"endpointslice-controller",
	"endpointslice-mirroring-controller",
	"serviceaccount-controller",
	"serviceaccount-token-controller",
	"root-ca-certificate-publisher-controller",
	"disruption-controller",
	"pod-garbage-collector-controller",
	// Removes the node.kubernetes.io/not-ready taint that admission puts on every new
	// Node once KWOK reports it Ready (and would taint a node whose Lease stops).
	"node-lifecycle-controller",
}

func controllerManagerArgs(kubeconfig string, certs pki, workloads bool) []string {
	controllers := baseControllers
	if workloads {
		controllers = append(append([]string{}, baseControllers...), workloadControllers...)
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--controllers=" + strings.Join(controllers, ","),
		"--leader-elect=false",
		"--secure-port=0",
		"--concurrent-gc-syncs=5",
		"--concurrent-namespace-syncs=5",
	}
	if workloads {
		args = append(args,
			"--service-account-private-key-file="+certs.SAKey,
			"--root-ca-file="+certs.ServingCA,
			// podgc deletes finished pods beyond this count (default 12500): keeps a
			// long-lived dev cluster's etcd small.
			"--terminated-pod-gc-threshold=200",
		)
	}
	return args
}

func runControllerManager(args []string) {
	exitOnStdinClose()
	cmd := kcm.NewControllerManagerCommand()
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "controller-manager: %v\n", err)
		os.Exit(1)
	}
}
