/*
 * procfs.d: curpsinfo and curlwpsinfo, the process and the thread that
 * hit the probe, as psinfo_t and lwpsinfo_t with illumos's layout.
 *
 * There is no kernel structure to translate when tracing user
 * processes: the translators take a struct task_struct * as DTrace for
 * Linux's do.  A null one (curpsinfo, curlwpsinfo) is the thread that
 * fired the probe; another is a task a probe's argument names, which
 * the daemon knows by that number (the proc provider's args[], 1 to 3).
 * Each member reads only what it needs, when a clause uses it, through
 * the built-in __psinfo[] whose index is the task's number << 8 | one
 * of dif.h's DIF_PSINFO_*: the daemon reads /proc then (dtd_host.c), or
 * for pr_psargs and pr_dmodel, once per process image (dtd_target.c).
 *
 * A member Linux has no value for (pr_flag, pr_wchan, pr_cpu,
 * pr_oldpri, pr_taskid, pr_zoneid, ...) is left out, so that a program
 * that uses it is refused when compiled ("translator does not define
 * conversion for member") rather than given a made-up number; so is
 * pr_nice, which illumos's translator leaves out too.
 */

struct task_struct;

typedef id_t	taskid_t;
typedef id_t	projid_t;
typedef id_t	poolid_t;
typedef id_t	zoneid_t;
typedef id_t	psetid_t;
typedef char	__psinfo_fname_t[16];	/* pr_fname, PRFNSZ bytes */
typedef struct timestruc {
	long	tv_sec;
	long	tv_nsec;
} timestruc_t;

/* pr_sname and pr_state */
inline char SSLEEP = 1;
inline char SRUN = 2;
inline char SZOMB = 3;
inline char SSTOP = 4;
inline char SIDL = 5;
inline char SONPROC = 6;
inline char SWAIT = 7;

/* pr_dmodel */
inline char PR_MODEL_ILP32 = 1;
inline char PR_MODEL_LP64 = 2;
inline char PR_MODEL_NATIVE = 2;

typedef struct lwpsinfo {
	int		pr_flag;
	id_t		pr_lwpid;	/* the thread id */
	uintptr_t	pr_addr;
	uintptr_t	pr_wchan;
	char		pr_stype;
	char		pr_state;	/* SONPROC for the thread that fired */
	char		pr_sname;	/* 'O' then; else as /proc says */
	char		pr_nice;
	short		pr_syscall;
	char		pr_oldpri;
	char		pr_cpu;
	int		pr_pri;		/* the kernel's priority, 0 to 139 */
	ushort_t	pr_pctcpu;
	ushort_t	pr_pad;
	timestruc_t	pr_start;
	timestruc_t	pr_time;
	char		pr_clname[8];	/* scheduling class, as ps(1) names it */
	char		pr_name[16];
	processorid_t	pr_onpro;	/* the CPU of the hit */
	processorid_t	pr_bindpro;
	psetid_t	pr_bindpset;
	int		pr_lgrp;
	int		pr_filler[4];
} lwpsinfo_t;

typedef struct psinfo {
	int		pr_flag;
	int		pr_nlwp;	/* threads */
	pid_t		pr_pid;
	pid_t		pr_ppid;
	pid_t		pr_pgid;
	pid_t		pr_sid;
	uid_t		pr_uid;
	uid_t		pr_euid;
	gid_t		pr_gid;
	gid_t		pr_egid;
	uintptr_t	pr_addr;
	size_t		pr_size;
	size_t		pr_rssize;
	size_t		pr_pad1;
	unsigned long	pr_ttydev;	/* Linux's device number, or -1 */
	ushort_t	pr_pctcpu;
	ushort_t	pr_pctmem;
	timestruc_t	pr_start;
	timestruc_t	pr_time;
	timestruc_t	pr_ctime;
	char		pr_fname[16];	/* execname */
	char		pr_psargs[80];	/* the arguments, joined by spaces */
	int		pr_wstat;
	int		pr_argc;	/* as the exec left them on */
	uintptr_t	pr_argv;	/* the initial stack */
	uintptr_t	pr_envp;
	char		pr_dmodel;	/* PR_MODEL_ILP32 or PR_MODEL_LP64 */
	char		pr_pad2[3];
	taskid_t	pr_taskid;
	projid_t	pr_projid;
	int		pr_nzomb;
	poolid_t	pr_poolid;
	zoneid_t	pr_zoneid;
	id_t		pr_contract;
	int		pr_filler[1];
	lwpsinfo_t	pr_lwp;
} psinfo_t;

translator psinfo_t < struct task_struct *T > {
	pr_nlwp = __psinfo[(uintptr_t)T << 8 | 4];
	pr_pid = __psinfo[(uintptr_t)T << 8 | 20];
	pr_ppid = __psinfo[(uintptr_t)T << 8 | 21];
	pr_pgid = __psinfo[(uintptr_t)T << 8 | 0];
	pr_sid = __psinfo[(uintptr_t)T << 8 | 1];
	pr_uid = __psinfo[(uintptr_t)T << 8 | 22];
	pr_euid = __psinfo[(uintptr_t)T << 8 | 2];
	pr_gid = __psinfo[(uintptr_t)T << 8 | 23];
	pr_egid = __psinfo[(uintptr_t)T << 8 | 3];
	pr_addr = (uintptr_t)T;
	pr_size = __psinfo[(uintptr_t)T << 8 | 15];
	pr_rssize = __psinfo[(uintptr_t)T << 8 | 16];
	pr_ttydev = __psinfo[(uintptr_t)T << 8 | 9];
	pr_start = *(timestruc_t *)__psinfo[(uintptr_t)T << 8 | 13];
	pr_time = *(timestruc_t *)__psinfo[(uintptr_t)T << 8 | 14];
	pr_fname = *(__psinfo_fname_t *)__psinfo[(uintptr_t)T << 8 | 19];
	pr_psargs = stringof((char *)__psinfo[(uintptr_t)T << 8 | 6]);
	pr_argc = __psinfo[(uintptr_t)T << 8 | 10];
	pr_argv = __psinfo[(uintptr_t)T << 8 | 11];
	pr_envp = __psinfo[(uintptr_t)T << 8 | 12];
	pr_dmodel = __psinfo[(uintptr_t)T << 8 | 5];
};

translator lwpsinfo_t < struct task_struct *T > {
	pr_lwpid = __psinfo[(uintptr_t)T << 8 | 24];
	pr_addr = (uintptr_t)T;
	pr_state = __psinfo[(uintptr_t)T << 8 | 26];
	pr_sname = __psinfo[(uintptr_t)T << 8 | 27];
	pr_pri = __psinfo[(uintptr_t)T << 8 | 7];
	pr_start = *(timestruc_t *)__psinfo[(uintptr_t)T << 8 | 17];
	pr_time = *(timestruc_t *)__psinfo[(uintptr_t)T << 8 | 18];
	pr_clname = stringof((char *)__psinfo[(uintptr_t)T << 8 | 8]);
	pr_onpro = __psinfo[(uintptr_t)T << 8 | 25];
};

inline psinfo_t *curpsinfo = xlate <psinfo_t *> ((struct task_struct *)0);
inline lwpsinfo_t *curlwpsinfo =
    xlate <lwpsinfo_t *> ((struct task_struct *)0);
