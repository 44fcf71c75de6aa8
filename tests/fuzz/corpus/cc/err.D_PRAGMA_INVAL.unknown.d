#pragma D nosuchdirective

BEGIN
{
}
