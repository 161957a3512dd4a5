// Package deploy holds rdmatop's fleet kit — the container image
// definition (Dockerfile), the Kubernetes DaemonSet, Service and PodMonitor
// (kubernetes/), the Prometheus alerts and their promtool unit tests
// (prometheus/), the Grafana dashboard and the node-problem-detector plugin
// — and the tests that check them: the manifests decode strictly into the
// Kubernetes API types, the alerts pass promtool, the image builds.
package deploy
