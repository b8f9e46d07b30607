/* SPDX-License-Identifier: MIT */
/*
 * Cgroups for ingero-record's BPF side, included by record.bpf.c before
 * the target set's rules: the cgroup id of a task (the one its host events
 * carry, SPEC §5.5) and --cgroup's test of whether the calling task is in
 * a cgroup or below it.
 */
#ifndef INGERO_CGROUP_BPF_H
#define INGERO_CGROUP_BPF_H

/* 1: the memory controller's cgroup v1 hierarchy names a task's cgroup
 * (a v1 host without the unified hierarchy); 0: the unified (v2)
 * hierarchy does (unified and hybrid hosts) */
const volatile __u32 targ_cgv1 = 0;
/* --cgroup: only tasks in this cgroup (its id) or below it become
 * targets; 0 = any */
const volatile __u64 targ_cgroup_id = 0;

static __always_inline struct cgroup *task_cgroup(struct task_struct *t)
{
	if (targ_cgv1) {
		int mem = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
		struct cgroup_subsys_state *css = BPF_CORE_READ(t, cgroups, subsys[mem & 15]);
		return css ? BPF_CORE_READ(css, cgroup) : NULL;
	}
	return BPF_CORE_READ(t, cgroups, dfl_cgrp);
}

/* The id of t's cgroup (its kernfs node id, the inode number of its
 * folder under /sys/fs/cgroup), in the hierarchy targ_cgv1 names. */
static __always_inline __u64 task_cgid(struct task_struct *t)
{
	struct cgroup *cg = task_cgroup(t);
	return cg ? BPF_CORE_READ(cg, kn, id) : 0;
}

#define REC_PF_EXITING 0x00000004 /* include/linux/sched.h PF_EXITING */

/* The cgroup id of t, 0 while it exits: cgroup_exit() has (or is about to
 * have) moved it to the root, which would name the wrong cgroup. */
static __always_inline __u64 task_cgid_live(struct task_struct *t)
{
	return BPF_CORE_READ(t, flags) & REC_PF_EXITING ? 0 : task_cgid(t);
}

static __always_inline __u64 current_cgid(void)
{
	if (targ_cgv1)
		return task_cgid((struct task_struct *)bpf_get_current_task());
	return bpf_get_current_cgroup_id();
}

#define REC_MEMCG_DEPTH 8          /* memory cgroup levels walked up at an OOM kill */
#define REC_MEMCG_SLACK 256        /* pages: usage this close to the limit is at it */
#define REC_PAGE_COUNTER_OPEN (1ull << 48) /* pages: a limit at or above is no limit */

/*
 * At an OOM kill of t: the nearest memory cgroup at or above t's whose
 * usage is at its limit (memory.max; v1 memory.limit_in_bytes) - the
 * limit the kill enforced, where the OOM was a cgroup's and not the
 * host's.  Its limit and usage in pages, and its id in the memory
 * controller's hierarchy; 0 when no cgroup is at its limit.
 */
static __always_inline __u64 memcg_at_limit(struct task_struct *t, __u64 *limit, __u64 *usage)
{
	int mem = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct cgroup_subsys_state *css = BPF_CORE_READ(t, cgroups, subsys[mem & 15]);
	/* css is the first member of struct mem_cgroup */
	struct mem_cgroup *mc = (void *)css;
	for (int i = 0; i < REC_MEMCG_DEPTH && mc; i++) {
		__u64 max = BPF_CORE_READ(mc, memory.max);
		__u64 use = (__u64)BPF_CORE_READ(mc, memory.usage.counter);
		if (max && max < REC_PAGE_COUNTER_OPEN && use + REC_MEMCG_SLACK >= max) {
			*limit = max;
			*usage = use;
			return BPF_CORE_READ(mc, css.cgroup, kn, id);
		}
		struct page_counter *up = BPF_CORE_READ(mc, memory.parent);
		mc = up ? (void *)((char *)up - bpf_core_field_offset(struct mem_cgroup, memory)) : NULL;
	}
	return 0;
}

#define REC_CGROUP_DEPTH 32 /* cgroup levels walked up for --cgroup */

/* Is the calling task in --cgroup's cgroup or one below it? */
static __always_inline int in_target_cgroup(void)
{
	if (!targ_cgroup_id)
		return 1;
	struct cgroup *cg = task_cgroup((struct task_struct *)bpf_get_current_task());
	for (int i = 0; i < REC_CGROUP_DEPTH && cg; i++) {
		if (BPF_CORE_READ(cg, kn, id) == targ_cgroup_id)
			return 1;
		struct cgroup_subsys_state *up = BPF_CORE_READ(cg, self.parent);
		cg = up ? BPF_CORE_READ(up, cgroup) : NULL;
	}
	return 0;
}

#endif /* INGERO_CGROUP_BPF_H */
