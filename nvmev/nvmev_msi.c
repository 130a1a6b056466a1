// SPDX-License-Identifier: GPL-2.0
/*
 * MSI-X delivery when the kernel has no MSI domain for our bus.
 *
 * nvmev_pci.c raises a vector by retriggering the Linux interrupt the
 * x86 MSI domain allocated for it. With x86 interrupt remapping on
 * (intel-iommu or AMD-Vi with intremap), the kernel keeps no default PCI
 * MSI domain: every device is given its IOMMU's remapping domain, and a
 * function on our private segment, which no IOMMU covers, gets none; the
 * host's pci_alloc_irq_vectors() would fail and its driver with it.
 *
 * So the function gets a domain of the module's own, as the VMD driver
 * gives its child devices: its interrupts exist only in software. Raising
 * one runs its handler in hard interrupt context on the CPU its affinity
 * names, through an IPI as a real MSI would arrive, so the host's
 * interrupt handler runs where and how it expects.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq.h>
#include <linux/irq_work.h>
#include <linux/irqdomain.h>
#include <linux/msi.h>

#include "nvmev.h"

/* an address and data of the usual x86 form: only the table sees them */
static void nvmev_msi_compose(struct irq_data *d, struct msi_msg *msg)
{
	msg->address_hi = 0;
	msg->address_lo = 0xfee00000;
	msg->data = d->hwirq & 0xffff;
}

/* any one CPU of the mask: the one the next raise runs on */
static int nvmev_msi_set_affinity(struct irq_data *d,
				  const struct cpumask *mask, bool force)
{
	unsigned int cpu = cpumask_first_and(mask, cpu_online_mask);

	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	irq_data_update_effective_affinity(d, cpumask_of(cpu));
	return IRQ_SET_MASK_OK_DONE;
}

/* until no raise of @v is pending or running: an IPI away at most */
static void nvmev_msi_quiesce(struct nvmev_msi_vec *v)
{
	while (atomic_read(&v->inflight))
		cpu_relax();
}

/* a vector's interrupt is being freed: no raise of it may still run */
static void nvmev_msi_free(struct irq_domain *domain,
			   struct msi_domain_info *info, unsigned int virq)
{
	struct nvmev_dev *dev = info->data;
	unsigned int v;

	for (v = 0; v < NVMEV_NR_VECTORS; v++)
		if (READ_ONCE(dev->msi_vec[v].virq) == virq)
			nvmev_msi_quiesce(&dev->msi_vec[v]);
}

static struct irq_chip nvmev_msi_chip = {
	.name = "nvmev-MSI",
	.irq_compose_msi_msg = nvmev_msi_compose,
	.irq_set_affinity = nvmev_msi_set_affinity,
};

static struct msi_domain_ops nvmev_msi_ops = {
	.msi_free = nvmev_msi_free,
};

/*
 * In hard interrupt context on the vector's CPU, like an arriving MSI. A
 * raise that comes while the handler runs is delivered again after it.
 */
static void nvmev_msi_deliver(struct nvmev_msi_vec *v)
{
	clear_bit(0, &v->pending);
	generic_handle_irq(READ_ONCE(v->virq));
	atomic_dec(&v->inflight);
}

static void nvmev_msi_work(struct irq_work *work)
{
	nvmev_msi_deliver(container_of(work, struct nvmev_msi_vec, work));
}

static void nvmev_msi_ipi(void *info)
{
	nvmev_msi_deliver(info);
}

/*
 * Give the function a domain of ours if the kernel gave it none (interrupt
 * remapping); 0 with dev->msi_domain NULL if it has one.
 */
int nvmev_msi_init(struct nvmev_dev *dev)
{
	struct msi_domain_info *info = &dev->msi_info;
	struct fwnode_handle *fn;
	unsigned int v;

	if (dev_get_msi_domain(&dev->pdev->dev))
		return 0;
	for (v = 0; v < NVMEV_NR_VECTORS; v++) {
		init_irq_work(&dev->msi_vec[v].work, nvmev_msi_work);
		INIT_CSD(&dev->msi_vec[v].csd, nvmev_msi_ipi, &dev->msi_vec[v]);
	}
	fn = irq_domain_alloc_named_id_fwnode("nvmev-MSI", dev->sysdata.domain);
	if (!fn)
		return -ENOMEM;
	info->flags = MSI_FLAG_USE_DEF_DOM_OPS | MSI_FLAG_USE_DEF_CHIP_OPS |
		      MSI_FLAG_PCI_MSIX;
	info->ops = &nvmev_msi_ops;
	info->chip = &nvmev_msi_chip;
	info->handler = handle_simple_irq;
	info->handler_name = "simple";
	info->data = dev;
	dev->msi_domain = nvmev_msi_create_domain(fn, info, NVMEV_NR_VECTORS);
	if (!dev->msi_domain) {
		irq_domain_free_fwnode(fn);
		pr_err("no MSI domain for the function and none could be made: MSI-X cannot be delivered\n");
		return -ENOMEM;
	}
	dev_set_msi_domain(&dev->pdev->dev, dev->msi_domain);
	pr_info("the kernel has no MSI domain for %04x:00 (interrupt remapping): MSI-X through the module's own\n",
		dev->sysdata.domain);
	return 0;
}

/* After the host let go of the vectors and the worker stopped. */
void nvmev_msi_exit(struct nvmev_dev *dev)
{
	struct fwnode_handle *fn;
	unsigned int v;

	if (!dev->msi_domain)
		return;
	/*
	 * A delivery drops inflight from inside its irq_work, whose core
	 * still clears the work's busy bit after that: the work is part of
	 * the device freed after this returns, so wait for the core too.
	 */
	for (v = 0; v < NVMEV_NR_VECTORS; v++) {
		nvmev_msi_quiesce(&dev->msi_vec[v]);
		irq_work_sync(&dev->msi_vec[v].work);
	}
	fn = dev->msi_domain->fwnode;
	irq_domain_remove(dev->msi_domain);
	irq_domain_free_fwnode(fn);
	dev->msi_domain = NULL;
}

/*
 * Raise @vector (Linux interrupt @virq) in our domain: on the CPU of its
 * effective affinity (an IPI; on this CPU a self-IPI through irq_work),
 * or this one if that is offline. A raise still pending absorbs this
 * one, as a pending edge does.
 */
void nvmev_msi_raise(struct nvmev_dev *dev, u16 vector, unsigned int virq)
{
	struct nvmev_msi_vec *v = &dev->msi_vec[vector];
	struct irq_data *d = irq_get_irq_data(virq);
	unsigned int cpu;

	if (!d || !nvmev_msi_own_level(d) ||
	    nvmev_msi_own_level(d)->domain != dev->msi_domain)
		return;
	if (test_and_set_bit(0, &v->pending))
		return;
	atomic_inc(&v->inflight);
	WRITE_ONCE(v->virq, virq);
	cpu = cpumask_first(irq_data_get_effective_affinity_mask(d));
	preempt_disable();
	if ((cpu >= nr_cpu_ids || !cpu_online(cpu) || cpu == smp_processor_id() ||
	     smp_call_function_single_async(cpu, &v->csd)) &&
	    !irq_work_queue(&v->work))
		atomic_dec(&v->inflight);	/* one delivery is on its way */
	preempt_enable();
}
