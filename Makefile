# mcp.h - build, test and check targets. Plain GNU make; `make help` lists the targets.
#
# Conventions for files in tests/ and bench/ (picked up by wildcard, no Makefile edit needed):
#   tests/test_*.c        a test; linked against build/impl.o (tests/impl.c holds the one
#                         MCP_IMPLEMENTATION). Run as `build/test_x DATA` (argv[1] = data dir).
#   tests/standalone_*.c  a test that defines MCP_IMPLEMENTATION itself (e.g. with its own
#                         allocator hooks); built alone, run the same way.
#   tests/test_*.cpp      a C++ test; built twice: against the C implementation (build/impl.o)
#                         and against mcp.h compiled as C++ (build/impl_cpp.o, suffix _cppimpl).
#   tests/servers/*.c     a helper program the tests spawn (e.g. an MCP server); a whole
#                         program like standalone_*.c, built into build/ before the tests run.
#                         Tests get MCP_TEST_SERVER=<build dir>/test_server in the environment.
#   tests/test_*.sh       a script test, run as `bash tests/test_x.sh DATA` with CC, CXX,
#                         CFLAGS, CXXFLAGS, LDFLAGS and BUILD in its environment.
#   bench/*.c             a benchmark, a whole program (it defines MCP_IMPLEMENTATION itself,
#                         e.g. to count allocations); built with -DHAVE_CJSON -lcjson when
#                         cJSON is installed; `make bench` runs `build/x DATA $(BENCH_ARGS)`.
# A test case in a C or C++ test is one function, registered by its heading (tests/test.h):
#     TEST_CASE(name) { CHECK(...); }
# anywhere after the helpers it uses; the cases run in the order they are written, after what
# main sets up. Run some alone: `build/test_x DATA --filter TEXT` (the cases whose name holds
# TEXT; several --filter: any of them; no match is an error), `build/test_x --list` (names).
# A new test program's main: `return test_main(argc, argv);` (or test_args, setup, test_run and
# TEST_DONE, as tests/test_client.c does).
# Every test prints "N passed, N failed" as its last line (", N skipped" added when a check cannot
# run on this machine; a skip is never a pass) and exits non-zero on failure.
# Environment honoured by tests: MCP_TEST_QUICK=1 asks for a reduced run (make valgrind sets
# it). TEST_JOBS (default 2): how many test programs run at once (1: one after another).
# A short benchmark run: make bench BENCH_ARGS=--quick (what .ci/run does).
#
# `make test` needs only what the README lists (gcc, g++, make, bash); everything else is
# optional and detected: OpenSSL's headers (tls_test, the TLS example, mcpc with https://),
# cJSON (a benchmark baseline), musl-gcc (a static benchmark build), a comma-decimal locale
# (test_json builds de_DE.UTF-8 into $(B)/locale with localedef when none is installed, and
# reports a skip when it cannot). The other targets name what they need in `make help`;
# .ci/run installs all of it on Debian/Ubuntu and runs every target from a fresh clone too.
# Another build folder: make B=build/mine test. Installing: make install PREFIX=/usr/local
# (DESTDIR honoured): $(PREFIX)/bin/mcpc and $(PREFIX)/include/mcp.h.

DATA         ?= tests/data
FUZZ_SECONDS ?= 60
TEST_JOBS    ?= 2
BENCH_ARGS   ?=

WARN     = -Wall -Wextra -Wpedantic -Wshadow -Werror
CFLAGS   = -std=c99 $(WARN) -O2 -g
CXXFLAGS = -std=c++11 $(WARN) -O2 -g
LDFLAGS  =
B        = build
PREFIX  ?= /usr/local
DESTDIR ?=

# `make test SANITIZE=1` (what `make asan` runs): clang with ASan + UBSan into build/asan/.
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ifeq ($(SANITIZE),1)
CC       = clang
CXX      = clang++
CFLAGS   += $(SAN_FLAGS)
CXXFLAGS += $(SAN_FLAGS)
LDFLAGS  += $(SAN_FLAGS)
B        = build/asan
export ASAN_OPTIONS  = detect_leaks=1
export UBSAN_OPTIONS = print_stacktrace=1:halt_on_error=1
endif

# OpenSSL is optional: examples/tls_openssl.c (the TLS hook), its test, and mcpc's https://
# (examples/mcpc.c built with -DMCPC_OPENSSL includes the hook) use it.
ifneq ($(wildcard /usr/include/openssl/ssl.h),)
HAVE_OPENSSL = 1
MCPC_CFLAGS  = -DMCPC_OPENSSL
MCPC_LIBS    = -lssl -lcrypto
MCPC_DEPS    = $(wildcard examples/tls_openssl.c)
endif

