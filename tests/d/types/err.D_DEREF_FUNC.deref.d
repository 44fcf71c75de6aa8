/* a pointer to a function cannot be dereferenced */
BEGIN { this->f = (int (*)(int))0; trace(*this->f); }
