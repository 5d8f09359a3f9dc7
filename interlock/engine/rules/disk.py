"""Disk and device destruction: writing over a raw device (dd of=/dev/sda, `> /dev/sda`, cp,
tee or shred onto one), making or wiping a filesystem (mkfs*, mke2fs, mkswap, wipefs,
blkdiscard, cryptsetup luksFormat, zpool labelclear, nvme format...), and partitioning
(fdisk, sfdisk, cfdisk, parted, gdisk, sgdisk).

A device holds everything on it and lies outside every worktree, so nothing can bring it back:
these are discards whatever the tree holds. Listing and dry runs (`fdisk -l`, `parted -l`,
`sgdisk -p`, `wipefs -n`, `sfdisk -d`) are not. A filesystem made in an image file
(`mkfs.ext4 disk.img`) is judged like any other overwritten file.
"""

from __future__ import annotations

import re

from interlock.engine.findings import Finding, Targets
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import literal_or_text
from interlock.engine.rules.common import make_finding, rule
from interlock.engine.rules.fs import is_device
from interlock.engine.rules.targets import file_targets
from interlock.shell.model import Word

_ALWAYS = "always, whatever the tree holds: a device lies outside every worktree and snapshot"
WRITE_DEVICE = rule(
    "disk.write-device",
    "discard",
    "a raw disk or device is written over",
    "writing to a block device (dd of=/dev/sdX, a redirection, cp, tee or shred onto it) "
    "destroys the filesystems and files on it; nothing of it is in any worktree or snapshot",
    "write to an image file instead (dd of=disk.img), and check the device name with lsblk "
    "before a person writes to it",
    ("dd if=/dev/zero of=/dev/sda bs=1M", "cat image.iso > /dev/sdb", "shred -n 1 /dev/nvme0n1"),
    ("dd if=/dev/zero of=/tmp/disk.img bs=1M count=10", "echo x > /dev/null", "lsblk"),
    judged=_ALWAYS,
)
FORMAT = rule(
    "disk.format",
    "discard",
    "a filesystem is made or wiped on a device",
    "mkfs, mke2fs, mkswap, wipefs, blkdiscard, cryptsetup luksFormat, zpool create/labelclear "
    "and nvme format/sanitize erase what the device held",
    "run it in a scratch image file (mkfs.ext4 /tmp/disk.img), or leave it to a person",
    ("mkfs.ext4 /dev/sdb1", "wipefs -a /dev/sdb", "blkdiscard /dev/nvme0n1", "mkswap /dev/sda2"),
    ("wipefs -n /dev/sdb", "mkfs.ext4 /tmp/disk.img", "blkid /dev/sda1"),
    judged=_ALWAYS + "; a filesystem made in an image file is judged like an overwritten file",
)
PARTITION = rule(
    "disk.partition",
    "discard",
    "a disk's partition table is changed",
    "fdisk, sfdisk, cfdisk, parted, gdisk and sgdisk rewrite the partition table: the "
    "partitions and everything on them can be lost",
    "look with fdisk -l, parted -l or lsblk; leave repartitioning to a person",
    ("fdisk /dev/sda", "parted -s /dev/sdb mklabel gpt", "sgdisk --zap-all /dev/sdc"),
    ("fdisk -l", "parted -l", "sgdisk -p /dev/sda", "sfdisk -d /dev/sda"),
    judged=_ALWAYS,
)

