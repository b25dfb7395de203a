#!/bin/sh
# Installs the scv binary for this machine from a release: picks the target from uname, downloads
# SHA256SUMS and the archive over https, checks SHA256SUMS against the digest this file carries
# (written in when the release was built) and the archive against SHA256SUMS, and installs atomically.
#   curl --proto '=https' --tlsv1.2 -fsSL <release>/install.sh | sh
# Environment: SCV_INSTALL_DIR (default ~/.local/bin); SCV_DOWNLOAD_BASE (the release folder's https
# URL, or a mirror's); SCV_INSTALL_ALLOW_HTTP=1 (also accept http://, for a local mirror: the
# downloads are still checked against the digest). See docs/install.md.
#
# Nothing runs before the last line calls main: a download cut short only defines functions.
set -eu

fail() {
  printf 'scv install: %s\n' "$1" >&2
  exit 1
}

is_sha256() {
  case "$1" in *[!0-9a-f]*) return 1 ;; esac
  [ "${#1}" -eq 64 ]
}

# Whether a download may use this URL: https, or http too with SCV_INSTALL_ALLOW_HTTP=1.
allowed_url() {
  case "$1" in
    https://?*) return 0 ;;
    http://?*) [ "$allow_http" = 1 ] ;;
    *) return 1 ;;
  esac
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

# download URL FILE: curl, or wget; redirects are followed only to URLs allowed_url accepts.
download() {
  if command -v curl >/dev/null 2>&1; then
    protocols='=https'
    [ "$allow_http" = 1 ] && protocols='=https,http'
    status=0
    curl --proto "$protocols" --proto-redir "$protocols" --tlsv1.2 -fsSL --retry 2 -o "$2" "$1" || status=$?
    # 1 is curl's "unsupported protocol": here, a redirect to a scheme --proto-redir refuses.
    [ "$status" -ne 1 ] || fail "refused a redirect of $1 to a URL that is not https; nothing was installed"
    [ "$status" -eq 0 ] || fail "could not download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget_download "$1" "$2"
  else
    fail "neither curl nor wget is installed"
  fi
}

# wget cannot limit the schemes of the redirects it follows: follow them here, one at a time, checking each.
wget_download() {
  url=$1
  hops=0
  while :; do
    if response=$(wget -nv -S --tries=3 --max-redirect=0 -O "$2" "$url" 2>&1); then return 0; fi
    location=$(printf '%s\n' "$response" | sed -n 's/^  [Ll][Oo][Cc][Aa][Tt][Ii][Oo][Nn]: *//p' | tr -d '\r' | tail -n 1)
    if [ -z "$location" ]; then
      printf '%s\n' "$response" | tail -n 1 >&2
      fail "could not download $url"
    fi
    case "$location" in
      //*) location="${url%%//*}$location" ;;
      /*) location="$(printf '%s\n' "$url" | sed 's#^\([A-Za-z][A-Za-z0-9+.-]*://[^/]*\).*#\1#')$location" ;;
      *://*) ;;
      *) fail "could not download $1: the server redirected to a relative URL ($location)" ;;
    esac
    allowed_url "$location" || fail "refused a redirect of $1 to a URL that is not https; nothing was installed"
    hops=$((hops + 1))
    [ "$hops" -le 10 ] || fail "could not download $1: more than 10 redirects"
    url=$location
  done
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

main() {
  version="__SCV_VERSION__"
  # The SHA-256 of this release's SHA256SUMS: what the downloads are checked against, whatever serves them.
  sums_digest="__SCV_SHA256SUMS_SHA256__"
  base="${SCV_DOWNLOAD_BASE:-__SCV_DOWNLOAD_BASE__}"
  install_dir="${SCV_INSTALL_DIR:-$HOME/.local/bin}"
  allow_http="${SCV_INSTALL_ALLOW_HTTP:-0}"

  is_sha256 "$sums_digest" ||
    fail "this install.sh carries no SHA256SUMS digest (it is the unbuilt template); use the install.sh of a release"
  if [ -n "${SCV_VERSION:-}" ] && [ "$SCV_VERSION" != "$version" ]; then
    fail "this installer installs scv $version only (it carries that release's digest); for $SCV_VERSION, run the install.sh of that release"
  fi
  case "$base" in
    __SCV_DOWNLOAD_BASE__ | "") fail "set SCV_DOWNLOAD_BASE to the https URL of the release folder" ;;
  esac
  base=${base%/}
  if ! allowed_url "$base"; then
    case "$base" in
      http://*) fail "refused SCV_DOWNLOAD_BASE $base: it must be an https URL (for a local mirror over http, set SCV_INSTALL_ALLOW_HTTP=1)" ;;
      *) fail "refused SCV_DOWNLOAD_BASE $base: it must be an https URL" ;;
    esac
  fi

  target=$(detect_target)
  archive="scv-$version-$target.tar.gz"
  work=$(mktemp -d "${TMPDIR:-/tmp}/scv-install.XXXXXX")
  trap 'rm -rf "$work"' EXIT INT TERM

  printf 'scv install: downloading %s\n' "$archive" >&2
  download "$base/SHA256SUMS" "$work/SHA256SUMS"
  actual=$(sha256_of "$work/SHA256SUMS")
  [ "$actual" = "$sums_digest" ] ||
    fail "SHA256SUMS from $base is not this release's (its SHA-256 is $actual, this installer expects $sums_digest): it was altered or belongs to another release; nothing was installed"
  expected=$(awk -v name="$archive" '$2 == name { print $1 }' "$work/SHA256SUMS")
  [ -n "$expected" ] || fail "SHA256SUMS lists no $archive"
  download "$base/$archive" "$work/$archive"
  actual=$(sha256_of "$work/$archive")
  [ "$actual" = "$expected" ] || fail "checksum mismatch for $archive (expected $expected, got $actual); nothing was installed"

  tar -xzf "$work/$archive" -C "$work"
  binary="$work/scv-$version-$target/scv"
  [ -x "$binary" ] || fail "the archive holds no scv binary"
  mkdir -p "$install_dir"
  # Copy beside the destination, then rename: a running scv is never left half-written.
  cp "$binary" "$install_dir/.scv.new.$$"
  chmod 755 "$install_dir/.scv.new.$$"
  mv -f "$install_dir/.scv.new.$$" "$install_dir/scv"
  printf 'scv install: installed %s\n' "$("$install_dir/scv" --version)" >&2
  printf 'scv install: %s/scv\n' "$install_dir" >&2
  case ":$PATH:" in
    *":$install_dir:"*) ;;
    *) printf 'scv install: %s is not on your PATH; add it, e.g.\n  echo '\''export PATH="%s:$PATH"'\'' >> ~/.profile\n' "$install_dir" "$install_dir" >&2 ;;
  esac
}

main "$@"
