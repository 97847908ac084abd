# orrery: build, test, run and benchmark.
#
#   make            build build/orrery
#   make deps       install the Debian packages the build needs (apt-get),
#                   and try the optional ones (Slurm, for tests/scripts/test_slurm.sh)
#   make run        deps + build + a default simulation, summary on stdout
#   make test       deps + build + every test suite and script test
#   make check      make test, then fuzz-short, lint and check-valgrind (CI)
#   make check-asan the suites under AddressSanitizer + UndefinedBehaviorSanitizer
#   make check-valgrind the suites under valgrind's memcheck
#   make lint       cppcheck and clang-tidy, no findings allowed
#   make bench      benchmarks, CSV in build/bench.csv
#   make bench-large the 131,072-rank and GPT-3 cases, CSV in build/bench-large.csv
#   make fuzz       the libFuzzer targets (tests/fuzz/), FUZZ_SECONDS (60) each
#   make fuzz-short the same for 10 s each (CI)
#
# Sources are found by wildcard: a new module is a new .c file in its layer,
# a new suite is a new tests/<layer>/test_<module>.c (or tests/scripts/test_<name>.sh,
# a bash test printing "ok NAME" / "FAIL NAME" lines).

CC       ?= cc
BUILD    ?= build
PKGS     := glib-2.0 libxml-2.0 libprotobuf-c json-glib-1.0 yaml-0.1 zlib
WARN     := -std=c11 -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes \
            -Wstrict-prototypes -fno-common
