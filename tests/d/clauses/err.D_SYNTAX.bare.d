/* in a file, a probe description alone (here "tick-1s x") is refused */
tick-1s x
{
	exit(0);
}
