// SPDX-License-Identifier: GPL-2.0
/*
 * The virtual PCI bus: a root bus in its own PCI domain holding one NVMe
 * endpoint whose configuration space lives in nvmev_dev.cfg_space and
 * whose BAR0 is the first pages of the registers' memory (nvmev_bar_mem.c:
 * a memory block taken from the kernel, or memmap=). The stock
 * nvme driver binds to it by class code; its MMIO writes land in RAM that
 * the worker thread polls.
 *
 * Interrupts: the host programs MSI-X as usual; the device raises vector
 * N by retriggering the Linux irq the MSI core allocated for it, which on
 * x86 sends that vector to its CPU; with interrupt remapping on, the
 * kernel has no MSI domain for this bus and the module gives it one of
 * its own (nvmev_msi.c). A vector
 * raised while masked (or while Bus Master Enable is off: an MSI-X message
 * is a memory write) is kept pending in the PBA and sent on unmask.
 *
 * Function Level Reset: the host's config write only flags it (it runs
 * under the PCI config lock); the worker carries it out in its next pass,
 * and until then the function answers config reads with all ones, the way
 * a function still in reset does, so the host's post-FLR wait lasts until
 * it is done.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq.h>
#include <linux/msi.h>

#include "nvmev.h"
#include "nvmev_compat.h"

#define NVMEV_DEVICE_ID		0x0001
#define NVMEV_CAP_PM		0x40
#define NVMEV_CAP_MSIX		0x50
#define NVMEV_CAP_EXP		0x60
/* DEVCTL after reset (PCIe r5.0 7.5.3.4) */
#define NVMEV_DEVCTL_DEFAULT	(PCI_EXP_DEVCTL_RELAX_EN | \
				 PCI_EXP_DEVCTL_NOSNOOP_EN | \
				 PCI_EXP_DEVCTL_READRQ_512B)

static void nvmev_cfg_w8(struct nvmev_dev *dev, int off, u8 v)
{
	dev->cfg_space[off] = v;
}

static void nvmev_cfg_w16(struct nvmev_dev *dev, int off, u16 v)
{
	put_unaligned_le16(v, &dev->cfg_space[off]);
}

static void nvmev_cfg_w32(struct nvmev_dev *dev, int off, u32 v)
{
	put_unaligned_le32(v, &dev->cfg_space[off]);
}

