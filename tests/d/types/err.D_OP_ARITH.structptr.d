/* arithmetic is for integers and pointers, not structs */
struct s { int a; };
BEGIN { this->p = (struct s *)alloca(4); trace(*this->p + 1); }
