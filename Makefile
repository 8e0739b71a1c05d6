# Builds, installs and packages chatwire's C library.
#
#   make                          libchatwire.a and libchatwire.so (release) in target/release/
#   make install [PREFIX=/usr/local] [LIBDIR=lib] [DESTDIR=]
#                                 the header, both libraries, chatwire.pc and the CMake package
#   make uninstall [PREFIX=...] [LIBDIR=...] [DESTDIR=]
#                                 removes exactly what install put
#   make dist                     dist/chatwire-VERSION-x86_64-linux-gnu.tar.gz: the same tree,
#                                 built against glibc 2.17 so that it loads on older systems
#                                 and dist/chatwire-VERSION-x86_64-linux-musl.tar.gz: the static
#                                 archive for fully static programs (musl-gcc -static); needs
#                                 Python 3 with venv (zig comes from PyPI) and rustup
#   make dist-arm                 dist/chatwire-VERSION-aarch64-linux-gnu.tar.gz and
#                                 dist/chatwire-VERSION-armv7-linux-gnueabihf.tar.gz: the
#                                 same tree for 64-bit ARM and 32-bit hard-float ARMv7, for
#                                 glibc 2.17 (as make dist: Python 3 with venv, and rustup)
#   make dist-windows             dist/chatwire-VERSION-x86_64-windows-gnu.zip: chatwire.dll, its
#                                 import library and .def, and libchatwire.a (MinGW-w64); and
#                                 dist/chatwire-VERSION-i686-windows-gnu.zip, the same for 32-bit
#                                 Windows, where every function and callback is __stdcall
#                                 (CHATWIRE_CALL) and the DLL exports the plain names; and
#                                 both again for Windows 7 SP1 / Server 2008 R2,
#                                 dist/chatwire-VERSION-x86_64-win7-windows-gnu.zip and
#                                 ...-i686-win7-windows-gnu.zip (a pinned nightly with
#                                 rust-src, from rustup), their DLLs' imports audited
#                                 against what Windows 7 lacks (packaging/check-win7.py)
#   make dist-windows-ARCH        one of them: ARCH x86_64, i686, x86_64-win7 or i686-win7
#   make header                   regenerates include/chatwire.h from src/ffi/, and the
#                                 VBA/VB6 module from it (examples-lang/vba/chatwire.bas)
#   make check-install            installs into a temporary prefix, builds and runs programs
#                                 against it (pkg-config, shared and static; CMake), uninstalls
#   make check-many               1,000 background requests in flight through the optimized
#                                 library: median peak memory of 3 processes under 64 MB over
#                                 http://, 80 MB over
#                                 HTTPS (needs `cargo test`'s build)
#   make check-dist               the same programs against the unpacked dist tarball; a fully
#                                 static musl program against the musl tarball
#   make check-windows            Windows programs against each zip, under Wine (64-bit, 32-bit;
#                                 for the win7 zips, a Wine prefix reporting Windows 7);
#                                 check-windows-ARCH for one zip
#   make check-languages          the examples of docs/languages.md (Python, LuaJIT, C#, Free
#                                 Pascal, Fortran, COBOL) built and run against a mock server,
#                                 and the VBA module checked against the header
#   make check-arm                a C program against each ARM tarball, under qemu-user
#
# Rust users need none of this: `cargo add chatwire` builds only the Rust
# library, without the C API (the `capi` feature, which every target here turns on).

SHELL       := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:

CARGO   ?= cargo
PREFIX  ?= /usr/local
# The libraries' folder under PREFIX: lib64 or lib/x86_64-linux-gnu where
# the system keeps its libraries there.
LIBDIR  ?= lib
DESTDIR ?=
PYTHON  ?= python3

# The version, from Cargo.toml's [package] section: one source of truth.
VERSION := $(shell awk -F'"' '/^\[/ { package = ($$0 == "[package]") } package && /^version *=/ { print $$2; exit }' Cargo.toml)
MAJOR   := $(word 1,$(subst ., ,$(VERSION)))
ifeq ($(MAJOR),)
  $(error cannot read the version from Cargo.toml)
