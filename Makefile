# pulsejack: `make demo` renders the demo with no sound card; `make test` runs every test
# against a private jackd it starts and stops itself, and the live tests again against a private
# headless PipeWire. Both install missing Debian packages.
SHELL := /bin/bash
DEBS := jackd2 libjack-jackd2-dev libsndfile1-dev libsamplerate0-dev libzita-convolver-dev libfftw3-dev \
        liblo-dev liblo-tools librubberband-dev jack-capture sox pkg-config python3-scipy \
        liblilv-dev lv2-dev lilv-utils mda-lv2 lv2-examples swh-lv2 x42-plugins avldrums.lv2 jalv \
        chromium chromium-driver iproute2 procps pipewire pipewire-bin pipewire-jack wireplumber dbus-daemon \
        python3-venv libsystemd-dev man-db bash-completion fish zsh systemd socat \
        libavformat-dev libavcodec-dev libavdevice-dev libswscale-dev ffmpeg opencv-doc python3-opencv python3-skimage \
        python3-matplotlib python3-absl python3-attr ableton-link-dev libasio-dev zam-plugins
SWIFT ?= swift
VENV := .build/venv

.PHONY: all debs deps stamp build release man demo test test-tsan bench soak sounds clean ble-peers link-peers install uninstall deb

all: build

# The Debian packages, then liblsl (the pinned pylsl wheel, scripts/lsl/requirements.txt) and
# LiteRT with BlazePose (scripts/pose/requirements.txt) in the project's venv: without them every
# feature but LSL's and camera pose's runs.
debs:
	@./scripts/install-debs.sh $(DEBS)
deps: debs $(VENV)/.lsl-installed $(VENV)/.pose-installed

# The commit `pulsejack --version` names, rewritten only when it changes (then the stamp's C file
# is touched, so even a build that first ran without it picks the commit up).
STAMP := Sources/CBuildStamp/commit.h
stamp:
	@line="#define PULSEJACK_COMMIT \"$$(git describe --always --dirty --abbrev=10 2>/dev/null || echo unknown commit)\""; \
	if [ "$$(cat $(STAMP) 2>/dev/null)" != "$$line" ]; then echo "$$line" > $(STAMP); touch Sources/CBuildStamp/build_stamp.c; fi

build: deps stamp
	$(SWIFT) build

# The project's venv under .build (Debian's python3, whatever else is on PATH; it sees Debian's
# numpy and scipy): the BLE test peers' packages (Bumble's encoders), pinned in
# scripts/ble/requirements.txt, and liblsl's wheel.
$(VENV)/.venv-made: | debs
	/usr/bin/python3 -m venv --system-site-packages $(VENV)
	touch $@
$(VENV)/.installed: scripts/ble/requirements.txt $(VENV)/.venv-made
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r scripts/ble/requirements.txt
	touch $@
$(VENV)/.lsl-installed: scripts/lsl/requirements.txt $(VENV)/.venv-made
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps --require-hashes -r scripts/lsl/requirements.txt
	touch $@
# LiteRT and BlazePose's models (scripts/pose/requirements.txt): without them every feature but
# camera pose runs; mediapipe's own Python is the pose tests' reference.
$(VENV)/.pose-installed: scripts/pose/requirements.txt $(VENV)/.venv-made
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps --require-hashes -r scripts/pose/requirements.txt
	touch $@
ble-peers: $(VENV)/.installed
# Ableton Link's independent peer for the tests (scripts/link/requirements.txt).
$(VENV)/.link-installed: scripts/link/requirements.txt $(VENV)/.venv-made
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps --require-hashes -r scripts/link/requirements.txt
	touch $@
link-peers: $(VENV)/.link-installed

demo: build
	$(SWIFT) run --skip-build pulsejack demo

# A failing run ends by listing its failures again, so the last lines of a long log name them.
# Each pass is bounded (scripts/bounded.sh, minutes): a test that hangs ends its pass, named,
# long before CI's own limit.
PASS_LIMIT = ./scripts/bounded.sh $(1)
FAILURES = status=$${PIPESTATUS[0]}; if [ $$status -ne 0 ]; then \
	if [ $$status -eq 124 ]; then echo "make: the tests did not finish in time; the last one started: $$(grep -E "^Test Case '.*' started" $(1) | tail -1)"; fi; \
	echo "make: the failing tests (whole log: $(1)):"; grep -E "error: |' failed \(" $(1) | tail -20; fi; exit $$status

