/* no floating-point arithmetic or conversion in D */
BEGIN { this->d = (double *)alloca(8); trace((int)*this->d); }