endif

TARGET_DIR := $(CURDIR)/target
NATIVE_DIR := $(TARGET_DIR)/release

# The C libraries: the crate's rlib-only default is widened to a static and
# a shared library here, and the C API (the cargo feature `capi`, off for
# Rust dependents) turned on, so that Rust dependents never build them. The
# SONAME goes only on this shared library; static libraries need the system
# libraries that rustc lists, kept for chatwire.pc and the CMake package.
C_FEATURES  := --features capi
C_LIBS_ARGS = rustc --release --lib $(C_FEATURES) --crate-type staticlib,cdylib --target-dir "$(TARGET_DIR)"
C_LIBS_RUSTC = -C link-arg=-Wl,-soname,libchatwire.so.$(MAJOR) --print native-static-libs="$(1)/native-static-libs.txt"

# make dist: zig's linker with glibc 2.17's symbols, from PyPI (ziglang,
# and cargo-zigbuild as a prebuilt wheel), in a virtual environment kept
# under target/ so that later runs reuse it.
DIST_TARGET     := x86_64-unknown-linux-gnu
GLIBC           := 2.17
DIST_NAME       := chatwire-$(VERSION)-x86_64-linux-gnu
DIST_DIR        := $(TARGET_DIR)/$(DIST_TARGET)/release
ZIG_VENV        := $(TARGET_DIR)/tools/zig-venv
ZIGBUILD_PINS   := cargo-zigbuild==0.24.0 ziglang==0.17.1
ZIG_ENV         = PATH="$(ZIG_VENV)/bin:$$PATH" ZIG_GLOBAL_CACHE_DIR="$(TARGET_DIR)/tools/zig-cache"

INSTALL_SH := packaging/install.sh

# ARM Linux: cross-built as make dist builds x86_64, zig linking against
# glibc 2.17's symbols, the oldest glibc with 64-bit ARM and the oldest
# Rust supports on either target. The tarballs are named by the target
# without rustc's vendor field.
ARM_TARGETS := aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf
ARM_GLIBC   := 2.17

# Fully static Linux: rustc's musl target, and the unwinder from the Rust
# toolchain's own musl files (the host compiler's needs glibc).
MUSL_TARGET := x86_64-unknown-linux-musl
MUSL_DIR    := $(TARGET_DIR)/$(MUSL_TARGET)/release
MUSL_NAME   := chatwire-$(VERSION)-x86_64-linux-musl
MUSL_UNWIND  = $(shell rustc --print sysroot)/lib/rustlib/$(MUSL_TARGET)/lib/self-contained/libunwind.a

# Windows: MinGW-w64 links the DLL and writes its import library; the
# linker writes the .def file that Visual Studio's `lib /def:` reads. The
# DLL's symbol table goes (its exports stay): 0.7 MB of 3.6.
#
# Each zip is named by its ARCH, dist/chatwire-VERSION-ARCH-windows-gnu.zip,
# and built for a Rust target: x86_64 and i686 for the pc targets (Windows
# 10 and later), x86_64-win7 and i686-win7 for the win7 ones (Windows 7 SP1
# and later). Every rule below takes the ARCH: dist-windows-x86_64-win7.
WINDOWS_ARCHS  := x86_64 i686 x86_64-win7 i686-win7
comma          := ,
windows_target  = $(if $(findstring -win7,$(1)),$(1)-windows-gnu,$(1)-pc-windows-gnu)
windows_cpu     = $(firstword $(subst -, ,$(1)))
windows_dir     = $(TARGET_DIR)/$(call windows_target,$(1))/release
windows_is_win7 = $(findstring -win7,$(1))
windows_is_i686 = $(filter i686,$(call windows_cpu,$(1)))
windows_linker_def = $(if $(call windows_is_i686,$(1)),,-C link-arg=-Wl$(comma)--output-def$(comma)"$(call windows_dir,$(1))/chatwire.def")

