struct in { int a; };
struct out { int x; int y; };
translator struct out < struct in *P > { x = P->a; };
BEGIN { this->p = (struct in *)alloca(4); trace(xlate <struct out *>(this->p)->y); }
