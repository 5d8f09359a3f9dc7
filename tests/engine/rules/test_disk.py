"""The disk family: raw device writes, filesystems made or wiped, partition tables changed."""

from __future__ import annotations

import pytest

from interlock.engine.check import evaluate
from interlock.engine.rules import index as rules
from interlock.engine.rules.fs import is_device


def found(command: str, cwd: str = "/", assume_dirty: bool = True) -> set[str]:
    result = evaluate(command, cwd, mode="blocking", assume_dirty=assume_dirty).result
    return {f.rule for f in result.findings}


@pytest.mark.parametrize(
    ("command", "rule_id"),
    [
        ("dd if=/dev/zero of=/dev/sda bs=1M", "disk.write-device"),
        ("dd if=image.iso of=/dev/sdb status=progress", "disk.write-device"),
        ("sudo dd if=/dev/urandom of=/dev/nvme0n1p1", "disk.write-device"),
        ('dd if=/dev/zero of="/dev/${DISK}"', "disk.write-device"),
        ("cat image.iso > /dev/sdb", "disk.write-device"),
        ("yes | tr -d '\\n' > /dev/mmcblk0", "disk.write-device"),
        ("echo x | sudo tee /dev/sda", "disk.write-device"),
        ("cp disk.img /dev/sdc", "disk.write-device"),
        ("pv disk.img > /dev/sdc", "disk.write-device"),
        ("shred -n 1 /dev/sda", "disk.write-device"),
        ("badblocks -wsv /dev/sdb", "disk.write-device"),
        ("cat x > /dev/mapper/vg-root", "disk.write-device"),
        ("cat x > /dev/disk/by-id/usb-Kingston-0:0", "disk.write-device"),
        ("find . | cpio -o > /dev/fd0", "disk.write-device"),
        ("dd if=x of=/dev/disk2s1", "disk.write-device"),
        ("mkfs.ext4 /dev/sdb1", "disk.format"),
        ("mkfs -t vfat /dev/sdb1", "disk.format"),
        ("mkfs.xfs -f /dev/vdb", "disk.format"),
        ("mke2fs -j /dev/sdc", "disk.format"),
        ("mkswap /dev/sda2", "disk.format"),
        ("mkdosfs -F 32 /dev/sdd1", "disk.format"),
        ("wipefs -a /dev/sdb", "disk.format"),
        ("wipefs --all --force /dev/sdb", "disk.format"),
        ("wipefs -o 0x438 /dev/sdb1", "disk.format"),
        ("blkdiscard /dev/nvme0n1", "disk.format"),
        ("sudo cryptsetup luksFormat /dev/sdb1", "disk.format"),
        ("zpool labelclear -f /dev/sdb", "disk.format"),
        ("zpool create tank /dev/sdb", "disk.format"),
        ("nvme format /dev/nvme0n1", "disk.format"),
        ("mdadm --zero-superblock /dev/sdb1", "disk.format"),
        ("hdparm --security-erase NULL /dev/sda", "disk.format"),
        ("diskutil eraseDisk JHFS+ Blank /dev/disk2", "disk.format"),
        ('mkfs.ext4 "$DEV"', "disk.format"),
        ("mkfs.ext4 disk.img", "disk.format"),
        ("fdisk /dev/sda", "disk.partition"),
        ("echo -e 'o\\nw' | fdisk /dev/sdb", "disk.partition"),
        ("sfdisk /dev/sda < layout.txt", "disk.partition"),
        ("parted -s /dev/sdb mklabel gpt", "disk.partition"),
        ("parted /dev/sda rm 1", "disk.partition"),
        ("parted /dev/sda", "disk.partition"),
        ("sgdisk --zap-all /dev/sdc", "disk.partition"),
        ("sgdisk -n 1:0:0 /dev/sdc", "disk.partition"),
        ("gdisk /dev/sda", "disk.partition"),
        ("cfdisk /dev/sda", "disk.partition"),
        ("bash -c 'mkfs.ext4 /dev/sdb1'", "disk.format"),
        ("timeout 60 dd if=/dev/zero of=/dev/sdb", "disk.write-device"),
    ],
)
def test_destroying_a_disk_or_device_is_a_discard(command, rule_id):
    assert rule_id in found(command), command


