# netmedic — see README.md. `make help` lists the targets.
.DEFAULT_GOAL := all

# netmedic's version, the one place it is set: the CLIs' --version and make deb's package
VERSION := 0.1
PREFIX ?= /usr/local
DESTDIR ?=
# where make install puts the systemd units (make deb: /lib/systemd/system, Debian 12's)
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
# the docs beyond the man pages (make install-docs), and the Prometheus rules
DOCDIR ?= $(PREFIX)/share/doc/netmedic
DATADIR ?= $(PREFIX)/share/netmedic
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= gcc
HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
# make ARCH=arm64: a cross build (README), into its own BUILD (build/arm64)
ARCH := $(HOST_ARCH)
# The kernel types the BPF objects compile against: committed per architecture
# (bpf/vmlinux/README), so that the build does not depend on the build host's
# kernel; CO-RE and bpf/core_fixes.bpf.h handle the kernels that differ.
VMLINUX_H ?= bpf/vmlinux/$(ARCH)/vmlinux.h

# The CLIs, one list: each NAME is a folder, src/NAME/, with everything of
# the tool (main.c its loader and its value NAME_tool, cli.c its CLI's
# main, NAME.bpf.c its BPF, NAME.h their ABI); the scripts and tests make
# runs take the list from here (tools/tools.sh: nm_tools), and the agent
# runs the tools in its order (NM_TOOL_LIST).
TOOLS := tcpstall qdiscstuck xpsflap
export NETMEDIC_TOOLS := $(TOOLS)
# the agent (src/agent): the CLIs' detectors in one process; installed, packaged
# and given a unit and a man page as they are (tools.sh: nm_programs)
AGENT := netmedic
export NETMEDIC_AGENT := $(AGENT)
PROGRAMS := $(TOOLS) $(AGENT)