# Every test against a private jackd2, then the live ones (real JACK peers and `pulsejack run`)
# again against a private headless PipeWire through its libjack; those that cannot apply there
# skip, saying why.
LIVE_TESTS := IntegrationTests|JackBackendTests|RealtimeSafetyTests.testNoAllocationOnJacksProcessThreadThroughARateChange|RealtimeSafetyTests.testJacksProcessThreadCannotBeCancelledInsideAPeriod
# The tool's offline commands, the grid's arithmetic and the docs' links meet no server: the jackd2 pass runs them.
OFFLINE_TESTS := IntegrationTests\.(CommandLineTests|MetersPlotTests|LiveGridTests|DocumentationTests|PoseCommandLineTests)/
test: build ble-peers link-peers release man
	$(SWIFT) build --build-tests
	./scripts/with-private-jackd.sh $(call PASS_LIMIT,30) $(SWIFT) test --skip-build --disable-swift-testing 2>&1 | tee .build/test.log; \
	$(call FAILURES,.build/test.log)
	./scripts/with-private-pipewire.sh $(call PASS_LIMIT,15) $(SWIFT) test --skip-build --disable-swift-testing --filter "$(LIVE_TESTS)" --skip "$(OFFLINE_TESTS)" 2>&1 \
		| tee .build/test-pipewire.log; $(call FAILURES,.build/test-pipewire.log)

# The suite under ThreadSanitizer (its own build folder; the allocation counter is built out, so
# the counting tests skip here and run in `make test`). A race anywhere fails the run. Swift's
# runtime defaults ignore_interceptors_accesses=1, which leaves a libjack thread that
# jack_client_close cancels inside read() "finished with ignores enabled": both are turned off.
# The OSC fuzz is one thread (decoder, router and engine in turn): a tenth of its million packets
# shows the race detector all it can see there; `make test` runs the million. Likewise the headroom
# test's concurrent renders: 3 s each show whether they share anything (4 minutes at 10 s here).
# IntegrationTests are left out here: their subject is the plain build's tool run as a subprocess
# (PULSEJACK_TOOL), which no sanitizer instruments, so under TSan they check only the harness —
# at about ten of CI's fifty minutes. So are the longest tests that run one thread, which show the
# race detector nothing (a day of beats, the breathing estimate's 180 cases, the plugin catalog
# beside lv2ls, ten minutes of one render loop, three renders of the demo compared: three minutes here). `make test` runs all
# of them; every library target's other tests run here.
TSAN_SKIP := ^IntegrationTests\.|HeartbeatClockTests/testChangingTempoAgainstAnIndependentReferenceOverTwentyFourHours|ModulationTests/testTheBreathingRateIsFoundInTheIntervals|^PluginsTests\.PluginCatalogTests/|OfflineRenderTests/testClickPresetAtSeventyThreeBPMPutsImpulsesOnTheContractFrames|OfflineRenderTests/testRenderIsDeterministicAndIndependentOfPeriodSize
TSAN_OPTIONS_PJ := halt_on_error=1 exitcode=66 second_deadlock_stack=1 ignore_interceptors_accesses=0 ignore_noninstrumented_modules=0 suppressions=$(CURDIR)/scripts/tsan.supp
test-tsan: deps ble-peers link-peers
	$(SWIFT) build --product pulsejack
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build-tsan
	PULSEJACK_TOOL="$(CURDIR)/.build/debug/pulsejack" PULSEJACK_FUZZ_PACKETS=100000 PULSEJACK_HEADROOM_SECONDS=3 TSAN_OPTIONS="$(TSAN_OPTIONS_PJ)" ./scripts/with-private-jackd.sh \
		$(call PASS_LIMIT,35) $(SWIFT) test --skip-build --disable-swift-testing --sanitize=thread --build-path .build-tsan --skip "$(TSAN_SKIP)" 2>&1 | tee .build-tsan/test.log; \
	$(call FAILURES,.build-tsan/test.log)

