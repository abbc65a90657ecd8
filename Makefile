# The two commands of the README: `make tune` (build, tune examples/shapes.yaml on the CPU
# into the default database, print the table) and `make test` (build, run every test).
BUILD ?= build
JOBS ?= $(shell nproc)
DEVICE ?= cpu
SHAPES ?= examples/shapes.yaml
TUNE_ARGS ?=

.PHONY: all deps test-deps build test tune bench clean
all: build

# what building and tuning need; the tests' tools only for make test
deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

# The build says one line; CMake's output goes to $(BUILD)/build.log, shown if it fails.
build: deps
	@mkdir -p $(BUILD)
	@{ cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release && cmake --build $(BUILD) -j $(JOBS); } \
	  >$(BUILD)/build.log 2>&1 || { cat $(BUILD)/build.log; echo "make: the build failed (log: $(BUILD)/build.log)"; exit 1; }
	@echo "built $(BUILD)/ ($$(grep -cE ':[0-9]+:[0-9]+: warning:' $(BUILD)/build.log) compiler warnings; log: $(BUILD)/build.log)"

# ctest-summary.sh: the suite, then its skips by cause; it fails where a test failed, did
# not run, or skipped for a cause this machine does not have (GPU tests skip without a GPU)
test: test-deps build
	@scripts/ctest-summary.sh $(BUILD) -j $(JOBS)
	@scripts/test-sanitizers.sh
	@scripts/fuzz.sh

tune: build
	$(BUILD)/mmtune --device $(DEVICE) --shapes $(SHAPES) $(TUNE_ARGS)

bench: build
	$(BUILD)/mmtune bench --device $(DEVICE) --shapes $(SHAPES)

clean:
	rm -rf $(BUILD)
