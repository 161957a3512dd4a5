# rdmatop: the commands README.md names.
GO ?= go

.PHONY: build image test test-bigendian demo bench fuzz vet accuracy campaign

# What a binary says it is (--version, rdmatop_build_info) and the image's
# labels: git's name for HEAD and its commit, stamped with -ldflags. go
# build records no revision in a git worktree (golang/go#58218) nor where
# there is no .git, so the toolchain's own stamp cannot be relied on.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION) -X main.revision=$(REVISION)

build:
	CGO_ENABLED=0 $(GO) build -buildvcs=true -ldflags '$(LDFLAGS)' -o bin/rdmatop ./cmd/rdmatop

# The container image, from the repository root: the static binary
# (deploy/rdmatop, ignored by git) and deploy/Dockerfile, the binary and
# the image's labels stamped with the same VERSION and REVISION. No base
# image is pulled. IMAGE_BUILD="podman build" works as well.
IMAGE_BUILD ?= buildah bud
IMAGE ?= rdmatop:$(VERSION)
image:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o deploy/rdmatop ./cmd/rdmatop
	$(IMAGE_BUILD) -f deploy/Dockerfile --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMAGE) .

# The whole test suite: vet, every package (oracle tests need tshark,
# live-capture tests need root for network namespaces; both say why when
# skipped), then every package with goroutines again under the race
# detector (-short: the soaks run fewer ticks, the oracle reads its
# committed CSVs).
test:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) test -count=1 -timeout 20m ./...
	$(GO) test -race -short -count=1 -timeout 20m ./monitor/... ./probes/... ./rules/... ./ui/... ./demo/... ./capture/... ./cmd/... ./internal/... ./saved/... ./exporter/... ./flight/...
	@$(MAKE) --no-print-directory test-bigendian

# The netlink codec on a big-endian host (s390x runs mlx5 RoCE): its tests
# build every expected byte in the running machine's order, so under
# qemu-user they prove the codec reads and writes the host's order. And
# recordings across byte orders: a little-endian capture and its
# big-endian conversion replay alike on either kind of host.
test-bigendian:
	@if command -v qemu-s390x >/dev/null; then \
		GOARCH=s390x $(GO) test -count=1 -exec qemu-s390x ./internal/nlmsg/ && \
		GOARCH=s390x $(GO) test -count=1 -exec qemu-s390x -run 'OtherByteOrder' ./probes/rdmanl/ ./probes/dcb/ ./probes/sampler/; \
	else \
		echo "SKIP big-endian netlink codec test: qemu-s390x not found (Debian package qemu-user)"; \
	fi

# The main job on bundled data: a real Soft-RoCE capture with netem loss.
demo: build
	./bin/rdmatop replay testdata/rxe/pcap/lossy1.pcap --report

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./capture/... ./probes/... ./rules/... ./monitor/...

# Every fuzz target for a minute each. Where an execution is slow (a whole
# recording opened, a flow encoded twice and compared), the engine would
# spend its minute minimizing each new input (-fuzzminimizetime defaults
# to 60 s): FuzzFlowJSON ran 7,576 executions and then none for 50 s.
# Those two minimize for 100 executions.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzPacketDecode -fuzztime 60s ./capture/roce/
	$(GO) test -run '^$$' -fuzz FuzzDecoder -fuzztime 60s ./capture/
	$(GO) test -run '^$$' -fuzz FuzzFileSource -fuzztime 60s ./capture/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./probes/rdmanl/
	$(GO) test -run '^$$' -fuzz FuzzSplitAttrs -fuzztime 60s ./internal/nlmsg/
	$(GO) test -run '^$$' -fuzz FuzzParseText -fuzztime 60s ./probes/ethtool/
	$(GO) test -run '^$$' -fuzz FuzzDecodeLink -fuzztime 60s ./probes/rtnl/
	$(GO) test -run '^$$' -fuzz FuzzOpen -fuzztime 60s -fuzzminimizetime 100x ./probes/bundle/
	$(GO) test -run '^$$' -fuzz FuzzRecognise -fuzztime 60s ./saved/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./probes/kmsg/
	$(GO) test -run '^$$' -fuzz FuzzFlowJSON -fuzztime 60s -fuzzminimizetime 100x ./cmd/rdmatop/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./probes/owner/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./probes/dcb/
	$(GO) test -run '^$$' -fuzz FuzzParser -fuzztime 60s ./probes/nccl/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./probes/sysfs/
	$(GO) test -run '^$$' -fuzz FuzzDecodeSock -fuzztime 60s ./probes/gputcp/
	$(GO) test -run '^$$' -fuzz FuzzSockFields -fuzztime 60s ./probes/gputcp/

# Diagnosis accuracy: the tuning set, the evaluation sets (never tuned on)
# and the wire-truth campaign, each scored apart. Prints the tables and
# rewrites each set's ACCURACY.md and testdata/wiretruth/DIAGNOSIS.md (the
# test suite checks they are current and that no score falls below its
# floor).
accuracy:
	$(GO) test -count=1 -run 'TestAccuracy|TestCampaignDiagnosis' -v ./cmd/rdmatop/ -update-accuracy

# The randomized two-point campaign (issue 32, docs/wiretruth.md): draw
# RUNS runs from SEED (tools/campaign-gen), run them in the rxe-lab VM, one
# boot per RoCE MTU (test/lab/twopoint/run.sh, which writes each run's
# truth with tools/wiretruth), then judge rdmatop at both capture points
# against the truth (tools/campaign-score). Everything goes to CAMPAIGN_OUT,
# outside git; the score is CAMPAIGN_OUT/SCORE.md. A seed once scored is
# training data. The guest gets 3 GiB: its /tmp (half the memory) holds
# both full captures of a run, and a resend storm on a 3 MB READ filled
# the default 512 MiB. A workload gets 60 s (a run is drawn to take
# 15–30 s; past 60 it is a resend storm, judged as it stands).
SEED ?= 1
RUNS ?= 24
CAMPAIGN_OUT ?= /tmp/campaign-$(SEED)
campaign:
	$(GO) run ./tools/campaign-gen -seed $(SEED) -runs $(RUNS) -out $(CAMPAIGN_OUT)
	@rc=0; for m in 1500 4500; do \
		[ -f $(CAMPAIGN_OUT)/specs-mtu$$m.txt ] || continue; \
		RXE_LAB_MEM=3072 RXE_MTU=$$m SECONDS_PER_RUN=60 CLIENT_TIMEOUT=60 test/lab/twopoint/run.sh $(CAMPAIGN_OUT)/mtu$$m $(CAMPAIGN_OUT)/specs-mtu$$m.txt || rc=$$?; \
	done; \
	[ $$rc = 0 ] || echo "some lab runs failed (exit $$rc): scoring the runs that have a truth"
	$(GO) run ./tools/campaign-score -dir $(CAMPAIGN_OUT) -title "seed $(SEED), $(RUNS) runs" > $(CAMPAIGN_OUT)/SCORE.md
	@cat $(CAMPAIGN_OUT)/SCORE.md
