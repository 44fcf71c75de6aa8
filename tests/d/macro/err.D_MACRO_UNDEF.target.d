pid$target:::entry
{
}
