package main

// KWOK (sigs.k8s.io/kwok) plays the kubelet for the simulated nodes, as a Go
// library in a child process of this same binary (`kube-testenv kwok …`). It
// compiles against our Kubernetes 1.37 modules (it is published against 0.36;
// the client-side APIs it uses did not change), so no separate binary is needed.
//
// No container runs. KWOK's standard fast stages move objects the way a kubelet
// would report them: a node becomes Ready and heartbeats through its Lease; a
// scheduled pod becomes Running and Ready with an IP from its node's podCIDR;
// a pod owned by a Job then Succeeds; a deleted pod is finalised at once.

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/utils/clock"
	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodeheartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	kwokv1alpha1 "sigs.k8s.io/kwok/pkg/apis/v1alpha1"
	"sigs.k8s.io/kwok/pkg/client/clientset/versioned"
	"sigs.k8s.io/kwok/pkg/kwok/controllers"
	"sigs.k8s.io/kwok/pkg/log"
	kwokclient "sigs.k8s.io/kwok/pkg/utils/client"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// simulatedNodeAnnotation marks the nodes KWOK manages (the annotation KWOK's
// own docs use); nodes without it are left alone.
const simulatedNodeAnnotation = "kwok.x-k8s.io/node"

func kwokStages() (map[internalversion.StageResourceRef][]*internalversion.Stage, error) {
	out := map[internalversion.StageResourceRef][]*internalversion.Stage{}
	for _, raw := range []string{
		nodefast.DefaultNodeInit,
		nodeheartbeat.DefaultNodeHeartbeatWithLease,
		podfast.DefaultPodReady,
		podfast.DefaultPodComplete,
		podfast.DefaultPodDelete,
	} {
		// Parsed here rather than through kwok's pkg/config, which would pull
		// in kustomize for what is a YAML-to-struct conversion.
		var v kwokv1alpha1.Stage
		if err := yaml.UnmarshalStrict([]byte(raw), &v); err != nil {
			return nil, err
		}
		stage, err := internalversion.ConvertToInternalStage(&v)
		if err != nil {
			return nil, err
		}
		out[stage.Spec.ResourceRef] = append(out[stage.Spec.ResourceRef], stage)
	}
	return out, nil
}

func runKwok(args []string) {
	exitOnStdinClose()
	if err := kwokMain(args); err != nil {
		fmt.Fprintf(os.Stderr, "kwok: %v\n", err)
		os.Exit(1)
	}
}

func kwokMain(args []string) error {
	fs := flag.NewFlagSet("kwok", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "admin kubeconfig")
	cidr := fs.String("cidr", "10.244.0.0/16", "pod IP range for nodes without spec.podCIDR")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	ctx = log.NewContext(ctx, log.NewLogger(os.Stderr, log.LevelWarn))

	stages, err := kwokStages()
	if err != nil {
		return fmt.Errorf("stages: %w", err)
	}
	cs, err := kwokclient.NewClientset("", *kubeconfig)
	if err != nil {
		return err
	}
	restConfig, err := cs.ToRESTConfig()
	if err != nil {
		return err
	}
	dynamicClient, err := cs.ToDynamicClient()
	if err != nil {
		return err
	}
	restMapper, err := cs.ToRESTMapper()
	if err != nil {
		return err
	}
	restClient, err := rest.RESTClientFor(restConfig)
	if err != nil {
		return err
	}
	typedClient, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	kwokTyped, err := versioned.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	id, err := controllers.Identity()
	if err != nil {
		return err
	}
	ctr, err := controllers.NewController(controllers.Config{
		Clock:                             clock.RealClock{},
		DynamicClient:                     dynamicClient,
		RESTClient:                        restClient,
		RESTMapper:                        restMapper,
		ImpersonatingDynamicClient:        cs.ToImpersonatingDynamicClient(),
		ImpersonatingTypedClient:          cs.ToImpersonatingTypedClient(),
		TypedClient:                       typedClient,
		TypedKwokClient:                   kwokTyped,
		ManageNodesWithAnnotationSelector: simulatedNodeAnnotation + "=fake",
		CIDR:                              *cidr,
		LocalStages:                       stages,
		PodPlayStageParallelism:           4,
		NodePlayStageParallelism:          2,
		NodeLeaseParallelism:              2,
		NodeLeaseDurationSeconds:          40,
		PodsOnNodeSyncParallelism:         1,
		EnablePodsOnNodeSyncListPager:     true,
		ID:                                id,
	})
	if err != nil {
		return err
	}
	if err := ctr.Start(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
