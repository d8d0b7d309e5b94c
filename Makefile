# pulsejack: `make demo` renders the demo with no sound card; `make test` runs every test
# against a private jackd it starts and stops itself. Both install missing Debian packages.
SHELL := /bin/bash
DEBS := jackd2 libjack-jackd2-dev libsndfile1-dev libsamplerate0-dev libzita-convolver-dev libfftw3-dev \
        liblo-dev liblo-tools librubberband-dev jack-capture sox pkg-config python3-scipy
SWIFT ?= swift

.PHONY: all deps build demo test bench soak sounds clean

all: build

deps:
	@./scripts/install-debs.sh $(DEBS)

build: deps
	$(SWIFT) build

demo: build
	$(SWIFT) run --skip-build pulsejack demo

test: build
	$(SWIFT) build --build-tests
	./scripts/with-private-jackd.sh $(SWIFT) test --skip-build --disable-swift-testing

# Speed, precision and real-time safety beside peers: prints a table and writes BENCHMARKS.md.
# One section alone: .build/release/pulsejack-bench --only precision|latency|osc|cost|voices|ring|convolution|render|safety
bench: deps
	@./scripts/install-debs.sh jconvolver
	$(SWIFT) build -c release --product pulsejack-bench
	.build/release/pulsejack-bench

# Reliability: 10 minutes live at a 64-frame period with a changing-tempo replay, mutated OSC
# beside it and a recording (SOAK_SECONDS=60 make soak for a short one). Not part of `make test`.
soak: build
	./scripts/soak.sh

# Regenerate the shipped sounds in presets/sounds (sox synthesis).
sounds: deps
	@./scripts/install-debs.sh espeak-ng
	./presets/make-sounds.sh

clean:
	rm -rf .build pulsejack-demo.wav