# 32-bit Windows: the functions are extern "system", __stdcall there, whose
# object symbols are decorated (_chatwire_send@12); the DLL exports the
# plain names. The import library is made here from a .def of the decorated
# names with --kill-at, so that MinGW programs, whose calls name
# _chatwire_send@12, load chatwire_send from the DLL; rustc's would name
# _chatwire_send. The .def, shipped, is that one.
WIN32_DLLTOOL ?= i686-w64-mingw32-dlltool
WIN32_NM      ?= i686-w64-mingw32-nm
WIN32_NEEDS    = @command -v $(WIN32_DLLTOOL) >/dev/null || { echo "make dist-windows needs $(WIN32_DLLTOOL): on Debian/Ubuntu, apt-get install gcc-mingw-w64-i686" >&2; exit 1; }

# Windows 7: Rust's win7 targets are tier 3, shipped without a standard
# library, so it is built from the nightly's sources (-Zbuild-std, the
# rust-src component). The nightly is pinned here, and only here, by date:
# nothing tests tier-3 targets upstream, so any nightly may break them, and
# packaging/win7-missing-imports.txt was checked against this one's std.
# Moving the date is a change of its own, with `make check-windows`.
WIN7_TOOLCHAIN := nightly-2026-05-20
windows_toolchain  = $(if $(call windows_is_win7,$(1)),rustup toolchain install $(WIN7_TOOLCHAIN) --profile minimal \
                     --component rust-src --no-self-update >/dev/null,rustup target add $(call windows_target,$(1)) >/dev/null 2>&1 || true)
windows_cargo_args = $(if $(call windows_is_win7,$(1)),+$(WIN7_TOOLCHAIN) -Zbuild-std=std$(comma)panic_abort)
# ring's C code is compiled by cc-rs, which knows no MinGW compiler for the
# win7 targets and takes the host's gcc unless told (the link then misses
# ring_core_* symbols).
windows_cc_env  = $(if $(call windows_is_win7,$(1)),CC_$(subst -,_,$(call windows_target,$(1)))=$(call windows_cpu,$(1))-w64-mingw32-gcc \
                  AR_$(subst -,_,$(call windows_target,$(1)))=$(call windows_cpu,$(1))-w64-mingw32-ar)

.PHONY: all lib install uninstall dist dist-needs dist-glibc dist-musl dist-windows dist-arm dist-arm-needs \
	zig-tools header $(addprefix dist-windows-,$(WINDOWS_ARCHS)) $(addprefix check-windows-,$(WINDOWS_ARCHS)) \
	check-install check-many check-dist check-windows check-arm check-languages version clean

all: lib

# `make` always asks cargo; `make install` only when a source is newer than
# the last build, so that `make && sudo make install` needs no cargo as root.
SOURCES := Cargo.toml Cargo.lock build.rs include/chatwire.h $(shell find src -name '*.rs')
BUILT   := $(NATIVE_DIR)/.c-libs-built

lib:
	$(CARGO) $(C_LIBS_ARGS) -- $(call C_LIBS_RUSTC,$(NATIVE_DIR))
	@# In-tree programs linked to target/release find the library by its SONAME.
	ln -sf libchatwire.so "$(NATIVE_DIR)/libchatwire.so.$(MAJOR)"
	touch "$(BUILT)"

$(BUILT): $(SOURCES)
	$(MAKE) --no-print-directory lib

install: $(BUILT)
	"$(INSTALL_SH)" install --from "$(NATIVE_DIR)" --version "$(VERSION)" --prefix "$(PREFIX)" --libdir "$(LIBDIR)" --destdir "$(DESTDIR)"

uninstall:
	"$(INSTALL_SH)" uninstall --version "$(VERSION)" --prefix "$(PREFIX)" --libdir "$(LIBDIR)" --destdir "$(DESTDIR)"

$(ZIG_VENV)/.installed:
	rm -rf "$(ZIG_VENV)"
	"$(PYTHON)" -m venv "$(ZIG_VENV)"
	"$(ZIG_VENV)/bin/pip" install --quiet --disable-pip-version-check $(ZIGBUILD_PINS)
	touch "$@"

zig-tools: $(ZIG_VENV)/.installed

