/* @@args: -Z */
/* the function "-" takes one address, not a glob of them */
pid1::-:4*
{
}
