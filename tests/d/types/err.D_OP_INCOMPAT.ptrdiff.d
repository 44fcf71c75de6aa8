BEGIN { this->p = (int *)alloca(8); this->c = (char *)alloca(8); trace(this->p - this->c); }
