/* a struct declared but never defined has no members */
struct s *p;
BEGIN { trace(p->a); }
