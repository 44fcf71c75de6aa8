/* a pointer to a struct only declared cannot be dereferenced */
struct fwd;
BEGIN { this->p = (struct fwd *)alloca(8); this->s = *this->p; }
