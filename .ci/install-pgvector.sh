#!/usr/bin/env bash
# Builds and installs pgvector for the local PostgreSQL from Debian's own source package.
# bookworm does not package pgvector; trixie's source package builds against PostgreSQL 15.
set -euo pipefail
pgver=$(pg_config --version 2>/dev/null | sed -E 's/^PostgreSQL ([0-9]+).*/\1/' || true)
if [ -z "${pgver}" ]; then
  pgver=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -n 1)
fi
: "${pgver:?no PostgreSQL installation found}"
sharedir="/usr/share/postgresql/${pgver}/extension"
if [ -f "${sharedir}/vector.control" ]; then
  echo "pgvector already installed for PostgreSQL ${pgver}"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "postgresql-server-dev-${pgver}" >/dev/null
t=$(mktemp -d)
mkdir -p "$t/lists/partial"
uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
if [ -z "${uri}" ]; then
  uri=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
fi
echo "deb-src ${uri} trixie main" > "$t/sources.list"
o=(-o "Dir::Etc::SourceList=$t/sources.list" -o "Dir::Etc::SourceParts=/dev/null" -o "Dir::State::Lists=$t/lists")
apt-get "${o[@]}" update -qq
(cd "$t" && apt-get "${o[@]}" source --download-only pgvector >/dev/null)
tar -xzf "$t"/pgvector_*.orig.tar.gz -C "$t"
make -s -C "$t"/pgvector-* OPTFLAGS="" PG_CONFIG="/usr/lib/postgresql/${pgver}/bin/pg_config" >/dev/null
make -s -C "$t"/pgvector-* install PG_CONFIG="/usr/lib/postgresql/${pgver}/bin/pg_config" >/dev/null
rm -rf "$t"
echo "pgvector installed for PostgreSQL ${pgver}"
