struct s { int a; };
BEGIN { x = 1; trace(x->a); }
