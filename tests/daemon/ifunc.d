/*
 * GNU IFUNCs under the pid provider (pid.sh, uprobe.sh), on
 * tests/triggers/ifunc N: the trigger's own pick, whose resolver chooses
 * pick_fast, and glibc's strlen and memcpy, chosen by the CPU, called
 * from work(): every entry and return, with their arguments and values.
 */
pid$target:a.out:pick:entry { @c[probefunc] = count(); @a = sum(arg0); }
pid$target:a.out:pick:return { @r = sum(arg1); }
pid$target:a.out:work:entry { self->in = 1; }
pid$target:libc.so.6:strlen:entry, pid$target:libc.so.6:memcpy:entry
/self->in/ { @c[probefunc] = count(); }
pid$target:libc.so.6:strlen:return /self->in/ { @s = sum(arg1); }
pid$target:a.out:work:return { self->in = 0; }
END { printa("%s %@d\n", @c); printa("pick %@d %@d, strlen %@d\n", @a, @r, @s); }