# -O3 and link-time optimisation of build/orrery: 8.7 % fewer instructions
# and 3 to 6 % less CPU time on issue 17's Llama-2 row with symmetry classes,
# 5.7 % and 2 to 7 % every rank (tests/README.md, "Start-up and build flags").
# The objects carry both forms (fat): the test and bench binaries link their
# ordinary code (-fno-lto) without redoing the whole-program pass, which
# costs each relink of build/orrery about 35 s of CPU.  LTO= turns it off.
OPT      ?= -O3 -g
LTO      ?= -flto=auto -ffat-lto-objects
# gcc runs the whole-program pass at any link that meets LTO objects unless
# told not to.
NO_LTO   := $(if $(LTO),-fno-lto)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libxml2 is not linked: sim/app/xml_lib.c opens it at the first XML input
# (its headers, from libxml2-dev, still give the types).  Linked, it and
# the libraries it needs (ICU, libstdc++, liblzma) cost every process
# 1.5 ms of CPU at start-up (sim/README.md, "Start-up: libxml2 opened on
# first use").
PKG_LIBS   = $(shell pkg-config --libs $(filter-out libxml-2.0,$(PKGS)) 2>/dev/null)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)
CPPFLAGS += -I. -I$(BUILD)/gen -D_GNU_SOURCE
CFLAGS   += $(WARN) $(OPT) $(PKG_CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm

LAYERS   := sim network system workload sim/app
LIB_SRC  := $(filter-out sim/app/main.c,$(foreach d,$(LAYERS),$(wildcard $(d)/*.c)))
LIB_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRC)) $(BUILD)/obj/gen/chakra.pb-c.o
GEN_HDR  := $(BUILD)/gen/chakra.pb-c.h $(BUILD)/gen/cluster_rng.h $(BUILD)/gen/sweep_rng.h
TEST_SRC := $(wildcard tests/*/test_*.c)
TEST_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
SCRIPT_TESTS := $(wildcard tests/scripts/test_*.sh)
TEST_SUPPORT := $(wildcard tests/support/*.c)
TEST_SUPPORT_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(TEST_SUPPORT))
BENCH_SRC := $(wildcard tests/bench/*.c)
BENCH_BIN := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))

DEBIAN_PKGS := build-essential pkg-config libglib2.0-dev libxml2-dev libxml2-utils check \
               libprotobuf-c-dev protobuf-c-compiler libjson-glib-dev libyaml-dev \
               zlib1g-dev time gnuplot-nox parallel clang libclang-rt-14-dev \
               valgrind cppcheck clang-tidy
# Optional: a real single-node Slurm for tests/scripts/test_slurm.sh, which
# skips without it.  make deps installs them when it can (root, or sudo
# without a password prompt, and a reachable mirror) and goes on without
# them when it cannot; after a failed attempt it does not try again until
# $(BUILD)/deps-optional.failed is removed (make clean).
OPTIONAL_PKGS := slurmctld slurmd slurm-client munge
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SUDO_N := $(if $(SUDO),$(SUDO) -n)

.PHONY: all deps run test check check-asan check-valgrind lint bench bench-large clean
# Keep intermediate objects (the test support code) between builds.
.SECONDARY:
all: $(BUILD)/orrery

deps:
	@installed () { dpkg-query -W -f='$${Status}' $$1 2>/dev/null | grep -q 'install ok installed'; }; \
	missing=""; for p in $(DEBIAN_PKGS); do installed $$p || missing="$$missing $$p"; done; \
	optional=""; if [ ! -e $(BUILD)/deps-optional.failed ]; then \
	  for p in $(OPTIONAL_PKGS); do installed $$p || optional="$$optional $$p"; done; \
	fi; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing \
	  || exit 1; \
	fi; \
	if [ -n "$$optional" ]; then \
	  echo "make deps: installing (optional)$$optional"; \
	  { [ -n "$$missing" ] || $(SUDO_N) apt-get update -qq; } && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO_N) apt-get install -y -qq --no-install-recommends $$optional \
	  || { mkdir -p $(BUILD) && touch $(BUILD)/deps-optional.failed; \
	       echo "make deps: could not install$$optional (optional: tests/scripts/test_slurm.sh" \
	            "will skip; rm $(BUILD)/deps-optional.failed to try again)"; }; \
	fi

# The build `orrery --version` names: git describe of the checkout
# ("unknown" outside one).  The header is rewritten only when that
# changes, so that a build of the same commit recompiles nothing.  Only
# the source directory's own checkout (.git here, a directory or a
# worktree's file): git would describe any repository above it, such as
# one a tarball was unpacked in.
VERSION := $(shell [ -e .git ] && git describe --always --dirty --abbrev=12 2>/dev/null \
                   || echo unknown)
$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(BUILD)/gen
	@v='#define ORRERY_VERSION "$(VERSION)"'; \
	 [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@
$(BUILD)/obj/sim/app/main.o: $(BUILD)/gen/version.h
.PHONY: FORCE
FORCE:

# One run of protoc-c makes both files: a grouped target (&:), so that make
# does not run it once per file and leave the header newer than the objects
# compiled in between (which rebuilt everything at the next make).
$(BUILD)/gen/chakra.pb-c.c $(BUILD)/gen/chakra.pb-c.h &: workload/chakra.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=workload --c_out=$(BUILD)/gen workload/chakra.proto

# The RelaxNG schemas (configs/NAME.rng: cluster, sweep) are compiled into
# the binary as byte arrays NAME_rng, so that build/orrery validates configs
# and sweep specs from any directory.
$(BUILD)/gen/%_rng.h: configs/%.rng
	@mkdir -p $(BUILD)/gen
	@{ echo '/* generated from $<: do not edit */'; \
	   echo 'static const unsigned char $*_rng[] = {'; \
	   od -An -v -tx1 $< | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	   echo '};'; } > $@

# Every object depends on the generated headers so that they exist before any
# compile; -MMD tracks the real header dependencies afterwards.
$(BUILD)/obj/%.o: %.c $(GEN_HDR)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(CFLAGS) $(LTO) -MMD -MP -c $< -o $@

# The generated code is not ours: compile it without -Werror's strictest bits.
$(BUILD)/obj/gen/chakra.pb-c.o: $(BUILD)/gen/chakra.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(OPT) $(LTO) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/liborrery.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/orrery: $(BUILD)/obj/sim/app/main.o $(BUILD)/liborrery.a
	$(CC) $(CFLAGS) $(LTO) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/liborrery.a $(TEST_SUPPORT_OBJ) $(GEN_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(NO_LTO) -Itests -o $@ $< $(TEST_SUPPORT_OBJ) $(BUILD)/liborrery.a \
	  $(LDFLAGS) $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/bench/%: tests/bench/%.c $(BUILD)/liborrery.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(NO_LTO) -o $@ $< $(BUILD)/liborrery.a $(LDFLAGS) $(LDLIBS)

# Build outputs only; 'make run' and 'make check' each start from 'make deps'
# so that either alone sets up a fresh Debian machine.
build-all: $(BUILD)/orrery $(TEST_BIN)
.PHONY: build-all

run: deps
	@$(MAKE) --no-print-directory $(BUILD)/orrery
	@$(MAKE) --no-print-directory $(BUILD)/run-workload
	$(BUILD)/orrery run --config configs/default.xml --workload $(BUILD)/run-workload/llama2-7b \
	  --critical-path 5 --report $(BUILD)/run-report.json

# One training iteration of Llama-2 7B on the 64 GPUs: tensor parallel 8
# (inside a node), 2 pipeline stages, data parallel 4, global batch 64.
$(BUILD)/run-workload: $(BUILD)/orrery
	@mkdir -p $@
	$(BUILD)/orrery gen transformer --preset llama2-7b --tp 8 --pp 2 --ranks 64 \
	  --global-batch 64 --micro-batch 1 --out $@/llama2-7b >/dev/null
	@touch $@

# The suites and script tests: the quick loop while working.
test: deps
	@$(MAKE) --no-print-directory build-all
	@ORRERY=$(BUILD)/orrery SHARED=../shared scripts/run-tests $(TEST_BIN) $(SCRIPT_TESTS)

# Every test, as CI runs it: the suites, a short fuzzing pass over every
# parser, the linters, and the suites again under valgrind (but for the
# three slowest there, which repeat code the others cover: `make
# check-valgrind` runs them all); the first that fails stops it.
# CI calls a plain `make check`: the two builds (gcc's, then clang's for
# the fuzz targets) get CHECK_JOBS compiles at once, as the later stages
# already use every core (scripts/lint, scripts/check-valgrind); built
# one file at a time, they kept one of CI's two cores idle for minutes.
# The suites and script tests run CHECK_JOBS at once too (scripts/run-tests).
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check: deps
	@RUN_TESTS_JOBS=$(CHECK_JOBS) $(MAKE) --no-print-directory -j$(CHECK_JOBS) test
	@echo "make check: fuzz-short (10 s per fuzz target)"
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) fuzz-short
	@echo "make check: lint"
	@$(MAKE) --no-print-directory lint
	@echo "make check: check-valgrind (VALGRIND_QUICK=1: scripts/check-valgrind says what it skips)"
	@VALGRIND_QUICK=1 $(MAKE) --no-print-directory check-valgrind
	@echo "make check: every test passed"

check-asan: deps
	@$(MAKE) --no-print-directory BUILD=build/asan LTO= \
	  OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  LDFLAGS="-fsanitize=address,undefined" build-all
	@ASAN_OPTIONS=detect_leaks=1 ORRERY=build/asan/orrery SHARED=../shared \
	  scripts/run-tests $(patsubst $(BUILD)/%,build/asan/%,$(TEST_BIN))

# Every suite under valgrind's memcheck (scripts/check-valgrind).
check-valgrind: deps
	@$(MAKE) --no-print-directory build-all
	@ORRERY=$(BUILD)/orrery SHARED=../shared scripts/check-valgrind $(TEST_BIN)

# cppcheck and clang-tidy over the sources, with the checked-in
# configuration (.clang-tidy, scripts/lint); any finding fails.
lint: deps
	@$(MAKE) --no-print-directory $(GEN_HDR) $(BUILD)/gen/version.h
	@BUILD=$(BUILD) scripts/lint

bench: deps
	@$(MAKE) --no-print-directory $(BUILD)/orrery $(BENCH_BIN)
	@BUILD=$(BUILD) scripts/bench

# The 131,072-rank and GPT-3 cases: several minutes.
bench-large: deps
	@$(MAKE) --no-print-directory $(BUILD)/orrery
	@BUILD=$(BUILD) scripts/bench --large

# Fuzzing (tests/fuzz/README.md): the library again, compiled by clang with
# coverage instrumentation and ASan + UBSan into $(FUZZ_DIR), apart from the
# gcc build; one libFuzzer binary per input parser.  Each run first replays
# tests/fuzz/regressions/<target>/, then fuzzes over the seeds (made from
# configs/ and generated traces, plus ../shared's when present) and the
# corpus it grows; findings go to $(FUZZ_DIR)/artifacts/<target>/.
FUZZ_DIR     := build/fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := chakra chakra_json decode cluster_xml astra comm_groups sweep_spec plot_data \
                sweep_xpath msccl delta
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
FUZZ_BIN     := $(patsubst %,$(FUZZ_DIR)/bin/fuzz_%,$(FUZZ_TARGETS))
.PHONY: fuzz fuzz-short fuzz-build

fuzz-build:
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_DIR) CC=$(FUZZ_CC) LTO= \
	  OPT="-O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link" $(FUZZ_DIR)/liborrery.a
	@$(MAKE) --no-print-directory $(FUZZ_BIN) $(BUILD)/orrery
	@tests/fuzz/make-corpus $(FUZZ_DIR)/seeds $(BUILD)/orrery \
	  $(if $(wildcard ../shared),../shared)

$(FUZZ_DIR)/bin/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.c tests/fuzz/fuzz_common.h \
                        $(FUZZ_DIR)/liborrery.a
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	@$(FUZZ_CC) -I. -I$(FUZZ_DIR)/gen -D_GNU_SOURCE -DFUZZ_CONFIGS_DIR='"$(CURDIR)/configs"' \
	  $(WARN) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer $(PKG_CFLAGS) -o $@ \
	  $< tests/fuzz/fuzz_common.c $(FUZZ_DIR)/liborrery.a $(PKG_LIBS) -lm

fuzz: fuzz-build
	@tests/fuzz/run $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-short:
	@$(MAKE) --no-print-directory FUZZ_SECONDS=10 fuzz

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
