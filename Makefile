# Thin wrapper over CMake + ninja. `make check` and `make demo` install the
# Debian packages they need first (scripts/install-deps.sh).
BUILD_DIR ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=

.PHONY: all deps configure build check demo docs install clean

all: build

deps:
	./scripts/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  cmake -G Ninja -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS); \
	fi

build: configure
	ninja -C $(BUILD_DIR)

# lit (FileCheck tests) first, then ctest (GoogleTest); each prints a summary.
check: build
	ninja -C $(BUILD_DIR) check-nova-lit
	cd $(BUILD_DIR) && ctest --output-on-failure

demo: build
	BUILD_DIR=$(BUILD_DIR) ./scripts/demo.sh

docs: configure
	ninja -C $(BUILD_DIR) mlir-doc
	@echo "Generated reference: $(BUILD_DIR)/docs/Dialects, $(BUILD_DIR)/docs/Passes"

install: build
	cmake --install $(BUILD_DIR) --prefix $(or $(PREFIX),/usr/local)

clean:
	rm -rf $(BUILD_DIR)
