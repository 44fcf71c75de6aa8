/* procfs.d already translates a struct task_struct * to lwpsinfo_t */
translator lwpsinfo_t < struct task_struct *L > { pr_lwpid = 7; };
