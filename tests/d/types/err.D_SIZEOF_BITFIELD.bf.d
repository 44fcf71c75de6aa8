struct s { int a:3; };
BEGIN { this->p = (struct s *)alloca(4); trace(sizeof (this->p->a)); }
