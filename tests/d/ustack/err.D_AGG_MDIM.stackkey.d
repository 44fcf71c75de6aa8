BEGIN
{
	@[ustack(3)] = count();
}

BEGIN
{
	@[uaddr(0)] = count();
}
