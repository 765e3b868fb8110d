#!/usr/bin/env bash
# Installs the Debian packages the test suite drives for real (promtool, and whatever else a test names
# below), so a clean clone needs nothing installed by hand. Each argument is COMMAND=PACKAGE: the package is
# installed only when the command is missing. Running as root with apt-get (as CI does), missing packages are
# installed; otherwise the missing ones are listed and, under CI, that is an error (a test must not skip there).
set -euo pipefail
missing=()
for pair in "$@"; do
    command="${pair%%=*}"
    package="${pair#*=}"
    if ! command -v "$command" >/dev/null 2>&1 && [ ! -x "$command" ]; then
        missing+=("$package")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
        apt-get update -qq >/dev/null 2>&1
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    }
    exit 0
fi
echo "missing Debian packages (install them, or run as root with apt-get): ${missing[*]}" >&2
if [ -n "${CI:-}" ]; then
    exit 1
fi
