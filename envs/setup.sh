#!/usr/bin/env bash
# Installs what netrepro needs and is missing: Debian packages (envs/debian-packages.txt, and
# any further package lists given as arguments, e.g. envs/bench-packages.txt) and a Python venv
# in .venv built on /usr/bin/python3 (which carries Mininet) from envs/requirements.lock.
# Safe to run again: it only does what is not done yet.
#   usage: envs/setup.sh [EXTRA_PACKAGE_LIST...]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
package_files=("$repo/envs/debian-packages.txt" "$@")
lock_file="$repo/envs/requirements.lock"

say() { printf 'setup: %s\n' "$*"; }

for file in "${package_files[@]}"; do
    [[ -f "$file" ]] || { say "no package list $file"; exit 1; }
done
mapfile -t packages < <(cat "${package_files[@]}" | grep -v -e '^#' -e '^[[:space:]]*$')
missing=()
for package in "${packages[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
if ((${#missing[@]})); then
    if [[ $EUID -ne 0 ]]; then
        say "missing Debian packages: ${missing[*]}"
        say "run this script as root (sudo make setup) to install them"
        exit 1
    fi
    say "installing ${#missing[@]} Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [[ ! -x "$venv/bin/python" ]]; then
    say "creating $venv on /usr/bin/python3 with its site packages (for Mininet)"
    /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
stamp="$venv/.requirements.lock.sha256"
want="$(sha256sum "$lock_file" | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    say "installing Python packages from envs/requirements.lock"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$lock_file"
    echo "$want" > "$stamp"
fi
# The netrepro package is used in place, as an editable install would; its yte guard keeps
# Snakemake from running Python written in a spec (netrepro/yteguard.py).
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
printf '%s\nimport netrepro.yteguard\n' "$repo" > "$site/netrepro.pth"

"$venv/bin/python" -c 'import mininet.net, snakemake, jsonschema, yaml, yte; assert yte.process_yaml.__name__ == "process_yaml_without_code"' \
    || { say "the venv cannot import mininet, snakemake, jsonschema or yaml"; exit 1; }
say "ready: $venv"