@pytest.mark.parametrize(
    "command",
    [
        "fdisk -l",
        "fdisk -l /dev/sda",
        "sfdisk -d /dev/sda > table.bak",
        "sfdisk --list",
        "parted -l",
        "parted /dev/sda print",
        "parted -s /dev/sda unit MB print",
        "sgdisk -p /dev/sda",
        "sgdisk --backup=table.bin /dev/sda",
        "gdisk -l /dev/sda",
        "wipefs /dev/sdb",  # without -a or -o it only lists the signatures
        "wipefs -n -a /dev/sdb",
        "mkfs.ext4 --help",
        "lsblk",
        "blkid /dev/sda1",
        "dd if=/dev/sda of=/tmp/backup.img bs=1M",
        "dd if=/dev/zero of=/tmp/disk.img bs=1M count=10",
        "echo x > /dev/null",
        "echo x > /dev/stderr",
        "echo x > /dev/pts/3",
        "echo x > /dev/tcp/localhost/80",
        "ls 2>/dev/nul",  # a misspelt /dev/null is no disk
        "cat /dev/sda | head -c 512 | xxd",
        "mkfs.ext4 /tmp/disk.img",
    ],
)
def test_reading_listing_and_scratch_images_are_allowed(command):
    assert not {r for r in found(command) if r.startswith("disk.")}, command


def test_a_device_is_lost_whatever_the_tree_holds(git_repo):
    assert "disk.format" in found("mkfs.ext4 /dev/sdb1", str(git_repo), assume_dirty=False)
    result = evaluate("dd if=/dev/zero of=/dev/sda", str(git_repo), mode="blocking").result
    (finding,) = result.findings
    assert "/dev/sda" in finding.reason


@pytest.mark.parametrize(
    ("path", "device"),
    [
        ("/dev/sda", True),
        ("/dev/sdb1", True),
        ("/dev/nvme0n1p2", True),
        ("/dev/mmcblk0p1", True),
        ("/dev/xvda", True),
        ("/dev/md0", True),
        ("/dev/dm-3", True),
        ("/dev/loop7", True),
        ("/dev/mapper/luks-root", True),
        ("/dev/vg0/home", True),
        ("/dev/disk/by-uuid/1234", True),
        ("/dev/disk3s2", True),
        ("/dev/$DISK", True),
        ("/dev/null", False),
        ("/dev/zero", False),
        ("/dev/tty", False),
        ("/dev/ttyS0", False),
        ("/dev/pts/1", False),
        ("/dev/fd/3", False),
        ("/dev/stdout", False),
        ("/dev/shm/x", False),
        ("/dev/tcp/host/80", False),
        ("/dev/nul", False),
        ("/tmp/dev/sda", False),
    ],
)
def test_device_names(path, device):
    assert is_device(path) is device


def test_disk_rules_are_explained_with_examples():
    for info in rules.all_rules():
        if info.id.startswith("disk."):
            assert info.kind == "discard" and info.extra.get("judged")
            for example in info.examples_block:
                assert info.id in found(example), example
            for example in info.examples_allow:
                assert info.id not in found(example), example


def disk_findings(command: str) -> list[tuple[str, tuple[str, ...]]]:
    """(rule, target paths) of each disk finding, read from the words alone."""
    from interlock.engine.rules.disk import check_disk
    from interlock.engine.walk import walk
    from interlock.shell.parse import parse

    return [
        (f.rule, f.targets.paths if f.targets is not None else ())
        for inv in walk(parse(command))
        for f in check_disk(inv)
    ]


