/* a thread-local struct's value is a copy: a store to a member is lost */
struct q { int a; };
BEGIN { self->s = *(struct q *)alloca(4); self->s.a = 1; }
