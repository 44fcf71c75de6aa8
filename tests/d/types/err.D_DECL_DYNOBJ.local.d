struct big { char b[300]; };
BEGIN { this->p = (struct big *)alloca(sizeof (struct big)); this->s = *this->p; }
