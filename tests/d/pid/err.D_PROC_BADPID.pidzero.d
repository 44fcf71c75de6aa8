/* no process has pid 0: the description is refused before any lookup */
pid0:a.out:main:entry
{
}
