#pragma D option

BEGIN
{
}
