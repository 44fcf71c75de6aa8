struct in { int a; };
struct out { int x; };
BEGIN { this->p = (int *)alloca(4); trace(xlate <struct out *>(this->p)->x); }