# What make dist needs beyond the Rust toolchain, checked before anything
# is built, each missing piece said in one line rather than deep in a build
# minutes later. zig (from PyPI, into a venv) compiles the C parts of both
# archives, so no musl compiler is needed; Rust's musl target comes from
# rustup.
dist-needs:
	@missing=0; \
	if ! "$(PYTHON)" -c 'import venv, ensurepip' 2>/dev/null; then \
	  echo "make dist needs Python 3 with venv (for zig): on Debian/Ubuntu, apt-get install python3-venv" >&2; missing=1; fi; \
	rustup target add $(MUSL_TARGET) >/dev/null 2>&1 || true; \
	if [ ! -d "$$(rustc --print sysroot)/lib/rustlib/$(MUSL_TARGET)" ]; then \
	  echo "make dist needs Rust's musl target: rustup target add $(MUSL_TARGET)" >&2; missing=1; fi; \
	exit $$missing

dist: dist-needs
	$(MAKE) --no-print-directory dist-glibc dist-musl

dist-glibc: dist-needs zig-tools
	$(ZIG_ENV) cargo-zigbuild $(C_LIBS_ARGS) --target $(DIST_TARGET).$(GLIBC) -- $(call C_LIBS_RUSTC,$(DIST_DIR))
	packaging/check-glibc.sh "$(DIST_DIR)/libchatwire.so" $(GLIBC)
	rm -rf "$(TARGET_DIR)/dist"
	"$(INSTALL_SH)" install --relocatable --from "$(DIST_DIR)" --version "$(VERSION)" --prefix / --destdir "$(TARGET_DIR)/dist/$(DIST_NAME)"
	mkdir -p dist
	tar -C "$(TARGET_DIR)/dist" --sort=name --owner=0 --group=0 --numeric-owner \
	    -cf - "$(DIST_NAME)" | gzip -9n > "dist/$(DIST_NAME).tar.gz"
	@echo "dist/$(DIST_NAME).tar.gz"

# zig compiles the C parts (ring's) for musl: with cargo alone, cc-rs looks
# for x86_64-linux-musl-gcc or musl-gcc.
dist-musl: dist-needs zig-tools
	$(ZIG_ENV) cargo-zigbuild $(C_LIBS_ARGS) --target $(MUSL_TARGET) -- --print native-static-libs="$(MUSL_DIR)/native-static-libs.txt"
	packaging/pack.sh musl --from "$(MUSL_DIR)" --version "$(VERSION)" --unwind "$(MUSL_UNWIND)" \
	    --out "dist/$(MUSL_NAME).tar.gz"

dist-windows: $(addprefix dist-windows-,$(WINDOWS_ARCHS))

# Each ARCH's steps: the toolchain; the build; on i686 the .def and import
# library made from the archive's decorated names (above), on x86_64 the
# .def written by the linker; for win7 the import audit; the zip.
$(addprefix dist-windows-,$(WINDOWS_ARCHS)): dist-windows-%:
	$(if $(call windows_is_i686,$*),$(WIN32_NEEDS))
	$(call windows_toolchain,$*)
	$(call windows_cc_env,$*) $(CARGO) $(call windows_cargo_args,$*) $(C_LIBS_ARGS) --target $(call windows_target,$*) \
	    -- -C strip=symbols $(call windows_linker_def,$*) \
	    --print native-static-libs="$(call windows_dir,$*)/native-static-libs.txt"
	$(if $(call windows_is_i686,$*),$(call win32_import_library,$(call windows_dir,$*)))
	$(if $(call windows_is_win7,$*),packaging/check-win7.py "$(call windows_dir,$*)/chatwire.dll")
	packaging/pack.sh windows --from "$(call windows_dir,$*)" --version "$(VERSION)" --out "dist/chatwire-$(VERSION)-$*-windows-gnu.zip"