_FORMATTERS = re.compile(
    r"^(mkfs(\.\w+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs|mkfs_\w+|newfs(_\w+)?|mformat"
    r"|blkdiscard|wipefs)$"
)
_PARTITIONERS = frozenset(("fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "cgdisk"))
_READ_ONLY = {
    "fdisk": ("-l", "--list", "-x", "--list-details", "-V", "--version", "-h", "--help"),
    "sfdisk": (
        "-l",
        "--list",
        "-d",
        "--dump",
        "-J",
        "--json",
        "-s",
        "--show-size",
        "-g",
        "--show-geometry",
        "-V",
        "--verify",
        "-v",
        "--version",
        "-h",
        "--help",
        "-F",
        "--list-free",
        "-r",
        "--reorder-only-dry",
    ),
    "parted": ("-l", "--list", "-v", "--version", "-h", "--help"),
    "gdisk": ("-l",),
    "sgdisk": (
        "-p",
        "--print",
        "-v",
        "--verify",
        "-i",
        "--info",
        "-L",
        "--list-types",
        "-O",
        "--print-mbr",
        "-b",
        "--backup",
        "-V",
        "--version",
        "-?",
        "--help",
    ),
    "wipefs": ("-n", "--no-act", "-h", "--help", "-V", "--version"),
}
_PARTED_READ = frozenset(("print", "p", "unit", "help", "version", "align-check", "quit"))
_SUBCOMMANDS = {
    "cryptsetup": ("luksFormat", "erase", "luksErase", "reencrypt", "open --type plain"),
    "zpool": ("create", "destroy", "labelclear"),
    "nvme": ("format", "sanitize"),
    "mdadm": ("--zero-superblock", "--create", "-C"),
    "diskutil": (
        "eraseDisk",
        "eraseVolume",
        "zeroDisk",
        "secureErase",
        "partitionDisk",
        "reformat",
        "randomDisk",
    ),
    "hdparm": (
        "--security-erase",
        "--security-erase-enhanced",
        "--trim-sector-ranges",
        "--make-bad-sector",
    ),
}


def _devices(words: tuple[Word, ...]) -> tuple[str, ...]:
    return tuple(literal_or_text(w) for w in words if is_device(w))


def _device_finding(info_id: str, inv: Invocation, devices: tuple[str, ...]) -> Finding:
    info = {r.id: r for r in (WRITE_DEVICE, FORMAT, PARTITION)}[info_id]
    return make_finding(info, inv, Targets("device", paths=devices), cwd=False)


def _writers(inv: Invocation) -> list[Finding]:
    """Raw writes: redirections to a device, dd of=, cp/tee/shred/badblocks -w onto one."""
    devices = _devices(
        tuple(
            r.target
            for r in inv.redirects
            if r.target is not None and r.op in (">", ">|", "&>", "<>") and r.heredoc is None
        )
    )
    name = inv.name
    words = inv.argv[1:]
    if name == "dd":
        outs = [
            Word(literal_or_text(w)[3:], None)
            for w in words
            if literal_or_text(w).startswith("of=")
        ]
        devices += _devices(tuple(outs))
    elif name in ("cp", "tee", "shred", "pv", "install"):
        operands = [w for w in words if not (w.literal() or "x").startswith("-")]
        devices += _devices(tuple(operands[-1:] if name in ("cp", "install") else operands))
    elif name == "badblocks" and any(
        (w.literal() or "").startswith("-") and "w" in (w.literal() or "") for w in words
    ):
        devices += _devices(words)
    return [_device_finding(WRITE_DEVICE.id, inv, devices)] if devices else []


def _partitioner(name: str, inv: Invocation) -> list[Finding]:
    words = inv.argv[1:]
    literals = [literal_or_text(w) for w in words]
    if any(w.partition("=")[0] in _READ_ONLY.get(name, ()) for w in literals):
        return []
    if name == "parted":
        commands = [w for w in literals if not w.startswith("-") and not is_device(w)]
        commands = [c for k, c in enumerate(commands) if k == 0 or commands[k - 1] != "unit"]
        if commands and all(c in _PARTED_READ for c in commands):
            return []
    devices = _devices(words) or ("(the disk named at run time)",)
    return [_device_finding(PARTITION.id, inv, devices)]


def _formatter(inv: Invocation) -> list[Finding]:
    """A device named: a finding on it. Else the last operand, an image file or a device named
    at run time, judged as a file; with none (`mkfs.ext4 --help`) nothing is formatted."""
    words = inv.argv[1:]
    literals = [literal_or_text(w) for w in words]
    if inv.name == "wipefs" and (
        any(w in _READ_ONLY["wipefs"] for w in literals) or not _wipes(literals)
    ):
        return []  # wipefs only lists signatures unless told -a or -o
    devices = _devices(words)
    if devices:
        return [_device_finding(FORMAT.id, inv, devices)]
    operands = [w for w in words if not (w.literal() or "x").startswith("-")]
    targets = file_targets(operands[-1:], inv.cwd) if operands else None
    if targets is None:
        return []
    return [make_finding(FORMAT, inv, targets)]


def _wipes(literals: list[str]) -> bool:
    letters = "".join(w[1:] for w in literals if w.startswith("-") and not w.startswith("--"))
    longs = {w.partition("=")[0] for w in literals}  # only long options can be these
    return "a" in letters or "o" in letters or bool(longs & {"--all", "--offset"})


def _subcommand(name: str, inv: Invocation) -> list[Finding]:
    args = inv.argv[1:]
    text = " ".join(literal_or_text(w) for w in args)
    words = text.split()
    if not any(s in words or (" " in s and s in text) for s in _SUBCOMMANDS[name]):
        return []
    devices = _devices(args) or ("(a device)",)
    return [_device_finding(FORMAT.id, inv, devices)]


def check_disk(inv: Invocation) -> list[Finding]:
    """Disk and device findings for one invocation."""
    name = inv.name
    findings = _writers(inv)
    if name is None:
        return findings
    if name in _PARTITIONERS:
        findings += _partitioner(name, inv)
    elif _FORMATTERS.match(name):
        findings += _formatter(inv)
    elif name in _SUBCOMMANDS:
        findings += _subcommand(name, inv)
    return findings