# cJSON is an optional baseline for the benchmarks.
ifneq ($(wildcard /usr/include/cjson/cJSON.h),)
BENCH_CFLAGS = -DHAVE_CJSON
BENCH_LIBS   = -lcjson
endif

TEST_C     = $(patsubst tests/%.c,$(B)/%,$(wildcard tests/test_*.c))
STANDALONE = $(patsubst tests/%.c,$(B)/%,$(wildcard tests/standalone_*.c))
TEST_CPP   = $(patsubst tests/%.cpp,$(B)/%,$(wildcard tests/test_*.cpp))
TEST_CPP2  = $(addsuffix _cppimpl,$(TEST_CPP))
TEST_SH    = $(wildcard tests/test_*.sh)
SERVERS    = $(patsubst tests/servers/%.c,$(B)/%,$(wildcard tests/servers/*.c))
BENCH      = $(patsubst bench/%.c,$(B)/%,$(wildcard bench/*.c))
# examples/*.c: whole programs; the TLS example only where OpenSSL's headers are installed
EXAMPLE_SRC = $(filter-out examples/tls_openssl.c,$(wildcard examples/*.c))
EXAMPLES   = $(patsubst examples/%.c,$(B)/%,$(EXAMPLE_SRC))
ifeq ($(HAVE_OPENSSL),1)
ifneq ($(wildcard examples/tls_openssl.c),)
EXAMPLES  += $(B)/tls_openssl
endif
endif
TEST_BINS  = $(TEST_C) $(STANDALONE) $(TEST_CPP) $(TEST_CPP2)
# tests/tls_test.c: the TLS hook against a local TLS server; needs OpenSSL, so only then
ifeq ($(HAVE_OPENSSL),1)
ifneq ($(wildcard tests/tls_test.c),)
TEST_BINS += $(B)/tls_test
endif
endif
HDRS       = mcp.h tests/test.h tests/calls.h tests/http_srv.h tests/feed.h
# rpc_bench also measures the client's memory in a static musl build (an embedded program's
# build), from build/rpc_bench_static, when musl-gcc is installed.
MUSL_GCC  := $(shell command -v musl-gcc 2>/dev/null)
ifneq ($(MUSL_GCC),)
ifneq ($(SANITIZE),1)
BENCH_STATIC = $(B)/rpc_bench_static
endif
endif

.PHONY: all test demo asan valgrind check fuzz bench interop conformance compare install uninstall clean help

all: $(TEST_BINS) $(SERVERS) $(BENCH) $(BENCH_STATIC) $(EXAMPLES)

$(B)/impl.o: tests/impl.c mcp.h | $(B)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/impl_cpp.o: tests/impl_cpp.cpp mcp.h | $(B)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(TEST_C): $(B)/%: tests/%.c $(B)/impl.o $(HDRS)
	$(CC) $(CFLAGS) $< $(B)/impl.o -o $@ $(LDFLAGS) -lm

$(STANDALONE): $(B)/%: tests/%.c $(HDRS) | $(B)
	$(CC) $(CFLAGS) $< -o $@ $(LDFLAGS) -lm

$(B)/standalone_random: tests/test_base.c   # it runs test_base's cases again

$(SERVERS): $(B)/%: tests/servers/%.c mcp.h | $(B)
	$(CC) $(CFLAGS) $< -o $@ $(LDFLAGS) -lm

$(B)/%.cpp.o: tests/%.cpp $(HDRS) | $(B)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(TEST_CPP): $(B)/%: $(B)/%.cpp.o $(B)/impl.o
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

$(TEST_CPP2): $(B)/%_cppimpl: $(B)/%.cpp.o $(B)/impl_cpp.o
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDFLAGS)

$(B)/tls_test: tests/tls_test.c examples/tls_openssl.c mcp.h $(HDRS) | $(B)
	$(CC) $(CFLAGS) $< -o $@ $(LDFLAGS) -lssl -lcrypto

$(B)/tls_openssl: examples/tls_openssl.c mcp.h | $(B)
	$(CC) $(CFLAGS) $< -o $@ $(LDFLAGS) -lssl -lcrypto

# mcpc without mcp.h's implementation, linked with build/impl.o: the two compile at once (the
# implementation is most of the time make demo takes)
$(B)/mcpc.o: examples/mcpc.c mcp.h $(MCPC_DEPS) | $(B)
	$(CC) $(CFLAGS) $(MCPC_CFLAGS) -DMCPC_NO_IMPLEMENTATION -c $< -o $@

$(B)/mcpc: $(B)/mcpc.o $(B)/impl.o
	$(CC) $(CFLAGS) $(B)/mcpc.o $(B)/impl.o -o $@ $(LDFLAGS) $(MCPC_LIBS) -lm

$(filter-out $(B)/tls_openssl $(B)/mcpc,$(EXAMPLES)): $(B)/%: examples/%.c mcp.h | $(B)
	$(CC) $(CFLAGS) $< -o $@ $(LDFLAGS) -lm

$(BENCH): $(B)/%: bench/%.c mcp.h | $(B)
	$(CC) $(CFLAGS) $(BENCH_CFLAGS) $< -o $@ $(LDFLAGS) $(BENCH_LIBS) -lm

$(B)/rpc_bench_static: bench/rpc_bench.c mcp.h | $(B)
	$(MUSL_GCC) -std=c99 $(WARN) -O2 -static $< -o $@ -lm

$(B):
	mkdir -p $@

# Run every test program and script; tests/run_tests.sh prints one line per program and a
# summary, and fails if any program fails. The scripts go first: they take the longest, and
# TEST_JOBS programs run at once.
test: all
	@CC="$(CC)" CXX="$(CXX)" CFLAGS="$(CFLAGS)" CXXFLAGS="$(CXXFLAGS)" LDFLAGS="$(LDFLAGS)" \
	BUILD="$(B)" MCP_TEST_SERVER="$(B)/test_server" TEST_JOBS="$(TEST_JOBS)" \
	bash tests/run_tests.sh "$(DATA)" $(TEST_SH) $(TEST_BINS)

# Sanitizers: a leak canary first proves LeakSanitizer is really active, then every test.
asan:
	@mkdir -p build/asan
	@clang $(SAN_FLAGS) -g tests/check/leak_canary.c -o build/asan/leak_canary
	@if ASAN_OPTIONS=detect_leaks=1 build/asan/leak_canary >build/asan/leak_canary.log 2>&1; \
	then echo "asan: LeakSanitizer did not report the canary leak; is it disabled?"; exit 1; \
	elif grep -q 'ERROR: LeakSanitizer: detected memory leaks' build/asan/leak_canary.log; \
	then echo "asan: LeakSanitizer is active (canary leak caught)"; \
	else cat build/asan/leak_canary.log; echo "asan: canary failed without a leak report"; exit 1; fi
	$(MAKE) --no-print-directory test SANITIZE=1

valgrind: all
	@MCP_TEST_QUICK=1 MCP_TEST_SERVER="$(B)/test_server" TEST_JOBS="$(TEST_JOBS)" TEST_WRAPPER="valgrind -q --child-silent-after-fork=yes --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1" \
	bash tests/run_tests.sh "$(DATA)" $(TEST_BINS)

# Compile the header with every compiler and build option; see tests/check/run.sh.
check:
	@bash tests/check/run.sh build/check

# libFuzzer: every tests/fuzz/fuzz_NAME.c is a target. Each runs for FUZZ_SECONDS, seeded from
# its corpus (json: JSONTestSuite; the others: tests/fuzz/corpus_NAME/), copied into
# build/fuzz/corpus_NAME/ where the fuzzer adds what it finds, with tests/fuzz/NAME.dict when
# there is one. Every target runs even if one crashes; `make fuzz` fails if any crashed or
# leaked, and the crashing input is left in build/fuzz/ (fuzz_NAME-crash-...).
# A subset: make fuzz FUZZ_TARGETS="http sse".
FUZZ_DIR     = build/fuzz
FUZZ_ALL     = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_CFLAGS  = -std=c99 $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined \
               -fno-sanitize-recover=all -fno-omit-frame-pointer

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h mcp.h
	@mkdir -p $(FUZZ_DIR)
	clang $(FUZZ_CFLAGS) $< -o $@

fuzz: $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_TARGETS))
	@failed=""; \
	for t in $(FUZZ_TARGETS); do \
	    f=fuzz_$$t; corpus=$(FUZZ_DIR)/corpus_$$t; log=$(FUZZ_DIR)/$$f.log; dict=""; \
	    mkdir -p $$corpus; \
	    if [ $$t = json ]; then cp $(DATA)/JSONTestSuite/test_parsing/*.json $$corpus/; \
	    elif [ -d tests/fuzz/corpus_$$t ]; then cp tests/fuzz/corpus_$$t/* $$corpus/; fi; \
	    if [ -f tests/fuzz/$$t.dict ]; then dict=-dict=tests/fuzz/$$t.dict; fi; \
	    echo "$$f: fuzzing for $(FUZZ_SECONDS) s, log in $$log"; \
	    if ASAN_OPTIONS=detect_leaks=1 $(FUZZ_DIR)/$$f -max_total_time=$(FUZZ_SECONDS) \
	        -print_final_stats=1 -timeout=20 $$dict -artifact_prefix=$(FUZZ_DIR)/$$f- \
	        $$corpus >$$log 2>&1; then \
	        grep -E 'stat::number_of_executed_units' $$log | sed "s/.*: */$$f: no crash; executions: /"; \
	    else \
	        tail -n 60 $$log; echo "$$f: FAILED (crash input in $(FUZZ_DIR)/$$f-*)"; failed="$$failed $$f"; \
	    fi; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: FAILED:$$failed"; exit 1; fi

bench: $(BENCH) $(BENCH_STATIC)
	@if [ -z "$(BENCH)" ]; then echo "bench: no benchmarks in bench/"; fi
	@for b in $(BENCH); do echo "== $$b $(DATA) $(BENCH_ARGS)"; $$b "$(DATA)" $(BENCH_ARGS) || exit 1; done

# The official reference servers (npm packages pinned in tests/interop/package-lock.json),
# installed with npm ci and driven through the public API; needs node and the npm registry.
interop:
	@BUILD="$(B)" bash tests/interop/run.sh

# The two-minute tour: mcpc (examples/mcpc.c) talking to the demo server (examples/demo_server.c).
# Builds only those two, side by side unless make was given -j (a fresh clone: about 10 s).
demo:
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j2) $(B)/mcpc $(B)/demo_server
	@bash examples/demo.sh $(B)

# The official MCP conformance suite (npm, pinned in tests/conformance/package-lock.json, with
# Node 22 from the npm package "node") against build/conformance-client.
conformance: all
	@BUILD="$(B)" bash tests/conformance/run.sh

# mcp.h beside other MCP clients on the same servers (tests/interop/compare.sh says which and
# what it needs).
compare:
	@BUILD="$(B)" bash tests/interop/compare.sh

install: $(B)/mcpc
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/include"
	install -m 755 $(B)/mcpc "$(DESTDIR)$(PREFIX)/bin/mcpc"
	install -m 644 mcp.h "$(DESTDIR)$(PREFIX)/include/mcp.h"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/mcpc" "$(DESTDIR)$(PREFIX)/include/mcp.h"

clean:
	rm -rf build

help:
	@echo "make            build every test, benchmark and example into $(B)/ (B=dir: another folder)"
	@echo "make test       build and run every test (DATA=$(DATA) is passed as argv[1]); needs only"
	@echo "                gcc, g++, make, bash; checks this machine cannot run are reported as skipped"
	@echo "make demo       build mcpc and the demo server only, then the tour: mcpc talking to it"
	@echo "make asan       the tests again with clang ASan+UBSan+LSan, into build/asan/ (needs clang"
	@echo "                and its sanitizer runtimes, Debian: libclang-rt-14-dev)"
	@echo "make valgrind   the test programs under valgrind (MCP_TEST_QUICK=1; needs valgrind)"
	@echo "make interop    the client against the official reference servers (npm, pinned; needs"
	@echo "                node, npm and the npm registry)"
	@echo "make conformance  the official MCP conformance suite's client scenarios (as interop; the"
	@echo "                npm package \"node\" also downloads Node 22)"
	@echo "make check      compile mcp.h with gcc, clang, g++, clang++, tcc, musl and every option"
	@echo "                (needs all of them: Debian packages clang tcc musl-tools)"
	@echo "make fuzz       libFuzzer on each of $(FUZZ_ALL), FUZZ_SECONDS=$(FUZZ_SECONDS) each"
	@echo "                (FUZZ_TARGETS=\"http sse\" runs a subset; needs clang, libclang-rt-14-dev)"
	@echo "make compare    mcp.h beside other MCP clients (bash tests/interop/compare.sh)"
	@echo "make bench      build and run the benchmarks"
	@echo "make install    mcpc into \$$(DESTDIR)$(PREFIX)/bin, mcp.h into \$$(DESTDIR)$(PREFIX)/include"
	@echo "                (PREFIX=$(PREFIX); mcpc with https:// when OpenSSL's headers are installed)"
	@echo "make uninstall  remove those two files"
	@echo "make clean      remove build/"
