struct s { int a:3; };
BEGIN { trace(offsetof(struct s, a)); }
