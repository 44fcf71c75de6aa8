struct s { int a; };
BEGIN { this->p = (struct s *)alloca(4); trace(stringof(*this->p)); }
