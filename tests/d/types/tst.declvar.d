/* Variables declared with a type before use. */
#pragma D option quiet

int x;
self uint8_t small;
this long l;
string names[int];
long long big[string, int];

BEGIN
{
	x = 5;
	self->small = 257;
	this->l = x * 3;
	names[1] = "one";
	big["a", 2] = 1LL << 40;
	printf("%d %d %d %s %d\n", x, self->small, this->l, names[1],
	    big["a", 2]);
	exit(0);
}
