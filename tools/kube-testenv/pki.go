package main

// A tiny PKI for a loopback control plane: one CA for serving, one for client
// certificates, an admin client in system:masters and a service-account key.
// Files are reused when present so a persistent dev cluster keeps its identity.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

type pki struct {
	Dir         string
	ServingCA   string
	ServingCert string
	ServingKey  string
	ClientCA    string
	ClientCAKey string
	AdminCert   string
	AdminKey    string
	SAKey       string
}

func pkiPaths(dir string) pki {
	j := func(n string) string { return filepath.Join(dir, n) }
	return pki{
		Dir:         dir,
		ServingCA:   j("serving-ca.crt"),
		ServingCert: j("apiserver.crt"),
		ServingKey:  j("apiserver.key"),
		ClientCA:    j("client-ca.crt"),
		ClientCAKey: j("client-ca.key"),
		AdminCert:   j("admin.crt"),
		AdminKey:    j("admin.key"),
		SAKey:       j("sa.key"),
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ensurePKI creates whatever files are missing. validity applies to leaves.
func ensurePKI(p pki, validity time.Duration) error {
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		return err
	}
	all := []string{p.ServingCA, p.ServingCert, p.ServingKey, p.ClientCA, p.ClientCAKey, p.AdminCert, p.AdminKey, p.SAKey}
	complete := true
	for _, f := range all {
		if !fileExists(f) {
			complete = false
		}
	}
	if complete {
		return nil
	}
	now := time.Now().Add(-5 * time.Minute)
	caValidity := validity + 24*time.Hour

	servingCA, servingCAKey, err := newCA("kgraph-testenv-serving-ca", now, caValidity)
	if err != nil {
		return err
	}
	servingKey, err := newKey()
	if err != nil {
		return err
	}
	servingTmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    now,
		NotAfter:     now.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, servingTmpl, servingCA, &servingKey.PublicKey, servingCAKey)
	if err != nil {
		return err
	}

	clientCA, clientCAKey, err := newCA("kgraph-testenv-client-ca", now, caValidity)
	if err != nil {
		return err
	}
	adminKey, err := newKey()
	if err != nil {
		return err
	}
	adminTmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		NotBefore:    now,
		NotAfter:     now.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	adminDER, err := x509.CreateCertificate(rand.Reader, adminTmpl, clientCA, &adminKey.PublicKey, clientCAKey)
	if err != nil {
		return err
	}
	saKey, err := newKey()
	if err != nil {
		return err
	}

	writes := []struct {
		path string
		data []byte
	}{
		{p.ServingCA, certPEM(servingCA.Raw)},
		{p.ServingCert, certPEM(servingDER)},
		{p.ServingKey, keyPEM(servingKey)},
		{p.ClientCA, certPEM(clientCA.Raw)},
		{p.ClientCAKey, keyPEM(clientCAKey)},
		{p.AdminCert, certPEM(adminDER)},
		{p.AdminKey, keyPEM(adminKey)},
		{p.SAKey, keyPEM(saKey)},
	}
	for _, w := range writes {
		if err := os.WriteFile(w.path, w.data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", w.path, err)
		}
	}
	return nil
}

func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

func newCA(cn string, notBefore time.Time, validity time.Duration) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"kgraph"}},
		NotBefore:             notBefore,
		NotAfter:              notBefore.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

func certPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func keyPEM(k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}
