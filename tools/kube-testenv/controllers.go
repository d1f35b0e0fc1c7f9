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

// With workloads: what a default kind cluster runs (`--controllers=*,bootstrapsigner,tokencleaner`):
// every on-by-default controller, among them the horizontal-pod-autoscaler (it raises a workload to
// minReplicas without a metrics server), disruption, resourcequota, ttl-after-finished, endpoints,
// the volume binder and protections, node-lifecycle (removes the not-ready taint admission puts on
// every new Node once KWOK reports it Ready) and taint-eviction. Controllers behind a feature gate
// that is off, or that need flags we do not pass (CSR signing without a signing key, node IPAM
// without --allocate-node-cidrs), start as no-ops, as they do in kind.
var workloadControllers = []string{
	"*",
	"bootstrap-signer-controller",
	"token-cleaner-controller",
}

// Left out of the workload set, each for a reason tools/kube-testenv/README.md repeats:
// attach-detach waits for a kubelet to report volumes unmounted before it detaches them, and no
// kubelet runs (KWOK simulates pods, nothing mounts a volume), so it would hold each detach for six
// minutes.
var workloadControllersLeftOut = []string{
	"persistentvolume-attach-detach-controller",
}

func controllerManagerArgs(kubeconfig string, certs pki, workloads bool) []string {
	controllers := baseControllers
	if workloads {
		controllers = append([]string{}, workloadControllers...)
		for _, c := range workloadControllersLeftOut {
			controllers = append(controllers, "-"+c)
		}
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