# The 32-bit .def of the archive's decorated names, and the import library
# dlltool makes from it (see WIN32_DLLTOOL above); $(1) is the build folder.
define win32_import_library
{ echo "LIBRARY chatwire.dll"; echo "EXPORTS"; \
	  $(WIN32_NM) -g --defined-only "$(1)/libchatwire.a" 2>/dev/null \
	    | awk '$$2 == "T" && $$3 ~ /^_chatwire_[a-z0-9_]+@[0-9]+$$/ { print "    " substr($$3, 2) }' \
	    | LC_ALL=C sort -u; } > "$(1)/chatwire.def"
	$(WIN32_DLLTOOL) --kill-at --input-def "$(1)/chatwire.def" --dllname chatwire.dll \
	    --output-lib "$(1)/libchatwire.dll.a"
endef

dist-arm-needs:
	@missing=0; \
	if ! "$(PYTHON)" -c 'import venv, ensurepip' 2>/dev/null; then \
	  echo "make dist-arm needs Python 3 with venv (for zig): on Debian/Ubuntu, apt-get install python3-venv" >&2; missing=1; fi; \
	for target in $(ARM_TARGETS); do \
	  rustup target add $$target >/dev/null 2>&1 || true; \
	  if [ ! -d "$$(rustc --print sysroot)/lib/rustlib/$$target" ]; then \
	    echo "make dist-arm needs Rust's $$target target: rustup target add $$target" >&2; missing=1; fi; \
	done; \
	exit $$missing

# Each target as dist-glibc: the library checked for its glibc, then laid
# out by install.sh as make install lays it out, and packed.
dist-arm: dist-arm-needs zig-tools
	for target in $(ARM_TARGETS); do \
	  dir="$(TARGET_DIR)/$$target/release"; \
	  name="chatwire-$(VERSION)-$${target/-unknown-/-}"; \
	  $(ZIG_ENV) cargo-zigbuild $(C_LIBS_ARGS) --target $$target.$(ARM_GLIBC) -- $(call C_LIBS_RUSTC,$$dir); \
	  packaging/check-glibc.sh "$$dir/libchatwire.so" $(ARM_GLIBC); \
	  rm -rf "$(TARGET_DIR)/dist-arm/$$name"; \
	  "$(INSTALL_SH)" install --relocatable --from "$$dir" --version "$(VERSION)" --prefix / \
	      --destdir "$(TARGET_DIR)/dist-arm/$$name"; \
	  mkdir -p dist; \
	  tar -C "$(TARGET_DIR)/dist-arm" --sort=name --owner=0 --group=0 --numeric-owner \
	      -cf - "$$name" | gzip -9n > "dist/$$name.tar.gz"; \
	  echo "dist/$$name.tar.gz"; \
	done

header:
	$(CARGO) check --lib --quiet --features header
	@# The VBA/VB6 module follows the header (make check-languages checks it).
	$(PYTHON) examples-lang/vba/generate.py

check-install: lib
	tests/consumers/check-install.sh

# 1,000 background requests in flight through the optimized library that
# `make lib` built: peak memory under the goal (docs/performance.md). The
# C test is the one `cargo test` runs against its own (debug) build.
check-many: lib
	CHATWIRE_RELEASE_LIB_DIR="$(abspath $(NATIVE_DIR))" CHATWIRE_VALGRIND=0 \
		$(CARGO) test --test c_loop c_a_thousand_requests_in_flight -- --nocapture

check-dist: dist lib
	@command -v musl-gcc >/dev/null || { echo "make check-dist needs musl-gcc to link its fully static test program: on Debian/Ubuntu, apt-get install musl-tools" >&2; exit 1; }
	tests/consumers/check-dist.sh
	tests/consumers/check-musl.sh

check-windows: $(addprefix check-windows-,$(WINDOWS_ARCHS))

$(addprefix check-windows-,$(WINDOWS_ARCHS)): check-windows-%: dist-windows-%
	tests/windows/check-windows.sh $*

# The examples of docs/languages.md against the library that `make lib` built.
check-languages: lib
	examples-lang/run.sh "$(NATIVE_DIR)"

# The test programs are compiled by the zig that built the tarballs.
check-arm: dist-arm
	$(ZIG_ENV) ZIG="$(ZIG_VENV)/bin/python3 -m ziglang" tests/consumers/check-arm.sh

version:
	@echo "$(VERSION)"

clean:
	rm -rf dist
	$(CARGO) clean
