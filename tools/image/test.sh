#!/usr/bin/env bash
# `npm run image:test`: builds the service's image and tests it (test/image/, its own vitest
# configuration: vitest.image.config.ts).
#
# - With a Docker engine that answers, `docker build` of the Dockerfile as users run it
#   (node:24-slim from Docker Hub).
# - Otherwise podman, installed with apt-get when missing, configured for this machine by
#   tools/image/containers.conf (CONTAINERS_CONF) and a storage under .cache/image/
#   (CONTAINERS_STORAGE_CONF), the machine's /etc/containers left alone. The base is the local
#   one tools/image/base.sh makes (Debian's packages and Node 24 from the npm registry), given as
#   the Dockerfile's BASE_IMAGE; `--format docker` keeps the HEALTHCHECK.
#
# The build runs on the host's network (`npm ci` reaches the npm registry); the tests need Kafka
# and Redis (`npm run services:up`; addresses from the environment, as for `npm test`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
image=${IMAGE_NAME:-localhost/streaming-endpoints:test}
started_at=$(date +%s)

if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  engine=docker
  echo "== image: docker build -t $image ."
  docker build -t "$image" .
else
  engine=podman
  if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
    echo "== image: installing podman and runc"
    as_root=()
    [[ $(id -u) == 0 ]] || as_root=(sudo)
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 update -q
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 \
      install -y -q --no-install-recommends podman runc
  fi
  mkdir -p .cache/image
  cat >.cache/image/storage.conf <<CONF
[storage]
driver = "overlay"
graphroot = "$root/.cache/image/storage"
runroot = "$root/.cache/image/run"
CONF
  export CONTAINERS_CONF=$root/tools/image/containers.conf
  export CONTAINERS_STORAGE_CONF=$root/.cache/image/storage.conf
  echo "== image: base (tools/image/base.sh)"
  base=$(bash tools/image/base.sh)
  echo "image: base $base ready in $(($(date +%s) - started_at)) s"
  echo "== image: podman build --build-arg BASE_IMAGE=$base -t $image ."
  podman build --format docker --network host --build-arg "BASE_IMAGE=$base" -t "$image" .
fi
echo "image: built in $(($(date +%s) - started_at)) s"

IMAGE_ENGINE=$engine IMAGE_NAME=$image npx vitest run --config vitest.image.config.ts "$@"
