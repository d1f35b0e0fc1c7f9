// Command kube-testenv runs a real Kubernetes control plane on loopback:
// an embedded etcd and an in-process kube-apiserver; optionally the
// garbage-collector and namespace controllers (--with-controllers) or, with
// --with-workloads, the workload controllers, kube-scheduler and KWOK-simulated
// nodes, each in a child process. It exists so that kgraph's integration tests
// and local development talk to the real API server machinery (server-side
// apply, CRDs, watches, RBAC, rollouts) rather than a fake.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/storage/wal"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
)

type ports struct {
	EtcdClient int `json:"etcdClient"`
	EtcdPeer   int `json:"etcdPeer"`
	APIServer  int `json:"apiserver"`
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "controller-manager":
			runControllerManager(os.Args[2:])
			return
		case "scheduler":
			runScheduler(os.Args[2:])
			return
		case "kwok":
			runKwok(os.Args[2:])
			return
		}
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "kube-testenv: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("kube-testenv", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "", "directory for etcd data, PKI and the admin kubeconfig (required)")
	ephemeral := fs.Bool("ephemeral", true, "run etcd without fsync (tests only)")
	withControllers := fs.Bool("with-controllers", false, "also run the garbage-collector and namespace controllers")
	withWorkloads := fs.Bool("with-workloads", false, "also run the workload controllers, kube-scheduler and KWOK-simulated nodes (implies --with-controllers)")
	nodeCount := fs.Int("nodes", 3, "simulated nodes with --with-workloads")
	zoneCount := fs.Int("zones", 2, "zones the simulated nodes are spread over (round-robin)")
	exitOnStdinClose := fs.Bool("exit-on-stdin-close", true, "terminate when standard input reaches EOF (no orphans after a crashed test run)")
	certValidity := fs.Duration("cert-validity", 7*24*time.Hour, "validity of leaf certificates")
	quotaBytes := fs.Int64("etcd-quota-bytes", 2<<30, "etcd backend quota")
	traceReceiver := fs.Bool("trace-receiver", false, "run an OTLP/gRPC trace receiver (spans to <data-dir>/traces.jsonl) and trace kube-apiserver into it")
	var extra multiFlag
	fs.Var(&extra, "apiserver-arg", "extra kube-apiserver flag, repeatable (e.g. --feature-gates=X=true)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dataDir == "" {
		return errors.New("--data-dir is required")
	}
	if *withWorkloads {
		*withControllers = true
	}
	if *nodeCount < 0 || *zoneCount < 1 || *zoneCount > 26 {
		return errors.New("--nodes must be >= 0 and --zones between 1 and 26")
	}
	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}

	if *exitOnStdinClose {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			fmt.Fprintln(os.Stderr, "kube-testenv: stdin closed, shutting down")
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
			time.Sleep(20 * time.Second)
			os.Exit(2)
		}()
	}

	p, err := loadOrPickPorts(filepath.Join(dir, "ports.json"))
	if err != nil {
		return err
	}

	etcd, etcdURL, err := startEtcd(dir, p, *ephemeral, *quotaBytes)
	if err != nil {
		return err
	}
	defer etcd.Close()

	certs := pkiPaths(filepath.Join(dir, "pki"))
	if err := ensurePKI(certs, *certValidity); err != nil {
		return fmt.Errorf("pki: %w", err)
	}

	server := fmt.Sprintf("https://127.0.0.1:%d", p.APIServer)
	apiArgs := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", p.APIServer),
		"--tls-cert-file=" + certs.ServingCert,
		"--tls-private-key-file=" + certs.ServingKey,
		"--client-ca-file=" + certs.ClientCA,
		"--service-account-issuer=" + server + "/",
		"--service-account-key-file=" + certs.SAKey,
		"--service-account-signing-key-file=" + certs.SAKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		"--disable-admission-plugins=ServiceAccount",
		"--allow-privileged=true",
		"--endpoint-reconciler-type=none",
		"--cert-dir=" + filepath.Join(dir, "pki", "generated"),
	}
	otlpAddr := ""
	if *traceReceiver {
		addr, config, err := startTraceReceiver(dir)
		if err != nil {
			return fmt.Errorf("trace receiver: %w", err)
		}
		otlpAddr = addr
		apiArgs = append(apiArgs, "--tracing-config-file="+config)
	}
	apiArgs = append(apiArgs, extra...)
	cmd := apiserver.NewAPIServerCommand()
	cmd.SetArgs(apiArgs)
	apiErr := make(chan error, 1)
	go func() { apiErr <- cmd.Execute() }()

	client, err := adminHTTPClient(certs)
	if err != nil {
		return err
	}
	if err := waitReady(client, server+"/readyz", 90*time.Second, apiErr); err != nil {
		return err
	}

	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := writeKubeconfig(kubeconfig, server, certs); err != nil {
		return err
	}

	var children []*child
	stopChildren := func() {
		for _, c := range children {
			c.stop(10 * time.Second)
		}
	}
	if *withControllers {
		spawn := func(sub string, args ...string) error {
			c, err := startChild(dir, sub, args...)
			if err != nil {
				return fmt.Errorf("%s: %w", sub, err)
			}
			children = append(children, c)
			return nil
		}
		if err := spawn("controller-manager", controllerManagerArgs(kubeconfig, certs, *withWorkloads)...); err != nil {
			return err
		}
		if *withWorkloads {
			if err := spawn("scheduler", schedulerArgs(kubeconfig)...); err != nil {
				stopChildren()
				return err
			}
			if err := spawn("kwok", "--kubeconfig="+kubeconfig); err != nil {
				stopChildren()
				return err
			}
		}
		// The apiserver's own handler starts a graceful shutdown on SIGTERM, but it
		// waits on the children's open watches; stop them first.
		// (signal.Notify allows several listeners; this is not a second handler.)
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
		go func() {
			<-sigs
			for _, c := range children {
				c.kill()
			}
		}()
	}

	var nodeNames []string
	if *withWorkloads {
		shapes := nodeShapes(*nodeCount, *zoneCount)
		kc, err := kubeClient(kubeconfig)
		if err != nil {
			stopChildren()
			return err
		}
		ctx := context.Background()
		if err := ensureNodes(ctx, kc, shapes); err != nil {
			stopChildren()
			return fmt.Errorf("simulated nodes: %w", err)
		}
		if err := waitNodesReady(ctx, kc, shapes, 60*time.Second); err != nil {
			stopChildren()
			return err
		}
		for _, sh := range shapes {
			nodeNames = append(nodeNames, sh.Name)
		}
	}

	ready, _ := json.Marshal(map[string]any{
		"ready":           true,
		"server":          server,
		"kubeconfig":      kubeconfig,
		"etcd":            etcdURL,
		"pid":             os.Getpid(),
		"withControllers": *withControllers,
		"withWorkloads":   *withWorkloads,
		"nodes":           nodeNames,
		"otlp":            otlpAddr,
	})
	fmt.Println(string(ready))
	_ = os.WriteFile(filepath.Join(dir, "ready.json"), ready, 0o600)

	runErr := <-apiErr
	stopChildren()
	_ = os.Remove(filepath.Join(dir, "ready.json"))
	return runErr
}

