/* a struct is neither a scalar nor a pointer: no cast to string */
struct pair { int a, b; };
struct pair pr;

BEGIN
{
	trace((string)pr);
}
