package main

// An OTLP/gRPC trace receiver for tests (--trace-receiver): kube-apiserver is
// started with a TracingConfiguration pointing at it, and a traced client (kgraph
// with OTEL_EXPORTER_OTLP_ENDPOINT set to the same address) sends its spans there
// too, so one file holds both sides of every request: traces.jsonl in the data
// dir, one span a line with hex ids, the reporting service and the attributes.

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc"
)

type receivedSpan struct {
	TraceID      string         `json:"traceId"`
	SpanID       string         `json:"spanId"`
	ParentSpanID string         `json:"parentSpanId,omitempty"`
	Name         string         `json:"name"`
	Service      string         `json:"service"`
	Kind         int32          `json:"kind"`
	StartNanos   uint64         `json:"startTimeUnixNano"`
	EndNanos     uint64         `json:"endTimeUnixNano"`
	Attributes   map[string]any `json:"attributes,omitempty"`
	Status       int32          `json:"status,omitempty"`
	// Links as "<traceId>-<spanId>" (a server that does not parent on an incoming context links to it).
	Links []string `json:"links,omitempty"`
}

type traceReceiver struct {
	collectortrace.UnimplementedTraceServiceServer
	mu  sync.Mutex
	out *os.File
}

func (r *traceReceiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	enc := json.NewEncoder(r.out)
	for _, rs := range req.GetResourceSpans() {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				span := receivedSpan{
					TraceID:    hex.EncodeToString(s.GetTraceId()),
					SpanID:     hex.EncodeToString(s.GetSpanId()),
					Name:       s.GetName(),
					Service:    service,
					Kind:       int32(s.GetKind()),
					StartNanos: s.GetStartTimeUnixNano(),
					EndNanos:   s.GetEndTimeUnixNano(),
					Attributes: attributes(s.GetAttributes()),
					Status:     int32(s.GetStatus().GetCode()),
				}
				for _, l := range s.GetLinks() {
					span.Links = append(span.Links, hex.EncodeToString(l.GetTraceId())+"-"+hex.EncodeToString(l.GetSpanId()))
				}
				if len(s.GetParentSpanId()) > 0 {
					span.ParentSpanID = hex.EncodeToString(s.GetParentSpanId())
				}
				if err := enc.Encode(span); err != nil {
					return nil, err
				}
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

func attributes(kvs []*commonv1.KeyValue) map[string]any {
	if len(kvs) == 0 {
		return nil
	}
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonv1.AnyValue_StringValue:
			m[kv.GetKey()] = x.StringValue
		case *commonv1.AnyValue_IntValue:
			m[kv.GetKey()] = x.IntValue
		case *commonv1.AnyValue_DoubleValue:
			m[kv.GetKey()] = x.DoubleValue
		case *commonv1.AnyValue_BoolValue:
			m[kv.GetKey()] = x.BoolValue
		default:
			m[kv.GetKey()] = v.String()
		}
	}
	return m
}

// startTraceReceiver listens on loopback, appends spans to dir/traces.jsonl and
// writes dir/tracing.yaml for kube-apiserver's --tracing-config-file. It returns
// the receiver's address (host:port) and the config file's path.
func startTraceReceiver(dir string) (string, string, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", err
	}
	out, err := os.OpenFile(filepath.Join(dir, "traces.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return "", "", err
	}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, &traceReceiver{out: out})
	go func() { _ = srv.Serve(lis) }()
	addr := lis.Addr().String()
	config := filepath.Join(dir, "tracing.yaml")
	body := fmt.Sprintf("apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: %s\nsamplingRatePerMillion: 1000000\n", addr)
	if err := os.WriteFile(config, []byte(body), 0o600); err != nil {
		return "", "", err
	}
	return addr, config, nil
}
