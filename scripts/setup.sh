#!/usr/bin/env bash
# Idempotent set-up on Debian with Python 3.11: the Debian libraries Qt needs, a virtual
# environment in .venv with MotoDesk and its pinned dependencies. Safe to run again: it only
# installs what is missing or changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
WITH_TEST=${WITH_TEST:-0}

say() { printf '\033[1m[motodesk]\033[0m %s\n' "$*" >&2; }

# --- Debian packages (only those missing) ------------------------------------------------------
debs=(libpulse0 libegl1 libgl1 libglib2.0-0 libfontconfig1 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0
      libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-image0 libxcb-render-util0 libxcb-shape0
      libxcb-xinerama0 libxcb-randr0 libxcb-xkb1 libx11-xcb1 xvfb xauth fonts-dejavu-core)
[ "$WITH_TEST" = 1 ] && debs+=(poppler-utils chromium)  # chromium: the badge verifier page's browser tests
[ "$WITH_TEST" = 1 ] && debs+=(cups printer-driver-cups-pdf)  # the print-queue tests' virtual PDF printer
# bench/bench_keyboard_x.py: a window manager, keys sent through X, window queries and screenshots
[ "$WITH_TEST" = 1 ] && debs+=(openbox xdotool x11-utils imagemagick)
if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then debs+=(python3-venv); fi
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    say "instalando pacotes do Debian: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    say "aviso: apt-get ausente; instale manualmente: ${missing[*]}"
  fi
fi

# --- Virtual environment --------------------------------------------------------------------
if [ ! -x .venv/bin/python ]; then
  say "criando o ambiente virtual .venv"
  "$PYTHON" -m venv .venv
fi
# Extras: "demo" (Faker, the demo data) for the demo, "test" (which needs the demo data too) for the suite.
extras=""; [ "${WITH_DEMO:-0}" = 1 ] && extras="[demo]"; [ "$WITH_TEST" = 1 ] && extras="[demo,test]"
stamp=.venv/.motodesk-installed
hash="$(cat pyproject.toml constraints.txt | sha256sum | cut -c1-16)"
want="$hash$extras"
have="$(cat "$stamp" 2>/dev/null || true)"
# An environment installed with more extras serves a command that needs fewer (the suite's serves the demo).
if [ "$have" = "$hash[demo,test]" ] && [ "$extras" != "" ]; then want="$have"; fi
if [ "$have" != "$want" ]; then
  say "instalando dependências (versões fixadas em constraints.txt)"
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e ".$extras"
  echo "$want" > "$stamp"
fi
