struct s { int a; };
BEGIN { this->p = (struct s *)alloca(4); trace((int)*this->p); }