static void nvmev_cfg_init(struct nvmev_dev *dev)
{
	u64 bar = dev->memmap_start;

	memset(dev->cfg_space, 0, sizeof(dev->cfg_space));
	nvmev_cfg_w16(dev, PCI_VENDOR_ID, NVMEV_VENDOR_ID);
	nvmev_cfg_w16(dev, PCI_DEVICE_ID, NVMEV_DEVICE_ID);
	nvmev_cfg_w16(dev, PCI_COMMAND, PCI_COMMAND_MEMORY);
	nvmev_cfg_w16(dev, PCI_STATUS, PCI_STATUS_CAP_LIST);
	nvmev_cfg_w8(dev, PCI_REVISION_ID, 1);
	nvmev_cfg_w8(dev, PCI_CLASS_PROG, 0x02);		/* NVM Express */
	nvmev_cfg_w16(dev, PCI_CLASS_DEVICE, PCI_CLASS_STORAGE_EXPRESS >> 8);
	nvmev_cfg_w8(dev, PCI_HEADER_TYPE, PCI_HEADER_TYPE_NORMAL);
	nvmev_cfg_w32(dev, PCI_BASE_ADDRESS_0, lower_32_bits(bar) |
		PCI_BASE_ADDRESS_MEM_TYPE_64);
	nvmev_cfg_w32(dev, PCI_BASE_ADDRESS_1, upper_32_bits(bar));
	nvmev_cfg_w16(dev, PCI_SUBSYSTEM_VENDOR_ID, NVMEV_VENDOR_ID);
	nvmev_cfg_w16(dev, PCI_SUBSYSTEM_ID, NVMEV_DEVICE_ID);
	nvmev_cfg_w8(dev, PCI_CAPABILITY_LIST, NVMEV_CAP_PM);

	/* power management: D0 only */
	nvmev_cfg_w8(dev, NVMEV_CAP_PM + PCI_CAP_LIST_ID, PCI_CAP_ID_PM);
	nvmev_cfg_w8(dev, NVMEV_CAP_PM + PCI_CAP_LIST_NEXT, NVMEV_CAP_MSIX);
	nvmev_cfg_w16(dev, NVMEV_CAP_PM + PCI_PM_PMC, 3);
	nvmev_cfg_w16(dev, NVMEV_CAP_PM + PCI_PM_CTRL, PCI_PM_CTRL_NO_SOFT_RESET);

	/* MSI-X: one vector per queue, table and PBA in BAR0 */
	nvmev_cfg_w8(dev, NVMEV_CAP_MSIX + PCI_CAP_LIST_ID, PCI_CAP_ID_MSIX);
	nvmev_cfg_w8(dev, NVMEV_CAP_MSIX + PCI_CAP_LIST_NEXT, NVMEV_CAP_EXP);
	nvmev_cfg_w16(dev, NVMEV_CAP_MSIX + PCI_MSIX_FLAGS, NVMEV_MAX_QUEUES - 1);
	nvmev_cfg_w32(dev, NVMEV_CAP_MSIX + PCI_MSIX_TABLE, NVMEV_MSIX_OFFSET);
	nvmev_cfg_w32(dev, NVMEV_CAP_MSIX + PCI_MSIX_PBA, NVMEV_PBA_OFFSET);

	/* PCI Express endpoint, v2 capability */
	nvmev_cfg_w8(dev, NVMEV_CAP_EXP + PCI_CAP_LIST_ID, PCI_CAP_ID_EXP);
	nvmev_cfg_w16(dev, NVMEV_CAP_EXP + PCI_EXP_FLAGS,
		      2 | (PCI_EXP_TYPE_ENDPOINT << 4));
	nvmev_cfg_w32(dev, NVMEV_CAP_EXP + PCI_EXP_DEVCAP, PCI_EXP_DEVCAP_FLR | 1);
	nvmev_cfg_w16(dev, NVMEV_CAP_EXP + PCI_EXP_DEVCTL, NVMEV_DEVCTL_DEFAULT);
	nvmev_cfg_w32(dev, NVMEV_CAP_EXP + PCI_EXP_LNKCAP, (4 << 4) | 3); /* x4 Gen3 */
	nvmev_cfg_w16(dev, NVMEV_CAP_EXP + PCI_EXP_LNKSTA, (4 << 4) | 3);
}

/* Bits the host may change in each dword of configuration space. */
static u32 nvmev_cfg_wmask(int dword)
{
	switch (dword) {
	case PCI_COMMAND:
		return PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER |
		       PCI_COMMAND_INTX_DISABLE | PCI_COMMAND_SERR |
		       PCI_COMMAND_PARITY;
	case PCI_BASE_ADDRESS_0:
		return ~(u32)(NVMEV_BAR_SIZE - 1);
	case PCI_BASE_ADDRESS_1:
		return ~0u;
	case PCI_INTERRUPT_LINE:
		return 0xff;
	case NVMEV_CAP_PM + PCI_PM_CTRL:
		return PCI_PM_CTRL_STATE_MASK;
	case NVMEV_CAP_MSIX:
		return (u32)(PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL) << 16;
	case NVMEV_CAP_EXP + PCI_EXP_DEVCTL:
		return 0x7fff;		/* DEVCTL; DEVSTA is read-only here */
	default:
		return 0;
	}
}

static struct nvmev_dev *nvmev_bus_to_dev(struct pci_bus *bus)
{
	struct pci_sysdata *sd = bus->sysdata;

	return container_of(sd, struct nvmev_dev, sysdata);
}

static int nvmev_cfg_read(struct pci_bus *bus, unsigned int devfn, int where,
			  int size, u32 *val)
{
	struct nvmev_dev *dev = nvmev_bus_to_dev(bus);
	unsigned long flags;

	if (devfn != 0 || where < 0 || where + size > sizeof(dev->cfg_space)) {
		*val = ~0u;
		return PCIBIOS_DEVICE_NOT_FOUND;
	}
	raw_spin_lock_irqsave(&dev->cfg_lock, flags);
	if (dev->flr_pending) {
		/* still in reset: the host's pci_dev_wait() keeps waiting */
		*val = ~0u;
		raw_spin_unlock_irqrestore(&dev->cfg_lock, flags);
		return PCIBIOS_SUCCESSFUL;
	}
	switch (size) {
	case 1:
		*val = dev->cfg_space[where];
		break;
	case 2:
		*val = get_unaligned_le16(&dev->cfg_space[where]);
		break;
	default:
		*val = get_unaligned_le32(&dev->cfg_space[where]);
		break;
	}
	raw_spin_unlock_irqrestore(&dev->cfg_lock, flags);
	return PCIBIOS_SUCCESSFUL;
}

