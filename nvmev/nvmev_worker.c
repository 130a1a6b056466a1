// SPDX-License-Identifier: GPL-2.0
/*
 * The controller thread: one kthread owns all controller state. Each pass
 * it runs the queue engine (nvmev_ctrl.c) once -- registers, doorbells,
 * commands, due completions -- and the PCI side's pending interrupts and
 * resets. When nothing happens it backs off from spinning to sleeps of
 * growing length, so an idle device costs almost no CPU; a due completion
 * always ends a sleep on time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include "nvmev.h"

#define NVMEV_SLEEP_MIN_US	5
/* a second without commands: the drive is idle, its sleeps may grow */
#define NVMEV_DEEP_IDLE_NS	NSEC_PER_SEC
/* ... to 1/20 of the time it has been idle past that second */
#define NVMEV_DEEP_IDLE_SHARE	20

/* ---- the engine's view of this kernel and of the executors ---- */

static u64 nvmev_op_now(void *ctx)
{
	return ktime_get_ns();
}

static void *nvmev_op_host_ptr(void *ctx, u64 addr, u64 len, bool write)
{
	return nvmev_host_ptr(ctx, addr, len, write);
}

static bool nvmev_op_dma_enabled(void *ctx)
{
	return nvmev_pci_bus_master(ctx);
}

static void nvmev_op_signal(void *ctx, u16 vector)
{
	nvmev_pci_signal(ctx, vector);
}

static void nvmev_op_admin(void *ctx, const struct nvmev_sqe *sqe)
{
	nvmev_admin_execute(ctx, sqe);
}

static void nvmev_op_io(void *ctx, u16 sqid, const struct nvmev_sqe *sqe)
{
	nvmev_io_execute(ctx, sqid, sqe);
}

static void nvmev_op_reset(void *ctx)
{
	nvmev_admin_reset(ctx);
	nvmev_io_reset(ctx);
}

/* held NVM commands: long deallocations (AERs are on the admin queue) */
static void nvmev_op_sq_deleted(void *ctx, u16 sqid)
{
	nvmev_io_sq_deleted(ctx, sqid);
}

static bool nvmev_op_io_ready(void *ctx, u16 sqid, const struct nvmev_sqe *sqe)
{
	return nvmev_io_ready(ctx, sqe);
}

static const struct nvmev_ctrl_ops nvmev_ctrl_ops = {
	.now = nvmev_op_now,
	.host_ptr = nvmev_op_host_ptr,
	.dma_enabled = nvmev_op_dma_enabled,
	.signal = nvmev_op_signal,
	.admin = nvmev_op_admin,
	.io = nvmev_op_io,
	.reset = nvmev_op_reset,
	.sq_deleted = nvmev_op_sq_deleted,
	.io_ready = nvmev_op_io_ready,
};

/* ---- the thread ---- */

/*
 * Sleep @ns. The timer slack is kept to a few microseconds: a sleep that
 * ends at a completion's due time must not post it late.
 */
static void nvmev_idle_sleep(u64 ns)
{
	ktime_t t = ns_to_ktime(ns);

	set_current_state(TASK_INTERRUPTIBLE);
	schedule_hrtimeout_range(&t, min_t(u64, ns / 8, 2 * NSEC_PER_USEC),
				 HRTIMER_MODE_REL);
}

/*
 * The host's pace: once nothing is outstanding, how long the host takes
 * to send its next command (a synchronous reader's interrupt, wake-up
 * and system call). Spinning that long after a completion catches the
 * command at once; falling asleep instead adds a timer wake-up to every
 * I/O, which at QD1 costs more than the I/O itself. A host slower than
 * spin_max_us gets no spinning beyond spin_us: the thread sleeps, and an
 * idle drive costs almost nothing either way.
 */
struct nvmev_pace {
	u64 quiet_since;		/* nothing outstanding since; 0: busy */
	u64 fetched;			/* the engine's count at the last pass */
	u64 gap_ns;			/* moving average of the host's gaps */
};

static void nvmev_pace_update(struct nvmev_pace *p, const struct nvmev_dev *dev,
			      u64 now)
{
	const struct nvmev_ctrl *c = &dev->ctrl;
	/* one long pause must not make a fast host look slow for long */
	u64 cap = 4ull * dev->params.spin_max_us * NSEC_PER_USEC;

	if (c->stats.fetched != p->fetched) {
		if (p->quiet_since)
			p->gap_ns = (7 * p->gap_ns +
				     min(now - p->quiet_since, cap)) / 8;
		p->fetched = c->stats.fetched;
		p->quiet_since = 0;
	}
	if (!p->quiet_since && nvmev_ctrl_quiet(c))
		p->quiet_since = now;
}

