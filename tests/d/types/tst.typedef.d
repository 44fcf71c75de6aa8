/* typedefs of base types, structs and pointers; the built-in ones (LP64). */
#pragma D option quiet

typedef unsigned char byte_t;
typedef struct pair { int a; int b; } pair_t;
typedef pair_t *pairp_t;

BEGIN
{
	this->p = (pairp_t)alloca(sizeof (pair_t));
	this->p->b = 300;
	x = (byte_t)this->p->b;
	printf("%d %d %d %d\n", sizeof (byte_t), sizeof (pair_t),
	    sizeof (pairp_t), x);
	printf("%d %d %d %d %d %d %d %d\n", sizeof (int8_t), sizeof (int16_t),
	    sizeof (int32_t), sizeof (int64_t), sizeof (uintptr_t),
	    sizeof (size_t), sizeof (ssize_t), sizeof (long));
	printf("%d %d %d\n", (uint8_t)-1, (int8_t)255, (uint16_t)-1);
	exit(0);
}
