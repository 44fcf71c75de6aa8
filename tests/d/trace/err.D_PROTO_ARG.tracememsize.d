/* the size of tracemem( ) is a size_t: a string is the wrong type */
BEGIN
{
	this->buf = alloca(8);
	tracemem(this->buf, "eight");
}
