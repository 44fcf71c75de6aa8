#pragma D option quiet
#pragma D option strsize=6

/*
 * A string holds strsize characters, whatever keeps it: each store,
 * each subroutine's result and each record keeps six here and cuts the
 * seventh.
 */
string g;

BEGIN
{
	self->t = "qwerty";
	this->l = "qwertyu";
	g = "asdfgh";
	a["zxcvbnm"] = "poiuyt";
	printf("%s|%s|%s|%s\n", self->t, this->l, g, a["zxcvbn"]);
	printf("%s|%s|%s\n", strjoin("abc", "def"), substr("0123456789", 2),
	    toupper("abcdefgh"));
	printf("%s|%s|%s\n", lltostr(-98765), lltostr(987654321),
	    lltostr(0x123456, 16));
	printf("%d %d\n", strlen("12345678"), strlen(self->t));
	@c["lkjhgfdsa"] = count();
	@c["lkjhgf"] = count();
	trace(g);
	printf("\n");
	exit(0);
}

END
{
	printa("%s %@d\n", @c);
}
