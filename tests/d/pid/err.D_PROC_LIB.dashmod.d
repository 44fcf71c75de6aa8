/* @@args: -Z */
/* the function "-" (an absolute address) goes only with a.out */
pid1:libc.so.6:-:1000
{
}
