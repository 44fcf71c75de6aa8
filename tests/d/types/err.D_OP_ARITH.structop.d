struct s { int a; };
BEGIN { this->p = (struct s *)alloca(8); this->q = (struct s *)alloca(8); *this->p += *this->q; }
