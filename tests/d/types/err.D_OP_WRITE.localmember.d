/* a clause-local struct is a copy: a store to a member would be lost */
struct q { int a; };
BEGIN { this->s = *(struct q *)alloca(4); this->s.a = 1; }
