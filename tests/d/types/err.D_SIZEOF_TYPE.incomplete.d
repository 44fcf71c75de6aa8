struct s;
BEGIN { trace(sizeof (struct s)); }
