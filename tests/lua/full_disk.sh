#!/bin/sh
# full_disk.sh MBD SCRIPT SCRATCH: every writer on a full disk (test_full_disk.lua).
#  - always: writes fail after 1000 bytes (MBD_TEST_WRITE_LIMIT, the writers' injected full disk),
#    so each file is cut in the middle of its writing;
#  - as root, when a tmpfs can be mounted here: a real 1 MB file system filled to the last byte.
set -u
mbd=$1 script=$2 scratch=$3
fail=0
dir=$scratch/full_disk_injected
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$mbd" "$script" "$dir" prepare >/dev/null || exit 1
MBD_TEST_WRITE_LIMIT=1000 "$mbd" "$script" "$dir" check injected || fail=1

mnt=$scratch/full_disk_tmpfs
mkdir -p "$mnt"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
  trap 'umount "$mnt"' EXIT
  "$mbd" "$script" "$mnt" prepare >/dev/null || fail=1
  dd if=/dev/zero of="$mnt/filler" bs=4k >/dev/null 2>&1   # until the disk is full
  "$mbd" "$script" "$mnt" check tmpfs || fail=1
else
  echo "full disk on a tmpfs: skipped (needs root and mount); the injected full disk ran"
fi
exit $fail
