BEGIN
/"a"/
{
}
