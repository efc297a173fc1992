#!/bin/sh
# Installs Gatehouse from the release directory this script sits in. Downloads nothing.
#
#   sudo sh install.sh [--target TARGET] [--prefix DIR]
#
# 1. picks the executable for this machine (linux-x64, linux-x64-baseline without AVX2,
#    linux-arm64, -musl on Alpine), or --target;
# 2. checks it against SHA256SUMS and that it starts here (`gatehouse version`);
# 3. installs it as PREFIX/bin/gatehouse (default /usr/local), keeping the one it replaces as
#    gatehouse.previous (for a rollback);
# 4. creates the `gatehouse` system user and group, /etc/gatehouse (0750 root:gatehouse) and
#    /var/lib/gatehouse (0750 gatehouse:gatehouse);
# 5. installs the systemd template unit gatehouse@.service and /etc/gatehouse/gatehouse.env.example.
#    It never touches an organization's env file or data, and starts nothing.
#
# DESTDIR=/scratch installs into a staging root instead of /: the user is created there only
# when DESTDIR/etc/passwd exists (useradd --prefix), and systemd is not told.
set -eu

VERSION="@VERSION@"
here=$(cd "$(dirname "$0")" && pwd)
root=${DESTDIR:-}
prefix=/usr/local
target=""

say() { printf '%s\n' "install.sh: $*"; }
die() {
  printf '%s\n' "install.sh: $*" >&2
  exit 1
}
usage() { sed -n '2,20s/^# \{0,1\}//p' "$0"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --target) [ $# -ge 2 ] || die "--target needs a value"; target=$2; shift 2 ;;
    --target=*) target=${1#--target=}; shift ;;
    --prefix) [ $# -ge 2 ] || die "--prefix needs a value"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) printf '%s\n' "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

detect_target() {
  [ "$(uname -s)" = Linux ] || die "this installs on Linux; on $(uname -s) run the evaluation build by hand"
  case $(uname -m) in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "no build for $(uname -m)" ;;
  esac
  libc=""
  if ls /lib/ld-musl-* >/dev/null 2>&1; then libc=-musl; fi
  simd=""
  # The default x64 build needs AVX2; without it (older CPUs, many virtual CPU models) it dies
  # with "Illegal instruction".
  if [ "$arch" = x64 ] && ! grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
    [ -z "$libc" ] || die "this CPU lacks AVX2 and there is no musl build without it; use a glibc host"
    simd=-baseline
  fi
  echo "linux-$arch$simd$libc"
}

if [ -z "$root" ] && [ "$(id -u)" != 0 ]; then die "run it as root (sudo sh install.sh), or with DESTDIR to stage into a directory"; fi

host_target=""
if [ "$(uname -s)" = Linux ]; then host_target=$(detect_target); fi
[ -n "$target" ] || target=$host_target
file="gatehouse-$VERSION-$target"
[ -f "$here/$file" ] || die "$file is not in $here (builds here: $(cd "$here" && ls gatehouse-"$VERSION"-* 2>/dev/null | tr '\n' ' '))"

# --- checksum -----------------------------------------------------------------------------
[ -f "$here/SHA256SUMS" ] || die "SHA256SUMS is missing from $here"
expected=$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1 }' "$here/SHA256SUMS")
[ -n "$expected" ] || die "SHA256SUMS has no line for $file"
actual=$(sha256sum "$here/$file" | cut -d ' ' -f 1)
[ "$expected" = "$actual" ] || die "checksum mismatch for $file (expected $expected, got $actual): the file is damaged or was changed; not installing it"
say "$file: checksum OK"

# --- the executable -----------------------------------------------------------------------
bindir="$root$prefix/bin"
mkdir -p "$bindir"
new="$bindir/.gatehouse.new.$$"
trap 'rm -f "$new"' EXIT
cp "$here/$file" "$new"
chmod 0755 "$new" # the release copy may have lost its mode on the way

# Does it start here? (Tried on the copy: the release directory may be on a noexec mount.)
if [ "$target" = "$host_target" ]; then
  if ! reported=$("$new" version 2>&1); then
    die "$file does not start on this machine: $reported
