/* Casts between integers and pointers; NULL; stringof(). */
#pragma D option quiet

BEGIN
{
	this->s = (char *)alloca(8);
	this->s[0] = 'h'; this->s[1] = 'e'; this->s[2] = 'y';
	this->v = (void *)this->s;
	this->l = (uintptr_t)this->v;
	this->back = (char *)this->l;
	printf("%s %d %d %d\n", stringof(this->back), this->l != 0,
	    (int)(char)0x1ff, NULL == 0);
	printf("%d\n", strlen(stringof(this->s)));
	printf("%s\n", this->s == "hey" ? "equal" : "different");
	exit(0);
}