static int nvmev_cfg_write(struct pci_bus *bus, unsigned int devfn,
			   int where, int size, u32 val)
{
	struct nvmev_dev *dev = nvmev_bus_to_dev(bus);
	int dword = where & ~3, shift = (where & 3) * 8;
	u32 mask, old, bytes_mask;
	unsigned long flags;

	if (devfn != 0 || where < 0 || where + size > sizeof(dev->cfg_space))
		return PCIBIOS_DEVICE_NOT_FOUND;
	bytes_mask = size == 4 ? ~0u : ((1u << (size * 8)) - 1) << shift;
	mask = nvmev_cfg_wmask(dword) & bytes_mask;
	raw_spin_lock_irqsave(&dev->cfg_lock, flags);
	if (!dev->flr_pending) {	/* a function in reset drops writes */
		old = get_unaligned_le32(&dev->cfg_space[dword]);
		put_unaligned_le32((old & ~mask) | ((val << shift) & mask),
				   &dev->cfg_space[dword]);
		/* Initiate FLR: the worker resets the function */
		if (dword == NVMEV_CAP_EXP + PCI_EXP_DEVCTL &&
		    (val << shift) & bytes_mask & PCI_EXP_DEVCTL_BCR_FLR)
			WRITE_ONCE(dev->flr_pending, true);
	}
	raw_spin_unlock_irqrestore(&dev->cfg_lock, flags);
	return PCIBIOS_SUCCESSFUL;
}

static u16 nvmev_msix_flags(struct nvmev_dev *dev)
{
	return get_unaligned_le16(&dev->cfg_space[NVMEV_CAP_MSIX +
						  PCI_MSIX_FLAGS]);
}

static void __iomem *nvmev_msix_entry(struct nvmev_dev *dev, u16 vector)
{
	return dev->bar + NVMEV_MSIX_OFFSET + vector * PCI_MSIX_ENTRY_SIZE;
}

/* The function's view: MSI-X on, function not masked, DMA allowed. */
static bool nvmev_msix_may_send(struct nvmev_dev *dev, u16 flags)
{
	return !(flags & PCI_MSIX_FLAGS_MASKALL) && nvmev_pci_bus_master(dev);
}

static bool nvmev_msix_vector_masked(struct nvmev_dev *dev, u16 vector)
{
	return readl(nvmev_msix_entry(dev, vector) +
		     PCI_MSIX_ENTRY_VECTOR_CTRL) & PCI_MSIX_ENTRY_CTRL_MASKBIT;
}

static void __iomem *nvmev_pba_word(struct nvmev_dev *dev, u16 vector)
{
	return dev->bar + NVMEV_PBA_OFFSET + (vector / 32) * 4;
}

static void nvmev_msix_send(struct nvmev_dev *dev, u16 vector)
{
	struct irq_data *d;
	unsigned int virq;

	virq = msi_get_virq(&dev->pdev->dev, vector);
	if (!virq)
		return;
	if (dev->msi_domain) {
		nvmev_msi_raise(dev, vector, virq);
		return;
	}
	d = irq_get_irq_data(virq);
	if (d && d->chip && d->chip->irq_retrigger)
		d->chip->irq_retrigger(d);
}

/* The table's reset state: every vector masked, no address, no data. */
static void nvmev_msix_reset(struct nvmev_dev *dev)
{
	u16 v;

	for (v = 0; v < NVMEV_NR_VECTORS; v++) {
		void __iomem *e = nvmev_msix_entry(dev, v);

		writel(0, e + PCI_MSIX_ENTRY_LOWER_ADDR);
		writel(0, e + PCI_MSIX_ENTRY_UPPER_ADDR);
		writel(0, e + PCI_MSIX_ENTRY_DATA);
		writel(PCI_MSIX_ENTRY_CTRL_MASKBIT,
		       e + PCI_MSIX_ENTRY_VECTOR_CTRL);
	}
	for (v = 0; v < NVMEV_NR_VECTORS; v += 32)
		writel(0, nvmev_pba_word(dev, v));
	bitmap_zero(dev->msix_pending, NVMEV_NR_VECTORS);
	dev->nr_msix_pending = 0;
}

