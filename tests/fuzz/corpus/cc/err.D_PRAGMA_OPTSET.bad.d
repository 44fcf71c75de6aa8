#pragma D option nosuchoption=1

BEGIN
{
}
