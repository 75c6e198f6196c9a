#!/usr/bin/env bash
# One command for the installable MotoDesk: the PyInstaller onedir bundle in dist/motodesk/ and,
# on Linux, dist/motodesk_VERSION_ARCH.deb built from it (see installer/README.md).
#
#   bash installer/build.sh            # bundle + .deb
#   MOTODESK_NO_DEB=1 bash installer/build.sh
#   MOTODESK_DIST=/tmp/d MOTODESK_BUILD=/tmp/b bash installer/build.sh   # other folders
#
# PyInstaller is installed into .venv at the pinned version when missing (not a runtime dependency).
set -euo pipefail
cd "$(dirname "$0")/.."

PYINSTALLER_VERSION=6.22.3
HOOKS_CONTRIB_VERSION=2026.9
DIST=${MOTODESK_DIST:-dist}
WORK=${MOTODESK_BUILD:-build/pyinstaller}

say() { printf '\033[1m[motodesk-build]\033[0m %s\n' "$*" >&2; }

[ -x .venv/bin/python ] || bash scripts/setup.sh
if ! .venv/bin/python - "$PYINSTALLER_VERSION" "$HOOKS_CONTRIB_VERSION" <<'PY' >/dev/null 2>&1
import sys
from importlib.metadata import version
sys.exit(version("pyinstaller") != sys.argv[1] or version("pyinstaller-hooks-contrib") != sys.argv[2])
PY
then
  say "instalando pyinstaller==$PYINSTALLER_VERSION no .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check \
    "pyinstaller==$PYINSTALLER_VERSION" "pyinstaller-hooks-contrib==$HOOKS_CONTRIB_VERSION"
fi

start=$(date +%s)
say "PyInstaller: $DIST/motodesk/"
clean=(); [ "${MOTODESK_CLEAN:-0}" = 1 ] && clean=(--clean)
.venv/bin/python -m PyInstaller --noconfirm --log-level WARN "${clean[@]}" \
  --distpath "$DIST" --workpath "$WORK" installer/motodesk.spec
say "pacote pronto em $(( $(date +%s) - start )) s: $(du -sh "$DIST/motodesk" | cut -f1)"

if [ "$(uname -s)" = Linux ] && [ "${MOTODESK_NO_DEB:-0}" != 1 ]; then
  bash installer/linux/make-deb.sh "$DIST/motodesk" "$WORK/motodesk/icons" "$DIST"
fi
say "concluído em $(( $(date +%s) - start )) s"
