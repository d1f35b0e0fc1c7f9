package main

// The simulated nodes: plain Node objects that this binary creates after the
// apiserver is ready and KWOK then keeps Ready. They carry the labels a cloud
// node carries (hostname, zone, region, os, arch, instance type) and a
// realistic allocatable, so the scheduler's resource fit and topology spread
// behave as on a small real cluster.

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// simulatedNodeLabel selects the nodes this binary owns (created, resized, deleted).
const simulatedNodeLabel = "kube-testenv.kgraph.dev/simulated"

type nodeShape struct {
	Name string `json:"name"`
	Zone string `json:"zone"`
}

// nodeShapes spreads n nodes round-robin over z zones: node-1 in zone-a,
// node-2 in zone-b, node-3 in zone-a, …
func nodeShapes(n, z int) []nodeShape {
	out := make([]nodeShape, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, nodeShape{Name: fmt.Sprintf("node-%d", i+1), Zone: fmt.Sprintf("zone-%c", 'a'+i%z)})
	}
	return out
}

func simulatedNode(s nodeShape, index int) *corev1.Node {
	q := resource.MustParse
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: q("4"), corev1.ResourceMemory: q("16Gi"),
		corev1.ResourcePods: q("110"), corev1.ResourceEphemeralStorage: q("100Gi"),
	}
	allocatable := corev1.ResourceList{
		corev1.ResourceCPU: q("3800m"), corev1.ResourceMemory: q("15Gi"),
		corev1.ResourcePods: q("110"), corev1.ResourceEphemeralStorage: q("95Gi"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: s.Name,
			Labels: map[string]string{
				simulatedNodeLabel:                 "true",
				"type":                             "kwok",
				"kubernetes.io/hostname":           s.Name,
				"kubernetes.io/os":                 "linux",
				"kubernetes.io/arch":               "amd64",
				"topology.kubernetes.io/zone":      s.Zone,
				"topology.kubernetes.io/region":    "local",
				"node.kubernetes.io/instance-type": "sim-4cpu-16gi",
			},
			Annotations: map[string]string{
				simulatedNodeAnnotation:        "fake",
				"node.alpha.kubernetes.io/ttl": "0",
			},
		},
		Spec: corev1.NodeSpec{
			PodCIDR:  fmt.Sprintf("10.244.%d.0/24", index),
			PodCIDRs: []string{fmt.Sprintf("10.244.%d.0/24", index)},
		},
		// A node may be created with its status; KWOK's node-initialize stage
		// keeps allocatable/capacity/addresses it finds and adds the conditions.
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: allocatable,
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.89.0.%d", index+1)},
				{Type: corev1.NodeHostName, Address: s.Name},
			},
		},
	}
}

func kubeClient(kubeconfig string) (kubernetes.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// ensureNodes makes the simulated nodes exactly `shapes`: missing ones are
// created, ones this binary made earlier and no longer wants are deleted (a
// persistent dev cluster restarted with other --nodes/--zones).
func ensureNodes(ctx context.Context, c kubernetes.Interface, shapes []nodeShape) error {
	want := map[string]bool{}
	for i, s := range shapes {
		want[s.Name] = true
		_, err := c.CoreV1().Nodes().Create(ctx, simulatedNode(s, i), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("node %s: %w", s.Name, err)
		}
	}
	list, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: simulatedNodeLabel + "=true"})
	if err != nil {
		return err
	}
	for _, n := range list.Items {
		if !want[n.Name] {
			if err := c.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("node %s: %w", n.Name, err)
			}
		}
	}
	return nil
}

// waitNodesReady returns once every node in shapes is Ready and schedulable.
func waitNodesReady(ctx context.Context, c kubernetes.Interface, shapes []nodeShape, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		notReady := []string{}
		for _, s := range shapes {
			n, err := c.CoreV1().Nodes().Get(ctx, s.Name, metav1.GetOptions{})
			if err != nil || !nodeReady(n) {
				notReady = append(notReady, s.Name)
			}
		}
		if len(notReady) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("simulated nodes not Ready after %s: %v", timeout, notReady)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// nodeReady: Ready=True and schedulable, i.e. the node-lifecycle controller has
// removed the not-ready taint that admission puts on every new Node.
func nodeReady(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady {
			return false
		}
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
