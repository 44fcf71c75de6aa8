BEGIN { this->p = (int *)alloca(4); trace(this->p->a); }