static void nvmev_msix_clear_pending(struct nvmev_dev *dev, u16 vector)
{
	void __iomem *pba = nvmev_pba_word(dev, vector);

	__clear_bit(vector, dev->msix_pending);
	dev->nr_msix_pending--;
	writel(readl(pba) & ~BIT(vector % 32), pba);
}

/*
 * Raise MSI-X @vector. Without MSI-X enabled there is nothing to raise
 * (the function has no INTx): the completion is in the CQ for the host's
 * next poll. Masked, or with Bus Master Enable off, the vector is kept
 * pending (its PBA bit) and nvmev_pci_poll() sends it when allowed.
 */
void nvmev_pci_signal(struct nvmev_dev *dev, u16 vector)
{
	u16 flags = nvmev_msix_flags(dev);
	void __iomem *pba;

	if (vector >= NVMEV_NR_VECTORS || !(flags & PCI_MSIX_FLAGS_ENABLE))
		return;
	if (nvmev_msix_may_send(dev, flags) &&
	    !nvmev_msix_vector_masked(dev, vector)) {
		nvmev_msix_send(dev, vector);
		return;
	}
	if (__test_and_set_bit(vector, dev->msix_pending))
		return;
	dev->nr_msix_pending++;
	pba = nvmev_pba_word(dev, vector);
	writel(readl(pba) | BIT(vector % 32), pba);
}

bool nvmev_pci_bus_master(struct nvmev_dev *dev)
{
	return get_unaligned_le16(&dev->cfg_space[PCI_COMMAND]) &
	       PCI_COMMAND_MASTER;
}

/* Send the pending vectors the host has unmasked; true if any. */
static bool nvmev_msix_deliver(struct nvmev_dev *dev)
{
	u16 flags = nvmev_msix_flags(dev);
	bool sent = false;
	unsigned int v;

	if (!(flags & PCI_MSIX_FLAGS_ENABLE)) {
		/* the host freed its vectors: nothing to deliver to */
		for_each_set_bit(v, dev->msix_pending, NVMEV_NR_VECTORS)
			nvmev_msix_clear_pending(dev, v);
		return false;
	}
	if (!nvmev_msix_may_send(dev, flags))
		return false;
	for_each_set_bit(v, dev->msix_pending, NVMEV_NR_VECTORS) {
		if (nvmev_msix_vector_masked(dev, v))
			continue;
		nvmev_msix_clear_pending(dev, v);
		nvmev_msix_send(dev, v);
		sent = true;
	}
	return sent;
}

/*
 * Function Level Reset, in the worker: the controller as after power-on
 * (nvmev_ctrl_flr()), the MSI-X table and PBA, and the config registers
 * an FLR resets. BAR0 keeps its address: the BAR cannot move, and the
 * host's pci_restore_state() writes it back anyway.
 */
static void nvmev_pci_flr(struct nvmev_dev *dev)
{
	unsigned long flags;

	nvmev_ctrl_flr(&dev->ctrl);
	nvmev_msix_reset(dev);
	raw_spin_lock_irqsave(&dev->cfg_lock, flags);
	nvmev_cfg_w16(dev, PCI_COMMAND, 0);
	nvmev_cfg_w16(dev, PCI_STATUS, PCI_STATUS_CAP_LIST);
	nvmev_cfg_w16(dev, NVMEV_CAP_PM + PCI_PM_CTRL, PCI_PM_CTRL_NO_SOFT_RESET);
	nvmev_cfg_w16(dev, NVMEV_CAP_MSIX + PCI_MSIX_FLAGS, NVMEV_NR_VECTORS - 1);
	nvmev_cfg_w16(dev, NVMEV_CAP_EXP + PCI_EXP_DEVCTL, NVMEV_DEVCTL_DEFAULT);
	dev->flr_pending = false;
	raw_spin_unlock_irqrestore(&dev->cfg_lock, flags);
	pr_info("function level reset done\n");
}

bool nvmev_pci_poll(struct nvmev_dev *dev)
{
	bool work = false;

	if (unlikely(READ_ONCE(dev->flr_pending))) {
		nvmev_pci_flr(dev);
		work = true;
	}
	if (likely(!dev->nr_msix_pending))
		return work;
	return nvmev_msix_deliver(dev) || work;
}