# Speed, precision and real-time safety beside peers: prints a table and writes BENCHMARKS.md.
# One section alone: .build/release/pulsejack-bench --only precision|latency|osc|cost|voices|ring|convolution|render|scsynth|plugins|guards|host|web|rest|ensemble|daw|sensors|modulation|lsl|pose|tempo|install|safety
bench: deps ble-peers link-peers
	@./scripts/install-debs.sh jconvolver supercollider-server
	$(SWIFT) build -c release --product pulsejack-bench
	$(SWIFT) build -c release --product pulsejack  # the plugins row runs the tool beside jalv
	$(MAKE) deb  # the installed sizes' row
	.build/release/pulsejack-bench

# Reliability: 10 minutes live at a 64-frame period with a changing-tempo replay, mutated OSC
# beside it and a recording (SOAK_SECONDS=60 make soak for a short one). Not part of `make test`.
soak: build
	./scripts/soak.sh

# Regenerate the shipped sounds in presets/sounds (sox synthesis).
sounds: deps
	@./scripts/install-debs.sh espeak-ng
	./presets/make-sounds.sh

# Installed as a Linux audio tool is (scripts/install.sh lists where each part goes): a release
# binary with the Swift runtime linked in (only Debian's libraries remain), the presets, liblsl,
# man pages (swift-argument-parser's generate-manual, from the same declarations as --help),
# completions and the systemd user unit. `sudo make install`; PREFIX and DESTDIR as usual.
PREFIX ?= /usr/local
DESTDIR ?=
RELEASE_BUILD := .build-install
MAN_PAGES := .build/plugins/GenerateManual/outputs/pulsejack
VERSION = $(shell sed -n 's/.*static let release = "\(.*\)".*/\1/p' Sources/pulsejack/Version.swift)
# (The toolchain's static Foundation calls mktemp, and glibc's link-time warning about it is
# printed at every static link: that one line, which names nothing of ours, is left out.)
# SwiftPM plans the whole build again (12 to 45 s here) whenever its environment differs from the
# last build's, and `make install DESTDIR=…` inside a test, or `make deb` under a test's private
# server, always differs: the release build sees only PATH and HOME (its package cache).
release: deps stamp
	set -o pipefail; env -i PATH="$$PATH" HOME="$$HOME" $(SWIFT) build -c release --product pulsejack --static-swift-stdlib --build-path $(RELEASE_BUILD) 2>&1 \
		| { grep -v "warning: the use of \`mktemp' is dangerous" || true; }
# Made again only when a source changed: `make install` inside a test (which holds .build's lock
# while it runs) must not build in .build.
man: $(MAN_PAGES)/pulsejack.1
$(MAN_PAGES)/pulsejack.1: Package.swift $(shell find Sources -name '*.swift')
	@$(MAKE) -s deps
	@rm -rf $(MAN_PAGES)
	@$(SWIFT) package generate-manual --configuration debug --multi-page --authors "The pulsejack developers" > .build/man.log 2>&1 \
		|| { cat .build/man.log; exit 1; }
install: release man
	./scripts/install.sh "$(DESTDIR)" "$(PREFIX)" $(RELEASE_BUILD)/release/pulsejack $(MAN_PAGES)
uninstall:
	./scripts/uninstall.sh "$(DESTDIR)" "$(PREFIX)"

# A Debian package (pulsejack_VERSION_ARCH.deb in .build/deb) from the same install, checked by lintian.
deb: release man
	@./scripts/install-debs.sh dpkg-dev lintian
	rm -rf .build/deb/root
	./scripts/install.sh .build/deb/root /usr $(RELEASE_BUILD)/release/pulsejack $(MAN_PAGES)
	./scripts/deb.sh .build/deb/root $(VERSION) .build/deb
	lintian --fail-on error .build/deb/pulsejack_$(VERSION)_$$(dpkg --print-architecture).deb

clean:
	rm -rf .build $(RELEASE_BUILD) pulsejack-demo.wav
