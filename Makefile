# The two commands of the README: `make demo` and `make check`.
# Everything else is CMake under build/ (and build-asan/ for `make asan`).

BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
ifeq ($(CI),true)
CMAKE_FLAGS += -DMTRIAL_WERROR=ON
endif
DEMO ?= $(BUILD)/demo

.PHONY: all build deps demo demo-reset check asan bench clean

all: build

deps:
	@scripts/install-deps

build:
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: deps build
	@if [ ! -f $(DEMO)/.mtrial/trial.yaml ]; then \
		rm -rf $(DEMO); \
		MTRIAL=$(CURDIR)/$(BUILD)/mtrial examples/create-demo $(DEMO); \
	fi
	@$(BUILD)/mtrial --trial $(DEMO)/.mtrial tui

demo-reset:
	rm -rf $(DEMO)

check: deps build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# use_tls=0: Debian's libtorch loads some 200 libraries with thread-local
# storage (OpenCV, GLib, ...); glibc then grows the DTV and gcc 12's LeakSanitizer
# reads a stale slot of it and dies ("Tracer caught signal 11") instead of
# reporting. Not scanning TLS is stricter, not looser: a block reachable only
# from TLS is reported, and tests/lsan.supp names the few glibc and GLib keep.
asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DMTRIAL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:use_tls=0:print_suppressions=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS)

bench: deps build
	@bench/run $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