/*
 * Remove the root bus pci_scan_bus() made and free its host bridge:
 * pci_remove_root_bus() only unregisters the bridge, and the reference
 * pci_scan_bus() left on it (with the bus's resource windows) is ours to
 * drop -- x86 never removes its own root buses, so nothing else does.
 */
static void nvmev_remove_root_bus(struct pci_bus *bus)
{
	struct pci_host_bridge *bridge = pci_find_host_bridge(bus);

	pci_stop_root_bus(bus);
	pci_remove_root_bus(bus);
	pci_free_host_bridge(bridge);
}

int nvmev_pci_create(struct nvmev_dev *dev)
{
	struct resource *res;
	int domain = dev->sysdata.domain;
	int ret;

	raw_spin_lock_init(&dev->cfg_lock);
	nvmev_cfg_init(dev);
	nvmev_msix_reset(dev);
	dev->pci_ops.read = nvmev_cfg_read;
	dev->pci_ops.write = nvmev_cfg_write;
	dev->sysdata.node = NUMA_NO_NODE;

	/*
	 * The PCI core's bus and device lists change under the rescan lock:
	 * a sysfs rescan or remove, a hotplug driver, or another drive
	 * powering on or off walks them meanwhile. It also makes the
	 * domain's check and its use one step.
	 */
	pci_lock_rescan_remove();
	/* another drive's, or a real one's: say so rather than fail below */
	if (pci_find_bus(domain, 0)) {
		pr_err("%sPCI domain %04x is in use (pci_domain in use by another drive or bus)\n",
		       dev->tag, domain);
		ret = -EEXIST;
		goto err_unlock;
	}
	dev->bus = pci_scan_bus(0, &dev->pci_ops, &dev->sysdata);
	if (!dev->bus) {
		pr_err("cannot create PCI bus in domain %04x (pci_domain in use?)\n",
		       domain);
		ret = -ENODEV;
		goto err_unlock;
	}
	dev->pdev = pci_get_slot(dev->bus, PCI_DEVFN(0, 0));
	if (!dev->pdev) {
		pr_err("virtual NVMe function was not found on its bus\n");
		ret = -ENODEV;
		goto err_bus;
	}
	ret = nvmev_msi_init(dev);
	if (ret)
		goto err_put;
	/*
	 * The BAR lies inside the registers' memory (memmap='s "Reserved"
	 * range or the removed block's resource), where the
	 * load check found its 16 KiB free (dev->claim holds the rest); nest
	 * it there so the driver's request_mem_region() and our teardown see
	 * a properly claimed resource. The PCI core releases it when the
	 * function is removed.
	 */
	res = &dev->pdev->resource[0];
	ret = insert_resource(&iomem_resource, res);
	if (ret) {
		pr_err("BAR0 %pR conflicts with another resource\n", res);
		goto err_put;
	}
	if (res->parent != dev->reservation || res->child) {
		pr_err("BAR0 %pR is no longer free in the reservation\n", res);
		release_resource(res);
		ret = -EBUSY;
		goto err_put;
	}
	pci_bus_add_devices(dev->bus);
	pci_unlock_rescan_remove();
	pr_info("virtual NVMe controller at %04x:00:00.0, BAR0 %pR\n",
		domain, res);
	return 0;

err_put:
	pci_dev_put(dev->pdev);
	dev->pdev = NULL;
err_bus:
	nvmev_remove_root_bus(dev->bus);
	dev->bus = NULL;
	nvmev_msi_exit(dev);
err_unlock:
	pci_unlock_rescan_remove();
	return ret;
}

/*
 * Detach the host's driver and remove the bus. The function stays ours
 * (a reference) until nvmev_pci_release(): the worker may signal it until
 * it stops, and finds its MSI-X vectors gone.
 */
void nvmev_pci_remove(struct nvmev_dev *dev)
{
	if (!dev->bus)
		return;
	pci_lock_rescan_remove();
	nvmev_remove_root_bus(dev->bus);
	pci_unlock_rescan_remove();
	dev->bus = NULL;
}

/* After the worker stopped: drop the function, then its MSI domain. */
void nvmev_pci_release(struct nvmev_dev *dev)
{
	pci_dev_put(dev->pdev);
	dev->pdev = NULL;
	nvmev_msi_exit(dev);
}
