package sysprof

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// blockDevice is the whole disk behind a mount.
type blockDevice struct {
	name       string // e.g. "sda" for a mount of /dev/sda1
	rotational bool
}

// findBlockDevice maps a device number to its whole disk through sysfs
// under root: /sys/dev/block/MAJ:MIN/uevent names the device, a partition
// is mapped to the disk under /sys/block that holds it, and the disk's
// queue/rotational tells spinning disks from flash. It reports false for
// anonymous devices (major 0: tmpfs, NFS, overlay, btrfs subvolumes, …).
func findBlockDevice(root string, major, minor int) (blockDevice, bool, error) {
	if major == 0 {
		return blockDevice{}, false, nil
	}
	uevent := filepath.Join(root, "sys/dev/block", fmt.Sprintf("%d:%d", major, minor), "uevent")
	b, err := os.ReadFile(uevent)
	if os.IsNotExist(err) {
		return blockDevice{}, false, nil
	}
	if err != nil {
		return blockDevice{}, false, fmt.Errorf("block device %d:%d: %w", major, minor, err)
	}
	name, devType := parseUevent(b)
	if name == "" {
		return blockDevice{}, false, fmt.Errorf("block device %d:%d: %s has no DEVNAME", major, minor, uevent)
	}
	disk := name
	if devType == "partition" {
		if disk, err = parentDisk(root, name); err != nil {
			return blockDevice{}, false, fmt.Errorf("block device %d:%d: %w", major, minor, err)
		}
	}
	rot, err := os.ReadFile(filepath.Join(root, "sys/block", disk, "queue/rotational"))
	if err != nil {
		return blockDevice{}, false, fmt.Errorf("block device %s: %w", disk, err)
	}
	return blockDevice{name: disk, rotational: strings.TrimSpace(string(rot)) == "1"}, true, nil
}

// parseUevent returns DEVNAME and DEVTYPE of a sysfs uevent file.
func parseUevent(b []byte) (name, devType string) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "DEVNAME":
			name = v
		case "DEVTYPE":
			devType = v
		}
	}
	return name, devType
}

// parentDisk finds the disk under /sys/block that has the partition as a
// subdirectory (/sys/block/sda/sda1).
func parentDisk(root, part string) (string, error) {
	disks, err := os.ReadDir(filepath.Join(root, "sys/block"))
	if err != nil {
		return "", fmt.Errorf("partition %s: %w", part, err)
	}
	for _, d := range disks {
		if _, err := os.Stat(filepath.Join(root, "sys/block", d.Name(), part)); err == nil {
			return d.Name(), nil
		}
	}
	return "", fmt.Errorf("partition %s: no disk under /sys/block holds it", part)
}
