/* a stack() key keeps its depth: stack(4) then stack(6) in one key */
BEGIN
{
	@[stack(4)] = count();
	@[stack(6)] = count();
}