(\"Illegal instruction\" on x86-64 means this CPU needs the linux-x64-baseline build: --target linux-x64-baseline)"
  fi
  say "$reported"
else
  say "$target is not this machine's platform ($host_target): not trying to start it"
fi

if [ -f "$bindir/gatehouse" ] && ! cmp -s "$bindir/gatehouse" "$new"; then
  # A hard link keeps the old file without a moment where gatehouse is missing.
  ln -f "$bindir/gatehouse" "$bindir/gatehouse.previous"
  say "kept the replaced executable as $prefix/bin/gatehouse.previous"
fi
mv -f "$new" "$bindir/gatehouse"
trap - EXIT
say "installed $prefix/bin/gatehouse"

# --- service user ---------------------------------------------------------------------------
nologin=/usr/sbin/nologin
if [ ! -x "$root$nologin" ] && [ -x "$root/sbin/nologin" ]; then nologin=/sbin/nologin; fi
user_made=yes
if [ -z "$root" ]; then
  if ! id gatehouse >/dev/null 2>&1; then
    if command -v useradd >/dev/null 2>&1; then
      useradd --system --user-group --home-dir /var/lib/gatehouse --no-create-home --shell "$nologin" gatehouse
    elif command -v adduser >/dev/null 2>&1; then # Alpine (busybox)
      addgroup -S gatehouse 2>/dev/null || true
      adduser -S -D -H -h /var/lib/gatehouse -s "$nologin" -G gatehouse gatehouse
    else
      die "neither useradd nor adduser found: create a system user and group named gatehouse, then run this again"
    fi
    say "created the system user gatehouse"
  fi
elif [ -f "$root/etc/passwd" ] && command -v useradd >/dev/null 2>&1; then
  if ! grep -q '^gatehouse:' "$root/etc/passwd"; then
    useradd --prefix "$root" --system --user-group --home-dir /var/lib/gatehouse --no-create-home --shell "$nologin" gatehouse
    say "created the system user gatehouse in $root/etc/passwd"
  fi
else
  user_made=no
  say "no $root/etc/passwd: create the gatehouse user and group on the target system"
fi

# Numeric ids from the passwd/group files of the root being installed into.
id_of() { awk -F: -v n=gatehouse '$1 == n { print $3 }' "$root/etc/$1"; }
own() { # own OWNER:GROUP PATH — skipped when not root or when the user could not be made
  if [ "$user_made" = yes ] && [ "$(id -u)" = 0 ]; then
    if [ -z "$root" ]; then chown "$1" "$2"; else
      uid=0; gid=$(id_of group)
      [ "${1%%:*}" = root ] || uid=$(id_of passwd)
      chown "$uid:$gid" "$2"
    fi
  fi
}

# --- directories, unit, example env -------------------------------------------------------
mkdir -p "$root/etc/gatehouse" "$root/var/lib/gatehouse" "$root/etc/systemd/system"
chmod 0750 "$root/etc/gatehouse" "$root/var/lib/gatehouse"
own root:gatehouse "$root/etc/gatehouse"
own gatehouse:gatehouse "$root/var/lib/gatehouse"

sed "s#/usr/local/bin/gatehouse#$prefix/bin/gatehouse#g" "$here/gatehouse@.service" >"$root/etc/systemd/system/gatehouse@.service"
chmod 0644 "$root/etc/systemd/system/gatehouse@.service"
cp "$here/gatehouse.env.example" "$root/etc/gatehouse/gatehouse.env.example"
chmod 0640 "$root/etc/gatehouse/gatehouse.env.example"
own root:gatehouse "$root/etc/gatehouse/gatehouse.env.example"
say "installed /etc/systemd/system/gatehouse@.service and /etc/gatehouse/gatehouse.env.example"

if [ -z "$root" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  systemctl daemon-reload
fi

cat <<EOF

Next, for an organization "acme":
  install -m 0640 -g gatehouse /etc/gatehouse/gatehouse.env.example /etc/gatehouse/acme.env   # then edit it
  systemctl enable --now gatehouse@acme
Upgrading? Restart the running instances: systemctl restart 'gatehouse@*'
(back up first; a rollback is gatehouse.previous plus that backup: see RELEASE.md / README).
EOF