/* how long to keep spinning after the last work */
static u64 nvmev_pace_spin_ns(const struct nvmev_pace *p,
			      const struct nvmev_dev *dev)
{
	u64 base = dev->params.spin_us * NSEC_PER_USEC;
	u64 max_ns = dev->params.spin_max_us * NSEC_PER_USEC;

	if (p->gap_ns > max_ns)
		return base;
	return max(base, min(max_ns, 2 * p->gap_ns + base));
}

/*
 * The longest sleep after @idle_ns without work. A sleep is how long a
 * command to an idle drive may wait to be seen, and every wake-up costs
 * (under TCG 0.1-0.4 ms of a CPU): sleep_max_us while the host may come
 * back at any moment, then a growing 5 % of the time the drive has been
 * idle past its first second, up to idle_sleep_us. A host that paused
 * for t pays at most 5 % of t for it; a drive left alone wakes
 * 1 s / idle_sleep_us times a second.
 */
static u64 nvmev_sleep_max_ns(const struct nvmev_dev *dev, u64 idle_ns)
{
	u64 max_ns = dev->params.sleep_max_us * NSEC_PER_USEC, deep_ns;

	if (idle_ns <= NVMEV_DEEP_IDLE_NS)
		return max_ns;
	deep_ns = min_t(u64, (idle_ns - NVMEV_DEEP_IDLE_NS) / NVMEV_DEEP_IDLE_SHARE,
			dev->params.idle_sleep_us * NSEC_PER_USEC);
	return max(max_ns, deep_ns);
}

static int nvmev_worker(void *arg)
{
	struct nvmev_dev *dev = arg;
	u64 last_work = ktime_get_ns(), sleep_ns = NVMEV_SLEEP_MIN_US * 1000ull;
	struct nvmev_pace pace = { 0 };

	while (!kthread_should_stop()) {
		u64 now, next;
		int work;

		work = nvmev_pci_poll(dev);
		work += nvmev_offline_poll(dev);
		/* held work keeps the thread from sleeping until it is done */
		work += nvmev_io_background(dev);
		work += nvmev_ctrl_poll(&dev->ctrl, &next);
		now = ktime_get_ns();
		nvmev_pace_update(&pace, dev, now);
		if (work) {
			last_work = now;
			sleep_ns = NVMEV_SLEEP_MIN_US * 1000ull;
			cond_resched();
			continue;
		}
		/*
		 * Spinning is polling, as a user-level driver's reactor polls:
		 * no cpu_relax() between passes. On hardware a pass is a few
		 * loads; under QEMU's TCG each PAUSE leaves translated code and
		 * takes the emulator's global lock, which the host's vCPU needs
		 * for every interrupt it takes.
		 */
		if (now - last_work < nvmev_pace_spin_ns(&pace, dev) &&
		    next > now + NSEC_PER_USEC) {
			cond_resched();
			continue;
		}
		/* idle: let the model use the time, then sleep */
		mutex_lock(&dev->model_lock);
		ftl_idle(dev->ftl, now);
		mutex_unlock(&dev->model_lock);
		if (next <= now + NSEC_PER_USEC) {
			cond_resched();
			continue;
		}
		nvmev_idle_sleep(min(next - now, sleep_ns));
		sleep_ns = min(sleep_ns * 2,
			       nvmev_sleep_max_ns(dev, now - last_work));
	}
	return 0;
}

int nvmev_worker_start(struct nvmev_dev *dev)
{
	int ret;

	memset_io(dev->bar, 0, NVMEV_BAR_SIZE);
	ret = nvmev_io_init(dev);
	if (ret)
		return ret;
	ret = nvmev_ctrl_init(&dev->ctrl, &nvmev_ctrl_ops, dev, dev->bar,
			      dev->params.io_queues);
	if (ret) {
		nvmev_io_exit(dev);
		return ret;
	}
	nvmev_admin_reset(dev);

	dev->worker = kthread_create(nvmev_worker, dev, "%s", dev->name);
	if (IS_ERR(dev->worker)) {
		ret = PTR_ERR(dev->worker);
		dev->worker = NULL;
		nvmev_ctrl_exit(&dev->ctrl);
		nvmev_io_exit(dev);
		return ret;
	}
	if (dev->params.cpu >= 0)
		kthread_bind(dev->worker, dev->params.cpu);
	wake_up_process(dev->worker);
	/* memory going offline asks the thread about its rings */
	ret = nvmev_offline_watch(dev);
	if (ret) {
		kthread_stop(dev->worker);
		dev->worker = NULL;
		nvmev_ctrl_exit(&dev->ctrl);
		nvmev_io_exit(dev);
	}
	return ret;
}

void nvmev_worker_stop(struct nvmev_dev *dev)
{
	if (dev->worker) {
		nvmev_offline_unwatch(dev);
		kthread_stop(dev->worker);
	}
	dev->worker = NULL;
	nvmev_ctrl_exit(&dev->ctrl);
	nvmev_io_exit(dev);
}
