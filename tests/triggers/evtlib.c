/*
 * evtlib: libevtlib.so, the library of the evt trigger.  Its
 * initialiser calls evt_tick() 3 times: before the program's entry
 * point, after the dynamic linker has mapped it.
 */
int	evt_tick(int);
int	evt_count(void);

static volatile int evt_ticks;

int
evt_tick(int n)
{
	evt_ticks++;
	return n + 1;
}

int
evt_count(void)
{
	return evt_ticks;
}

__attribute__((constructor)) static void
evtlib_init(void)
{
	int i;

	for (i = 0; i < 3; i++)
		evt_tick(i);
}
