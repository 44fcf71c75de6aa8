/*
 * Members of thread-local structs, elements of thread-local arrays and
 * members of thread-local associative arrays' structs are assigned in
 * place, the variable made zero-filled by the first store.
 */
#pragma D option quiet

struct pt {
	int	x;
	int	y;
	struct {
		char	c;
		long	v[3];
	} in;
};

self struct pt s;
self int arr[5];
self struct pt m[string];

BEGIN
{
	self->s.x = 5;
	self->s.y = self->s.x * 3;
	self->s.x |= 0x100;
	self->s.in.c = 'q';
	self->s.in.v[1] = -7;
	self->s.in.v[2] += 40;
	self->arr[4] = 44;
	self->arr[0] = self->arr[4] / 4;
	self->m["k"].y = 6;
	self->m["k"].in.v[0]++;
}

BEGIN
{
	printf("s: %x %d %c %d %d %d\n", self->s.x, self->s.y, self->s.in.c,
	    self->s.in.v[0], self->s.in.v[1], self->s.in.v[2]);
	printf("arr: %d %d %d %d %d\n", self->arr[0], self->arr[1],
	    self->arr[2], self->arr[3], self->arr[4]);
	printf("m: %d %d %d\n", self->m["k"].x, self->m["k"].y,
	    self->m["k"].in.v[0]);
	self->s = 0;
	self->s.y = 1;
	printf("s again: %d %d %d\n", self->s.x, self->s.y, self->s.in.v[2]);
	exit(0);
}
