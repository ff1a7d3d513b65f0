#!/usr/bin/env bash
# createdb.sh SERVER_URL NAME: create database NAME on the server if it is missing and print its URL.
set -euo pipefail
server="$1" name="$2"
psql="$(command -v psql || ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -n 1)"
exists=$("$psql" "$server" -Atqc "SELECT 1 FROM pg_database WHERE datname = '$name'")
[ "$exists" = 1 ] || "$psql" "$server" -qc "CREATE DATABASE \"$name\"" >&2
echo "$server" | sed -E "s#/[^/?]*(\?|$)#/$name\1#"
