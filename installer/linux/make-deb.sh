#!/usr/bin/env bash
# The .deb of MotoDesk from the PyInstaller bundle: /opt/motodesk, /usr/bin/motodesk, the desktop entry
# and the icons. Usage: make-deb.sh BUNDLE_DIR ICONS_DIR OUT_DIR
#
# Upgrading keeps the data: dpkg replaces only /opt/motodesk; the database, its backups, the
# configuration and the logs live in each user's folders (~/.local/share/MotoDesk, ~/.config/MotoDesk).
set -euo pipefail
bundle=$(cd "$1" && pwd); icons=$(cd "$2" && pwd); out=$(mkdir -p "$3" && cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)

version=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$root/motodesk/__init__.py")
arch=$(dpkg --print-architecture)
stage=$(mktemp -d)
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/DEBIAN" "$stage/opt" "$stage/usr/bin" "$stage/usr/share/applications" \
         "$stage/usr/share/icons/hicolor/256x256/apps" "$stage/usr/share/icons/hicolor/scalable/apps"
cp -a "$bundle" "$stage/opt/motodesk"
ln -s /opt/motodesk/motodesk "$stage/usr/bin/motodesk"
install -m 644 "$here/motodesk.desktop" "$stage/usr/share/applications/motodesk.desktop"
install -m 644 "$icons/motodesk.png" "$stage/usr/share/icons/hicolor/256x256/apps/motodesk.png"
install -m 644 "$root/motodesk/resources/icons/motodesk.svg" "$stage/usr/share/icons/hicolor/scalable/apps/motodesk.svg"

size_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: motodesk
Version: $version
Section: misc
Priority: optional
Architecture: $arch
Maintainer: SESTRAN Patrocínio-MG <sestran@patrocinio.mg.gov.br>
Installed-Size: $size_kb
Depends: libc6, libgl1, libegl1, libfontconfig1, libdbus-1-3, libglib2.0-0, libxkbcommon0, libxkbcommon-x11-0, libx11-xcb1, libxcb-cursor0, libxcb-icccm4, libxcb-keysyms1, libxcb-image0, libxcb-render-util0, libxcb-shape0, libxcb-randr0, libxcb-xkb1, libxcb-xinerama0, libpulse0
Recommends: fonts-dejavu-core, postgresql-client
Description: MotoDesk – permissões de mototáxi, motoboy e moto-frete
 Aplicativo do balcão de permissões da SESTRAN de Patrocínio-MG
 (Lei Municipal nº 4.883/2017): dossiês, vistorias, permissões, crachás,
 autos de infração. Usa um arquivo SQLite local ou o servidor PostgreSQL
 da Secretaria. postgresql-client traz o pg_dump das cópias de segurança.
CONTROL
cat > "$stage/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
  command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q /usr/share/applications || true
  command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t /usr/share/icons/hicolor || true
fi
exit 0
POSTINST
chmod 755 "$stage/DEBIAN/postinst"

deb="$out/motodesk_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zgzip -z6 --build "$stage" "$deb" >/dev/null
printf '\033[1m[motodesk-build]\033[0m %s (%s)\n' "$deb" "$(du -h "$deb" | cut -f1)" >&2