func loadOrPickPorts(path string) (ports, error) {
	var p ports
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &p); err == nil && p.APIServer != 0 {
			return p, nil
		}
	}
	picked, err := freePorts(3)
	if err != nil {
		return p, err
	}
	p = ports{EtcdClient: picked[0], EtcdPeer: picked[1], APIServer: picked[2]}
	b, _ := json.Marshal(p)
	return p, os.WriteFile(path, b, 0o600)
}

// freePorts asks the kernel for distinct free loopback ports. Explicit ports
// are needed because etcd records its peer URL and advertises its client URL.
func freePorts(n int) ([]int, error) {
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	var out []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

func startEtcd(dir string, p ports, ephemeral bool, quota int64) (*embed.Etcd, string, error) {
	cfg := embed.NewConfig()
	cfg.Name = "default"
	cfg.Dir = filepath.Join(dir, "etcd")
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = ephemeral
	if ephemeral {
		// etcd preallocates each WAL segment, and one spare, at 64 MB: 123 MB on disk for a test plane
		// that writes a few MB. A test run starts dozens of planes (a CI run once hit ENOSPC), so an
		// ephemeral plane uses 8 MB segments; a longer-lived dev cluster keeps etcd's default.
		wal.SegmentSizeBytes = 8 * 1000 * 1000
	}
	cfg.QuotaBackendBytes = quota
	cfg.AutoCompactionMode = "periodic"
	cfg.AutoCompactionRetention = "1h"
	cfg.WatchProgressNotifyInterval = 5 * time.Second
	clientURL, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", p.EtcdClient))
	peerURL, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", p.EtcdPeer))
	cfg.ListenClientUrls = []url.URL{*clientURL}
	cfg.AdvertiseClientUrls = []url.URL{*clientURL}
	cfg.ListenPeerUrls = []url.URL{*peerURL}
	cfg.AdvertisePeerUrls = []url.URL{*peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, "", err
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, "", errors.New("etcd did not become ready within 60s")
	case err := <-e.Err():
		e.Close()
		return nil, "", fmt.Errorf("etcd: %w", err)
	}
	return e, clientURL.String(), nil
}

func adminHTTPClient(c pki) (*http.Client, error) {
	caPEM, err := os.ReadFile(c.ServingCA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	pair, err := tls.LoadX509KeyPair(c.AdminCert, c.AdminKey)
	if err != nil {
		return nil, err
	}
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs:      pool,
			Certificates: []tls.Certificate{pair},
			MinVersion:   tls.VersionTLS12,
		}},
	}, nil
}

func waitReady(client *http.Client, readyz string, timeout time.Duration, apiErr <-chan error) error {
	deadline := time.Now().Add(timeout)
	for {
		select {
		case err := <-apiErr:
			if err == nil {
				err = errors.New("exited before becoming ready")
			}
			return fmt.Errorf("kube-apiserver: %w", err)
		default:
		}
		resp, err := client.Get(readyz)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver not ready after %s", timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func writeKubeconfig(path, server string, c pki) error {
	read := func(p string) (string, error) {
		b, err := os.ReadFile(p)
		return base64.StdEncoding.EncodeToString(b), err
	}
	ca, err := read(c.ServingCA)
	if err != nil {
		return err
	}
	cert, err := read(c.AdminCert)
	if err != nil {
		return err
	}
	key, err := read(c.AdminKey)
	if err != nil {
		return err
	}
	body := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: testenv
  context:
    cluster: testenv
    user: admin
current-context: testenv
`, server, ca, cert, key)
	return os.WriteFile(path, []byte(body), 0o600)
}