# Another ARCH: Debian's cross compiler and ARCH's libraries (make deps
# ARCH=arm64 installs them), objects and programs in build/ARCH, never
# mixed with the host's. Nothing built there runs on the host: the targets
# that run what they build (tests, docs, demo, ...) refuse.
CROSS_RUN_GOALS := test test-unit test-integration docs demo bench soak fuzz fuzz-bins deb
ifneq ($(ARCH),$(HOST_ARCH))
CROSS_COMPILE_arm64 := aarch64-linux-gnu-
CROSS_COMPILE_x86 := x86_64-linux-gnu-
CROSS_COMPILE ?= $(CROSS_COMPILE_$(ARCH))
ifeq ($(CROSS_COMPILE),)
$(error ARCH=$(ARCH): x86 or arm64)
endif
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
ifeq ($(SANITIZE),1)
$(error SANITIZE=1 is for the host's build, not ARCH=$(ARCH))
endif
ifneq ($(filter $(CROSS_RUN_GOALS),$(MAKECMDGOALS)),)
$(error make $(filter $(CROSS_RUN_GOALS),$(MAKECMDGOALS)) runs what it builds: not with ARCH=$(ARCH) (make vmtest ARCH=$(ARCH) runs it in qemu))
endif
BUILD ?= build/$(ARCH)
# make vmlinux ARCH=...: the BTF of the vmtest guest's kernel, which it boots for it
ifeq ($(origin VMLINUX_BTF),file)
VMLINUX_BTF := $(BUILD)/vm/vmlinux.btf
VMLINUX_FROM_GUEST := 1
endif
endif

# SANITIZE=1 builds userspace with ASan+UBSan into its own directory.
ifeq ($(SANITIZE),1)
BUILD ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD ?= build
SANFLAGS :=
endif

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE -Iinclude -Isrc -I$(BUILD) $(SANFLAGS) \
	-DNETMEDIC_VERSION='"$(VERSION)"'
LDLIBS := -lbpf -lelf -lz -lmnl -lmicrohttpd -lm
# -mcpu=v3: 32-bit ALU and jumps (5.1+). Its atomics beyond a plain add
# (fetch-and-add whose value is used, compare-and-swap, or, xchg) are 5.12+,
# and 5.10 refuses a program that holds one anywhere: the sources keep to
# `lock +=` (bpf/common.bpf.h), and the object rule below refuses any other
# atomic, so that one build loads on 5.10 as on 6.x (docs/KERNELS.md).
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	-fms-extensions -Wno-microsoft-anon-tag \
	-I$(BUILD) -Iinclude -Ibpf -Isrc
# Kernel types older than 5.15 (VMLINUX_H from 5.10's BTF, as make vmtest's
# check compiles) have no struct bpf_timer: bpf/core_fixes.bpf.h declares it.
BPF_TYPES_CFLAGS = $(if $(shell grep -s -m1 '^struct bpf_timer {' $(VMLINUX_H)),,-DNM_NO_BPF_TIMER)
LLVM_OBJDUMP ?= llvm-objdump

# every program links the shared runtime and every tool's steps (the agent
# runs them all); a tool's main.c is its CLI's alone
TOOL_DIRS := $(addprefix src/,$(TOOLS))
LIB_SRCS := $(wildcard src/lib/*.c) $(filter-out %/main.c %/cli.c %.bpf.c,$(wildcard $(addsuffix /*.c,$(TOOL_DIRS))))
LIB_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
BPF_HDRS := $(wildcard bpf/*.bpf.h) $(wildcard include/netmedic/*.h) $(wildcard $(addsuffix /*.h,$(TOOL_DIRS)))
LIB_HDRS := $(wildcard src/lib/*.h) $(wildcard include/netmedic/*.h) $(wildcard $(addsuffix /*.h,$(TOOL_DIRS)))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

# libFuzzer harnesses (tests/fuzz): clang, ASan+UBSan, their own objects in
# build/fuzz, whatever BUILD and SANITIZE say; the tools' builds never see
# these flags.
FUZZ_BUILD := build/fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 300
FUZZ_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -Isrc \
	-fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/%,$(FUZZ_SRCS))
FUZZ_LIB_OBJS := $(patsubst src/%.c,$(FUZZ_BUILD)/obj/%.o,$(LIB_SRCS))

.PHONY: all help deps deps-deb vmlinux bpf-objs test test-bins test-unit test-integration check-rules demo bench vmtest vmtest-matrix kernels-doc faults \
	soak fuzz fuzz-bins install install-man install-docs deb docs clean FORCE

# the CPUs a build may use at once (make test)
NPROC := $(shell nproc 2>/dev/null || echo 1)

all: $(addprefix $(BUILD)/,$(PROGRAMS)) $(BUILD)/nm-tcp $(BUILD)/nm-verify $(BUILD)/nm-docopts

help:
	@echo "make deps              install the Debian packages netmedic needs (one list: tools/deps.txt)"
	@echo "make                   build the BPF objects, skeletons and CLIs into $(BUILD)/"
	@echo "make bpf-objs          the BPF objects only (VMLINUX_H=path: against other kernel types)"
	@echo "make vmlinux           regenerate $(VMLINUX_H) from VMLINUX_BTF ($(VMLINUX_BTF))"
	@echo "make test              deps + build + unit tests + integration tests (root, real kernel)"
	@echo "make test-unit         unit tests only (no root)"
	@echo "make check-rules       promtool check/test of tools/prometheus (rules, alerts' tests, dashboard exprs; no root)"
	@echo "make fuzz              build the libFuzzer harnesses (tests/fuzz), run each FUZZ_SECONDS (300)"
	@echo "make demo              deps + build + run each CLI against its lab pathology"
	@echo "make bench             deps + build + cost and scale of every CLI, beside bpftrace (docs/PERFORMANCE.md)"
	@echo "make vmtest            deps + build + the integration suite in qemu on Debian's 6.1 kernel;"
	@echo "                       KERNEL=5.10|6.1|6.12|newest: another of Debian's kernels (arm64: 5.10|6.1)"
	@echo "make vmtest-matrix     deps + build + the smoke part on each kernel above in turn, a line each"
	@echo "                       (MATRIX='5.10 6.12': those only)"
	@echo "make kernels-doc       docs/KERNELS.md's matrix from the kernels' --list-hooks (the guests' runs, this host)"
	@echo "make faults            deps + build + the bugs injected in the 6.1 guest, tools measured (FAULTS_SHORT=1: CI's;"
	@echo "                       KERNEL=5.10|6.1|6.12; ARCH=arm64: the tsq part on arm64's 5.10 or 6.1)"
	@echo "make soak              deps + build + hours of the tools under churn, checked for leaks (SOAK_SECONDS)"
	@echo "make SANITIZE=1 ...    the same with ASan+UBSan (into build/san)"
	@echo "make ARCH=arm64 ...    cross-build for arm64 into build/arm64 (make deps ARCH=arm64 first);"
	@echo "                       make vmtest ARCH=arm64: a tagged subset in qemu-system-aarch64 (TCG)"
	@echo "make install PREFIX=/usr/local"
	@echo "make install-man        the man pages only (docs/NAME.md through lowdown), into PREFIX"
	@echo "make install-docs       the reference, design and fleet docs, and the Prometheus rules, into PREFIX"
	@echo "make deb               the build packages + a Debian package: CLIs, man pages, units (disabled), rules (DEB_DIR: $(BUILD)/)"
	@echo "make docs              rewrite the OPTIONS of docs/NAME.md, docs/reference/NAME.md and README's common options"
	@echo "                       from the option tables"

deps:
	@tools/deps.sh $(filter-out $(HOST_ARCH),$(ARCH))

# make deb's: the build packages only (tools/deps.txt's lines marked "deb")
deps-deb:
	@tools/deps.sh --deb $(filter-out $(HOST_ARCH),$(ARCH))

# Regenerates the committed header (or VMLINUX_H) from a kernel's BTF.
# ARCH=arm64 on another host: from the BTF of the kernel make vmtest boots.
vmlinux:
ifeq ($(VMLINUX_FROM_GUEST),1)
	@mkdir -p $(BUILD)/vm
	@NETMEDIC_BUILD=$(abspath $(BUILD)) VM_ARCH=$(ARCH) VM_BTF_ONLY=$(abspath $(VMLINUX_BTF)) tools/vm/run.sh
endif
	@test -r $(VMLINUX_BTF) || { echo "error: no kernel BTF at $(VMLINUX_BTF) (CONFIG_DEBUG_INFO_BTF)"; exit 1; }
	@mkdir -p $(dir $(VMLINUX_H))
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $(VMLINUX_H).tmp && mv $(VMLINUX_H).tmp $(VMLINUX_H)

# A copy of $(VMLINUX_H), rewritten only when it differs: another VMLINUX_H
# rebuilds the objects, the same one leaves them alone.
$(BUILD)/vmlinux.h: FORCE
	@mkdir -p $(@D)
	@test -r $(VMLINUX_H) || { echo "error: no $(VMLINUX_H) (make vmlinux writes it from VMLINUX_BTF)"; exit 1; }
	@cmp -s $(VMLINUX_H) $@ || cp $(VMLINUX_H) $@

# An atomic (opcode 0xc3/0xdb) with a non-zero imm is one 5.10 lacks: the
# object is refused, with the instructions named (llvm-objdump prints a
# fetch-and-add as `lock +=`: the imm tells).
# a tool's object from its folder
vpath %.bpf.c $(TOOL_DIRS)
$(BUILD)/%.bpf.o: %.bpf.c $(BPF_HDRS) $(BUILD)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) $(BPF_TYPES_CFLAGS) -c $< -o $@.tmp.o
	@$(LLVM_OBJDUMP) -d $@.tmp.o | awk '($$2 == "c3" || $$2 == "db") && $$6 $$7 $$8 $$9 != "00000000" \
		{ print; n++ } END { exit n > 0 }' >$@.atomics || { cat $@.atomics; rm -f $@.tmp.o $@.atomics; \
		echo "error: $@: atomics that kernels before 5.12 refuse (bpf/common.bpf.h says what to use)"; exit 1; }
	@rm -f $@.atomics
	$(BPFTOOL) gen object $@ $@.tmp.o && rm -f $@.tmp.o

bpf-objs: $(patsubst %,$(BUILD)/%.bpf.o,$(TOOLS))

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: src/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

# lib/optdoc, the agent and the tables' test list the tools: TOOLS, as X(NAME) ...
NM_TOOL_LIST := -DNM_TOOL_LIST='$(foreach t,$(TOOLS),X($(t)))'
$(BUILD)/obj/lib/optdoc.o $(BUILD)/obj/agent/$(AGENT).o $(BUILD)/tests/test_hooks_tables: CFLAGS += $(NM_TOOL_LIST)
$(FUZZ_BUILD)/obj/lib/optdoc.o: FUZZ_CFLAGS += $(NM_TOOL_LIST)

# A tool's loader includes its skeleton.
TOOL_MAIN_OBJS := $(patsubst %,$(BUILD)/obj/%/main.o,$(TOOLS))
$(TOOL_MAIN_OBJS): $(BUILD)/obj/%/main.o: $(BUILD)/%.skel.h

# A CLI: its main (cli.c) and its tool (main.c)
$(addprefix $(BUILD)/,$(TOOLS)): $(BUILD)/%: $(BUILD)/obj/%/cli.o $(BUILD)/obj/%/main.o $(LIB_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# The agent (src/agent/netmedic.c): every tool, each its CLI's main.o.
$(BUILD)/$(AGENT): $(BUILD)/obj/agent/$(AGENT).o $(TOOL_MAIN_OBJS) $(LIB_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# the lab's TCP endpoints (tools/lab), not a CLI
$(BUILD)/nm-tcp: tools/lab/nm-tcp.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@

# loads every program of an object, fallback rungs included (tests)
$(BUILD)/nm-verify: tools/verify.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ $(LDLIBS)

# the docs' OPTIONS from the option tables (lib/optdoc.h): make docs
$(BUILD)/nm-docopts: tools/docopts.c $(LIB_OBJS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS)

# Rewrites the regions "<!-- options: NAME -->" ... "<!-- end -->" of the
# docs: each option at length in the reference (docs/reference/NAME.md),
# as --help says it in the man page (docs/NAME.md, "options-brief");
# tests/unit/test_optdoc.c fails when one differs from the tables.
docs: $(BUILD)/nm-docopts
	$(BUILD)/nm-docopts --update README.md $(patsubst %,docs/%.md,$(TOOLS)) \
		$(patsubst %,docs/reference/%.md,$(TOOLS))

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) $(LIB_HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DNM_SRCDIR='"$(CURDIR)"' $< $(LIB_OBJS) -o $@ $(LDLIBS) -lcmocka

# test_hooks_tables and test_hooks open the built BPF objects (never load them)
$(BUILD)/tests/test_hooks_tables $(BUILD)/tests/test_hooks: | $(patsubst %,$(BUILD)/%.bpf.o,$(TOOLS))

test-bins: $(UNIT_BINS)

# instrumented for coverage (fuzzer-no-link); the harness links libFuzzer's main
$(FUZZ_BUILD)/obj/%.o: src/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB_OBJS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_LIB_OBJS) -o $@ $(LDLIBS)

fuzz-bins: $(FUZZ_BINS)

# Each harness for FUZZ_SECONDS from its seed corpus (tests/fuzz/corpus/NAME).
fuzz: fuzz-bins
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_BINS)

test-unit: $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

test-integration: all
	@NETMEDIC_BUILD=$(abspath $(BUILD)) tests/run-integration.sh

# The Prometheus rules, their unit tests and the dashboard's exprs, without
# a server (tools/prometheus/check.sh); make test runs it too.
check-rules:
	@tools/prometheus/check.sh

# The README's test command: everything a fresh machine needs, the plain
# build and the ASan+UBSan one (build/san), each built on every CPU, then
# the unit tests of both, every integration test once (tests/run-all.sh
# says with which build and as whom), and each fuzz harness for 20 s.
test: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all test-bins
	@$(MAKE) --no-print-directory -j$(NPROC) SANITIZE=1 all test-bins
	@$(MAKE) --no-print-directory -j$(NPROC) fuzz-bins
	@NETMEDIC_FUZZ="$(FUZZ_BINS)" tests/run-all.sh build build/san

demo: deps
	@$(MAKE) --no-print-directory all
	@NETMEDIC_BUILD=$(abspath $(BUILD)) tools/demo.sh

# Cost and scale of every CLI, beside what users would run instead (docs/PERFORMANCE.md).
bench: deps
	@$(MAKE) --no-print-directory all
	@NETMEDIC_BUILD=$(abspath $(BUILD)) tools/bench/run.sh

# The integration suite inside qemu on Debian's 6.1 kernel: fentry rungs, a
# second kernel. deps first: qemu, busybox-static and kmod are in the list.
# KERNEL=5.10|6.1|6.12|newest: another of Debian's kernels (tools/vm/run.sh
# says which package each is; unset: 6.1, what CI runs).
KERNEL ?=
vmtest: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@NETMEDIC_BUILD=$(abspath $(BUILD)) VM_ARCH=$(ARCH) VM_KERNEL=$(KERNEL) tools/vm/run.sh

# The smoke part (VM_SMOKE=1) on each kernel of the matrix in turn (x86:
# 5.10 6.1 6.12 newest; arm64: 5.10 6.1), each bounded: a line per kernel
# with its counts, then the total. MATRIX='5.10 6.12': those kernels only.
MATRIX ?= all
vmtest-matrix: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@NETMEDIC_BUILD=$(abspath $(BUILD)) VM_ARCH=$(ARCH) VM_MATRIX='$(MATRIX)' tools/vm/run.sh

# docs/KERNELS.md's matrix, from what each kernel's CLIs printed
# (--list-hooks): the guests' runs keep theirs (make vmtest, vmtest-matrix,
# any ARCH), this host gives its own; docs/kernels/ keeps them.
kernels-doc: all
	@mkdir -p docs/kernels
	@for f in $(BUILD)/vm/hooks/*.jsonl build/arm64/vm/hooks/*.jsonl; do \
		[ ! -e "$$f" ] || cp "$$f" docs/kernels/; done
	@tools/kernels-doc.sh docs/kernels --host $(abspath $(BUILD))
	@tools/kernels-doc.sh docs/kernels --write docs/KERNELS.md
	@echo "kernels-doc: docs/KERNELS.md's matrix from $$(ls docs/kernels | wc -l) kernels' --list-hooks"

# The headline bugs made real: fault-injection modules in the 6.1 guest, a
# real HTTP load, the tools' verdicts matched with what was injected.
faults: deps
	@$(MAKE) --no-print-directory all
	@NETMEDIC_BUILD=$(abspath $(BUILD)) VM_ARCH=$(ARCH) VM_KERNEL=$(KERNEL) tools/faults/run.sh

# Hours of the three tools under churn (flows, namespaces, remedies killed
# at random), then flat RSS and fds, parsable textfiles, nothing left
# (docs/RELIABILITY.md). SOAK_SECONDS sets the length (CI: 600).
soak: deps
	@$(MAKE) --no-print-directory all
	@NETMEDIC_BUILD=$(abspath $(BUILD)) tools/soak/run.sh

install: all install-man install-docs
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(SYSTEMDUNITDIR)
	install -m 0755 $(addprefix $(BUILD)/,$(PROGRAMS)) $(DESTDIR)$(PREFIX)/sbin/
	for t in $(PROGRAMS); do \
		sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@DOCDIR@|$(DOCDIR)|g' tools/systemd/$$t.service.in \
			> $(DESTDIR)$(SYSTEMDUNITDIR)/$$t.service || exit 1; \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$$t.service || exit 1; \
	done

# The man pages, docs/NAME.md through lowdown (section 8). The page's first
# line, "# NAME(8)", is its title on GitHub; here .TH is. No smart quotes
# or dashes: options must copy and paste as ASCII. The date is
# SOURCE_DATE_EPOCH's, else the page's last commit's, else today's. A page
# names the docs where the package puts them (/usr/share/doc/netmedic,
# /usr/share/netmedic); another PREFIX's page names its own. No
# hyphenation (.nh): a path or an identifier (tcp_backlog_ack_defer) cut
# at a line's end does not copy and paste.
# Needs no build: tests/integration/man.bats installs the pages alone.
install-man:
	install -d $(DESTDIR)$(PREFIX)/share/man/man8
	for t in $(PROGRAMS); do \
		d=; \
		[ -z "$$SOURCE_DATE_EPOCH" ] || d=$$(date -u -d "@$$SOURCE_DATE_EPOCH" +%F); \
		[ -n "$$d" ] || d=$$(git log -1 --format=%cd --date=short -- docs/$$t.md 2>/dev/null); \
		[ -n "$$d" ] || d=$$(date -u +%F); \
		md=$$(sed -e '1{/^# /d}' -e 's|/usr/share/doc/netmedic|$(DOCDIR)|g' \
			-e 's|/usr/share/netmedic|$(DATADIR)|g' docs/$$t.md) || exit 1; \
		page=$$(printf '%s\n' "$$md" | lowdown -s -Tman --out-no-smarty -M shiftheadinglevelby=-1 \
			-M title=$$(echo $$t | tr a-z A-Z) -M section=8 -M date=$$d -M source=netmedic \
			-M "volume=System Manager's Manual") || exit 1; \
		printf '%s\n' "$$page" | sed '/^\.TH /a .nh' > $(DESTDIR)$(PREFIX)/share/man/man8/$$t.8 || exit 1; \
	done

# What the man pages leave to other docs, where they name it: each tool's
# reference (docs/reference: its options at length, every output key and
# metric, the remedies, privileges, files, the unit), its design
# (docs/design), and the pages those point to; docs/X goes to DOCDIR/X, so
# that their links hold in both places. The Prometheus rules, their tests
# and the dashboard are data (DATADIR/prometheus), their README a doc.
# Needs no build, as install-man.
INSTALL_DOCS := $(wildcard docs/reference/*.md) $(wildcard docs/design/*.md) \
	docs/KERNELS.md docs/FLEET.md docs/PERFORMANCE.md docs/performance.png
install-docs:
	install -d $(DESTDIR)$(DOCDIR)/reference $(DESTDIR)$(DOCDIR)/design $(DESTDIR)$(DOCDIR)/prometheus \
		$(DESTDIR)$(DATADIR)/prometheus
	for f in $(INSTALL_DOCS); do \
		install -m 0644 $$f $(DESTDIR)$(DOCDIR)/$${f#docs/} || exit 1; \
	done
	install -m 0644 tools/prometheus/netmedic.rules.yml tools/prometheus/netmedic.test.yml \
		tools/prometheus/netmedic-dashboard.json $(DESTDIR)$(DATADIR)/prometheus/
	install -m 0644 tools/prometheus/README.md $(DESTDIR)$(DOCDIR)/prometheus/README.md

# A Debian package (tools/deb/build.sh): the CLIs built apart, in
# DEB_BUILD, with Debian's hardening flags (dpkg-buildflags), make install
# into a staging tree with PREFIX=/usr, Depends from dpkg-shlibdeps, checked
# by lintian (its overrides in tools/deb explain each tag left). Nothing
# enables or starts a unit; the only maintainer scripts stop the units when
# the package is removed and have systemd forget them (tools/deb).
DEB_BUILD ?= build/deb
DEB_DIR ?= $(BUILD)
deb: deps-deb
	@[ "$(SANITIZE)" != 1 ] || { echo "make deb: not with SANITIZE=1 (the package's CLIs are built in $(DEB_BUILD))" >&2; exit 1; }
	@VERSION=$(VERSION) DEB_BUILD=$(DEB_BUILD) DEB_DIR=$(DEB_DIR) tools/deb/build.sh

clean:
	rm -rf build

.SECONDARY:
FORCE:
