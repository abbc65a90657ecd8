# The two commands of the README: `make tune` (build, tune examples/shapes.yaml on the CPU
# into the default database, print the table) and `make test` (build, run every test).
BUILD ?= build
JOBS ?= $(shell nproc)
DEVICE ?= cpu
SHAPES ?= examples/shapes.yaml
TUNE_ARGS ?=

.PHONY: all deps build test tune bench clean
all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@scripts/test-sanitizers.sh
	@scripts/fuzz.sh

tune: build
	$(BUILD)/mmtune --device $(DEVICE) --shapes $(SHAPES) $(TUNE_ARGS)

bench: build
	$(BUILD)/mmtune bench --device $(DEVICE) --shapes $(SHAPES)

clean:
	rm -rf $(BUILD)
