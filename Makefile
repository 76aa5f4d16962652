# Thin wrapper over CMake + ninja. `make`, `make check` and `make demo` install
# the Debian packages they need first (scripts/install-deps.sh); `make install`
# only installs what `make` built.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=

STATIC_BUILD_DIR ?= build-static

.PHONY: all deps configure build check demo docs install clean static-toolchain

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

# Installs an existing, up-to-date build and nothing else: no package
# installation, no compiling (so `sudo make install` after `make` leaves no
# root-owned files in the build tree and never runs apt behind your back).
install:
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  echo "make install: no build in $(BUILD_DIR)/: run 'make' first" >&2; exit 1; \
	fi
	@if ! ninja -C $(BUILD_DIR) -n | grep -q '^ninja: no work to do'; then \
	  echo "make install: $(BUILD_DIR)/ is out of date: run 'make' first" >&2; exit 1; \
	fi
	cmake --install $(BUILD_DIR) --prefix $(or $(PREFIX),/usr/local)

clean:
	rm -rf $(BUILD_DIR)

# nova-compile, nova-run and nova-gpt2 linked against MLIR's and LLVM's
# static archives (NOVA_STATIC_TOOLCHAIN; docs/nova-compile.md), in a build
# of their own: stripped in $(STATIC_BUILD_DIR)/nova-toolchain/bin and packed
# into $(STATIC_BUILD_DIR)/nova-toolchain.tar.xz, for a machine without LLVM.
static-toolchain: deps
	@if [ ! -f $(STATIC_BUILD_DIR)/build.ninja ]; then \
	  cmake -G Ninja -S . -B $(STATIC_BUILD_DIR) -DCMAKE_BUILD_TYPE=Release \
	    -DNOVA_STATIC_TOOLCHAIN=ON $(CMAKE_FLAGS); \
	fi
	ninja -C $(STATIC_BUILD_DIR) nova-toolchain
