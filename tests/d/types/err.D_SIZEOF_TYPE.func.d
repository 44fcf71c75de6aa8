/* sizeof a function type */
BEGIN { trace(sizeof (int (int))); }