WD, FMT, PART = "disk.write-device", "disk.format", "disk.partition"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat x > /dev/sda", [(WD, ("/dev/sda",))]),
        ("cat x >| /dev/sda", [(WD, ("/dev/sda",))]),
        ("cat x &> /dev/sda", [(WD, ("/dev/sda",))]),
        ("cat x <> /dev/sda", [(WD, ("/dev/sda",))]),
        ("cat x >> /dev/sda", []),
        ("cat x < /dev/sda", []),
        ("cat <<EOF > /dev/sdb\nx\nEOF", [(WD, ("/dev/sdb",))]),
        ("> /dev/sda", [(WD, ("/dev/sda",))]),
        ("$CMD > /dev/sda", [(WD, ("/dev/sda",))]),
        ("dd if=/dev/sda of=/dev/sdb", [(WD, ("/dev/sdb",))]),
        ("dd if=/dev/sda of=x.img", []),
        ("cp /dev/sda /dev/sdb", [(WD, ("/dev/sdb",))]),
        ("cp /dev/sda x.img", []),
        ("install -m 600 x /dev/sdc", [(WD, ("/dev/sdc",))]),
        ("tee /dev/sda /dev/sdb", [(WD, ("/dev/sda", "/dev/sdb"))]),
        ('tee "$F" /dev/sda', [(WD, ("/dev/sda",))]),
        ("shred -v /dev/sda", [(WD, ("/dev/sda",))]),
        ("pv -q /dev/sda", [(WD, ("/dev/sda",))]),
        ("badblocks -w /dev/sdb", [(WD, ("/dev/sdb",))]),
        ("badblocks -sv /dev/sdb", []),
        ("badblocks /dev/sdb", []),
        ("badblocks -s /dev/sdw", []),  # a `w` in a device name is no -w
        ("install /dev/sda x.img", []),  # install writes its last operand only
        ("fdisk /dev/sda", [(PART, ("/dev/sda",))]),
        ("fdisk --list /dev/sda", []),
        ("sfdisk --dump=x /dev/sda", []),  # split at `=`
        ("sgdisk --print /dev/sda", []),
        ("gdisk -l /dev/sda", []),
        ("fdisk", [(PART, ("(the disk named at run time)",))]),
        ("parted /dev/sda print", []),
        ("parted /dev/sda unit s print", []),
        ("parted /dev/sda unit print", []),
        ("parted /dev/sda print rm 1", [(PART, ("/dev/sda",))]),
        ("parted /dev/sda mklabel gpt", [(PART, ("/dev/sda",))]),
        ("parted /dev/sda rm unit", [(PART, ("/dev/sda",))]),
        ("parted -s /dev/sda", [(PART, ("/dev/sda",))]),
        ("parted --list", []),
        ("mkfs.ext4 /dev/sdb1", [(FMT, ("/dev/sdb1",))]),
        ("mkfs.ext4 -h", []),
        ("mkfs.ext4 --version", []),
        ("mkfs.ext4 -V /dev/sdb1", [(FMT, ("/dev/sdb1",))]),  # -V with a device: not alone
        ("mkfs.ext4", []),
        ("newfs_msdos /dev/disk2", [(FMT, ("/dev/disk2",))]),
        ("mkfs_ext4 /dev/sdb", [(FMT, ("/dev/sdb",))]),
        ("mformat /dev/fd0", [(FMT, ("/dev/fd0",))]),
        ("mkfsx /dev/sdb", []),
        ("wipefs /dev/sdb", []),
        ("wipefs /dev/sda", []),  # the `a` of a device name is no -a
        ("wipefs --all=x /dev/sdb", [(FMT, ("/dev/sdb",))]),
        ("wipefs -a /dev/sdb", [(FMT, ("/dev/sdb",))]),
        ("wipefs -fa /dev/sdb", [(FMT, ("/dev/sdb",))]),
        ("wipefs -o 0x1 /dev/sdb", [(FMT, ("/dev/sdb",))]),
        ("wipefs --all /dev/sdb", [(FMT, ("/dev/sdb",))]),
        ("wipefs --offset=0x1 /dev/sdb", [(FMT, ("/dev/sdb",))]),
        ("wipefs --force /dev/sdb", []),
        ("wipefs -a --no-act /dev/sdb", []),
        ("wipefs --help", []),
        ("cryptsetup luksFormat /dev/sdb1", [(FMT, ("/dev/sdb1",))]),
        ("cryptsetup open --type plain /dev/sdb1 x", [(FMT, ("/dev/sdb1",))]),
        ("cryptsetup open /dev/sdb1 x", []),
        ("cryptsetup luksFormat", [(FMT, ("(a device)",))]),
        ("zpool status", []),
        ("zpool list recreated", []),  # a word, not a part of one
        ("hdparm /dev/sda --security-erase NULL", [(FMT, ("/dev/sda",))]),
        ("nvme list", []),
        ("mdadm -C /dev/md0 /dev/sdb", [(FMT, ("/dev/md0", "/dev/sdb"))]),
        ("diskutil list", []),
        ("hdparm -I /dev/sda", []),
    ],
)
def test_each_disk_finding_names_its_devices(command, expected):
    assert disk_findings(command) == expected


def test_a_device_finding_acts_nowhere_in_a_tree(inv):
    from interlock.engine.rules.disk import check_disk

    (finding,) = check_disk(inv("dd if=x of=/dev/sda", "sub"))
    assert finding.cwd is None  # a device lies outside every worktree


def test_a_filesystem_made_in_a_file_is_judged_as_that_file():
    ((rule_id, paths),) = disk_findings("mkfs.ext4 -F disk.img")
    assert (rule_id, paths) == (FMT, ("disk.img",))
    assert disk_findings('mkfs.ext4 "$X"') == [(FMT, ('"$X"',))]  # a device or a file
    assert disk_findings("mkfs.ext4 -F") == []
    assert disk_findings("mkfs.ext4 -L label disk.img") == [(FMT, ("disk.img",))]  # the last
