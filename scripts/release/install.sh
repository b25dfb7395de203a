#!/bin/sh
# Installs the scv binary for this machine from a release: picks the target from uname, downloads the
# archive and SHA256SUMS, verifies the checksum, and installs atomically into $SCV_INSTALL_DIR.
#   curl -fsSL <release>/install.sh | sh
# Environment: SCV_INSTALL_DIR (default ~/.local/bin), SCV_DOWNLOAD_BASE (the release folder's URL),
# SCV_VERSION (default: the version this installer was released with).
set -eu

VERSION="${SCV_VERSION:-__SCV_VERSION__}"
BASE="${SCV_DOWNLOAD_BASE:-__SCV_DOWNLOAD_BASE__}"
INSTALL_DIR="${SCV_INSTALL_DIR:-$HOME/.local/bin}"

fail() {
  printf 'scv install: %s\n' "$1" >&2
  exit 1
}

detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) fail "no scv build for $os; the builds are for Linux, macOS and Windows (download the .zip)" ;;
  esac
  case "$arch" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) fail "no scv build for the $arch processor; the builds are for x64 and arm64" ;;
  esac
  # A shell translated by Rosetta reports x86_64 on an Apple silicon Mac: install the native build.
  if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
    arch=arm64
  fi
  if [ "$os" = linux ]; then
    if [ -f /etc/alpine-release ] || (ldd --version 2>&1 | grep -qi musl); then
      fail "this system uses musl libc (e.g. Alpine); the scv binary needs glibc 2.28 or newer and libstdc++"
    fi
  fi
  echo "$os-$arch"
}

download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$1" || fail "could not download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || fail "could not download $1"
  else
    fail "neither curl nor wget is installed"
  fi
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    fail "neither sha256sum nor shasum is installed to verify the download"
  fi
}

case "$BASE" in
  __SCV_DOWNLOAD_BASE__ | "") fail "set SCV_DOWNLOAD_BASE to the URL of the release folder" ;;
esac
target=$(detect_target)
archive="scv-$VERSION-$target.tar.gz"
work=$(mktemp -d "${TMPDIR:-/tmp}/scv-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

printf 'scv install: downloading %s\n' "$archive" >&2
download "$BASE/SHA256SUMS" "$work/SHA256SUMS"
download "$BASE/$archive" "$work/$archive"
expected=$(awk -v name="$archive" '$2 == name { print $1 }' "$work/SHA256SUMS")
[ -n "$expected" ] || fail "SHA256SUMS lists no $archive"
actual=$(sha256_of "$work/$archive")
[ "$actual" = "$expected" ] || fail "checksum mismatch for $archive (expected $expected, got $actual); nothing was installed"

tar -xzf "$work/$archive" -C "$work"
binary="$work/scv-$VERSION-$target/scv"
[ -x "$binary" ] || fail "the archive holds no scv binary"
mkdir -p "$INSTALL_DIR"
# Copy beside the destination, then rename: a running scv is never left half-written.
cp "$binary" "$INSTALL_DIR/.scv.new.$$"
chmod 755 "$INSTALL_DIR/.scv.new.$$"
mv -f "$INSTALL_DIR/.scv.new.$$" "$INSTALL_DIR/scv"
printf 'scv install: installed %s\n' "$("$INSTALL_DIR/scv" --version)" >&2
printf 'scv install: %s/scv\n' "$INSTALL_DIR" >&2
case ":$PATH:" in
  *":$INSTALL_DIR:"*) ;;
  *) printf 'scv install: %s is not on your PATH; add it, e.g.\n  echo '\''export PATH="%s:$PATH"'\'' >> ~/.profile\n' "$INSTALL_DIR" "$INSTALL_DIR" >&2 ;;
esac
