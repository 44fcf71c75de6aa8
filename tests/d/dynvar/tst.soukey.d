/*
 * A struct may key an associative array: equal bytes are the same key,
 * different bytes another.
 */
#pragma D option quiet
struct k { int a; char b; };
this struct k k1;
this struct k k2;
BEGIN
{
	this->k1.a = 1; this->k1.b = 'x';
	this->k2.a = 1; this->k2.b = 'y';
	m[this->k1] = 10;
	m[this->k2] = 20;
	this->k2.b = 'x';
	printf("%d %d\n", m[this->k1], m[this->k2]);
	this->k2.a = 2;
	printf("%d\n", m[this->k2]);
	exit(0);
}
